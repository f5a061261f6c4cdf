// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Writers.h - the output files, each a consumer of the tables --------===//
//
// grains.csv, loops.csv, grains.graphml, trace.json, trace.otf2,
// timeline.svg, run.json and the summary, and the caps above which a file
// holds aggregates instead of every grain. Each writer streams (nothing per
// grain is kept; the per-grain GraphML below its cap and the critical path
// hold the grain graph, GrainDag.h) and does not know the others. OutFile is
// their buffered output with number formatting as the Python grainchunk-graph
// wrote it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_WRITERS_H
#define GRAINCHUNK_GRAPH_WRITERS_H

#include "Results.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace gcg {

/// A file written through a large buffer; write errors (a full disk)
/// throw Error naming the file.
class OutFile {
public:
  explicit OutFile(const std::string &path);
  ~OutFile();
  OutFile(const OutFile &) = delete;
  void close();
  OutFile &put(const char *s, size_t n) {
    if (len + n > sizeof buf)
      flush(n);
    if (n > sizeof buf)
      return raw(s, n);
    std::memcpy(buf + len, s, n);
    len += n;
    return *this;
  }
  OutFile &operator<<(const std::string &s) { return put(s.data(), s.size()); }
  OutFile &operator<<(const char *s) { return put(s, std::strlen(s)); }
  OutFile &operator<<(char c) { return put(&c, 1); }
  OutFile &u(uint64_t v);
  OutFile &i(int64_t v);
  /// Python's fmt(float): an integral value as an integer, else %.6g; NaN
  /// as NA.
  OutFile &num(double v);
  /// A JSON number (Python's repr of a float).
  OutFile &jnum(double v);
  /// jnum(round(v, digits)) (Python's round), digits <= 6, without
  /// formatting a double on the way.
  OutFile &jnumRound(double v, int digits);
  /// printf-style, for the few formatted places.
  OutFile &f(const char *fmt, ...) __attribute__((format(printf, 2, 3)));
  const std::string &path() const { return name; }

private:
  void flush(size_t need);
  OutFile &raw(const char *s, size_t n);
  std::string name;
  std::FILE *fp = nullptr;
  size_t len = 0;
  char buf[1 << 16];
};

/// Python's html.escape (quote=True).
std::string htmlEscape(const std::string &s);
/// A JSON string literal.
std::string jsonString(const std::string &s);
/// A CSV field (RFC 4180: quoted when it holds , " CR or LF).
std::string csvField(const std::string &s);
/// Python's fmt(float) as a string.
std::string fmtNum(double v);
extern const char *const UnknownTime;

/// The outputs --outputs chooses from, in order.
extern const std::vector<std::string> OutputNames;
/// An output's file name ("csv" -> "grains.csv").
std::string outputFile(const std::string &name);

/// The caps: how many grains (over all processes) a file holds one by one.
/// Above them trace.json and grains.graphml hold aggregates (per loop
/// instance and thread, per task creation site or sibling group) and
/// grains.csv is not written unless --outputs names csv; trace.otf2 always
/// has every grain. The options --max-trace-grains, --max-graph-grains and
/// --max-csv-grains change them (docs/grain-graphs.md, "Outputs and their
/// sizes").
struct Caps {
  /// chrome://tracing fails near 256 MB of JSON: about 1 KB per grain here.
  static constexpr uint64_t DefaultTrace = 250000;
  /// A graph of more nodes is more than yEd or Cytoscape draw usefully.
  static constexpr uint64_t DefaultGraph = 25000;
  /// About 270 bytes per grain: 67 MB.
  static constexpr uint64_t DefaultCsv = 250000;
  uint64_t trace = DefaultTrace, graph = DefaultGraph, csv = DefaultCsv;
  /// report.html draws every grain up to it (about 25 bytes per grain in
  /// the page: 2.5 MB), above it per loop instance and thread
  /// (ReportWriter.h).
  static constexpr uint64_t DefaultReport = 100000;
  uint64_t report = DefaultReport;
};

/// Something a file does not hold, and the option that gets it (run.json's
/// left_out, the summary's last lines).
struct LeftOut {
  std::string file, what, option;
};

void writeCsv(const Results &R, const std::string &path);
/// loops.csv: one row per loop instance and thread (always written).
void writeLoopsCsv(const Results &R, const std::string &path);
/// view >= 0: the problem view of flag P_view (problems/<type>.graphml,
/// ProblemViews.h): its grains red, problematic set, the rest dimmed.
void writeGraphml(const Results &R, const std::string &path, int view = -1);
/// grains.graphml above its cap: a node per loop instance and thread, per
/// group of tasks (one generation, join point and creation site); a
/// problem view's groups hold the number of their grains it flags.
void writeGraphmlAggregated(const Results &R, const std::string &path,
                            int view = -1);
void writeTrace(const Results &R, const std::string &path);
/// trace.json above its cap: an event per loop instance and thread, per
/// task creation site and thread (own track).
void writeTraceAggregated(const Results &R, const std::string &path);
/// trace.otf2 (the archive <dir>/<name>.otf2, <name>.def and <name>/).
void writeOtf2(const Results &R, const std::string &dir,
               const std::string &name);
/// Returns whether the picture was aggregated per pixel.
bool writeSvg(const Results &R, const std::string &path);
void writeRunJson(const Results &R, const std::string &path,
                  const std::vector<std::string> &outputs,
                  const std::string &version,
                  const std::vector<LeftOut> &leftOut = {});
/// The summary's lines on what was left out (empty when nothing was).
std::string leftOutText(const std::vector<LeftOut> &leftOut);
/// The per-loop summary (summary.txt, also printed on stderr).
std::string summary(const Results &R);
/// Process p's summary (its grain ids start with Run::prefix(p)).
std::string summaryOf(const Results &R, size_t p);
/// The summary's critical path line ("critical path: span ... ms, ...").
std::string critPathText(const Analysis &an, const CritPath &c);
/// Its figures alone (the report's critical path fact).
std::string critPathFigures(const Analysis &an, const CritPath &c);

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Writers.h - the output files, each a consumer of the tables --------===//
//
// grains.csv, loops.csv, grains.graphml, trace.json, trace.otf2,
// timeline.svg, run.json and the summary, and the caps above which a file
// holds aggregates instead of every grain. Each writer streams (nothing per
// grain is kept; the per-grain GraphML below its cap and the critical path
// hold the grain graph, GrainDag.h) and does not know the others. OutFile is
// their buffered output with the outputs' number formats (an integral value
// as an integer, else %.6g; JSON numbers as shortest round-trip).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_WRITERS_H
#define GRAINCHUNK_GRAPH_WRITERS_H

#include "CoarseGraph.h"
#include "Results.h"

#include <algorithm>
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
  /// Room for n bytes (n at most 4096) at the returned place, for numbers
  /// formatted in place (decU, decI, numAt); done(end) keeps the bytes
  /// written up to end.
  char *room(size_t n) {
    if (len + n > sizeof buf)
      flush(n);
    return buf + len;
  }
  void done(const char *end) { len = size_t(end - buf); }
  /// v's decimal digits (num(v)'s text: at most 40 bytes) at p; return
  /// their end.
  static char *decU(char *p, uint64_t v);
  static char *decI(char *p, int64_t v);
  static char *numAt(char *p, double v);
  const std::string &path() const { return name; }
  /// Bytes written so far (buffered ones included).
  uint64_t size() const { return written + len; }

private:
  void flush(size_t need);
  OutFile &raw(const char *s, size_t n);
  std::string name;
  std::FILE *fp = nullptr;
  uint64_t written = 0;
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

/// The caps. Two per file: how many grains (over all processes) it holds
/// one by one, and how many bytes it may take whatever it holds. Above the
/// grain cap, or where every grain would take more bytes than the byte
/// cap, trace.json, grains.graphml and report.html hold aggregates
/// (CoarseGraph.h): per loop instance and thread, then, while the estimate
/// (bytes per element times elements) or the file written is above the
/// byte cap, blocks of ever more consecutive instances of a loop, then one
/// group per loop and thread and per task creation site; the file left is
/// never above its byte cap. grains.csv is not written above its grain cap
/// unless --outputs names csv; trace.otf2 always has every grain. The
/// options --max-{trace,graph,csv,report}-grains and
/// --max-{trace,graph,report}-bytes change them (docs/grain-graphs.md,
/// "Outputs and their sizes").
struct Caps {
  /// About 350 bytes per grain: 9 MB (chrome://tracing fails near 256 MB).
  static constexpr uint64_t DefaultTrace = 25000;
  /// A graph of more nodes is more than yEd or Cytoscape draw usefully.
  static constexpr uint64_t DefaultGraph = 25000;
  /// About 270 bytes per grain: 7 MB.
  static constexpr uint64_t DefaultCsv = 25000;
  uint64_t trace = DefaultTrace, graph = DefaultGraph, csv = DefaultCsv;
  /// report.html draws every grain up to it (about 25 bytes per grain in
  /// the page: 2.5 MB), above it per loop instance and thread
  /// (ReportWriter.h).
  static constexpr uint64_t DefaultReport = 100000;
  uint64_t report = DefaultReport;
  /// The byte caps: below chrome://tracing's ~256 MB, what yEd and
  /// Cytoscape open, what a browser draws in a few seconds.
  static constexpr uint64_t DefaultTraceBytes = 200000000;
  static constexpr uint64_t DefaultGraphBytes = 100000000;
  static constexpr uint64_t DefaultReportBytes = 10000000;
  uint64_t traceBytes = DefaultTraceBytes, graphBytes = DefaultGraphBytes,
           reportBytes = DefaultReportBytes;
  /// Aggregates (and report.html whatever it holds) also take at most
  /// PerGrain bytes per grain, or Floor bytes if more: with trace.otf2 (55
  /// bytes per grain) and loops.csv (up to 100), the whole directory
  /// stays within about 200 bytes per grain. 0: the byte cap alone (a
  /// --max-*-bytes option given).
  static constexpr uint64_t DefaultPerGrain = 12, Floor = 500000;
  uint64_t tracePerGrain = DefaultPerGrain, graphPerGrain = DefaultPerGrain,
           reportPerGrain = DefaultPerGrain;
  /// The bytes a file of `grains` grains may take: its cap, less where
  /// the per-grain bound is lower.
  static uint64_t budget(uint64_t cap, uint64_t perGrain, uint64_t grains) {
    if (!perGrain)
      return cap;
    uint64_t b =
        grains > UINT64_MAX / perGrain ? UINT64_MAX : perGrain * grains;
    return b < Floor ? std::min(cap, Floor) : std::min(cap, b);
  }
  uint64_t traceBudget(uint64_t grains) const {
    return budget(traceBytes, tracePerGrain, grains);
  }
  uint64_t graphBudget(uint64_t grains) const {
    return budget(graphBytes, graphPerGrain, grains);
  }
  uint64_t reportBudget(uint64_t grains) const {
    return budget(reportBytes, reportPerGrain, grains);
  }
};

/// What a capped writer wrote: every grain, or aggregates (how, in words,
/// for the summary's left-out line).
struct CapResult {
  bool every = true;
  std::string how;
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
/// grains.graphml aggregated at one level (CoarseGraph.h): one DAG per
/// class of processes of the same shape at it (a process alone: its own)
/// from start to end; a problem view's groups hold the number of their
/// grains it flags. Returns the bytes written.
uint64_t writeGraphmlAggregated(const Results &R, const std::string &path,
                                const CoarseLevel &level = CoarseLevel(),
                                int view = -1);
/// grains.graphml within the caps: every grain (at most caps.graph grains
/// and, at GraphmlFullGrainBytes bytes a grain at least, within
/// caps.graphBytes: a grain takes 1.1 to 1.4 KB with its edges), or the
/// finest aggregate that fits caps.graphBytes (graphmlShapeLevel).
constexpr uint64_t GraphmlFullGrainBytes = 1000;
CapResult writeGraphmlCapped(const Results &R, const std::string &path,
                             const Caps &caps, int view = -1);
/// The figures of the processes of an aggregated grains.graphml for the
/// level search (CoarseGraph.h: shapeLevelFor), from the processes at hand
/// or from an MPI job's ranks (Parts.cpp); per process (run order) its
/// rank and pid, and the grains the run has. fileBytes: the file's bytes,
/// exact for classes of one process, at most for the others.
class GraphmlFigures : public ShapeSearch {
public:
  int view = -1;
  std::vector<int64_t> ranks, pids;
  GrainKinds kinds;
  uint64_t fileBytes(const ShapeLevel &s,
                     const std::vector<ProcessShape> &f) override;
};
/// Process p's shape (shape) and bytes written alone (bytes) at level.
void graphmlProcessFigures(const Results &R, size_t p, const CoarseLevel &level,
                           int view, ProcessShape &f, bool shape, bool bytes);
/// The level and classes of an aggregated grains.graphml within cap
/// (most: the processes' most instances of a loop, LoopTable::most).
ShapeLevel graphmlShapeLevel(GraphmlFigures &F, uint64_t cap, uint64_t most);
uint64_t graphmlMost(const Results &R);
/// What the aggregated file has, in words (the left-out line).
std::string graphmlHow(const ShapeLevel &s, GrainKinds kinds);
/// grains.graphml aggregated at s: one DAG per class (its first member's
/// ids; a class of one process as that process alone). Returns the bytes.
uint64_t writeGraphmlClasses(const Results &R, const std::string &path,
                             const ShapeLevel &s, int view = -1);
/// An MPI rank's piece of the classes' DAGs (its processes are the job's
/// base, base+1, ...): per process its class, its node values and, for a
/// class's first member, the structure (Parts.cpp); and rank 0's
/// grains.graphml from the pieces (files: the ranks', in rank order; who:
/// how errors name each).
void writeGraphmlShapes(const Results &R, const std::string &path,
                        const ShapeLevel &s, size_t base);
void mergeGraphmlShapes(const std::vector<std::string> &files,
                        const std::vector<std::string> &who,
                        const std::string &path);
/// An MPI rank's grains.graphml with every grain: its body's bytes (its
/// nodes and edges, not the header and tail) and its edges; and the bytes of
/// the job's file merged from such bodies (in rank order, edges numbered on
/// through them).
void graphmlBody(const std::string &path, uint64_t &bytes, uint64_t &edges);
uint64_t
graphmlMergedBytes(const std::vector<std::pair<uint64_t, uint64_t>> &bodies);
/// trace.json's first line (its events follow it).
inline const std::string TraceHead = "{\"traceEvents\": [\n";
/// A trace.json written: its bytes, of them its events' (between its head
/// line and its tail, which starts at the events' last newline) and its
/// tail's, and whether it stopped adding events at its limit.
struct TraceWritten {
  uint64_t size = 0, events = 0, tail = 0;
  bool stopped = false;
};
TraceWritten writeTrace(const Results &R, const std::string &path);
/// trace.json aggregated: an event per loop span (CoarseGraph.h: block 1,
/// per loop instance and thread, on the thread's track; coarser ones on a
/// track per loop and thread), per task creation site and thread (own
/// track). Stops adding events before limit bytes (truncated: the tail
/// says it stopped even when this file did not, when the file is a part of
/// a job's that did).
TraceWritten writeTraceAggregated(const Results &R, const std::string &path,
                                  uint64_t block = 1,
                                  uint64_t limit = UINT64_MAX,
                                  bool truncated = false);
/// The job a trace.json's level search decides for (writeTraceCapped): one
/// command's is its own processes (the default: every figure its own); an
/// MPI rank's is every rank's (Parts.cpp), whose parts rank 0 joins into
/// one file: the ranks exchange these figures, so that each makes the
/// choices one command makes for the whole job, and the joined file is one
/// command's.
class TraceJob {
public:
  virtual ~TraceJob() = default;
  /// The job's figure: the sum (add) or the largest of the parts' (mine).
  virtual uint64_t figure(const std::string &name, uint64_t mine, bool add) {
    (void)name, (void)add;
    return mine;
  }
  /// The job's file's bytes, given this part's (no file: a part without
  /// processes).
  virtual uint64_t fileBytes(const TraceWritten *mine) {
    return mine ? mine->size : 0;
  }
  /// Where this part's events start in the job's file, past its own head
  /// line (the events of the parts before it, their separators).
  virtual uint64_t before(const TraceWritten *mine) {
    (void)mine;
    return 0;
  }
};
/// trace.json within the caps, as the job decides (job: null for one
/// command; R: null for an MPI rank without processes, which still takes
/// part in the job's choices and writes no file).
CapResult writeTraceCapped(const Results *R, const std::string &path,
                           const Caps &caps, TraceJob *job = nullptr);
inline CapResult writeTraceCapped(const Results &R, const std::string &path,
                                  const Caps &caps) {
  return writeTraceCapped(&R, path, caps);
}
/// trace.otf2 (the archive <dir>/<name>.otf2, <name>.def and <name>/).
void writeOtf2(const Results &R, const std::string &dir,
               const std::string &name);
/// trace.otf2 of an MPI job in parts (Otf2Output.cpp): a rank's counts of
/// locations and (distinct) regions, its region names (written before the
/// ranks' heads are exchanged), its events numbered as the job numbers them
/// (its locations after LocationBase, its regions after those of the
/// regions fragments of the ranks before it, in rank order) with its
/// definitions fragment, and rank 0's archive <dir>/<name>.* from the parts
/// (rank, part directory) in rank order, after checking every fragment
/// (one that is not what a rank writes is refused naming the rank).
struct Otf2Counts {
  uint64_t locations = 0, regions = 0;
};
Otf2Counts otf2Counts(const Results &R);
void writeOtf2Regions(const Results &R, const std::string &path);
void writeOtf2Part(const Results &R, const std::string &part,
                   uint64_t locationBase,
                   const std::vector<std::string> &earlierRegions,
                   uint64_t jobLast);
void mergeOtf2(const std::vector<std::pair<int, std::string>> &parts,
               const std::string &dir, const std::string &name);
/// Returns whether the picture was aggregated per pixel.
bool writeSvg(const Results &R, const std::string &path);
/// What a run's timeline.svg draws: its lanes (a process's thread each)
/// and its spans (chunks and task segments).
struct SvgCount {
  uint64_t lanes = 0, spans = 0;
};
SvgCount svgCount(const Run &run);
/// The MPI job an MPI rank's pieces of timeline.svg are drawn for: its
/// grains, lanes and spans, its first grain's start and last grain's end
/// (any: the job has a grain), and how many of its lanes come before the
/// rank's.
struct SvgJob {
  uint64_t grains = 0, lanes = 0, spans = 0, first = 0, last = 0,
           laneOffset = 0;
  bool any = false;
};
/// A rank's pieces of the job's timeline.svg in its part directory dir
/// (timeline.lanes, timeline.spans, and last timeline.head: the job's
/// figures, the pieces' sizes, the rank's legend entries). Returns whether
/// the picture is aggregated per pixel.
bool writeSvgPart(const Results &R, const SvgJob &job, const std::string &dir);
/// A rank's part directory and how errors name it ("rank 2's part").
struct SvgPart {
  std::string dir, who;
};
/// The job's timeline.svg at path from the ranks' pieces (in rank order),
/// the job's first process's clock and whether any process ran tasks;
/// throws naming the rank on a piece a rank does not write.
bool mergeSvg(const std::vector<SvgPart> &parts, double ticksPerNs,
              bool anyTasks, const std::string &path);
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
/// The summary's lines on where the process's thread time went.
std::vector<std::string> breakdownLines(const Analysis &an, const Breakdown &b);
/// Its figures alone (the report's critical path fact).
std::string critPathFigures(const Analysis &an, const CritPath &c);

} // namespace gcg

#endif

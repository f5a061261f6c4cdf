// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Writers.h - the output files, each a consumer of the tables --------===//
//
// grains.csv, grains.graphml, trace.json, timeline.svg, run.json and the
// summary. Each writer streams (nothing per grain is kept) and does not
// know the others. OutFile is their buffered output with number formatting
// as the Python grainchunk-graph wrote it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_WRITERS_H
#define GRAINCHUNK_GRAPH_WRITERS_H

#include "Run.h"

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
/// A grain's id: c<thread>.<index> or t<task id>, with the process prefix.
std::string chunkId(const Run &run, size_t p, size_t i);
std::string taskId(const Run &run, size_t p, size_t k);

extern const char *const UnknownTime;

/// The outputs --outputs chooses from, in order.
extern const std::vector<std::string> OutputNames;
/// An output's file name ("csv" -> "grains.csv").
std::string outputFile(const std::string &name);

void writeCsv(Run &run, const std::string &path);
void writeGraphml(Run &run, const std::string &path);
void writeTrace(Run &run, const std::string &path);
/// Returns whether the picture was aggregated per pixel.
bool writeSvg(Run &run, const std::string &path);
void writeRunJson(Run &run, const std::string &path,
                  const std::vector<std::string> &outputs,
                  const std::string &version);
/// The per-loop summary (summary.txt, also printed on stderr).
std::string summary(Run &run);
std::string summaryOf(Analysis &an);

} // namespace gcg

#endif

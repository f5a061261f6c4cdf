// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Digest.h - a process's results without its grains -----------------===//
//
// ProcessDigest: what the run-level outputs (summary.txt, run.json, the
// run's problem counts and the across-processes table) need of one process,
// and no grain: its identity and clock, its critical path figures, where its
// thread time went, its ranked problems (figures and texts), its problem
// counts, its loops' work per thread, and its summary section as text. The
// run-level writers read digests in every path: a run analysed in one
// command makes them from its Results; an MPI job's ranks each make their
// own processes' digests where they ran and rank 0 reads them back from the
// ranks' parts (Part below, driver/Command.cpp), so it merges results, never
// grains.
//
// On disk (a part's digest file): a text file, first line
// "grainchunk-digest <version>", then fields in a fixed order, each one line
// "<tag> <value>" where strings are "<tag> <length>" followed by a line of
// exactly that many bytes, doubles in C's %a (exact), and the last line
// "end". The reader checks every tag, length and count against what the
// file holds and refuses anything else with one line naming the file; no
// input crashes it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_DIGEST_H
#define GRAINCHUNK_GRAPH_DIGEST_H

#include "Writers.h"

#include <string>
#include <vector>

namespace gcg {

struct ProcessDigest {
  int64_t pid = -1, ppid = -1, rank = -1;
  std::string host, exe;
  int recordVersion = 0;
  uint64_t threads = 0, chunks = 0, tasks = 0;
  double ticksPerNs = 1;
  bool hasClock = false;
  std::string clock;
  bool toolTime = false; // creation times measured (extension event 83)
  bool complete = true;
  std::string endsAt; // where an incomplete recording ends, in words
  bool critAcyclic = false;
  double critSpan = 0, critWork = 0;
  Breakdown time;
  std::vector<ProblemCount> counts; // per flag 0 .. P_COUNT-1
  /// Ranked problems: figures and texts (outlier grains as ids).
  std::vector<Problem> problems;
  std::vector<std::vector<std::string>> outlierIds; // per problem
  ProcessLoopWork loopWork;
  /// Its section of the summary (summaryOf), unindented.
  std::string summary;
};

/// Process p's digest, from the results.
ProcessDigest digestOf(const Results &R, size_t p);
/// Every process's digest, in process order.
std::vector<ProcessDigest> digestsOf(const Results &R);

/// The run-level results of digests (in process order): the counts added,
/// the across-processes table (several processes).
struct RunDigest {
  std::vector<ProcessDigest> procs;
  /// Whether the run has several processes (an MPI job of one rank's
  /// part is one of many).
  bool multi = false;
  std::vector<ProblemCount> counts;
  std::vector<AcrossLoop> across;
};
RunDigest runDigest(std::vector<ProcessDigest> procs, bool multi);

/// The summary (summary.txt) and run.json, from digests alone.
std::string summaryText(const RunDigest &D);
/// What the terminal gets: one process's summary; of several, the job's
/// header and problems, a line per process (full: where each one's
/// summary is, shown as the user gave it) and the loops across processes.
std::string terminalText(const RunDigest &D, const std::string &full);
void writeRunJson(const RunDigest &D, const std::string &path,
                  const std::vector<std::string> &outputs,
                  const std::string &version,
                  const std::vector<LeftOut> &leftOut = {});

/// A digest file (format above).
void writeDigestFile(const std::vector<ProcessDigest> &ds,
                     const std::string &path);
/// Reads one; throws Error("<path>: <why>") on anything not written by
/// writeDigestFile of this version.
std::vector<ProcessDigest> readDigestFile(const std::string &path);
/// The same from a digest's text (path names it in errors).
std::vector<ProcessDigest> parseDigest(const std::string &text,
                                       const std::string &path);

} // namespace gcg

#endif

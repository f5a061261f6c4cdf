// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Run.h - all processes of one recording -----------------------------===//
//
// A Run is every process of a recording (one process directory each: a
// forked child, an exec'd program and every MPI rank have their own), each
// with its own Analysis, and the baseline (one-thread run) they compare to.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_RUN_H
#define GRAINCHUNK_GRAPH_RUN_H

#include "Analysis.h"

#include <memory>
#include <string>
#include <vector>

namespace gcg {

struct Run {
  std::vector<std::unique_ptr<Analysis>> procs;
  std::vector<std::unique_ptr<Baseline>> baselines;
  /// Set when these processes are part of a larger run (an MPI rank's own
  /// processes, analysed by the rank): named as one of several.
  bool partOfMany = false;
  bool multi() const { return partOfMany || procs.size() > 1; }
  bool complete() const;
  size_t grains() const;
  /// The first grain's start over all processes (ticks); for processes
  /// that are part of a larger run, that run's (origin, when set).
  uint64_t firstInstant() const;
  bool hasOrigin = false;
  uint64_t origin = 0;
  /// The id prefix of process i's grains: "" for a single process, else
  /// "p<pid>." (so ids are unique across processes).
  std::string prefix(size_t i) const;
  /// "NA" or the rank.
  static std::string rankText(const ProcessDir &p);
  /// Where an incomplete process's recording ends, in words.
  static std::string endsAt(const Analysis &an);
};

/// A grain's id: c<thread>.<index> or t<task id>, with the process prefix.
std::string chunkId(const Run &run, size_t p, size_t i);
std::string taskId(const Run &run, size_t p, size_t k);

/// Reads and analyses every process of the recordings in raws (each a
/// process directory or a directory of them); baselineRaws likewise for
/// work_deviation's one-thread run (process i compares with the baseline's
/// process i when both have as many processes, else with its first).
std::unique_ptr<Run> analyseRun(const std::vector<std::string> &raws,
                                const std::vector<std::string> &baselineRaws);

/// Gives the memory freed so far back to the system. glibc keeps the freed
/// blocks of its heap resident, and a later stage's large tables (each its
/// own mapping) cannot use them: the stages call it once their transient
/// tables are gone (the model read, the critical path's graph, the loop
/// losses), so that those do not stay in the peak beside what follows.
void releaseFreed();

} // namespace gcg

#endif

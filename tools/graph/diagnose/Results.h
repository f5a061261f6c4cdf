// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Results.h - everything derived from a run, computed once ----------===//
//
// The last computing stage: from the run's tables (model/) the derived
// results every output reads, each computed once, here: per process its
// loop table, critical path, ranked problems, problem masks and counts;
// over the run its problems in rank order, its problem counts and its
// colours. Writers (write/, report/) take the Results by const reference
// and compute none of these again.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_RESULTS_H
#define GRAINCHUNK_GRAPH_RESULTS_H

#include "GrainDag.h"
#include "LoopTable.h"
#include "Palette.h"
#include "ProblemViews.h"
#include "Problems.h"
#include "Run.h"

#include <memory>
#include <vector>

namespace gcg {

/// What is derived from one process.
struct ProcessResults {
  /// Per loop instance and thread (loopThreads(), medians included).
  std::vector<LoopThread> loopRows;
  /// Per loop instance, the thread time it lost and where.
  std::vector<InstanceLoss> losses;
  CritPath crit;
  /// This process's problems, most time lost first.
  std::vector<Problem> problems;
  /// Per grain, its problem flags, and their counts (the critical path's
  /// share of them included).
  ProblemMasks masks;
  std::vector<ProblemCount> counts;
};

struct Results {
  /// The run the results are of; nothing changes it from here on.
  const Run &run;
  std::vector<ProcessResults> procs;
  /// Every process's problems, process by process, each most lost first.
  std::vector<Problem> problems;
  /// Per flag, every process's counts added.
  std::vector<ProblemCount> counts;
  RunColours colours;

  explicit Results(const Run &r) : run(r) {}
  Results(const Results &) = delete;
};

/// Computes the Results of a run (its processes' tables complete).
std::unique_ptr<const Results> computeResults(const Run &run);

} // namespace gcg

#endif

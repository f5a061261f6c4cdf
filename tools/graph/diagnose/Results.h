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

#include "Breakdown.h"
#include "GrainDag.h"
#include "LoopTable.h"
#include "Palette.h"
#include "ProblemViews.h"
#include "Problems.h"
#include "Run.h"

#include <memory>
#include <vector>

namespace gcg {

/// One loop's work in one process, grain-free (what the across-processes
/// table needs of it): per thread its chunks' work (ticks), and the time
/// its problem says the process lost in it.
struct LoopWork {
  std::string name;
  std::vector<std::pair<int, double>> perThread; // thread, work (ticks)
  double lostWithinMs = 0;
};
/// A process's loops by name, in the order they first ran, and how the
/// across table names the process ("r<rank>" or "p<pid>").
struct ProcessLoopWork {
  std::string who;
  double ticksPerMs = 1;
  std::vector<LoopWork> loops;
};

/// A loop problem's steps (report.html) go through at most this many of
/// its instances, most thread time lost first.
constexpr size_t InstanceSteps = 200;

/// One loop's (by name) instances that ran chunks in one process: how
/// many, and the InstanceSteps of them that lost the most thread time
/// (InstanceLost), as report.html orders them: lost then start (in ns from
/// the run's first instant, rounded), then instance; in that order.
struct LoopLosses {
  std::string name;
  int64_t instances = 0;
  std::vector<InstanceLost> most;
};

/// What is derived from one process.
struct ProcessResults {
  /// Per loop instance and thread (loopThreads(), medians included), and
  /// what the aggregated outputs merge instances by.
  LoopTable loopTable;
  /// Per loop (in the order its first instance that ran chunks came), the
  /// instances that lost the most thread time (where it went: its
  /// problems); not every instance's.
  std::vector<LoopLosses> losses;
  /// Where its thread time went (serial, fork/join, work, waits, ...).
  Breakdown time;
  CritPath crit;
  /// This process's problems, most time lost first.
  std::vector<Problem> problems;
  /// Per grain, its problem flags, and their counts (the critical path's
  /// share of them included).
  ProblemMasks masks;
  std::vector<ProblemCount> counts;
  /// Its loops' work, for the across table (also in its digest).
  ProcessLoopWork loopWork;
};

/// One loop (by name) across the processes that ran it (an MPI job's
/// ranks): each process's work on it, the imbalance between them, the
/// worst imbalance between one process's threads, and the time lost across
/// processes (each waiting for the slowest at the next synchronization, if
/// they synchronize after it: the sum over processes of the slowest's work
/// less theirs) beside the time lost within them (their problems').
struct AcrossLoop {
  std::string name;
  std::vector<std::string> who; // "r<rank>" or "p<pid>", in process order
  std::vector<double> workMs;   // per process: its threads' work on it
  double processImbalance = NAN, worstThreadImbalance = NAN;
  double lostAcrossMs = 0, lostWithinMs = 0;
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
  /// Loops run by two or more processes, in order of first appearance.
  std::vector<AcrossLoop> across;

  explicit Results(const Run &r) : run(r) {}
  Results(const Results &) = delete;
};

/// The loops run by two or more of the processes, from their loop work
/// alone (no grain): the one computation of the across table, whether the
/// processes were analysed here or in an MPI job's ranks (Digest.h).
std::vector<AcrossLoop> acrossProcesses(const std::vector<ProcessLoopWork> &ps);

/// Computes the Results of a run (its processes' tables complete). Not
/// const so that an MPI rank can give it the job's colours (driver/)
/// before any writer reads it; writers take it by const reference.
std::unique_ptr<Results> computeResults(const Run &run);

} // namespace gcg

#endif

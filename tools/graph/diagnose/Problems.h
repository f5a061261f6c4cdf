// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Problems.h - problems ranked by time lost, and outlier chunks ------===//
//
// Per process, the loops and task creation sites ranked by the time they
// lose (docs/grain-graphs.md, "Problems, ranked by time lost"): for a loop
// instance in a team of several threads, the time its threads wait for
// its slowest thread (the sum over the team's threads of the slowest
// thread's work less theirs), plus the chunks' creation where measured;
// for a task site, its tasks' creation and their parents' waits at their
// joins; for an explicit barrier, its waits. Each share is of the process's
// thread time, at most 1. Instances run by one-thread teams are counted apart:
// they lose nothing to imbalance. The outlier chunks of a loop instance are
// found by robust statistics (median and MAD), not by max/mean.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PROBLEMS_H
#define GRAINCHUNK_GRAPH_PROBLEMS_H

#include "Analysis.h"
#include "LoopTable.h"

#include <array>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gcg {

struct Run;

struct Problem {
  // "loop", "task-site" or "barrier" (an explicit barrier's waits).
  std::string kind;
  std::string where; // file:line (function), as the summary names it
  int process = 0;   // index in Run::procs
  double lostMs = 0; // thread time lost (ms), see above
  double workMs = 0; // the grains' work (ms)
  // lostMs / the process's thread time: its threads x its recorded span,
  // widened to what any loss counts (at most 1).
  double share = 0;
  // Loops: instances run by teams of several threads, of one thread.
  // Task sites: the tasks made there, and 0.
  unsigned instancesMulti = 0, instancesSingle = 0;
  // Loops: max/mean work per thread over the multi-thread instances
  // (NaN when there is none); task sites: NaN.
  double imbalance = 0;
  std::string why, suggestion;
  // Loops whose time is lost to imbalance: the time the same instances
  // would lose under schedule(dynamic, dynChunk) and schedule(guided), by
  // simulateSchedule on their measured chunk work, against what they lose
  // now (NaN: not estimated). estInstances of instancesMulti were
  // estimated (those with every chunk's time known).
  double nowLostMs = NAN, dynLostMs = NAN, guidedLostMs = NAN;
  uint64_t dynChunk = 0;
  unsigned estInstances = 0;
  // The loop's outlier chunks, largest excess over its instance's median
  // first, at most maxOutliers: indices into Analysis::chunks (chunkId()
  // names them as the outputs do).
  std::vector<uint64_t> outlierGrains;
};

/// A loop instance's measured work as a function of its iterations: the
/// recorded chunks, sorted by first iteration and contiguous, each chunk's
/// work spread evenly over its iterations.
struct WorkCurve {
  std::vector<double> off, cum; // per chunk: first iteration (from 0) and
                                // the work before it; one more at the end
  /// From (lower, upper, work) per chunk; false (and empty) when the
  /// chunks overlap or leave a gap.
  bool build(std::vector<std::array<uint64_t, 3>> chunks);
  double iterations() const { return off.empty() ? 0 : off.back(); }
  double total() const { return cum.empty() ? 0 : cum.back(); }
  /// The work of iterations [0, x).
  double before(double x) const;
};

/// Simulates a team of `team` threads taking the iterations of `w` in
/// order, each next chunk going to the thread that is free first (as a
/// dynamic or guided schedule hands them out), every chunk costing
/// `perChunk` besides its work. chunk > 0: schedule(dynamic, chunk);
/// chunk == 0: schedule(guided) as libomp hands it out (a chunk is the
/// remaining iterations over twice the team, down to one iteration once
/// fewer than 4 x team remain). Returns the time the team loses, team x
/// (the last thread's finish) - the work, or NaN when more than maxChunks
/// chunks would be needed.
double simulateSchedule(const WorkCurve &w, size_t team, uint64_t chunk,
                        double perChunk, size_t maxChunks = 1 << 20);

/// The problems of process `process` of a run, largest time lost first
/// (only those that lose time); losses: its loop instances' (read once
/// each, in order). seen, when given, gets every loop instance's loss
/// that has chunks, in instance order (the one pass over the losses).
std::vector<Problem>
rankProblems(const Analysis &an, InstanceLosses &losses, int process,
             const std::function<void(const InstanceLoss &)> &seen = nullptr,
             size_t maxOutliers = 20);

} // namespace gcg

#endif

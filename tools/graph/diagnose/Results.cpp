// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Results.cpp - everything derived from a run, computed once --------===//
//
// Per process, in order: the loop table, the critical path (its grain DAG
// is not kept), the problems ranked, the problem masks and counts; then
// the run's sums and colours (Results.h).
//
//===----------------------------------------------------------------------===//
#include "Results.h"

namespace gcg {

std::unique_ptr<const Results> computeResults(const Run &run) {
  auto R = std::make_unique<Results>(run);
  R->counts.resize(P_COUNT);
  for (int f = 0; f < P_COUNT; f++)
    R->counts[f].flag = f;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    ProcessResults pr;
    pr.loopRows = loopThreads(an, true);
    pr.losses = instanceLosses(an, pr.loopRows);
    pr.crit = computeCritPath(an);
    pr.problems = rankProblems(an, pr.losses, int(p));
    pr.masks = problemMasks(an);
    pr.counts = problemCounts(pr.masks, pr.crit);
    for (int f = 0; f < P_COUNT; f++) {
      R->counts[f].grains += pr.counts[f].grains;
      R->counts[f].onPath += pr.counts[f].onPath;
      R->counts[f].pathKnown = R->counts[f].pathKnown && pr.counts[f].pathKnown;
    }
    R->problems.insert(R->problems.end(), pr.problems.begin(),
                       pr.problems.end());
    R->procs.push_back(std::move(pr));
  }
  R->colours = runColours(run);
  return R;
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Results.cpp - everything derived from a run, computed once --------===//
//
// Per process, in order: the loop table, the critical path (its grain DAG
// is not kept), the problems ranked, the problem masks and counts; then
// the run's sums and colours (Results.h).
//
//===----------------------------------------------------------------------===//
#include "Results.h"

#include <map>

namespace gcg {

/// Per loop name, every process's work on it (one definition of the
/// imbalance: max over mean, InstanceLoss's team for a thread's share).
static std::vector<AcrossLoop> acrossProcesses(const Results &R) {
  const Run &run = R.run;
  std::vector<AcrossLoop> out;
  std::map<std::string, size_t> at;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    double ms = an.clockNs() * 1e6;
    std::map<std::string, std::map<int, double>> perThread;
    std::vector<std::string> order;
    for (const Loop &lp : an.loops) {
      if (!lp.n())
        continue;
      const std::string &nm = an.loopName(lp.index);
      if (!perThread.count(nm))
        order.push_back(nm);
      auto &pt = perThread[nm];
      for (const Share &sh : lp.shares)
        if (sh.hasWork)
          pt[sh.th] += double(sh.work);
    }
    const ProcessDir &pd = an.proc;
    std::string who = pd.rank >= 0 ? "r" + std::to_string(pd.rank)
                                   : "p" + std::to_string(pd.pid);
    for (const std::string &nm : order) {
      const auto &pt = perThread[nm];
      if (pt.empty())
        continue;
      double sum = 0, mx = 0;
      for (auto &[th, v] : pt)
        sum += v, mx = std::max(mx, v);
      auto it = at.find(nm);
      if (it == at.end()) {
        it = at.emplace(nm, out.size()).first;
        out.emplace_back();
        out.back().name = nm;
        out.back().worstThreadImbalance = 0;
      }
      AcrossLoop &x = out[it->second];
      x.who.push_back(who);
      x.workMs.push_back(sum / ms);
      double imb = sum > 0 ? mx / (sum / double(pt.size())) : NAN;
      if (imb > x.worstThreadImbalance)
        x.worstThreadImbalance = imb;
    }
    for (const Problem &q : R.procs[p].problems)
      if (q.kind == "loop") {
        auto it = at.find(q.where);
        if (it != at.end())
          out[it->second].lostWithinMs += q.lostMs;
      }
  }
  std::vector<AcrossLoop> kept;
  for (AcrossLoop &x : out) {
    if (x.workMs.size() < 2)
      continue;
    double sum = 0, mx = 0;
    for (double w : x.workMs)
      sum += w, mx = std::max(mx, w);
    x.processImbalance = sum > 0 ? mx / (sum / double(x.workMs.size())) : NAN;
    for (double w : x.workMs)
      x.lostAcrossMs += mx - w;
    kept.push_back(std::move(x));
  }
  return kept;
}

std::unique_ptr<const Results> computeResults(const Run &run) {
  auto R = std::make_unique<Results>(run);
  R->counts.resize(P_COUNT);
  for (int f = 0; f < P_COUNT; f++)
    R->counts[f].flag = f;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    ProcessResults pr;
    // The critical path first: its graph, gone when it is found, is then
    // not held beside the loop table.
    pr.crit = computeCritPath(an);
    pr.loopRows = loopThreads(an, true);
    pr.losses = instanceLosses(an, pr.loopRows);
    pr.time = breakdownOf(an);
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
  if (run.multi())
    R->across = acrossProcesses(*R);
  return R;
}

} // namespace gcg

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

/// A process's loops by name in the order they first ran, each with its
/// threads' work, and the time its loop problems lost.
static ProcessLoopWork loopWorkOf(const Analysis &an,
                                  const std::vector<Problem> &problems) {
  ProcessLoopWork w;
  const ProcessDir &pd = an.proc;
  w.who = pd.rank >= 0 ? "r" + std::to_string(pd.rank)
                       : "p" + std::to_string(pd.pid);
  w.ticksPerMs = an.clockNs() * 1e6;
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
  std::map<std::string, size_t> at;
  for (const std::string &nm : order) {
    const auto &pt = perThread[nm];
    if (pt.empty())
      continue;
    at[nm] = w.loops.size();
    w.loops.push_back({nm, {pt.begin(), pt.end()}, 0});
  }
  for (const Problem &q : problems)
    if (q.kind == "loop") {
      auto it = at.find(q.where);
      if (it != at.end())
        w.loops[it->second].lostWithinMs += q.lostMs;
    }
  return w;
}

/// Per loop name, every process's work on it (one definition of the
/// imbalance: max over mean, InstanceLoss's team for a thread's share).
std::vector<AcrossLoop>
acrossProcesses(const std::vector<ProcessLoopWork> &ps) {
  std::vector<AcrossLoop> out;
  std::map<std::string, size_t> at;
  for (const ProcessLoopWork &pw : ps) {
    for (const LoopWork &lw : pw.loops) {
      double sum = 0, mx = 0;
      for (auto &[th, v] : lw.perThread)
        sum += v, mx = std::max(mx, v);
      auto it = at.find(lw.name);
      if (it == at.end()) {
        it = at.emplace(lw.name, out.size()).first;
        out.emplace_back();
        out.back().name = lw.name;
        out.back().worstThreadImbalance = 0;
      }
      AcrossLoop &x = out[it->second];
      x.who.push_back(pw.who);
      x.workMs.push_back(sum / pw.ticksPerMs);
      double imb = sum > 0 ? mx / (sum / double(lw.perThread.size())) : NAN;
      if (imb > x.worstThreadImbalance)
        x.worstThreadImbalance = imb;
      x.lostWithinMs += lw.lostWithinMs;
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

std::unique_ptr<Results> computeResults(const Run &run) {
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
    releaseFreed();
    pr.loopTable = loopTable(an);
    {
      // Each instance's loss and where it went, for the problems; kept
      // only as much of it as the outputs read.
      InstanceLosses losses(an, pr.loopTable);
      pr.problems = rankProblems(an, losses, int(p));
    }
    pr.losses = instancesLost(an, pr.loopTable);
    // What only the losses needed of the loop table goes.
    std::vector<double>().swap(pr.loopTable.firstCreation);
    releaseFreed();
    pr.time = breakdownOf(an);
    pr.masks = problemMasks(an);
    pr.counts = problemCounts(pr.masks, pr.crit);
    pr.loopWork = loopWorkOf(an, pr.problems);
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
  releaseFreed();
  if (run.multi()) {
    std::vector<ProcessLoopWork> lw;
    for (const ProcessResults &pr : R->procs)
      lw.push_back(pr.loopWork);
    R->across = acrossProcesses(lw);
  }
  return R;
}

} // namespace gcg

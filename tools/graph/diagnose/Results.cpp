// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Results.cpp - everything derived from a run, computed once --------===//
//
// The run's colours first; then per process, in order: the critical path
// (its grain DAG is not kept), the loop table, the problems ranked, the
// problem masks and counts; then the run's sums (Results.h). Each loop
// instance's loss is made once: the problems' pass over them feeds the
// loops' most-lost instances (LossKeeper).
//
//===----------------------------------------------------------------------===//
#include "Results.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

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
  // A name (unique per site) looked up once per site, not per instance.
  std::vector<std::map<int, double> *> siteThreads;
  for (const Loop &lp : an.loops) {
    if (!an.nChunks(lp))
      continue;
    size_t site = size_t(an.loopSite[an.indexOf(lp)]);
    if (siteThreads.size() <= site)
      siteThreads.resize(site + 1, nullptr);
    std::map<int, double> *&pt = siteThreads[site];
    if (!pt) {
      const std::string &nm = an.loopName(an.indexOf(lp));
      if (!perThread.count(nm))
        order.push_back(nm);
      pt = &perThread[nm];
    }
    for (const Share &sh : an.shares(lp))
      if (sh.hasWork)
        (*pt)[sh.th] += double(an.workOf(sh));
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

/// Per loop (by name, in the order of its first instance that ran
/// chunks), its instances that ran chunks and the InstanceSteps that lost
/// the most: fed each instance's InstanceLoss in turn (the one pass the
/// problems make over them), at most 4 x InstanceSteps candidates per loop
/// held at a time.
class LossKeeper {
public:
  LossKeeper(const Analysis &an, uint64_t t0)
      : an(an), t0(t0), tpn(an.clockNs()) {}
  void add(const InstanceLoss &l) {
    if (!l.threads)
      return;
    // Its name's entry, found once per site (a name is unique per site).
    size_t site = size_t(an.loopSite[size_t(l.loop)]);
    if (siteOut.size() <= site)
      siteOut.resize(site + 1, SIZE_MAX);
    if (siteOut[site] == SIZE_MAX) {
      const std::string &nm = an.loopName(l.loop);
      auto it = at.find(nm);
      if (it == at.end()) {
        it = at.emplace(nm, out.size()).first;
        out.push_back({nm, 0, {}});
        kept.emplace_back();
        bar.push_back(SIZE_MAX);
      }
      siteOut[site] = it->second;
    }
    size_t k = siteOut[site];
    std::vector<Kept> &v = kept[k];
    Kept c{int64_t(std::llround(l.lost / tpn)), ns(l.first), out[k].instances++,
           InstanceLost{l.loop, l.threads, l.lost, l.first, l.last}};
    // Behind the last of InstanceSteps kept ones (the order is total), it
    // is never among the most.
    if (bar[k] < v.size() && !before(c, v[bar[k]]))
      return;
    v.push_back(c);
    if (v.size() >= 4 * InstanceSteps) {
      std::nth_element(v.begin(), v.begin() + InstanceSteps, v.end(), before);
      v.resize(InstanceSteps);
      bar[k] = size_t(std::max_element(v.begin(), v.end(), before) - v.begin());
    }
  }
  std::vector<LoopLosses> done() {
    for (size_t k = 0; k < out.size(); k++) {
      std::sort(kept[k].begin(), kept[k].end(), before);
      for (size_t j = 0; j < kept[k].size() && j < InstanceSteps; j++)
        out[k].most.push_back(kept[k][j].x);
    }
    return std::move(out);
  }

private:
  /// A candidate: (lost, start) in ns, its position among its loop's
  /// instances, and its loss.
  struct Kept {
    int64_t lost, start, pos;
    InstanceLost x;
  };
  static bool before(const Kept &a, const Kept &b) {
    if (a.lost != b.lost)
      return a.lost > b.lost;
    return a.start != b.start ? a.start < b.start : a.pos < b.pos;
  }
  int64_t ns(uint64_t x) const {
    return int64_t(std::llround(double(int64_t(x - t0)) / tpn));
  }
  const Analysis &an;
  uint64_t t0;
  double tpn;
  std::vector<LoopLosses> out;
  std::vector<std::vector<Kept>> kept;
  // Per entry of kept, once trimmed: the place of the last of its kept
  // ones (SIZE_MAX before).
  std::vector<size_t> bar;
  std::unordered_map<std::string, size_t> at;
  std::vector<size_t> siteOut; // per loop site: its entry in out
};

std::unique_ptr<Results> computeResults(const Run &run) {
  auto R = std::make_unique<Results>(run);
  R->counts.resize(P_COUNT);
  for (int f = 0; f < P_COUNT; f++)
    R->counts[f].flag = f;
  // The colours first, from the run alone: their per-instance work (9
  // bytes an instance, gone when they are made) is then not beside the
  // loop tables.
  R->colours = runColours(run);
  releaseFreed();
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    ProcessResults pr;
    // The critical path first: its graph, gone when it is found, is then
    // not held beside the loop table.
    pr.crit = computeCritPath(an);
    releaseFreed();
    pr.loopTable = loopTable(an);
    {
      // Each instance's loss and where it went, made once: for the
      // problems, and kept only as much of it as the outputs read.
      InstanceLosses losses(an, pr.loopTable);
      LossKeeper keep(an, run.firstInstant());
      pr.problems = rankProblems(an, losses, int(p),
                                 [&](const InstanceLoss &l) { keep.add(l); });
      pr.losses = keep.done();
    }
    // What only the losses needed of the loop table goes.
    pr.loopTable.firstCreation.clear();
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
  if (run.multi()) {
    std::vector<ProcessLoopWork> lw;
    for (const ProcessResults &pr : R->procs)
      lw.push_back(pr.loopWork);
    R->across = acrossProcesses(lw);
  }
  return R;
}

} // namespace gcg

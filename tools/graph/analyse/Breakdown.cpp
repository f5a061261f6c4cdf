// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Breakdown.cpp - where a process's thread time went -----------------===//
//
// One pass over the regions (the union of the top-level ones is the
// parallel time), one over the implicit tasks (in regions, fork and join;
// each one's region the model's, Analysis::regionIndexOf()),
// the grains' work from the columns and the waits the model summed by kind
// (Breakdown.h).
//
//===----------------------------------------------------------------------===//
#include "Breakdown.h"

#include <algorithm>

namespace gcg {

/// Whether the region is top level: its encountering task is no implicit
/// task of a region and no explicit task.
static bool topLevel(const Analysis &an, const Region &r) {
  uint64_t enc = an.encOf(r);
  auto im = an.implicit.find(enc);
  if (im != an.implicit.end() && an.regionIndexOf(im) >= 0)
    return false;
  return an.tasks.index(enc) < 0;
}

Breakdown breakdownOf(const Analysis &an) {
  Breakdown b;
  b.threads = an.threads.size();
  if (an.firstRecord > an.lastRecord)
    return b;
  uint64_t first = an.firstRecord, last = an.lastRecord;
  b.span = double(last - first);
  b.threadTime = double(b.threads) * b.span;
  // Top-level regions: their union over time.
  std::vector<std::pair<uint64_t, uint64_t>> iv;
  iv.reserve(an.regionList.size());
  std::vector<uint8_t> top(an.regionList.size(), 0);
  b.regionsKnown = true;
  for (size_t i = 0; i < an.regionList.size(); i++) {
    const Region &r = an.regionList[i];
    if (!topLevel(an, r))
      continue;
    top[i] = 1;
    uint64_t end = an.regionEnd(r), e = end ? end : last;
    b.regionsKnown = b.regionsKnown && end;
    iv.push_back({std::clamp(r.t, first, last), std::clamp(e, first, last)});
  }
  std::sort(iv.begin(), iv.end());
  double inside = 0;
  uint64_t at = first;
  for (auto [s, e] : iv) {
    s = std::max(s, at);
    if (e > s) {
      inside += double(e - s);
      at = e;
    }
  }
  b.serial = std::max(0.0, b.span - inside);
  b.serialIdle = double(b.threads > 1 ? b.threads - 1 : 0) * b.serial;
  double regionsThreadTime = double(b.threads) * inside;
  // The top-level regions' implicit tasks. libomp reports a worker's wait
  // at the region's end, and its implicit task's end, only when the worker
  // is released for the next region: both are clipped to the region's end
  // (what lies past it is the serial time or the next region's fork, each
  // counted there). Per region, its time on each thread is its fork, its
  // implicit task and its join; threads not in its team idle through it.
  double pastEnd = 0, teamTime = 0;
  for (auto it = an.implicit.begin(); it != an.implicit.end(); ++it) {
    const Implicit &im = it->second;
    int64_t r = an.regionIndexOf(it);
    if (r < 0 || !top[size_t(r)])
      continue;
    const Region &reg = an.regionList[size_t(r)];
    uint64_t rs = std::clamp(reg.t, first, last);
    uint64_t regEnd = an.regionEnd(reg);
    uint64_t re = std::clamp(regEnd ? regEnd : last, first, last);
    uint64_t ib = std::clamp(im.begin, rs, re);
    uint64_t imEnd = an.implicitEnd(it);
    uint64_t ie = std::clamp(imEnd ? imEnd : last, ib, re);
    b.regionsKnown = b.regionsKnown && imEnd;
    b.inRegions += double(ie - ib);
    b.forkJoin += double(ib - rs) + double(re - ie);
    teamTime += double(re - rs);
    auto [joinBegin, joinEnd] = an.joinOf(it);
    if (joinEnd > re)
      pastEnd += double(joinEnd - std::max(re, joinBegin));
  }
  b.notInTeam = std::max(0.0, regionsThreadTime - teamTime);
  const Chunks &ch = an.chunks;
  for (size_t i = 0; i < ch.size(); i++)
    if (ch.end[i] > ch.start[i])
      b.chunkWork += double(ch.span(i));
  for (size_t k = 0; k < an.tasks.size(); k++) {
    double w = an.taskOwnWork(k);
    if (w > 0)
      b.taskWork += w;
  }
  const std::vector<double> &w = an.waitByKind;
  for (size_t k = 0; k < w.size(); k++) {
    switch (k) {
    case GC_SYNC_BARRIER_IMPLICIT_WORKSHARE:
      b.waitLoop += w[k];
      break;
    case GC_SYNC_BARRIER_IMPLICIT_PARALLEL:
      b.waitRegion += std::max(0.0, w[k] - pastEnd);
      break;
    case GC_SYNC_BARRIER_EXPLICIT:
      b.waitBarrier += w[k];
      break;
    case GC_SYNC_TASKWAIT:
      b.waitTaskwait += w[k];
      break;
    case GC_SYNC_TASKGROUP:
      b.waitTaskgroup += w[k];
      break;
    default:
      b.waitOther += w[k];
    }
  }
  double waits = b.waits();
  double work = b.chunkWork + b.taskWork;
  b.outside = std::max(0.0, b.inRegions - work - waits);
  if (b.inRegions > 0)
    b.coverage = work / b.inRegions;
  return b;
}

} // namespace gcg

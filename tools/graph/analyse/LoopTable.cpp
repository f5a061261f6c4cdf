// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopTable.cpp - loop instances per thread, and loops.csv -----------===//
//
// The table behind loops.csv and the aggregated trace and graph: per loop
// instance and thread, its chunks, their work (sum, min, median, max) and
// its span; its wait at the loop's end is its share's (shareWait). One pass
// over the chunks; the median of one or two chunks comes from their least
// and most when read (LoopTable::median), larger rows group their chunks'
// work by row (8 bytes per such chunk while it runs) and keep their median.
// Made once per process (LoopTable) with its loops numbered and its
// instances in start order, for every level the aggregated outputs try;
// each instance's losses are made from it one at a time (InstanceLosses).
//
//===----------------------------------------------------------------------===//
#include "LoopTable.h"
#include "Outliers.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace gcg {

std::vector<LoopThread>
loopThreads(const Analysis &an, std::vector<std::pair<size_t, double>> *medians,
            std::vector<double> *firstCreation, Spreads *spreads) {
  Spreads own;
  Spreads &sp = spreads ? *spreads : own;
  // An instance's first row is its first share's place in the model's
  // pool (one run per instance, in instance order), no table of them.
  const Share *pool = an.loops.empty() ? nullptr : an.loops[0].shares.data();
  auto rowOff = [&](size_t li) {
    return size_t(an.loops[li].shares.data() - pool);
  };
  size_t nRows = 0;
  for (const Loop &lp : an.loops)
    nRows += lp.shares.size();
  std::vector<LoopThread> rows(nRows);
  if (firstCreation)
    firstCreation->assign(rows.size(), 0.0);
  for (size_t li = 0; li < an.loops.size(); li++) {
    const Loop &lp = an.loops[li];
    for (size_t s = 0; s < lp.shares.size(); s++) {
      LoopThread &r = rows[rowOff(li) + s];
      const Share &sh = lp.shares[s];
      r.loop = int(li);
      r.th = sh.th;
      r.hasWork = !sh.unknown;
    }
  }
  const Chunks &ch = an.chunks;
  // Chunk i's row (-1: none); consecutive chunks of a row look it up once.
  int lastLi = -1, lastTh = 0;
  int64_t row = -1;
  auto rowOf = [&](size_t i) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      lastLi = li, lastTh = th, row = -1;
      const Loop &lp = an.loops[li];
      for (size_t s = 0; s < lp.shares.size(); s++)
        if (lp.shares[s].th == th)
          row = int64_t(rowOff(size_t(li)) + s);
    }
    return row;
  };
  for (size_t i = 0; i < ch.size(); i++) {
    int64_t row = rowOf(i);
    if (row < 0)
      continue; // a chunk of no thread's share (not made by the analysis)
    LoopThread &r = rows[row];
    uint64_t s = ch.start[i], e = std::max(ch.end[i], ch.start[i]);
    int64_t w = int64_t(e - s);
    if (!r.chunks) {
      r.first = s; // its end: s + w, its work (LoopThread::last())
      double c = ch.creation[i];
      if (firstCreation)
        (*firstCreation)[size_t(row)] = c > 0 && c <= double(s) ? c : 0;
    } else {
      if (r.chunks == 1) { // its one chunk's work and end are the row's
        r.spread = uint32_t(sp.size());
        sp.push_back({std::min(r.work, w), std::max(r.work, w),
                      std::max(r.first + uint64_t(r.work), e)});
      } else {
        Spread &x = sp[r.spread];
        x.minWork = std::min(x.minWork, w), x.maxWork = std::max(x.maxWork, w);
        x.last = std::max(x.last, e);
      }
      r.first = std::min(r.first, s);
    }
    r.work = satAdd(r.work, w);
    r.chunks++;
  }
  if (!medians)
    return rows;
  // The median of one or two chunks' work is their mean
  // (LoopTable::median). Larger rows: their chunks' work grouped by row (a
  // counting sort, over those rows' chunks alone), then each row's middle.
  std::vector<size_t> off(rows.size() + 1, 0);
  for (size_t r = 0; r < rows.size(); r++) {
    int64_t n = rows[r].chunks;
    off[r + 1] = off[r] + size_t(n > 2 ? n : 0);
  }
  if (!off.back())
    return rows;
  std::vector<int64_t> work(off.back());
  {
    std::vector<size_t> pos(off.begin(), off.end() - 1);
    lastLi = -1, lastTh = 0, row = -1;
    for (size_t i = 0; i < ch.size(); i++) {
      int64_t r = rowOf(i);
      if (r >= 0 && rows[r].chunks > 2)
        work[pos[r]++] =
            int64_t(std::max(ch.end[i], ch.start[i]) - ch.start[i]);
    }
  }
  for (size_t r = 0; r < rows.size(); r++) {
    size_t n = off[r + 1] - off[r];
    if (!n)
      continue;
    auto b = work.begin() + off[r], m = b + n / 2;
    std::nth_element(b, m, b + n);
    double med = double(*m);
    if (n % 2 == 0)
      med = (med + double(*std::max_element(b, m))) / 2;
    medians->push_back({r, med});
  }
  return rows;
}

double LoopTable::median(size_t r) const {
  const LoopThread &x = rows[r];
  if (x.chunks == 1)
    return double(maxWork(r));
  if (x.chunks == 2) // the larger first, as the middle two of more
    return (double(maxWork(r)) + double(minWork(r))) / 2;
  auto it = std::lower_bound(medians.begin(), medians.end(), r,
                             [](const std::pair<size_t, double> &m,
                                size_t row) { return m.first < row; });
  return it != medians.end() && it->first == r ? it->second : NAN;
}

std::vector<int32_t> loopIds(const Analysis &an, size_t *nLoops,
                             uint64_t *most) {
  size_t nl = an.loops.size();
  // A loop: its name (unique per site, but compared as text) and code.
  std::unordered_map<std::string, int32_t> nameId;
  std::vector<int32_t> siteName;
  std::map<std::pair<int32_t, uint64_t>, int32_t> keyId; // (name, code)
  std::vector<uint64_t> count;
  std::vector<int32_t> ids(nl);
  uint64_t mostSeen = 0;
  for (size_t li = 0; li < nl; li++) {
    size_t site = size_t(an.loopSite[li]);
    if (siteName.size() <= site)
      siteName.resize(site + 1, -1);
    if (siteName[site] < 0)
      siteName[site] =
          nameId.emplace(an.loopName(int(li)), int32_t(nameId.size()))
              .first->second;
    int32_t name = siteName[site];
    auto fresh = int32_t(count.size());
    int32_t id =
        keyId
            .emplace(std::make_pair(name, an.codeOf(an.loops[li]).codeptr),
                     fresh)
            .first->second;
    if (id == fresh)
      count.push_back(0);
    ids[li] = id;
    mostSeen = std::max(mostSeen, ++count[size_t(id)]);
  }
  if (nLoops)
    *nLoops = count.size();
  if (most)
    *most = mostSeen;
  return ids;
}

std::vector<int32_t> instancesByStart(const std::vector<LoopThread> &rows,
                                      size_t instances) {
  // Mostly in order already (instances are numbered as they begin), and
  // their rows consecutive (loopThreads()): then one pass, without a
  // start per instance.
  {
    std::vector<int32_t> order;
    bool inOrder = true;
    int cur = -1;
    uint64_t s = UINT64_MAX, last = 0;
    auto close = [&] {
      if (cur < 0 || s == UINT64_MAX)
        return;
      inOrder = inOrder && (order.empty() || s >= last);
      order.push_back(int32_t(cur));
      last = s;
    };
    for (const LoopThread &r : rows) {
      if (r.loop != cur) {
        if (r.loop < cur || size_t(r.loop) >= instances) {
          inOrder = false;
          break;
        }
        close();
        cur = r.loop, s = UINT64_MAX;
      }
      if (r.chunks)
        s = std::min(s, r.first);
    }
    close();
    if (inOrder)
      return order;
  }
  std::vector<uint64_t> start(instances, UINT64_MAX);
  for (const LoopThread &r : rows)
    if (r.chunks)
      start[r.loop] = std::min(start[r.loop], r.first);
  std::vector<int32_t> order;
  for (size_t li = 0; li < instances; li++)
    if (start[li] != UINT64_MAX)
      order.push_back(int32_t(li));
  auto before = [&](int32_t a, int32_t b) { return start[a] < start[b]; };
  // Mostly in order already (instances are numbered as they begin).
  if (!std::is_sorted(order.begin(), order.end(), before))
    std::stable_sort(order.begin(), order.end(), before);
  return order;
}

LoopTable loopTable(const Analysis &an) {
  LoopTable t;
  t.rows = loopThreads(an, &t.medians, &t.firstCreation, &t.spreads);
  t.loopOf = loopIds(an, &t.nLoops, &t.most);
  t.byStart = instancesByStart(t.rows, an.loops.size());
  return t;
}

InstanceLosses::InstanceLosses(const Analysis &an, const LoopTable &t)
    : an(an), rows(t.rows), spreads(t.spreads), firstCreation(t.firstCreation) {
  // Each thread's implicit task's begin in each region: a thread's late
  // start is a late join as far as its implicit task began after the first
  // of the instance's threads' (the rest it spent in the region before
  // the loop). By region and thread; of two for one region and thread, the
  // later in the implicit tasks' order counts.
  joined.reserve(an.implicit.size());
  for (const auto &kv : an.implicit)
    joined.push_back({kv.second.par, kv.second.th, kv.second.begin});
  // In order already but for a run per thread's recording (regions are
  // numbered as they begin, each thread's read in turn): the runs merged
  // (stably, as a stable sort orders them), else sorted.
  std::vector<size_t> runs{0};
  for (size_t i = 1; i < joined.size() && runs.size() <= MaxRuns; i++)
    if (byKey(joined[i], joined[i - 1]))
      runs.push_back(i);
  if (runs.size() > MaxRuns) {
    std::stable_sort(joined.begin(), joined.end(), byKey);
    return;
  }
  for (size_t r = 1; r < runs.size(); r++)
    std::inplace_merge(joined.begin(), joined.begin() + long(runs[r]),
                       r + 1 < runs.size() ? joined.begin() + long(runs[r + 1])
                                           : joined.end(),
                       byKey);
}

bool InstanceLosses::byKey(const Joined &a, const Joined &b) {
  return a.par < b.par || (a.par == b.par && a.th < b.th);
}

const uint64_t *InstanceLosses::joinedAt(const LoopThread &r, const Joined *b,
                                         const Joined *e) const {
  // The last of r's thread's among its region's (b..e, by thread).
  const Joined *it = std::upper_bound(
      b, e, r.th, [](int th, const Joined &x) { return th < x.th; });
  return it != b && (it - 1)->th == r.th ? &(it - 1)->begin : nullptr;
}

InstanceLoss InstanceLosses::operator()(int li) {
  InstanceLoss x;
  x.loop = li;
  x.team = uint32_t(teamOf(an, li));
  x.known = true;
  // Its rows: consecutive, instances in order.
  while (row < rows.size() && rows[row].loop < li)
    row++;
  size_t b = row, e = b;
  while (e < rows.size() && rows[e].loop == li)
    e++;
  // The instance's first start and last end over its threads.
  bool seen = false;
  auto begins = [&](size_t k) {
    return rows[k].first - uint64_t(firstCreation[k]);
  };
  for (size_t k = b; k < e; k++) {
    const LoopThread &r = rows[k];
    if (!r.chunks)
      continue;
    x.first = seen ? std::min(x.first, begins(k)) : begins(k);
    uint64_t last = r.last(&spreads);
    x.last = seen ? std::max(x.last, last) : last;
    seen = true;
    x.threads++;
    x.known = x.known && r.hasWork;
    x.work += double(r.work);
    x.maxWork = std::max(x.maxWork, double(r.work));
  }
  if (!seen) {
    x.known = false;
    return x;
  }
  // The instance's region's implicit tasks (kind 0: its key's region),
  // found once; each row's thread's begin among them, looked up once.
  const Loop &lp = an.loops[size_t(li)];
  const Joined *jb = nullptr, *je = nullptr;
  if (lp.keyKind == 0) {
    auto [lo, hi] = std::equal_range(
        joined.begin(), joined.end(), Joined{lp.k0, 0, 0},
        [](const Joined &x, const Joined &y) { return x.par < y.par; });
    jb = joined.data() + (lo - joined.begin());
    je = joined.data() + (hi - joined.begin());
  }
  at.assign(e - b, nullptr);
  uint64_t firstJoin = UINT64_MAX;
  double maxSpan = 0;
  for (size_t k = b; k < e; k++) {
    const LoopThread &r = rows[k];
    if (!r.chunks)
      continue;
    maxSpan = std::max(maxSpan, double(r.last(&spreads) - begins(k)));
    if ((at[k - b] = joinedAt(r, jb, je)))
      firstJoin = std::min(firstJoin, *at[k - b]);
  }
  double uneven = 0;
  for (size_t k = b; k < e; k++) {
    const LoopThread &r = rows[k];
    if (!r.chunks)
      continue;
    double late = double(begins(k) - x.first);
    x.lateStart += late;
    uint64_t last = r.last(&spreads);
    x.between += double(last - begins(k)) - double(r.work);
    x.endWait += double(x.last - last);
    uneven += maxSpan - double(last - begins(k));
    const uint64_t *j = at[k - b];
    double joinLate = j && *j > firstJoin ? double(*j - firstJoin) : 0.0;
    x.lateJoin += std::min(late, joinLate);
    if (late > x.latest || x.latestThread < 0) {
      x.latest = late;
      x.latestThread = r.th;
    }
  }
  x.team = std::max(x.team, x.threads);
  double span = double(x.last - x.first);
  x.idle = double(x.team - x.threads) * span;
  x.lost = x.lateStart + x.between + x.endWait + x.idle;
  x.endWaitLate = x.endWait - std::min(x.endWait, uneven);
  return x;
}

} // namespace gcg

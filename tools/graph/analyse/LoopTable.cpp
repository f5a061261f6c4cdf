// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopTable.cpp - loop instances per thread, and loops.csv -----------===//
//
// The table behind loops.csv and the aggregated trace and graph: per loop
// instance and thread, its chunks, their work (sum, min, median, max) and
// its span; its wait at the loop's end is its share's (shareWait). Its
// rows are the model's shares (LoopRows: a row holds its first start, and
// what its share cannot give apart), made in one pass over the chunks; the
// median of one or two chunks comes from their least and most when read
// (LoopTable::median), larger rows group their chunks' work by row (8
// bytes per such chunk while it runs) and keep their median. Made once per
// process (LoopTable) with its loops numbered and its instances in start
// order, for every level the aggregated outputs try; each instance's
// losses are made from it one at a time (InstanceLosses).
//
//===----------------------------------------------------------------------===//
#include "LoopTable.h"
#include "Outliers.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

namespace gcg {

LoopRows::LoopRows(const Share *pool, const std::vector<uint32_t> &perInstance,
                   std::vector<uint64_t> first, std::vector<Apart> apart)
    : pool(pool), first(std::move(first)), apart(std::move(apart)) {
  rowStart.reserve(perInstance.size() + 1);
  rowStart.push_back(0);
  for (uint32_t n : perInstance)
    rowStart.push_back(rowStart.back() + n);
}

LoopRows::Iterator::Iterator(const LoopRows *t, size_t r) : t(t), r(r) {
  if (r >= t->size())
    return;
  li = size_t(std::upper_bound(t->rowStart.begin(), t->rowStart.end(),
                               uint32_t(r)) -
              t->rowStart.begin()) -
       1;
  ap = size_t(
      std::lower_bound(t->apart.begin(), t->apart.end(), r,
                       [](const Apart &a, size_t x) { return a.row < x; }) -
      t->apart.begin());
}

const LoopRows::Apart *LoopRows::apartOf(size_t r) const {
  auto it =
      std::lower_bound(apart.begin(), apart.end(), r,
                       [](const Apart &a, size_t x) { return a.row < x; });
  return it != apart.end() && it->row == r ? &*it : nullptr;
}

LoopThread LoopRows::operator[](size_t r) const {
  int li = int(std::upper_bound(rowStart.begin(), rowStart.end(), uint32_t(r)) -
               rowStart.begin()) -
           1;
  return make(r, li, apartOf(r));
}

bool LoopRows::add(int loop, int th, int64_t chunks, bool hasWork, int64_t work,
                   uint64_t f, uint64_t last) {
  if (chunks < 0 || chunks > int64_t(Share::MaxCount) || loop < 0 ||
      size_t(loop) + 1 < rowStart.size() || first.size() >= UINT32_MAX)
    return false;
  while (rowStart.size() < size_t(loop) + 1)
    rowStart.push_back(uint32_t(first.size()));
  Share s(th);
  s.count = uint32_t(chunks);
  s.unknown = !hasWork;
  s.hasWork = chunks > 0;
  // What its share and first start give (make()), or else held apart: a
  // part carries no least and most of them (of one chunk: its work). Its
  // share holds a work in [0, Share::Wide) alone.
  bool inShare = work >= 0 && work < int64_t(Share::Wide);
  if (inShare)
    s.work32 = uint32_t(work);
  bool derived = chunks == 1 ? work >= 0 && last == f + uint64_t(work)
                             : chunks == 0 && work == 0 && last == f;
  if (!inShare || !derived) {
    int64_t one = chunks == 1 && derived ? work : 0;
    apart.push_back({uint32_t(first.size()), one, one, work, last});
  }
  own.push_back(s);
  first.push_back(f);
  return true;
}

bool LoopRows::close(size_t instances) {
  if (rowStart.size() > instances + 1)
    return false;
  while (rowStart.size() < instances + 1)
    rowStart.push_back(uint32_t(first.size()));
  return true;
}

size_t LoopRows::heldBytes() const {
  return own.capacity() * sizeof(Share) + first.capacity() * sizeof(uint64_t) +
         rowStart.capacity() * sizeof(uint32_t) +
         apart.capacity() * sizeof(Apart);
}

LoopRows loopThreads(const Analysis &an,
                     std::vector<std::pair<size_t, double>> *medians,
                     CreationTicks *firstCreation) {
  // An instance's rows are its shares: one run of the model's pool per
  // instance, in instance order; a row's index is its share's place in
  // the pool.
  const Share *pool = an.loops.empty() ? nullptr : an.shares(size_t(0)).data();
  std::vector<uint32_t> perInstance(an.loops.size());
  size_t nRows = 0;
  for (size_t li = 0; li < an.loops.size(); li++) {
    ConstShareSpan sp = an.shares(li);
    if (!sp.empty() && size_t(sp.data() - pool) != nRows)
      throw Error("the loop table: loop instance " + std::to_string(li) +
                  "'s threads are not the run after the last's");
    perInstance[li] = uint32_t(sp.size());
    nRows += sp.size();
  }
  if (nRows >= UINT32_MAX)
    throw Error("more than " + std::to_string(UINT32_MAX - 1) +
                " loop instance threads in one process (the loop table "
                "numbers them in 32 bits)");
  // Held apart: the rows of two chunks or more, and of one chunk ending
  // before it starts (its share's work, negative, is not the row's) or
  // whose work its share holds apart (Share::Wide or more).
  auto heldApart = [](const Share &s) {
    return s.count > 1 || (s.count == 1 && s.work32 >= Share::Wide);
  };
  std::vector<LoopRows::Apart> apart;
  for (size_t r = 0; r < nRows; r++)
    if (heldApart(pool[r]))
      apart.push_back({uint32_t(r), INT64_MAX, -1, 0, 0});
  std::vector<uint64_t> first(nRows, 0);
  if (firstCreation)
    firstCreation->assign(nRows);
  const Chunks &ch = an.chunks;
  // Chunk i's row (-1: none) and its Apart (null: none); consecutive
  // chunks of a row look them up once.
  int lastLi = -1, lastTh = 0;
  int64_t row = -1;
  LoopRows::Apart *ap = nullptr;
  auto rowOf = [&](size_t i) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      lastLi = li, lastTh = th, row = -1, ap = nullptr;
      for (const Share &s : an.shares(size_t(li)))
        if (s.th == th)
          row = int64_t(&s - pool);
      if (row >= 0 && heldApart(pool[row])) {
        auto it = std::lower_bound(
            apart.begin(), apart.end(), uint32_t(row),
            [](const LoopRows::Apart &a, uint32_t x) { return a.row < x; });
        ap = &*it;
      }
    }
    return row;
  };
  uint64_t seen = 0, counted = 0;
  for (size_t r = 0; r < nRows; r++)
    counted += pool[r].count;
  for (size_t i = 0; i < ch.size(); i++) {
    int64_t row = rowOf(i);
    if (row < 0)
      continue; // a chunk of no thread's share (not made by the analysis)
    seen++;
    uint64_t s = ch.start[i], e = std::max(ch.end[i], ch.start[i]);
    int64_t w = int64_t(e - s);
    // Its row's first chunk (as read): no Apart, or one with no chunk yet.
    bool firstMet = !ap || ap->maxWork < 0;
    if (firstMet) {
      first[size_t(row)] = s;
      double c = ch.creation[i];
      if (firstCreation)
        firstCreation->set(size_t(row),
                           c > 0 && c <= double(s) ? uint64_t(c) : 0);
    } else {
      first[size_t(row)] = std::min(first[size_t(row)], s);
    }
    if (ap) {
      ap->minWork = std::min(ap->minWork, w);
      ap->maxWork = std::max(ap->maxWork, w);
      ap->last = std::max(ap->last, e);
      ap->work = satAdd(ap->work, w);
    }
  }
  if (firstCreation)
    firstCreation->sorted();
  if (seen != counted)
    throw Error("the loop table: the loop instances' threads count " +
                std::to_string(counted) + " chunks, the chunks are " +
                std::to_string(seen));
  if (medians) {
    // The median of one or two chunks' work is their mean
    // (LoopTable::median). Rows of more (held apart): their chunks' work
    // grouped by Apart (a counting sort, over those rows' chunks alone),
    // then each row's middle.
    std::vector<size_t> off(apart.size() + 1, 0);
    for (size_t k = 0; k < apart.size(); k++) {
      uint32_t n = pool[apart[k].row].count;
      off[k + 1] = off[k] + (n > 2 ? n : 0);
    }
    if (off.back()) {
      std::vector<int64_t> work(off.back());
      {
        std::vector<size_t> pos(off.begin(), off.end() - 1);
        lastLi = -1, lastTh = 0, row = -1, ap = nullptr;
        for (size_t i = 0; i < ch.size(); i++)
          if (rowOf(i) >= 0 && ap && pool[ap->row].count > 2)
            work[pos[size_t(ap - apart.data())]++] =
                int64_t(std::max(ch.end[i], ch.start[i]) - ch.start[i]);
      }
      for (size_t k = 0; k < apart.size(); k++) {
        size_t n = off[k + 1] - off[k];
        if (!n)
          continue;
        auto b = work.begin() + long(off[k]), m = b + long(n / 2);
        std::nth_element(b, m, b + long(n));
        double med = double(*m);
        if (n % 2 == 0)
          med = (med + double(*std::max_element(b, m))) / 2;
        medians->push_back({apart[k].row, med});
      }
    }
  }
  return LoopRows(pool, perInstance, std::move(first), std::move(apart));
}

double LoopTable::median(size_t r, const LoopThread &x) const {
  if (x.chunks == 1)
    return double(x.maxWork);
  if (x.chunks == 2) // the larger first, as the middle two of more
    return (double(x.maxWork) + double(x.minWork)) / 2;
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

StartOrder instancesByStart(const LoopRows &rows) {
  size_t instances = rows.instances();
  // Mostly in order already (instances are numbered as they begin), and
  // their rows consecutive (loopThreads()): then one pass, without a
  // start per instance; and where that order is every instance's, none
  // listed.
  {
    StartOrder order;
    bool inOrder = true, listing = false;
    int cur = -1;
    uint64_t s = UINT64_MAX, last = 0;
    auto close = [&] {
      if (cur < 0 || s == UINT64_MAX)
        return;
      inOrder = inOrder && (order.size() == 0 || s >= last);
      if (!listing && size_t(cur) != order.n) {
        // Not the next instance (also where the first is not instance 0:
        // none counted yet, the list still empty): those so far listed.
        for (size_t k = 0; k < order.n; k++)
          order.list.push_back(int32_t(k));
        listing = true;
      }
      if (!listing)
        order.n++;
      else
        order.list.push_back(int32_t(cur));
      last = s;
    };
    rows.forEach([&](size_t, const LoopThread &r) {
      if (r.loop != cur) {
        close();
        cur = r.loop, s = UINT64_MAX;
      }
      if (r.chunks)
        s = std::min(s, r.first);
    });
    close();
    if (inOrder)
      return order;
  }
  std::vector<uint64_t> start(instances, UINT64_MAX);
  rows.forEach([&](size_t, const LoopThread &r) {
    if (r.chunks)
      start[r.loop] = std::min(start[r.loop], r.first);
  });
  std::vector<int32_t> order;
  for (size_t li = 0; li < instances; li++)
    if (start[li] != UINT64_MAX)
      order.push_back(int32_t(li));
  auto before = [&](int32_t a, int32_t b) { return start[a] < start[b]; };
  // Mostly in order already (instances are numbered as they begin).
  if (!std::is_sorted(order.begin(), order.end(), before))
    std::stable_sort(order.begin(), order.end(), before);
  StartOrder o;
  o.list = std::move(order);
  return o;
}

LoopTable loopTable(const Analysis &an) {
  LoopTable t;
  t.rows = loopThreads(an, &t.medians, &t.firstCreation);
  t.loopOf = loopIds(an, &t.nLoops, &t.most);
  t.byStart = instancesByStart(t.rows);
  return t;
}

/// The first i of [b, e) with par(i) >= p, where par ascends over [b,
/// e): galloped on from at when no one before at is p or later (the lower
/// bound from there is then the lower bound: instances mostly come in
/// their regions' order, a few regions apart), else from b.
template <class Par>
static size_t lowerFrom(size_t b, size_t e, size_t at, uint64_t p, Par par) {
  if (at < b || at > e || (at > b && par(at - 1) >= p))
    at = b;
  size_t lo = at, step = 1;
  while (lo + step < e && par(lo + step) < p)
    lo += step, step *= 2;
  if (lo < e && par(lo) < p) { // the bound is in (lo, min(e, lo + step)]
    size_t l = lo + 1, h = std::min(e, lo + step + 1);
    while (l < h) {
      size_t m = l + (h - l) / 2;
      if (par(m) < p)
        l = m + 1;
      else
        h = m;
    }
    lo = l;
  }
  return lo;
}

InstanceLosses::InstanceLosses(const Analysis &an, const LoopTable &t)
    : an(an), rows(t.rows), firstCreation(t.firstCreation) {
  // Each thread's implicit task's begin in each region: a thread's late
  // start is a late join as far as its implicit task began after the first
  // of the instance's threads' (the rest it spent in the region before
  // the loop). By region and thread; of two for one region and thread, the
  // later in the implicit tasks' order counts.
  //
  // Where each thread's implicit tasks are one run of the table in the
  // order of their regions (each thread's recording read in turn, regions
  // numbered as they begin), they are looked up there, per thread (no copy
  // of them).
  size_t n = an.implicit.size();
  implicit = n ? &*an.implicit.begin() : nullptr;
  bool inPlace = true;
  for (size_t i = 0, j; i < n && inPlace; i = j) {
    int th = implicit[i].second.th;
    for (j = i + 1; j < n && implicit[j].second.th == th; j++)
      inPlace = inPlace && an.parOf(an.implicit.begin() + long(j)) >=
                               an.parOf(an.implicit.begin() + long(j - 1));
    if (th < 0 || th >= MaxThread) {
      inPlace = false;
      break;
    }
    if (byThread.size() <= size_t(th))
      byThread.resize(size_t(th) + 1, ThreadRun{0, 0, 0});
    ThreadRun &run = byThread[size_t(th)];
    inPlace = inPlace && run.b == run.e; // its first run
    run = {i, j, i};
  }
  if (inPlace)
    return;
  std::vector<ThreadRun>().swap(byThread);
  joined.reserve(n);
  for (auto it = an.implicit.begin(); it != an.implicit.end(); ++it)
    joined.push_back({an.parOf(it), it->second.th, it->second.begin});
  // In order already but for a run per thread's recording: the runs merged
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

size_t InstanceLosses::regionTasks(uint64_t par) {
  jat = lowerFrom(0, joined.size(), jat, par,
                  [&](size_t i) { return joined[i].par; });
  return jat;
}

const uint64_t *InstanceLosses::threadJoined(uint64_t par, int th) {
  if (th < 0 || size_t(th) >= byThread.size())
    return nullptr;
  ThreadRun &run = byThread[size_t(th)];
  auto parOf = [&](size_t i) {
    return an.parOf(an.implicit.begin() + long(i));
  };
  size_t i = run.at = lowerFrom(run.b, run.e, run.at, par, parOf);
  if (i == run.e || parOf(i) != par)
    return nullptr;
  while (i + 1 < run.e && parOf(i + 1) == par) // the later one counts
    i++;
  return &implicit[i].second.begin;
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
  size_t b = rows.rowBegin(size_t(li));
  rows.rowsOf(size_t(li), mine, ap);
  // The instance's first start and last end over its threads.
  bool seen = false;
  auto begins = [&](size_t k) { return mine[k].first - firstCreation[b + k]; };
  for (size_t k = 0; k < mine.size(); k++) {
    const LoopThread &r = mine[k];
    if (!r.chunks)
      continue;
    x.first = seen ? std::min(x.first, begins(k)) : begins(k);
    x.last = seen ? std::max(x.last, r.last) : r.last;
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
  bool inPlace = !byThread.empty();
  if (lp.keyKind == 0 && !inPlace) {
    size_t lo = regionTasks(lp.k0()), hi = lo;
    while (hi < joined.size() && joined[hi].par == lp.k0())
      hi++;
    jb = joined.data() + lo;
    je = joined.data() + hi;
  }
  at.assign(mine.size(), nullptr);
  uint64_t firstJoin = UINT64_MAX;
  double maxSpan = 0;
  for (size_t k = 0; k < mine.size(); k++) {
    const LoopThread &r = mine[k];
    if (!r.chunks)
      continue;
    maxSpan = std::max(maxSpan, double(r.last - begins(k)));
    at[k] = lp.keyKind != 0 ? nullptr
            : inPlace       ? threadJoined(lp.k0(), r.th)
                            : joinedAt(r, jb, je);
    if (at[k])
      firstJoin = std::min(firstJoin, *at[k]);
  }
  double uneven = 0;
  for (size_t k = 0; k < mine.size(); k++) {
    const LoopThread &r = mine[k];
    if (!r.chunks)
      continue;
    double late = double(begins(k) - x.first);
    x.lateStart += late;
    uint64_t last = r.last;
    x.between += double(last - begins(k)) - double(r.work);
    x.endWait += double(x.last - last);
    uneven += maxSpan - double(last - begins(k));
    const uint64_t *j = at[k];
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

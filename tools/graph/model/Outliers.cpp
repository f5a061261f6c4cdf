// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Outliers.cpp - outlier chunks and tasks: median and MAD -----------===//
//
// The outlier columns of the grains (Outliers.h): per loop instance its
// chunks' work, per sibling group its tasks' work, against the group's
// median and scaled MAD.
//
//===----------------------------------------------------------------------===//
#include "Outliers.h"
#include "Analysis.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace gcg {

/// The median of v (of an even count: the mean of the middle two);
/// reorders v.
template <class V> static double medianIn(std::vector<V> &v) {
  size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  double m = double(v[h]);
  if (v.size() % 2 == 0)
    m = (m + double(*std::max_element(v.begin(), v.begin() + h))) / 2;
  return m;
}

double medianOf(std::vector<int64_t> &v) { return medianIn(v); }

/// The members of a group (work in ticks) that exceed its median by more
/// than OutlierMads scaled MADs, `material` and the OutlierMinNs floor:
/// mark(m) for each, where each(f) calls f(m, x) for every member m and
/// its work x, in one order (twice: the outliers are found on the second
/// pass). v holds the members' works, in any order, and is reordered and
/// overwritten: the one copy of the works held (their deviations from the
/// median in their place, whose median needs no order).
template <class V, class Each, class Mark>
static void markOutliers(std::vector<V> &v, const Each &each, double material,
                         double floorTicks, const Mark &mark) {
  double med = medianIn(v);
  for (V &x : v)
    x = V(std::llround(std::fabs(double(x) - med)));
  double sigma = 1.4826 * medianIn(v);
  each([&](auto m, int64_t x) {
    double excess = double(x) - med;
    if (excess > OutlierMads * sigma && excess >= material &&
        excess >= floorTicks && excess > 0)
      mark(m);
  });
}

/// The same, isOut[j] for w[j].
static void markOutliers(const std::vector<int64_t> &w, double material,
                         double floorTicks, std::vector<uint8_t> &isOut) {
  std::vector<int64_t> v(w); // the values, then their deviations
  isOut.assign(w.size(), 0);
  markOutliers(
      v,
      [&](const auto &f) {
        for (size_t j = 0; j < w.size(); j++)
          f(j, w[j]);
      },
      material, floorTicks, [&](size_t j) { isOut[j] = 1; });
}

std::vector<uint8_t> outlierChunks(const Analysis &an) {
  const Chunks &ch = an.chunks;
  size_t n = ch.size(), nl = an.loops.size();
  std::vector<uint8_t> out(n, 0);
  // The chunks with known times, grouped by loop instance (of the
  // instances of three chunks or more: the others have no outlier).
  std::vector<size_t> off(nl + 1, 0);
  std::vector<uint8_t> many(nl, 0), known(n, 0);
  for (size_t l = 0; l < nl; l++)
    many[l] = an.nChunks(an.loops[l]) >= 3;
  for (size_t i = 0; i < n; i++)
    if (many[size_t(ch.loop[i])] && !an.chunkUnknown(i))
      known[i] = 1, off[ch.loop[i] + 1]++;
  std::vector<uint8_t>().swap(many);
  for (size_t l = 0; l < nl; l++)
    off[l + 1] += off[l];
  std::vector<uint64_t> idx(off[nl]);
  {
    std::vector<size_t> pos(off.begin(), off.end() - 1);
    for (size_t i = 0; i < n; i++)
      if (known[i])
        idx[pos[ch.loop[i]]++] = i;
  }
  std::vector<uint8_t>().swap(known);
  std::vector<int64_t> w;
  std::vector<uint8_t> isOut;
  const double floorTicks = OutlierMinNs * an.clockNs();
  for (size_t l = 0; l < nl; l++) {
    size_t b = off[l], e = off[l + 1];
    if (e - b < 3)
      continue;
    w.clear();
    int64_t total = 0;
    for (size_t j = b; j < e; j++) {
      int64_t x = int64_t(ch.span(idx[j]));
      w.push_back(x);
      total = satAdd(total, x);
    }
    double material = OutlierShare * double(total) /
                      double(std::max<size_t>(1, teamOf(an, int(l))));
    markOutliers(w, material, floorTicks, isOut);
    for (size_t j = b; j < e; j++)
      if (isOut[j - b])
        out[idx[j]] = 1;
  }
  return out;
}

std::vector<uint8_t> outlierTasks(const Analysis &an) {
  const Tasks &T = an.tasks;
  size_t n = T.size();
  std::vector<uint8_t> out(n, 0);
  const double floorTicks = OutlierMinNs * an.clockNs();
  double threads = double(std::max<size_t>(1, an.threads.size()));
  // A task's work as the rule takes it (NaN: not a member of any group).
  auto workOf = [&](uint32_t k, int64_t &x) {
    double w = T.work(k);
    if (std::isnan(w))
      return false;
    x = int64_t(std::llround(std::max(0.0, w)));
    return true;
  };
  // A group of tasks (of 3 or more with work: eachTask(f) calls f(k) for
  // each of them, in one order): its outliers, the share being of its work
  // per thread. Its works held once, in 4 bytes each where they all fit.
  std::vector<int32_t> w32;
  std::vector<int64_t> w64;
  auto markGroup = [&](const auto &eachTask) {
    auto each = [&](const auto &f) {
      eachTask([&](uint32_t k) {
        if (int64_t x; workOf(k, x))
          f(k, x);
      });
    };
    w32.clear();
    double total = 0;
    bool small = true;
    each([&](uint32_t, int64_t x) {
      total += double(x);
      small = small && x <= INT32_MAX;
      if (small)
        w32.push_back(int32_t(x));
    });
    size_t cnt = small ? w32.size() : 0;
    if (!small) {
      std::vector<int32_t>().swap(w32);
      each([&](uint32_t, int64_t x) { w64.push_back(x); });
      cnt = w64.size();
    }
    double material = OutlierShare * total / threads;
    auto mark = [&](uint32_t k) { out[k] = 1; };
    if (cnt >= 3 && small)
      markOutliers(w32, each, material, floorTicks, mark);
    else if (cnt >= 3)
      markOutliers(w64, each, material, floorTicks, mark);
    std::vector<int64_t>().swap(w64);
  };
  std::map<std::pair<uint32_t, uint64_t>, std::vector<uint32_t>> groups;
  for (size_t p = 0; p + 1 < T.kidOff.size(); p++) {
    int64_t lo = T.kidOff[p], hi = T.kidOff[p + 1];
    if (hi - lo < 3)
      continue;
    groups.clear();
    for (int64_t j = lo; j < hi; j++) {
      uint32_t k = T.kids[j];
      if (!std::isnan(T.work(k)))
        groups[{T.joinsAt[k], T.codeptr[k]}].push_back(k);
    }
    for (auto &kv : groups)
      if (kv.second.size() >= 3)
        markGroup([&](const auto &f) {
          for (uint32_t k : kv.second)
            f(k);
        });
  }
  decltype(groups)().swap(groups);
  // Among its site's tasks, by the same rule: in a binary task tree two
  // siblings have no median to stand out of, and one preempted task among
  // a site's 10^5 is visible there. A site is a code's place
  // (TaskCodes::placeOf()); its tasks in ascending order: found by a pass
  // over every task's place where the places are few, else listed by a
  // counting sort (4 bytes a task).
  size_t places = T.codeptr.count();
  if (places <= 8) {
    for (uint32_t c = 0; c < places; c++)
      markGroup([&](const auto &f) {
        for (size_t k = 0; k < n; k++)
          if (T.codeptr.placeOf(k) == c)
            f(uint32_t(k));
      });
    return out;
  }
  std::vector<uint32_t> off(places + 1, 0), list(n);
  for (size_t k = 0; k < n; k++)
    off[T.codeptr.placeOf(k) + 1]++;
  for (size_t c = 0; c < places; c++)
    off[c + 1] += off[c];
  {
    std::vector<uint32_t> at(off.begin(), off.end() - 1);
    for (size_t k = 0; k < n; k++)
      list[at[T.codeptr.placeOf(k)]++] = uint32_t(k);
  }
  for (size_t c = 0; c < places; c++)
    markGroup([&](const auto &f) {
      for (uint32_t j = off[c]; j < off[c + 1]; j++)
        f(list[j]);
    });
  return out;
}

} // namespace gcg

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

double medianOf(std::vector<int64_t> &v) {
  size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  double m = double(v[h]);
  if (v.size() % 2 == 0)
    m = (m + double(*std::max_element(v.begin(), v.begin() + h))) / 2;
  return m;
}

/// The members of values (work in ticks) that exceed its median by more
/// than OutlierMads scaled MADs, `material` and the OutlierMinNs floor.
static void markOutliers(const std::vector<int64_t> &w, double material,
                         double floorTicks, std::vector<uint8_t> &isOut) {
  std::vector<int64_t> v(w); // the values, then their deviations
  double med = medianOf(v);
  for (size_t j = 0; j < w.size(); j++)
    v[j] = int64_t(std::llround(std::fabs(double(w[j]) - med)));
  double sigma = 1.4826 * medianOf(v);
  isOut.assign(w.size(), 0);
  for (size_t j = 0; j < w.size(); j++) {
    double excess = double(w[j]) - med;
    isOut[j] = excess > OutlierMads * sigma && excess >= material &&
               excess >= floorTicks && excess > 0;
  }
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
  std::vector<uint8_t> out(T.size(), 0);
  const double floorTicks = OutlierMinNs * an.clockNs();
  double threads = double(std::max<size_t>(1, an.threads.size()));
  std::map<std::pair<uint32_t, uint64_t>, std::vector<uint32_t>> groups;
  std::vector<int64_t> w;
  std::vector<uint8_t> isOut;
  // A group of tasks (of 3 or more): its outliers, the share being of its
  // work per thread.
  auto markGroup = [&](const std::vector<uint32_t> &ks) {
    if (ks.size() < 3)
      return;
    w.clear();
    double total = 0;
    for (uint32_t k : ks) {
      w.push_back(int64_t(std::llround(std::max(0.0, T.work(k)))));
      total += double(w.back());
    }
    markOutliers(w, OutlierShare * total / threads, floorTicks, isOut);
    for (size_t j = 0; j < w.size(); j++)
      if (isOut[j])
        out[ks[j]] = 1;
  };
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
      markGroup(kv.second);
  }
  // Among its site's tasks, by the same rule: in a binary task tree two
  // siblings have no median to stand out of, and one preempted task among
  // a site's 10^5 is visible there.
  std::map<uint64_t, std::vector<uint32_t>> sites;
  {
    std::map<uint64_t, size_t> count; // each site's list made to fit
    for (size_t k = 0; k < T.size(); k++)
      count[T.codeptr[k]]++;
    for (auto &kv : count)
      sites[kv.first].reserve(kv.second);
  }
  for (size_t k = 0; k < T.size(); k++)
    if (!std::isnan(T.work(k)))
      sites[T.codeptr[k]].push_back(uint32_t(k));
  for (auto &kv : sites) {
    markGroup(kv.second);
    std::vector<uint32_t>().swap(kv.second);
  }
  return out;
}

} // namespace gcg

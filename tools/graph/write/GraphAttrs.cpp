// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GraphAttrs.cpp - the prototype's relational and visual attributes --===//
//
// last_to_finish, num_siblings, sibling_scatter, instantaneous
// parallelism and the step size (GraphAttrs.h).
//
//===----------------------------------------------------------------------===//
#include "GraphAttrs.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>

namespace gcg {

std::vector<uint8_t> lastToFinish(const std::vector<int64_t> &cpu,
                                  const std::vector<uint64_t> &end) {
  std::unordered_map<int64_t, size_t> last;
  for (size_t i = 0; i < cpu.size(); i++) {
    auto it = last.find(cpu[i]);
    if (it == last.end())
      last.emplace(cpu[i], i);
    else if (end[i] > end[it->second])
      it->second = i;
  }
  std::vector<uint8_t> out(cpu.size(), 0);
  for (auto &[c, i] : last)
    out[i] = 1;
  return out;
}

void siblings(const std::vector<uint64_t> &group,
              const std::vector<int64_t> &cpu, std::vector<uint32_t> &num,
              std::vector<int64_t> &scatter) {
  struct G {
    uint32_t n = 0;
    int64_t lo = 0, hi = 0;
  };
  std::unordered_map<uint64_t, G> groups;
  for (size_t i = 0; i < group.size(); i++) {
    G &g = groups[group[i]];
    g.lo = g.n ? std::min(g.lo, cpu[i]) : cpu[i];
    g.hi = g.n ? std::max(g.hi, cpu[i]) : cpu[i];
    g.n++;
  }
  num.resize(group.size());
  scatter.resize(group.size());
  for (size_t i = 0; i < group.size(); i++) {
    const G &g = groups[group[i]];
    num[i] = g.n;
    scatter[i] = g.n > 1 ? g.hi - g.lo : -1;
  }
}

double stepSize(double value, double lo, double hi) {
  if (!(hi > lo) || std::isnan(value))
    return 30;
  double d = (hi - lo) / 1000, a = lo - d, step = (hi + d - a) / 10;
  double bin = std::ceil((value - a) / step);
  return 30 * std::min(10.0, std::max(1.0, bin));
}

static double medianOf(std::vector<uint32_t> &v) {
  size_t h = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + h, v.end());
  double m = v[h];
  if (v.size() % 2 == 0)
    m = (m + *std::max_element(v.begin(), v.begin() + h)) / 2;
  return m;
}

void instantaneousParallelism(const std::vector<double> &start,
                              const std::vector<double> &len,
                              std::vector<double> &mn, std::vector<double> &md,
                              std::vector<double> &mx, size_t maxBins) {
  size_t n = start.size();
  mn.assign(n, NAN);
  md.assign(n, NAN);
  mx.assign(n, NAN);
  std::vector<double> pos;
  double last = 0;
  for (size_t i = 0; i < n; i++) {
    if (len[i] > 0)
      pos.push_back(len[i]);
    last = std::max(last, start[i] + len[i]);
  }
  if (pos.empty())
    return;
  size_t h = pos.size() / 2;
  std::nth_element(pos.begin(), pos.begin() + h, pos.end());
  double w = pos[h];
  if (pos.size() % 2 == 0)
    w = (w + *std::max_element(pos.begin(), pos.begin() + h)) / 2;
  // Bins 0 .. nb-1 cover [0, last + 1 + w] as the prototype's do.
  double nbd = std::floor((last + 1 + w) / w) + 1;
  if (nbd > double(maxBins)) {
    w = (last + 1) / double(maxBins - 2);
    nbd = std::floor((last + 1 + w) / w) + 1;
  }
  size_t nb = size_t(nbd);
  auto range = [&](size_t i, int64_t &b0, int64_t &b1) {
    double s = start[i], e = start[i] + len[i];
    b0 = std::max<int64_t>(0, int64_t(std::ceil((s - w + 1) / w)));
    b1 = std::min<int64_t>(int64_t(nb) - 1, int64_t(std::floor(e / w)));
  };
  std::vector<int64_t> diff(nb + 1, 0);
  for (size_t i = 0; i < n; i++) {
    int64_t b0, b1;
    range(i, b0, b1);
    if (b0 > b1)
      continue;
    diff[b0]++;
    diff[b1 + 1]--;
  }
  std::vector<uint32_t> count(nb);
  int64_t run = 0;
  for (size_t b = 0; b < nb; b++)
    count[b] = uint32_t(run += diff[b]);
  std::vector<int64_t>().swap(diff);
  std::vector<uint32_t> part;
  for (size_t i = 0; i < n; i++) {
    int64_t b0, b1;
    range(i, b0, b1);
    if (b0 > b1)
      continue;
    size_t k = size_t(b1 - b0 + 1), stride = (k + 65535) / 65536;
    part.clear();
    uint32_t lo = UINT32_MAX, hi = 0;
    for (int64_t b = b0; b <= b1; b++) {
      lo = std::min(lo, count[b]);
      hi = std::max(hi, count[b]);
      if ((b - b0) % int64_t(stride) == 0)
        part.push_back(count[b]);
    }
    mn[i] = lo;
    mx[i] = hi;
    md[i] = medianOf(part);
  }
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.cpp - one colour per loop and task site, none near red -----===//
//
// The farthest-point sequence over a 6-level RGB grid without the colours
// near red or too light on white (Palette.h), computed once; the run's
// loops and task sites in the order they take the colours (most work
// first).
//
//===----------------------------------------------------------------------===//
#include "Palette.h"
#include "Run.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <unordered_map>

namespace gcg {

bool nearRed(int r, int g, int b) {
  int mx = std::max({r, g, b}), mn = std::min({r, g, b});
  if (mx > 0 && mx > mn && double(mx - mn) / mx >= 0.25) {
    // The hue (HSV), in degrees.
    double d = mx - mn, h;
    if (mx == r)
      h = 60 * std::fmod((g - b) / d + 6, 6.0);
    else if (mx == g)
      h = 60 * ((b - r) / d + 2);
    else
      h = 60 * ((r - g) / d + 4);
    if (std::min(h, 360 - h) < 40)
      return true;
  }
  for (int red : {255, 208}) {
    double s = double(r - red) * (r - red) + double(g) * g + double(b) * b;
    if (s < 150.0 * 150.0)
      return true;
  }
  return false;
}

double luminance(int r, int g, int b) {
  auto lin = [](int c) {
    double v = c / 255.0;
    return v <= 0.03928 ? v / 12.92 : std::pow((v + 0.055) / 1.055, 2.4);
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

static std::vector<std::string> build() {
  std::vector<std::array<int, 3>> cand;
  for (int r = 0; r <= 255; r += 51)
    for (int g = 0; g <= 255; g += 51)
      for (int b = 0; b <= 255; b += 51)
        if (r + g + b >= 150 &&
            std::max({r, g, b}) - std::min({r, g, b}) >= 51 &&
            !nearRed(r, g, b) &&
            1.05 / (luminance(r, g, b) + 0.05) >= MinContrastOnWhite)
          cand.push_back({r, g, b});
  std::vector<double> dist(cand.size(), 1e18);
  std::vector<std::string> out;
  std::array<int, 3> cur{0, 102, 204};
  while (out.size() < cand.size()) {
    char b[8];
    std::snprintf(b, sizeof b, "#%02x%02x%02x", cur[0], cur[1], cur[2]);
    out.push_back(b);
    size_t best = 0;
    for (size_t i = 0; i < cand.size(); i++) {
      double s = 0;
      for (int c = 0; c < 3; c++)
        s += double(cand[i][c] - cur[c]) * double(cand[i][c] - cur[c]);
      if (s < dist[i])
        dist[i] = s;
      if (dist[i] > dist[best])
        best = i;
    }
    cur = cand[best];
  }
  return out;
}

std::string paletteColour(size_t k) {
  static const std::vector<std::string> colours = build();
  return colours[k % colours.size()];
}

std::string RunColours::loop(const std::string &name) const {
  auto it = loopIndex.find(name);
  return it == loopIndex.end() ? "#999999" : loopAt(it->second);
}

std::string RunColours::site(const std::string &name) const {
  auto it = siteIndex.find(name);
  return it == siteIndex.end() ? "#999999" : siteAt(it->second);
}

namespace {
/// A process's loop instances' chunks' work (ns) and whether each ran
/// chunks.
void instanceWork(const Analysis &an, std::vector<double> &work,
                  std::vector<uint8_t> &ran) {
  double tpn = an.clockNs();
  work.assign(an.loops.size(), 0);
  ran.assign(an.loops.size(), 0);
  for (size_t i = 0; i < an.chunks.size(); i++) {
    size_t li = size_t(an.chunks.loop[i]);
    ran[li] = 1;
    if (an.chunks.end[i] > an.chunks.start[i])
      work[li] += double(an.chunks.span(i)) / tpn;
  }
}

/// A process's loops that ran chunks, by name in the order of their first
/// instance, with their instances' chunks' work (ns) added in instance
/// order: one entry per loop, whatever its instances (what MPI ranks
/// exchange: its size grows with loops, not with instances).
std::vector<std::pair<std::string, double>> loopWork(const Analysis &an) {
  std::vector<double> work;
  std::vector<uint8_t> ran;
  instanceWork(an, work, ran);
  std::vector<std::pair<std::string, double>> loops;
  std::unordered_map<std::string_view, size_t> index; // views of an's names
  // A name (unique per site) looked up once per site, not per instance.
  std::vector<size_t> siteAt;
  for (size_t li = 0; li < an.loops.size(); li++) {
    if (!ran[li])
      continue;
    size_t site = size_t(an.loopSite[li]);
    if (siteAt.size() <= site)
      siteAt.resize(site + 1, SIZE_MAX);
    if (siteAt[site] == SIZE_MAX) {
      const std::string &name = an.loopName(int(li));
      auto ins = index.emplace(name, loops.size());
      if (ins.second)
        loops.emplace_back(name, 0.0);
      siteAt[site] = ins.first->second;
    }
    loops[siteAt[site]].second += work[li];
  }
  return loops;
}

/// A process's task sites in the order of their first task's creation,
/// with their tasks' work (ns).
std::vector<std::pair<std::string, double>> siteWork(const Analysis &an) {
  double tpn = an.clockNs();
  std::vector<std::pair<std::string, double>> sites;
  std::unordered_map<std::string, size_t> site;
  for (uint32_t k : an.tasks.order) {
    auto ins = site.emplace(an.taskGrainName(k), sites.size());
    if (ins.second)
      sites.emplace_back(ins.first->first, 0.0);
    if (k < an.tasks.size() && an.tasks.execc(k) > 0)
      sites[ins.first->second].second += double(an.tasks.execc(k)) / tpn;
  }
  return sites;
}

/// Loops and sites in the order met, with their work (ns), added in
/// process order; then the colours.
struct ColourSums {
  RunColours c;
  std::vector<double> loopWork, siteWork;
  static void add(std::unordered_map<std::string, size_t> &index,
                  std::vector<std::string> &names, std::vector<double> &work,
                  const std::string &name, double w) {
    auto ins = index.emplace(name, names.size());
    if (ins.second) {
      names.push_back(name);
      work.push_back(0);
    }
    work[ins.first->second] += w;
  }
  void loop(const std::string &name, double w) {
    add(c.loopIndex, c.loops, loopWork, name, w);
  }
  void site(const std::string &name, double w) {
    add(c.siteIndex, c.sites, siteWork, name, w);
  }
  RunColours done() const;
};
} // namespace

std::vector<ColourWork> colourWorkOf(const Run &run) {
  std::vector<ColourWork> out;
  for (auto &pa : run.procs)
    out.push_back({loopWork(*pa), siteWork(*pa)});
  return out;
}

RunColours coloursOf(const std::vector<ColourWork> &procs) {
  ColourSums s;
  for (const ColourWork &cw : procs)
    for (const auto &[name, w] : cw.loops)
      s.loop(name, w);
  for (const ColourWork &cw : procs)
    for (const auto &[name, w] : cw.sites)
      s.site(name, w);
  return s.done();
}

RunColours ColourSums::done() const {
  // Both by descending work (ties: loops first, in the order met): the
  // colours in that order; the lists in it too.
  size_t nl = c.loops.size(), ns = c.sites.size();
  std::vector<size_t> order(nl + ns);
  for (size_t i = 0; i < order.size(); i++)
    order[i] = i;
  auto workOf = [&](size_t i) {
    return i < nl ? loopWork[i] : siteWork[i - nl];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return workOf(a) > workOf(b); });
  RunColours out;
  for (size_t rank = 0; rank < order.size(); rank++) {
    size_t i = order[rank];
    if (i < nl) {
      out.loopIndex.emplace(c.loops[i], out.loops.size());
      out.loops.push_back(c.loops[i]);
      out.loopColour.push_back(rank);
    } else {
      out.siteIndex.emplace(c.sites[i - nl], out.sites.size());
      out.sites.push_back(c.sites[i - nl]);
      out.siteColour.push_back(rank);
    }
  }
  return out;
}

RunColours runColours(const Run &run) {
  ColourSums s;
  for (auto &pa : run.procs)
    for (const auto &[name, w] : loopWork(*pa))
      s.loop(name, w);
  for (auto &pa : run.procs)
    for (const auto &[name, w] : siteWork(*pa))
      s.site(name, w);
  return s.done();
}

} // namespace gcg

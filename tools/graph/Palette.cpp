// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.cpp - one colour per loop and task site, none near red -----===//
//
// The farthest-point sequence over a 6-level RGB grid without the colours
// near red (Palette.h), computed once; the run's loops and task sites in
// the order they take the colours.
//
//===----------------------------------------------------------------------===//
#include "Palette.h"
#include "Run.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

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

static std::vector<std::string> build() {
  std::vector<std::array<int, 3>> cand;
  for (int r = 0; r <= 255; r += 51)
    for (int g = 0; g <= 255; g += 51)
      for (int b = 0; b <= 255; b += 51)
        if (r + g + b >= 150 && r + g + b <= 640 && !nearRed(r, g, b))
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

RunColours runColours(Run &run) {
  RunColours c;
  for (auto &pa : run.procs) {
    Analysis &an = *pa;
    std::vector<uint8_t> ran(an.loops.size(), 0);
    for (int32_t li : an.chunks.loop)
      ran[size_t(li)] = 1;
    for (size_t li = 0; li < an.loops.size(); li++)
      if (ran[li] &&
          c.loopIndex.emplace(an.loopName(int(li)), c.loops.size()).second)
        c.loops.push_back(an.loopName(int(li)));
  }
  for (auto &pa : run.procs) {
    Analysis &an = *pa;
    for (uint32_t k : an.tasks.order) {
      std::string s = an.taskGrainName(k);
      if (c.siteIndex.emplace(s, c.sites.size()).second)
        c.sites.push_back(std::move(s));
    }
  }
  return c;
}

} // namespace gcg

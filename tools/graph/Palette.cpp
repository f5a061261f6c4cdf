// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.cpp - colours for loops and task sites that stay distinct
//---===//
//
// The farthest-point sequence over a 6-level RGB grid (Palette.h),
// computed once.
//
//===----------------------------------------------------------------------===//
#include "Palette.h"

#include <array>
#include <cstdio>
#include <vector>

namespace gcg {

static std::vector<std::string> build() {
  std::vector<std::array<int, 3>> cand;
  for (int r = 0; r <= 255; r += 51)
    for (int g = 0; g <= 255; g += 51)
      for (int b = 0; b <= 255; b += 51)
        if (r + g + b >= 150 && r + g + b <= 640)
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

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.h - one colour per loop and task site, none near red -------===//
//
// paletteColour(k), the k-th colour ("#rrggbb") of a fixed sequence: from
// the colours of a 6-level RGB grid (0, 51, ..., 255 per channel) that are
// neither near black nor near white (channel sum 150..640) nor near red
// (nearRed: red marks the critical path and the problem grains in every
// output), each next colour is the one farthest (Euclidean, in RGB) from
// all chosen before it, starting at #0066cc; ties go to the first in grid
// order. The first 40 colours are at least 72 apart (of 441), the first
// 64 at least 51; after 152 the sequence repeats. Deterministic: the same
// k, the same colour, in every run.
//
// RunColours assigns them once per run, the same way for every output
// that colours grains (grains.graphml, report.html, timeline.svg): the
// loops that ran chunks (by name, process by process, in the order of
// their instances) take colours 0, 1, ...; then the task creation sites
// (by name, process by process, in task creation order) the next ones.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PALETTE_H
#define GRAINCHUNK_GRAPH_PALETTE_H

#include <cstddef>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcg {

struct Run;

std::string paletteColour(size_t k);

/// Near red: a hue within 40 degrees of red at a saturation of 0.25 or
/// more, or within 150 (Euclidean, RGB) of #ff0000 or #d00000.
bool nearRed(int r, int g, int b);

struct RunColours {
  std::vector<std::string> loops, sites; // names, in colour order
  std::unordered_map<std::string, size_t> loopIndex, siteIndex;
  /// A loop's or a site's colour (by name); "#999999" for one not listed.
  std::string loop(const std::string &name) const;
  std::string site(const std::string &name) const;
  /// The colour of loop i (of loops) and of site j (of sites).
  std::string loopAt(size_t i) const { return paletteColour(i); }
  std::string siteAt(size_t j) const { return paletteColour(loops.size() + j); }
};

/// The run's loops and task sites and their colours.
RunColours runColours(Run &run);

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.h - one colour per loop and task site, none near red -------===//
//
// paletteColour(k), the k-th colour ("#rrggbb") of a fixed sequence: from
// the colours of a 6-level RGB grid (0, 51, ..., 255 per channel) that are
// neither near black (channel sum below 150) nor grey (grey is for forks,
// joins and what is not listed) nor too light to see on white
// (contrast ratio against white, WCAG's, below MinContrastOnWhite: #ffff00
// and the like) nor near red (nearRed: red marks the critical path and the
// problem grains in every output), each next colour is the one farthest
// (Euclidean, in RGB) from all chosen before it, starting at #0066cc; ties
// go to the first in grid order. The first 40 colours are at least 72
// apart (of 441), the first 64 at least 51; after 115 the sequence
// repeats. Deterministic: the same k, the same colour, in every run.
//
// RunColours assigns them once per run, the same way for every output
// that colours grains (grains.graphml, report.html, timeline.svg): the
// loops that ran chunks and the task creation sites (by name, over every
// process) by descending work (their chunks' and tasks' running time; ties
// in the order met: loops process by process in the order of their
// instances, then sites in task creation order; work summed per process,
// then over processes) take colours 0, 1, ...:
// what does the most work gets the most distinct colours.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PALETTE_H
#define GRAINCHUNK_GRAPH_PALETTE_H

#include <cstddef>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gcg {

struct Run;

std::string paletteColour(size_t k);

/// Near red: a hue within 40 degrees of red at a saturation of 0.25 or
/// more, or within 150 (Euclidean, RGB) of #ff0000 or #d00000.
bool nearRed(int r, int g, int b);

/// WCAG relative luminance of an sRGB colour (0 black .. 1 white), and
/// the least contrast ratio against white a palette colour has.
double luminance(int r, int g, int b);
constexpr double MinContrastOnWhite = 1.6;

struct RunColours {
  std::vector<std::string> loops, sites; // names, most work first
  std::unordered_map<std::string, size_t> loopIndex, siteIndex;
  std::vector<size_t> loopColour, siteColour; // their palette indexes
  /// A loop's or a site's colour (by name); "#999999" for one not listed.
  std::string loop(const std::string &name) const;
  std::string site(const std::string &name) const;
  /// The colour of loop i (of loops) and of site j (of sites).
  std::string loopAt(size_t i) const { return paletteColour(loopColour[i]); }
  std::string siteAt(size_t j) const { return paletteColour(siteColour[j]); }
};

/// The run's loops and task sites and their colours.
RunColours runColours(const Run &run);

/// What the colours are made of, per process: its loops that ran chunks
/// (by name, in the order of their first instance) with their chunks' work
/// (ns), and its task sites in the order of their first task's creation,
/// with their tasks' work (ns), each summed within the process first. An MPI
/// job's ranks exchange these (driver/), so that each colours its grains as one
/// command colouring the whole job.
struct ColourWork {
  std::vector<std::pair<std::string, double>> loops, sites;
};
std::vector<ColourWork> colourWorkOf(const Run &run);
/// The colours of processes' work (in process order): runColours.
RunColours coloursOf(const std::vector<ColourWork> &procs);

} // namespace gcg

#endif

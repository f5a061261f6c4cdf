// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Palette.h - colours for loops and task sites that stay distinct
//-----===//
//
// paletteColour(k), the k-th colour ("#rrggbb") of a fixed sequence: from
// the 196 colours of a 6-level RGB grid (0, 51, ..., 255 per channel)
// that are neither near black nor near white (channel sum 150..640), each
// next colour is the one farthest (Euclidean, in RGB) from all chosen
// before it, starting at #0066cc; ties go to the first in grid order. Any
// 40 consecutive-from-0 colours are at least 72 apart (of 441), any 64
// too; after 196 the sequence repeats. Deterministic: the same k, the
// same colour, in every run and every output.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PALETTE_H
#define GRAINCHUNK_GRAPH_PALETTE_H

#include <cstddef>
#include <string>

namespace gcg {

std::string paletteColour(size_t k);

} // namespace gcg

#endif

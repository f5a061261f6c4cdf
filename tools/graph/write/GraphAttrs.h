// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GraphAttrs.h - the prototype's relational and visual attributes ---===//
//
// What grains.graphml carries per grain beside its own metrics, as the
// Grain Graphs prototype defines it (docs/grain-graphs.md,
// "grains.graphml"): last_to_finish, num_siblings and sibling_scatter,
// the instantaneous parallelism of the earliest-start schedule
// (inst_par_min, _median, _max), and the height a grain is drawn with.
// Plain functions over columns, so they are tested on their own.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_GRAPHATTRS_H
#define GRAINCHUNK_GRAPH_GRAPHATTRS_H

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gcg {

/// last_to_finish: 1 for the grain with the latest end on each cpu (the
/// first such grain on a tie), 0 for the others.
std::vector<uint8_t> lastToFinish(const std::vector<int64_t> &cpu,
                                  const std::vector<uint64_t> &end);

/// num_siblings (the grains with the same group, itself included) and
/// sibling_scatter (the largest cpu less the smallest among them; -1, NA,
/// for a grain without siblings), per grain; group: its parent and join
/// point as one key.
void siblings(const std::vector<uint64_t> &group,
              const std::vector<int64_t> &cpu, std::vector<uint32_t> &num,
              std::vector<int64_t> &scatter);

/// The prototype's "linear-step" size: 30 x the bin (1..10) of value among
/// 10 equal bins over [lo, hi] (R's cut(): the range widened by a
/// thousandth at each end, bins closed on the right); 30 when lo == hi.
double stepSize(double value, double lo, double hi);

/// Instantaneous parallelism: each grain runs from start (its earliest
/// start: its longest path from the start node) for len ticks; time is cut
/// into bins of the median positive len (wider where that gives more than
/// maxBins bins), a bin's count is the number of grains that overlap it,
/// and a grain's inst_par_min/_median/_max are the least, median and
/// largest count over the bins it overlaps (the median of an even number
/// of bins: the mean of the middle two; over a grain of more than 65,536
/// bins, the median of every k-th of them). Bin b spans [b W, b W + W - 1]
/// and a grain [start, start + len] overlaps it when it starts before the
/// bin ends and ends after it starts. NaN where nothing could be binned.
void instantaneousParallelism(const std::vector<double> &start,
                              const std::vector<double> &len,
                              std::vector<double> &mn, std::vector<double> &md,
                              std::vector<double> &mx,
                              size_t maxBins = 1000000);

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopTable.h - loop instances per thread ---------------------------===//
//
// The table behind loops.csv, the aggregated outputs and the problems: per
// loop instance and thread, its chunks, their work and the wait after them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_LOOPTABLE_H
#define GRAINCHUNK_GRAPH_LOOPTABLE_H

#include "Analysis.h"

#include <cmath>
#include <cstdint>
#include <vector>

namespace gcg {

/// One loop instance on one thread: its chunks, their work (ticks; NA when
/// the chunks' own times are unknown) and the wait after them.
struct LoopThread {
  int loop = 0, th = 0;
  int64_t chunks = 0;
  bool hasWork = false;
  int64_t work = 0, minWork = 0, maxWork = 0;
  double medianWork = NAN;      // of an even count: the mean of the middle two
  uint64_t first = 0, last = 0; // the first chunk's start, the last's end
  double wait = NAN;            // at the loop's end (ticks), NaN: NA
};
/// Every loop instance and thread of a process, by instance then thread
/// (the order the instance met its threads). Medians cost a sort of the
/// chunks' work: only when asked.
std::vector<LoopThread> loopThreads(const Analysis &an, bool medians);

} // namespace gcg

#endif

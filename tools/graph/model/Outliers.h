// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Outliers.h - outlier grains by robust statistics ------------------===//
//
// The one definition of a median, of a loop instance's team and of the
// outlier rule (median and MAD, not max/mean), used by the model's flag
// columns and by the problems (diagnose/).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_OUTLIERS_H
#define GRAINCHUNK_GRAPH_OUTLIERS_H

#include "Analysis.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace gcg {

/// The median of v (of an even count: the mean of the middle two);
/// reorders v.
double medianOf(std::vector<int64_t> &v);
/// The threads of loop instance li's team: its team size where known, at
/// least the threads that ran its chunks.
inline size_t teamOf(const Analysis &an, int li) {
  size_t t = an.shares(size_t(li)).size();
  if (size_t(li) < an.teamSize.size())
    t = std::max(t, size_t(an.teamSize[size_t(li)]));
  return t;
}

/// A chunk is an outlier of its loop instance when its work exceeds the
/// instance's median chunk work by more than OutlierMads times the scaled
/// MAD (1.4826 x the median absolute deviation, the standard deviation of
/// normal data), by at least OutlierShare of the instance's work per
/// thread (its work / its team's threads) and by at least OutlierMinNs:
/// the excess must matter to the instance, so one preempted chunk among
/// 10^7 is not one, and must be more than a cache miss, a page fault or a
/// timer interrupt explains, so a 1 us chunk among 0.1 us ones is not one.
/// Instances of fewer than 3 chunks with known times have no outliers.
constexpr double OutlierMads = 5.0;
constexpr double OutlierShare = 0.05;
constexpr double OutlierMinNs = 5000;

/// Per chunk of an (after its metrics): 1 if it is an outlier of its loop
/// instance. Uses an.teamSize; 8 bytes per chunk while it runs.
std::vector<uint8_t> outlierChunks(const Analysis &an);

/// Per task of an (after its work is known): 1 if it is an outlier among
/// its siblings, the tasks made at the same site by the same parent and
/// joined at the same point, or among all the tasks of its site (its
/// creation's code), by the same rule, the share being of the group's
/// work per thread of the process. Groups of fewer than 3 tasks with known
/// work have none. Holds one group's works while it runs (4 bytes a task
/// where all are below 2^31 ticks, else 8) and, above 8 sites, the tasks
/// listed by site (4 bytes a task).
std::vector<uint8_t> outlierTasks(const Analysis &an);

} // namespace gcg

#endif

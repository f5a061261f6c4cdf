// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Breakdown.h - where a process's thread time went -------------------===//
//
// The run-level breakdown of one process's thread time, as Intel VTune's
// OpenMP analysis gives one: its threads x its recorded span, split into
// serial time (outside any top-level parallel region: the other threads
// idle), fork and join (a region begun but its implicit task not yet, or
// ended), the grains' work, the waits by construct, and the rest: the
// implicit tasks' own work outside loops and tasks (code in a parallel
// region that is no worksharing loop or task), which no grain covers.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_BREAKDOWN_H
#define GRAINCHUNK_GRAPH_BREAKDOWN_H

#include "Analysis.h"

#include <string>
#include <vector>

namespace gcg {

struct Breakdown {
  size_t threads = 0;
  double span = 0;       // the recording's first to last record (ticks)
  double threadTime = 0; // threads x span
  /// Elapsed time outside top-level parallel regions, and the thread time
  /// the other threads spend idle then ((threads - 1) x serial).
  double serial = 0, serialIdle = 0;
  /// Thread time in top-level regions' implicit tasks, and their fork and
  /// join: per thread, region begin to its implicit task's begin and its
  /// implicit task's end to the region's end. An implicit task, and its
  /// wait at the region's end, are clipped to the region's end (libomp
  /// reports a worker's end of both only at the next fork). The parts
  /// serial + serialIdle + inRegions + forkJoin + notInTeam make the
  /// thread time; the grains' work, the waits and outside make inRegions.
  double inRegions = 0, forkJoin = 0;
  /// Thread time of the threads that are in no top-level region's team
  /// while it runs (a team smaller than the process's threads): idle.
  double notInTeam = 0;
  /// The grains' work: chunks and explicit tasks (their own work).
  double chunkWork = 0, taskWork = 0;
  /// Waits by construct (ticks): loop-end barriers, region-end barriers,
  /// explicit barriers, taskwait, taskgroup, the others.
  double waitLoop = 0, waitRegion = 0, waitBarrier = 0, waitTaskwait = 0,
         waitTaskgroup = 0, waitOther = 0;
  /// Every construct's waits.
  double waits() const {
    return waitLoop + waitRegion + waitBarrier + waitTaskwait + waitTaskgroup +
           waitOther;
  }
  /// Thread time in regions that is neither grain work nor a wait: the
  /// implicit tasks' own work outside loops and tasks (and the making of
  /// chunks and tasks).
  double outside = 0;
  /// The grains' work over the thread time in regions (NaN: none).
  double coverage = NAN;
  bool regionsKnown = false; // regions and implicit tasks seen to end
};

Breakdown breakdownOf(const Analysis &an);

} // namespace gcg

#endif

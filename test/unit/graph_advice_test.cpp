// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The thread-time breakdown and the advice of grainchunk-graph on
// hand-made recordings shaped like the real applications' (issue 32):
// the breakdown's parts make the thread time once (libomp reports a
// worker's end-of-region wait at the next fork), a wait caused by a late
// start is named after it, and the advice names the loss it sits under.
#include "Breakdown.h"
#include "Problems.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <cmath>
#include <gtest/gtest.h>

using namespace gcg;
using namespace gcgtest;

namespace {

/// Sum of the waits of a breakdown.
double waitsOf(const Breakdown &b) {
  return b.waitLoop + b.waitRegion + b.waitBarrier + b.waitTaskwait +
         b.waitTaskgroup + b.waitOther;
}

/// The invariant of the breakdown: its parts make the thread time once,
/// and the grains' work and the waits fit in the regions' time.
void expectParts(const Breakdown &b) {
  double parts =
      b.serial + b.serialIdle + b.inRegions + b.forkJoin + b.notInTeam;
  EXPECT_NEAR(parts, b.threadTime, 1e-9 * b.threadTime)
      << "serial " << b.serial << " idle " << b.serialIdle << " in "
      << b.inRegions << " fork/join " << b.forkJoin << " not in team "
      << b.notInTeam;
  EXPECT_LE(b.chunkWork + b.taskWork + waitsOf(b), b.inRegions + 1e-9)
      << "work " << b.chunkWork + b.taskWork << " waits " << waitsOf(b);
}

/// Regions as LULESH and hpgmg run them: `regions` combined parallel-for
/// regions of 2 threads, 1000 ticks apart, each 610 ticks long; the worker
/// joins each 50 ticks late and ends its loop at +561, and libomp reports
/// its end-of-region wait and its implicit task's end only at the next
/// fork (+1040) or the program's end.
void forkedRegions(const std::string &dir, int regions) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";loops.c;work;12;3;;");
  for (int k = 0; k < regions; k++) {
    uint64_t B = uint64_t(k) * 1000, par = 100 + k, i0 = 300 + 2 * k,
             i1 = 301 + 2 * k;
    t0.rec(R_PARALLEL_BEGIN, B, par, 1, 0, 2)
        .rec(R_IMPLICIT_BEGIN, B + 1, i0, par, 0, 2)
        .rec(R_LOOP_BEGIN, B + 10, i0, par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(B + 11, 0, 9, 1)
        .rec(R_LOOP_END, B + 411, i0, par)
        .rec(R_SYNC_BEGIN, B + 411, i0, par, 0,
             GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_SYNC_END, B + 600, i0, par, 0, GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_IMPLICIT_END, B + 601, i0, 0)
        .rec(R_PARALLEL_END, B + 610, par, 1);
    uint64_t release = k + 1 < regions ? B + 1040 : B + 1200;
    t1.rec(R_IMPLICIT_BEGIN, B + 50, i1, par, 1, 2)
        .rec(R_LOOP_BEGIN, B + 60, i1, par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(B + 61, 10, 19, 1)
        .rec(R_LOOP_END, B + 561, i1, par)
        .rec(R_SYNC_BEGIN, B + 561, i1, par, 0,
             GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_SYNC_END, release, i1, par, 0, GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_IMPLICIT_END, release + 5, i1, 0);
  }
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

} // namespace

// Three regions: thread 0 waits 189 ticks at each region's end, thread 1
// 49 (from its loop's end at +561 to the region's end at +610), 714 in
// all; what libomp reports past the region's end (to +1040) is the serial
// time between the regions and the next fork, counted there once. The
// parts make the thread time (before: thread 1's overshoot was counted as
// region-end wait, as fork and join, and as serial idle: 100 + 45%).
TEST(GraphBreakdown, WorkerEndsAtTheNextForkAreClipped) {
  TempDir d;
  forkedRegions(d.path, 3);
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Breakdown &b = res->procs[0].time;
  EXPECT_EQ(b.threads, 2u);
  EXPECT_DOUBLE_EQ(b.span, 3205.0);
  EXPECT_DOUBLE_EQ(b.serial, 3205.0 - 3 * 610);
  EXPECT_DOUBLE_EQ(b.waitRegion, 3 * (189.0 + 49));
  // Per region: thread 0's fork 1 and join 9, thread 1's fork 50.
  EXPECT_DOUBLE_EQ(b.forkJoin, 3 * (1.0 + 9 + 50));
  EXPECT_DOUBLE_EQ(b.inRegions, 3 * (600.0 + 560));
  expectParts(b);
}

// A region of two threads, then one of num_threads(1) in a process of
// two threads: thread 1 idles through the second, and that is a part of
// the thread time too (before: no part held it).
TEST(GraphBreakdown, ThreadsOutsideTheTeamAreIdle) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  const uint32_t Bar = GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
  t0.rec(R_PARALLEL_BEGIN, 0, 100, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, 300, 100, 0, 2)
      .rec(R_SYNC_BEGIN, 90, 300, 100, 0, Bar)
      .rec(R_SYNC_END, 100, 300, 100, 0, Bar)
      .rec(R_IMPLICIT_END, 100, 300, 0)
      .rec(R_PARALLEL_END, 100, 100, 1)
      .rec(R_PARALLEL_BEGIN, 200, 101, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 200, 302, 101, 0, 1)
      .rec(R_IMPLICIT_END, 700, 302, 0)
      .rec(R_PARALLEL_END, 700, 101, 1);
  t1.rec(R_IMPLICIT_BEGIN, 0, 301, 100, 1, 2)
      .rec(R_SYNC_BEGIN, 80, 301, 100, 0, Bar)
      .rec(R_SYNC_END, 100, 301, 100, 0, Bar)
      .rec(R_IMPLICIT_END, 100, 301, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Breakdown &b = res->procs[0].time;
  EXPECT_DOUBLE_EQ(b.serial, 100.0);
  EXPECT_DOUBLE_EQ(b.notInTeam, 500.0);
  EXPECT_DOUBLE_EQ(b.waitRegion, 30.0);
  expectParts(b);
}

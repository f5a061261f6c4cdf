// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The region model's narrow fields and their side tables, on hand-made
// recordings: a region's code pointer as an index in a table of those met
// (a few, or more than the list keeps, wider than 32 bits), and an
// implicit task's wait at its region's end barrier, held as
// two 32-bit offsets from the task's begin (the waits that begin 2^32
// ticks or more after it, or last that long, or begin before it, held
// apart), read back whole by Analysis::joinOf() and the breakdown made of
// them; an implicit task's region held as its entry in the regions' table
// (its parallel id apart where no region of it was recorded by then) and
// its end as a 32-bit offset from its begin (else apart); a region's end
// likewise, and its encountering task as its number among those met; the
// loop instances of a region found by its number while reading (by its
// parallel id where it was not recorded when its first loop began).
#include "Breakdown.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <gtest/gtest.h>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint32_t Bar = GC_SYNC_BARRIER_IMPLICIT_PARALLEL;

// One join wait of an implicit task: where it begins and ends.
struct Join {
  uint64_t begin, end;
};

// Two threads' recording in dir, analysed.
std::unique_ptr<Run> analyseThreads(const std::string &dir, Thread (&t)[2]) {
  writeFile(dir + "/meta.txt", meta3());
  t[0].write(dir + "/thread-0.bin");
  t[1].write(dir + "/thread-1.bin");
  return analyseRun({dir}, {});
}

// A region of two threads from 0 to regionEnd: thread th's implicit task
// 10 + th begins at 1 + th and waits at the end barrier from j[th].begin
// to j[th].end (its implicit task ends 5 ticks after).
std::unique_ptr<Run> oneRegion(const std::string &dir, uint64_t regionEnd,
                               const Join (&j)[2]) {
  Thread t[2];
  t[0].rec(R_PARALLEL_BEGIN, 0, 100, 1, 0, 2);
  for (int th = 0; th < 2; th++) {
    uint64_t im = 10 + uint64_t(th);
    t[th]
        .rec(R_IMPLICIT_BEGIN, 1 + uint64_t(th), im, 100, uint32_t(th), 2)
        .rec(R_SYNC_BEGIN, j[th].begin, im, 100, 0, Bar)
        .rec(R_SYNC_END, j[th].end, im, 100, 0, Bar)
        .rec(R_IMPLICIT_END, j[th].end + 5, im, 0);
  }
  t[0].rec(R_PARALLEL_END, regionEnd, 100, 1);
  return analyseThreads(dir, t);
}

// Thread th's implicit task.
IdTable<Implicit>::const_iterator implicitOf(const Analysis &an, int th) {
  auto im = an.implicit.find(10 + uint64_t(th));
  EXPECT_NE(im, an.implicit.end()) << "thread " << th;
  return im;
}

} // namespace

// Waits that fit, waits that do not: each reads back whole, and the
// breakdown's region-end wait (the waits less what libomp reports past the
// region's end) is made of the whole values.
TEST(GraphRegionModel, JoinWaitsHeldApartReadBackWhole) {
  static_assert(sizeof(Implicit) <= 32, "an implicit task: 32 bytes");
  const uint64_t G = 1ull << 32;
  struct Case {
    const char *what;
    uint64_t regionEnd;
    Join j[2];
    bool apart[2];
  } cases[] = {
      // Both fit: the widest offset and length that fit.
      {"narrow", 3 * G, {{1 + G - 2, 1 + G - 2 + G - 3}, {40, 50}}, {0, 0}},
      // Thread 0 waits from 2^32 ticks after its begin; thread 1 waits
      // 2^32 ticks and more, past the region's end.
      {"wide", 3 * G, {{1 + G, 1 + G + 7}, {30, 30 + 5 * G}}, {1, 1}},
      // A wait of no length at the task's begin; one that begins before
      // its task (a corrupt recording's): held apart.
      {"edges", 100, {{1, 1}, {1, 90}}, {0, 1}},
  };
  for (const Case &c : cases) {
    TempDir d;
    auto run = oneRegion(d.path, c.regionEnd, c.j);
    const Analysis &an = *run->procs[0];
    ASSERT_EQ(an.implicit.size(), 2u) << c.what;
    double waits = 0, past = 0;
    for (int th = 0; th < 2; th++) {
      auto im = implicitOf(an, th);
      EXPECT_EQ(im->second.join32 == Implicit::JoinApart, c.apart[th])
          << c.what << " thread " << th;
      auto [b, e] = an.joinOf(im);
      EXPECT_EQ(b, c.j[th].begin) << c.what << " thread " << th;
      EXPECT_EQ(e, c.j[th].end) << c.what << " thread " << th;
      waits += double(c.j[th].end - c.j[th].begin);
      if (c.j[th].end > c.regionEnd)
        past += double(c.j[th].end - std::max(c.regionEnd, c.j[th].begin));
    }
    auto res = computeResults(*run);
    EXPECT_DOUBLE_EQ(res->procs[0].time.waitRegion, waits - past) << c.what;
  }
}

// An implicit task with no wait at its region's end reads none (0, 0).
TEST(GraphRegionModel, NoJoinWaitReadsNone) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  t0.rec(R_PARALLEL_BEGIN, 0, 100, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 7, 10, 100, 0, 1)
      .rec(R_IMPLICIT_END, 20, 10, 0)
      .rec(R_PARALLEL_END, 30, 100, 1);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  auto im = implicitOf(an, 0);
  auto [b, e] = an.joinOf(im);
  EXPECT_EQ(b, 0u);
  EXPECT_EQ(e, 0u);
}

// Regions of 40 code pointers (more than CodeTable's list of 16: the map),
// some wider than 32 bits, met in turn and again: each region reads its
// own back, and the results resolve each.
TEST(GraphRegionModel, RegionCodesReadBack) {
  static_assert(sizeof(Region) <= 24, "a region: 24 bytes");
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  const int N = 200;
  auto codeOf = [](int k) {
    int s = k % 40;
    return s % 3 == 0 ? 0x1000 + uint64_t(s) : (uint64_t(s) << 36) | 0x77;
  };
  for (int k = 0; k < N; k++) {
    uint64_t B = uint64_t(k) * 100, par = 1000 + uint64_t(k);
    t0.wide(R_PARALLEL_BEGIN, B, par, 1, codeOf(k), 0, 1)
        .rec(R_IMPLICIT_BEGIN, B + 1, 5000 + uint64_t(k), par, 0, 1)
        .rec(R_IMPLICIT_END, B + 50, 5000 + uint64_t(k), 0)
        .rec(R_PARALLEL_END, B + 60, par, 1);
  }
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.regionList.size(), size_t(N));
  EXPECT_EQ(an.regionCodes.size(), 40u);
  for (int k = 0; k < N; k++) {
    const Region &r = an.regionList[size_t(k)];
    EXPECT_EQ(an.codeptrOf(r), codeOf(k)) << "region " << k;
    EXPECT_EQ(r.t, uint64_t(k) * 100) << "region " << k;
    EXPECT_EQ(an.regionEnd(r), uint64_t(k) * 100 + 60) << "region " << k;
    EXPECT_EQ(an.encOf(r), 1u) << "region " << k;
    EXPECT_EQ(r.chunk, -1) << "region " << k;
  }
}

// Implicit tasks' regions and ends (G: 2^32 ticks). Region P1 (thread 0's,
// from 0 to 2G - 10): thread 0's implicit task 10 from 1 to G - 1 (G - 2
// ticks: held apart; 20 on thread 1 lasts G - 3, the longest that fits).
// Region P2, which thread 1 begins at 2G - 5 (read after thread 0: its
// implicit task 12 in it, from 2G and never seen to end, is read before
// the region is) and ends at 4G; thread 1's implicit task 13 in it ends
// before it begins (a corrupt recording's: apart); 14 is in a region never
// recorded. Each reads back whole, and the breakdown is made of them.
TEST(GraphRegionModel, ImplicitRegionsAndEndsReadBackWhole) {
  const uint64_t G = 1ull << 32, P1 = 100, P2 = 200, P3 = 999;
  TempDir d;
  Thread t[2];
  t[0].rec(R_PARALLEL_BEGIN, 0, P1, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 1, 10, P1, 0, 1)
      .rec(R_IMPLICIT_END, G - 1, 10, 0)
      .rec(R_PARALLEL_END, 2 * G - 10, P1, 1)
      .rec(R_IMPLICIT_BEGIN, 2 * G, 12, P2, 0, 2);
  t[1].rec(R_IMPLICIT_BEGIN, 3, 20, P1, 1, 1)
      .rec(R_IMPLICIT_END, G, 20, 0)
      .rec(R_PARALLEL_BEGIN, 2 * G - 5, P2, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 2 * G - 3, 13, P2, 1, 2)
      .rec(R_IMPLICIT_END, 2 * G - 4, 13, 0)
      .rec(R_PARALLEL_END, 4 * G, P2, 1)
      .rec(R_IMPLICIT_BEGIN, 4 * G + 1, 14, P3, 0, 1)
      .rec(R_IMPLICIT_END, 4 * G + 10, 14, 0);
  auto run = analyseThreads(d.path, t);
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.implicit.size(), 5u);
  ASSERT_EQ(an.regionList.size(), 2u);
  struct Want {
    uint64_t id, par;
    int64_t region;
    uint64_t begin, end;
  } want[] = {{10, P1, 0, 1, G - 1},
              {20, P1, 0, 3, G},
              {12, P2, 1, 2 * G, 0},
              {13, P2, 1, 2 * G - 3, 2 * G - 4},
              {14, P3, -1, 4 * G + 1, 4 * G + 10}};
  for (const Want &w : want) {
    auto im = an.implicit.find(w.id);
    ASSERT_NE(im, an.implicit.end()) << w.id;
    EXPECT_EQ(an.parOf(im), w.par) << w.id;
    EXPECT_EQ(an.regionIndexOf(im), w.region) << w.id;
    EXPECT_EQ(im->second.begin, w.begin) << w.id;
    EXPECT_EQ(an.implicitEnd(im), w.end) << w.id;
  }
  // Apart: 14's parallel id; 10's and 13's ends.
  EXPECT_EQ(an.implicitsApart(), std::make_pair(size_t(1), size_t(2)));
  // The breakdown: in regions, 10's G - 2 ticks, 20's G - 3, 12's to its
  // region's end (2G), 13's none; fork and join the rest of its region's
  // time on each of its threads.
  auto res = computeResults(*run);
  const auto &b = res->procs[0].time;
  EXPECT_DOUBLE_EQ(b.inRegions, double(G - 2 + G - 3 + 2 * G));
  EXPECT_DOUBLE_EQ(b.forkJoin,
                   double(1 + (G - 9) + 3 + (G - 10) + 5 + 2 + (2 * G + 3)));
  EXPECT_FALSE(b.regionsKnown); // 12 was not seen to end
}

// The regions' ids (IdTable.h's IdIndex): numbered in the order given,
// found while they ascend (two threads' runs) and once one comes out of
// order (indexed), an id given again keeping its number.
TEST(GraphRegionModel, RegionIdsNumberedInOrder) {
  IdIndex ids;
  std::vector<uint64_t> given;
  for (uint64_t th = 1; th <= 2; th++)
    for (uint64_t k = 0; k < 3000; k += 1 + k % 3)
      given.push_back(th << 40 | (k + 1));
  for (size_t e = 0; e < given.size(); e++)
    EXPECT_EQ(ids.entry(given[e]), e);
  EXPECT_TRUE(ids.ascending());
  EXPECT_EQ(ids.entry(given[17]), 17u); // again
  for (int round = 0; round < 2; round++) {
    for (size_t e = 0; e < given.size(); e++) {
      EXPECT_EQ(ids.find(given[e]), e);
      EXPECT_EQ(ids[e], given[e]);
    }
    EXPECT_EQ(ids.find(2), IdIndex::None);
    EXPECT_EQ(ids.find(given.back() + 1), IdIndex::None);
    EXPECT_EQ(ids.find((1ull << 40) | 3), IdIndex::None); // k 2: not given
    if (!round) { // out of order: indexed from now on
      given.push_back(5);
      EXPECT_EQ(ids.entry(5), given.size() - 1);
      EXPECT_FALSE(ids.ascending());
    }
  }
  EXPECT_EQ(ids.size(), given.size());
}

// An implicit task id given again (a corrupt recording's) takes the new
// task's values: what the first held apart (its region, never recorded;
// its end, 2G ticks after its begin) goes.
TEST(GraphRegionModel, ImplicitGivenAgainDropsWhatWasApart) {
  const uint64_t G = 1ull << 32, P1 = 100, P9 = 900;
  TempDir d;
  Thread t[2];
  t[0].rec(R_IMPLICIT_BEGIN, 1, 10, P9, 0, 1)
      .rec(R_IMPLICIT_END, 1 + 2 * G, 10, 0)
      .rec(R_PARALLEL_BEGIN, 3 * G, P1, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 3 * G + 1, 10, P1, 0, 1)
      .rec(R_IMPLICIT_END, 3 * G + 5, 10, 0)
      .rec(R_PARALLEL_END, 3 * G + 9, P1, 1);
  auto run = analyseThreads(d.path, t);
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.implicit.size(), 1u);
  auto im = implicitOf(an, 0);
  EXPECT_EQ(an.parOf(im), P1);
  EXPECT_EQ(an.regionIndexOf(im), 0);
  EXPECT_EQ(an.implicitEnd(im), 3 * G + 5);
  EXPECT_EQ(an.implicitsApart(), std::make_pair(size_t(0), size_t(0)));
}

// Regions' ends and encountering tasks (G: 2^32 ticks), on thread 0:
// P1 from 10 lasts G - 3 ticks (the longest that fits), P2 from 2G lasts
// G - 2 (apart), P3 ends before it begins (a corrupt recording's: apart),
// P4 from 5G never ends, P5 ends as it begins, P6 (nested: its
// encountering task P4's implicit task 50) inside P4; P7 ends 2G after its
// begin (apart) and is given again (what it held apart goes). Encountering
// tasks: 1, and one wider than 32 bits for P3. Each reads back whole, and
// the breakdown's serial time is made of them.
TEST(GraphRegionModel, RegionEndsAndEncountersReadBackWhole) {
  static_assert(sizeof(Region) <= 24, "a region: 24 bytes");
  const uint64_t G = 1ull << 32, W = (3ull << 40) | 9;
  enum : uint64_t { P1 = 101, P2, P3, P4, P5, P6, P7 };
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  t0.rec(R_PARALLEL_BEGIN, 10, P1, 1, 0, 1)
      .rec(R_PARALLEL_END, 10 + G - 3, P1, 1)
      .rec(R_PARALLEL_BEGIN, 2 * G, P2, 1, 0, 1)
      .rec(R_PARALLEL_END, 3 * G - 2, P2, 1)
      .rec(R_PARALLEL_BEGIN, 4 * G, P3, W, 0, 1)
      .rec(R_PARALLEL_END, 4 * G - 1, P3, W)
      .rec(R_PARALLEL_BEGIN, 5 * G, P4, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 5 * G + 1, 50, P4, 0, 1)
      .rec(R_PARALLEL_BEGIN, 5 * G + 2, P6, 50, 0, 1)
      .rec(R_PARALLEL_END, 5 * G + 3, P6, 50)
      .rec(R_PARALLEL_BEGIN, 6 * G, P5, 1, 0, 1)
      .rec(R_PARALLEL_END, 6 * G, P5, 1)
      .rec(R_PARALLEL_BEGIN, 7 * G, P7, 1, 0, 1)
      .rec(R_PARALLEL_END, 9 * G, P7, 1)
      .rec(R_PARALLEL_BEGIN, 10 * G, P7, 1, 0, 1)
      .rec(R_PARALLEL_END, 10 * G + 5, P7, 1);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.regionList.size(), 7u);
  struct Want {
    uint64_t par, t, end, enc;
  } want[] = {{P1, 10, 10 + G - 3, 1},        {P2, 2 * G, 3 * G - 2, 1},
              {P3, 4 * G, 4 * G - 1, W},      {P4, 5 * G, 0, 1},
              {P6, 5 * G + 2, 5 * G + 3, 50}, {P5, 6 * G, 6 * G, 1},
              {P7, 10 * G, 10 * G + 5, 1}};
  for (const Want &w : want) {
    int64_t r = an.regionIndex(w.par);
    ASSERT_GE(r, 0) << w.par;
    const Region &x = an.regionList[size_t(r)];
    EXPECT_EQ(x.t, w.t) << w.par;
    EXPECT_EQ(an.regionEnd(x), w.end) << w.par;
    EXPECT_EQ(an.encOf(x), w.enc) << w.par;
  }
  EXPECT_EQ(an.regionEndsApart(), 2u); // P2's and P3's
  EXPECT_EQ(an.regionEncs.size(), 3u);
  // Top-level (P6 is not): from 10 to 10G + 5, in them 10 to G + 7, 2G to
  // 3G - 2 and 5G to the end (P4's, not seen: the last record's).
  auto res = computeResults(*run);
  const auto &b = res->procs[0].time;
  EXPECT_DOUBLE_EQ(b.span, double(10 * G - 5));
  EXPECT_DOUBLE_EQ(b.serial,
                   double(10 * G - 5 - (G - 3) - (G - 2) - (5 * G + 5)));
  EXPECT_FALSE(b.regionsKnown);
}

// A region's loop instances, found by the region's number while reading:
// P, which thread 1 begins (read after thread 0, whose implicit task in it
// begins its two loops first: keyed by parallel id), Q, which thread 0
// begins (by number), R, never recorded (by id). Each thread meets each
// instance: one instance per (region, n), of two threads and two chunks.
TEST(GraphRegionModel, RegionLoopsFoundByNumberOrId) {
  const uint64_t P = 100, Q = 200, R = 300;
  TempDir d;
  Thread t[2];
  auto loop = [](Thread &x, uint64_t at, uint64_t im, uint64_t par, int th) {
    x.rec(R_LOOP_BEGIN, at, im, par, 0x40, 0)
        .chunk(at + 1, uint64_t(th) * 10, uint64_t(th) * 10 + 9, 1)
        .rec(R_LOOP_END, at + 2, im, par);
  };
  // Thread th's implicit task in region par from at: two loops (P) or one.
  auto implicitIn = [&](int th, uint64_t at, uint64_t im, uint64_t par,
                        int loops) {
    t[th].rec(R_IMPLICIT_BEGIN, at, im, par, uint32_t(th), 2);
    for (int k = 0; k < loops; k++)
      loop(t[th], at + 1 + 3 * uint64_t(k), im, par, th);
    t[th].rec(R_IMPLICIT_END, at + 9, im, 0);
  };
  implicitIn(0, 10, 1000, P, 2);
  t[0].rec(R_PARALLEL_BEGIN, 20, Q, 1, 0, 2);
  implicitIn(0, 21, 1001, Q, 1);
  t[0].rec(R_PARALLEL_END, 31, Q, 1);
  implicitIn(0, 40, 1002, R, 1);
  t[1].rec(R_PARALLEL_BEGIN, 9, P, 1, 0, 2);
  implicitIn(1, 10, 2000, P, 2);
  t[1].rec(R_PARALLEL_END, 19, P, 1);
  implicitIn(1, 21, 2001, Q, 1);
  implicitIn(1, 40, 2002, R, 1);
  auto run = analyseThreads(d.path, t);
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.regionList.size(), 2u);
  ASSERT_EQ(an.loops.size(), 4u);
  ASSERT_EQ(an.chunks.size(), 8u);
  std::vector<uint64_t> keys;
  for (const Loop &lp : an.loops) {
    EXPECT_EQ(lp.keyKind, 0u);
    keys.push_back(lp.k0() * 10 + lp.k1());
    EXPECT_EQ(an.shares(lp).size(), 2u) << lp.k0() << " " << lp.k1();
    EXPECT_EQ(an.nChunks(lp), 2) << lp.k0() << " " << lp.k1();
  }
  EXPECT_EQ(keys, (std::vector<uint64_t>{P * 10, P * 10 + 1, Q * 10, R * 10}));
}

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The chunk columns' narrow cells (Analysis.h: Chunks, ThreadRuns; their
// columns are Narrow.h's NarrowColumn): values that do not fit a cell (a chunk
// longer than 2^32 ticks or ending before it starts, bounds wider than 2^32,
// iterations near INT64/UINT64 limits, creation times that are not whole 16-bit
// ticks) are read back unchanged from the side tables, through the columns and
// through a hand-made recording; a column mostly out of its cells is held
// whole; a thread whose chunks are not contiguous keeps its number.
#include "Analysis.h"
#include "Run.h"
#include "graph_recording.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>

using namespace gcg;
using namespace gcgtest;

TEST(GraphChunks, OffsetsOutOfTheirCells) {
  const std::vector<uint64_t> base = {0, 100, 100, UINT64_MAX, 5, 7};
  using Base = NarrowColumn<uint64_t, OffsetFit<int32_t>>;
  Base baseCol;
  for (uint64_t x : base)
    baseCol.push_back(x);
  NarrowColumn<uint64_t, OffsetFit<uint32_t>, ColumnBase<Base>> end(&baseCol);
  const uint64_t M = UINT32_MAX;
  const uint64_t v[] = {M,           // Far itself: the side table
                        100 + M - 1, // the widest that fits
                        99,          // before its base
                        UINT64_MAX,  // at its base, at the limit
                        5 + (uint64_t(1) << 33),
                        0}; // before its base
  for (uint64_t x : v)
    end.push_back(x);
  EXPECT_EQ(end.sideRows(), 4u);
  for (size_t i = 0; i < 6; i++) {
    EXPECT_EQ(end[i], v[i]) << i;
    EXPECT_EQ(end.fromBase(i), v[i] - base[i]) << i;
  }
  // Set again, out of order: into the side table (between its rows), out
  // of it, and a side row to another value that does not fit.
  end.set(1, 100 + M);
  end.set(4, 6);
  end.set(0, 1);
  end.set(5, 2);
  EXPECT_EQ(end[1], 100 + M);
  EXPECT_EQ(end[4], 6u);
  EXPECT_EQ(end[0], 1u);
  EXPECT_EQ(end[5], 2u);
  EXPECT_EQ(end[2], 99u);
  EXPECT_EQ(end[3], UINT64_MAX);
  EXPECT_EQ(end.sideRows(), 3u);
  EXPECT_FALSE(end.isWhole());

  // Signed cells, no base: iterations near the limits.
  NarrowColumn<uint64_t, OffsetFit<int32_t>> lower;
  const uint64_t w[] = {uint64_t(INT64_MAX),
                        uint64_t(INT64_MIN),
                        UINT64_MAX, // -1: fits
                        uint64_t(int64_t(INT32_MIN)),
                        uint64_t(int64_t(INT32_MIN) + 1),
                        uint64_t(INT32_MAX),
                        uint64_t(INT32_MAX) + 1,
                        uint64_t(1) << 40};
  for (uint64_t x : w)
    lower.push_back(x);
  EXPECT_EQ(lower.sideRows(), 5u);
  for (size_t i = 0; i < 8; i++)
    EXPECT_EQ(lower[i], w[i]) << i;
}

// More than a quarter of the rows out of their cells: held whole (from the
// 4096th row on); a quarter or less: in cells.
TEST(GraphChunks, MostlyOutOfItsCellsHeldWhole) {
  NarrowColumn<uint64_t, OffsetFit<uint32_t>> c;
  c.reserve(10000);
  std::vector<uint64_t> want;
  for (uint64_t i = 0; i < 10000; i++) {
    want.push_back(i % 3 ? i : (i << 40) + 3);
    c.push_back(want.back());
  }
  EXPECT_TRUE(c.isWhole());
  EXPECT_EQ(c.size(), want.size());
  c.set(17, uint64_t(1) << 50);
  want[17] = uint64_t(1) << 50;
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_EQ(c[i], want[i]) << i;
  // Few out of their cells: kept in cells.
  NarrowColumn<uint64_t, OffsetFit<uint32_t>> few;
  for (uint64_t i = 0; i < 10000; i++)
    few.push_back(i % 100 ? i : uint64_t(1) << 40);
  EXPECT_FALSE(few.isWhole());
  EXPECT_EQ(few.sideRows(), 100u);
  EXPECT_EQ(few[200], uint64_t(1) << 40);
  EXPECT_EQ(few[201], 201u);
  // A quarter out of their cells (4 + 12 / 4 = 7 bytes a row): in cells.
  NarrowColumn<uint64_t, OffsetFit<uint32_t>> quarter;
  std::vector<uint64_t> q;
  for (uint64_t i = 0; i < 10000; i++) {
    q.push_back(i % 4 != 3 ? i : (i << 40) + 3);
    quarter.push_back(q.back());
  }
  EXPECT_FALSE(quarter.isWhole());
  EXPECT_EQ(quarter.sideRows(), 2500u);
  EXPECT_LT(quarter.bytes(), q.size() * 8);
  for (size_t i = 0; i < q.size(); i++)
    ASSERT_EQ(quarter[i], q[i]) << i;
}

TEST(GraphChunks, CreationTimes) {
  NarrowColumn<double, CreationFit> c;
  const double v[] = {0, 65533, 65534, 65535, 1e15, 2.5, -1, -0.0, NAN, 7};
  for (double x : v)
    c.push_back(x);
  EXPECT_EQ(c.sideRows(), 6u); // 65534, 65535, 1e15, 2.5, -1, -0
  for (size_t i = 0; i < 10; i++) {
    if (std::isnan(v[i])) {
      EXPECT_TRUE(std::isnan(c[i])) << i;
      continue;
    }
    EXPECT_EQ(c[i], v[i]) << i;
    EXPECT_EQ(std::signbit(c[i]), std::signbit(v[i])) << i;
  }
}

TEST(GraphChunks, ThreadsNotContiguous) {
  ThreadRuns t;
  const int32_t v[] = {0, 0, 1, 1, 1, 0, 5, 5, 0, 70000};
  for (int32_t x : v)
    t.push_back(x);
  EXPECT_EQ(t.size(), 10u);
  EXPECT_EQ(t.runs(), 6u);
  for (size_t i = 0; i < 10; i++)
    EXPECT_EQ(t[i], v[i]) << i;
  // Runs across blocks of 256 chunks, several runs in one block, a run
  // beginning on a block's first chunk.
  ThreadRuns u;
  std::vector<int32_t> want;
  const size_t len[] = {300, 1, 1, 211, 256, 256, 3, 7, 1, 500, 2};
  int32_t th = 0;
  for (size_t l : len) {
    th = (th + 1) % 3;
    for (size_t k = 0; k < l; k++) {
      u.push_back(th);
      want.push_back(th);
    }
  }
  EXPECT_EQ(u.runs(), 11u);
  for (size_t i = 0; i < want.size(); i++)
    ASSERT_EQ(u[i], want[i]) << i;
}

namespace {
Thread &wideChunk(Thread &t, uint64_t at, uint64_t lo, uint64_t up,
                  double creation) {
  uint64_t bits;
  std::memcpy(&bits, &creation, 8);
  return t.wide(R_CHUNK, at, lo, up, bits, 0, CH_EXT);
}
} // namespace

// One thread's loop whose chunks' values need the side tables: read
// through the recording, every one comes back as the reader made it.
TEST(GraphChunks, WideValuesThroughARecording) {
  TempDir d;
  // A window of 4e10 ticks (2 per ns): chunks longer than 2^32 ticks.
  writeFile(d.path + "/meta.txt",
            "record_version 3\nrecord_bytes 32\nclock tsc\nclock0 0\n"
            "ns0 0\nclock1 40000000000\nns1 20000000000\n"
            "grainchunk_runtime 1\next_tool_time 1\next_loop 1\next_chunk 1\n"
            "ext_task_create 1\nanswer_dispatch 5\n"
            "answer_sync_region_wait 5\nthreads 1\nlost_threads 0\n"
            "records 10\ndropped 0\n");
  const uint64_t Par = 100, I0 = 200, Big = uint64_t(1) << 33;
  const uint64_t Min32 = uint64_t(int64_t(INT32_MIN));
  struct C {
    uint64_t t, lo, up;
    double creation; // NaN: unmeasured (narrow), else narrow when whole
    bool wide;
  };
  std::vector<C> cs;
  uint64_t t = 10;
  cs.push_back({t, 0, Big, 2, false});
  cs.push_back({t += Big + 100, uint64_t(INT64_MAX), UINT64_MAX, 2.5, true});
  cs.push_back({t += 50, Min32, Min32 + UINT32_MAX, 70000, false});
  cs.push_back({t += 100000, Min32 + 1, Min32 + UINT32_MAX, NAN, false});
  cs.push_back(
      {t += 10, uint64_t(1) << 31, (uint64_t(1) << 31) - 1, 65533, false});
  cs.push_back({t += 70000, 5, 5, 65534, false});
  cs.push_back({t += 9, 6, 6, -0.0, true});
  cs.push_back({t - 3, 7, 7, 1, false}); // starts before the last
  const uint64_t LoopEnd = t + 7;
  Thread t0;
  t0.str(0x77, ";src/w.c;wide;3;1;;")
      .rec(R_PARALLEL_BEGIN, 1, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 1, I0, Par, 0, 1)
      .rec(R_LOOP_BEGIN, 5, I0, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0);
  for (const C &c : cs)
    if (c.wide)
      wideChunk(t0, c.t, c.lo, c.up, c.creation);
    else
      t0.chunk(c.t, c.lo, c.up,
               std::isnan(c.creation) ? NO_TICKS : uint32_t(c.creation));
  t0.rec(R_LOOP_END, LoopEnd, I0, Par).rec(R_IMPLICIT_END, LoopEnd + 10, I0, 0);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  const Chunks &ch = an.chunks;
  ASSERT_EQ(ch.size(), cs.size());
  // A chunk ends where the next one's making began (its creation, when
  // measured and within the gap), the last at the loop's end.
  for (size_t i = 0; i < cs.size(); i++) {
    SCOPED_TRACE(i);
    uint64_t end = LoopEnd;
    if (i + 1 < cs.size()) {
      double cr = cs[i + 1].creation;
      int64_t span = int64_t(cs[i + 1].t - cs[i].t);
      end = cr >= 0 && cr <= double(span) ? cs[i + 1].t - uint64_t(cr)
                                          : cs[i + 1].t;
    }
    EXPECT_EQ(ch.start[i], cs[i].t);
    EXPECT_EQ(ch.end[i], end);
    EXPECT_EQ(ch.span(i), end - cs[i].t);
    EXPECT_EQ(ch.lower[i], cs[i].lo);
    EXPECT_EQ(ch.upper[i], cs[i].up);
    EXPECT_EQ(ch.thread[i], 0);
    if (std::isnan(cs[i].creation)) {
      EXPECT_TRUE(std::isnan(ch.creation[i]));
    } else {
      EXPECT_EQ(ch.creation[i], cs[i].creation);
      EXPECT_EQ(std::signbit(ch.creation[i]), std::signbit(cs[i].creation));
    }
    EXPECT_EQ(an.chunkMetrics(i).work, double(int64_t(end - cs[i].t)));
  }
  // Each side table was used: chunk 0 longer than 2^32 ticks, chunk 6
  // ends before it starts; bounds wider than 2^32 or past INT32; creation
  // times 2.5, 70000, 65534 and -0.
  EXPECT_EQ(ch.end.sideRows(), 2u);
  EXPECT_EQ(ch.lower.sideRows(), 3u);
  EXPECT_EQ(ch.upper.sideRows(), 4u);
  EXPECT_EQ(ch.creation.sideRows(), 4u);
}

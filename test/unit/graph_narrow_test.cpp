// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The narrow columns (Narrow.h) the tasks' times and metrics are held in:
// rows that do not fit in 32 bits go to the side table, and once those are
// more than a quarter of the rows the column holds every row whole; either
// way every row reads back as it was given (bit for bit for doubles), one
// at a time, through a view and in runs (rows()), also after rows are set
// into and out of the side table in any order. Then
// a task recording whose times are far apart (more than 2^31 ticks between
// neighbours) and whose creation times are not integers: the model's
// columns hold them in side tables and its figures are the same.
#include "Narrow.h"
#include "Run.h"
#include "graph_recording.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <vector>

using namespace gcg;
using namespace gcgtest;

namespace {

uint64_t bitsOf(double d) {
  uint64_t b;
  std::memcpy(&b, &d, 8);
  return b;
}

template <typename V> uint64_t bitsOfRow(V x) {
  uint64_t b = 0;
  std::memcpy(&b, &x, sizeof x);
  return b;
}

/// Col's rows read three ways (operator[], view(), rows() over runs that
/// start and end inside blocks) are want's, bit for bit.
template <typename Col, typename V>
void expectRows(const Col &c, const std::vector<V> &want) {
  ASSERT_EQ(c.size(), want.size());
  auto v = c.view();
  for (size_t r = 0; r < want.size(); r++) {
    ASSERT_EQ(bitsOfRow(c[r]), bitsOfRow(want[r])) << r;
    ASSERT_EQ(bitsOfRow(v[r]), bitsOfRow(want[r])) << r;
  }
  for (size_t b = 0; b < want.size(); b += 777) {
    size_t e = std::min(want.size(), b + 1500), next = b;
    c.rows(b, e, [&](size_t r, V x) {
      ASSERT_EQ(r, next++);
      ASSERT_EQ(bitsOfRow(x), bitsOfRow(want[r])) << r;
    });
    ASSERT_EQ(next, e);
  }
}

TEST(GraphNarrow, TicksFarFromTheirBlockGoToTheSideTable) {
  TickColumn<uint64_t> c;
  std::vector<uint64_t> v;
  uint64_t far = 0;
  for (uint64_t i = 0; i < 3000; i++) {
    // Mostly near the block's first row; every 7th far above or below it,
    // and the two differences at the ends of 32 bits.
    uint64_t x = (uint64_t(1) << 40) + i;
    if (i % 7 == 3)
      x += uint64_t(1) << 33, far++;
    if (i % 7 == 5 && i > 1024)
      x = 5, far++;
    v.push_back(x);
  }
  v[1024 + 10] = v[1024] + INT32_MAX;               // fits
  v[1024 + 11] = v[1024] - uint64_t(INT32_MAX);     // fits
  v[1024 + 12] = v[1024] - uint64_t(INT32_MAX) - 1; // the mark's: side
  for (uint64_t x : v)
    c.push_back(x);
  EXPECT_FALSE(c.isWhole());
  EXPECT_GE(c.sideRows(), far);
  EXPECT_LT(c.bytes(), v.size() * 8); // less than a plain column
  ASSERT_EQ(c.size(), v.size());
  for (size_t i = 0; i < v.size(); i++)
    ASSERT_EQ(c[i], v[i]) << i;
}

TEST(GraphNarrow, TicksMostlyFarAreHeldWhole) {
  TickColumn<int64_t> c;
  std::vector<int64_t> v;
  for (int64_t i = 0; i < 6000; i++)
    v.push_back(i % 3 ? i * (int64_t(1) << 34) : -i);
  for (int64_t x : v)
    c.push_back(x);
  EXPECT_TRUE(c.isWhole());
  EXPECT_EQ(c.sideRows(), 0u);
  expectRows(c, v);
}

TEST(GraphNarrow, DoublesThatAreNotSmallIntegersGoToTheSideTable) {
  double other = std::nan("7"); // a NaN of other bits than NAN's
  std::vector<double> odd = {2.5,           -0.0,          1e12, other,
                             -2147483648.0, -2147483647.0, 0.1};
  std::vector<double> v;
  for (int i = 0; i < 5000; i++)
    v.push_back(i % 50 == 7  ? odd[size_t(i / 50) % odd.size()]
                : i % 5 == 1 ? NAN
                             : double(i % 3 ? i : -i * 1000));
  v.push_back(2147483647.0); // fits
  NarrowDoubles c;
  for (double x : v)
    c.push_back(x);
  EXPECT_FALSE(c.isWhole());
  EXPECT_EQ(c.sideRows(), 100u);
  ASSERT_EQ(c.size(), v.size());
  for (size_t i = 0; i < v.size(); i++)
    ASSERT_EQ(bitsOf(c[i]), bitsOf(v[i])) << i << " " << v[i];
}

TEST(GraphNarrow, DoublesMostlyFractionalAreHeldWhole) {
  NarrowDoubles c;
  std::vector<double> v;
  for (int i = 0; i < 5000; i++)
    v.push_back(i % 2 ? i + 0.5 : double(i));
  for (double x : v)
    c.push_back(x);
  EXPECT_TRUE(c.isWhole());
  for (size_t i = 0; i < v.size(); i++)
    ASSERT_EQ(bitsOf(c[i]), bitsOf(v[i])) << i;
}

// Rows set after they are pushed, in no order: into the side table (before,
// between and after its rows), out of it, a side row to another value that
// does not fit; every row reads back as last set; then so many rows set out
// of their cells that the column is held whole, with the same rows.
TEST(GraphNarrow, RowsSetIntoAndOutOfTheSideTable) {
  TickColumn<uint64_t> c;
  std::vector<uint64_t> v;
  const uint64_t B = uint64_t(1) << 40, Far = uint64_t(1) << 34;
  for (uint64_t i = 0; i < 5000; i++) {
    v.push_back(i % 10 == 3 ? B + Far + i : B + i);
    c.push_back(v.back());
  }
  EXPECT_EQ(c.sideRows(), 500u);
  uint64_t x = 12345;
  for (int k = 0; k < 3000; k++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    size_t r = size_t(x >> 33) % v.size();
    uint64_t val = (x >> 20) % 3 == 0 ? B + Far + (x >> 40) : B + (x >> 45);
    c.set(r, val);
    v[r] = val;
  }
  EXPECT_FALSE(c.isWhole());
  EXPECT_EQ(c.sideRows(),
            size_t(std::count_if(v.begin(), v.end(),
                                 [&](uint64_t y) { return y >= B + Far; })));
  expectRows(c, v);
  for (size_t r = 0; r < v.size() && !c.isWhole(); r += 2) {
    v[r] = B + 3 * Far + r;
    c.set(r, v[r]);
  }
  EXPECT_TRUE(c.isWhole());
  expectRows(c, v);

  // Doubles: NaN, integers, fractions set over one another.
  NarrowDoubles d;
  std::vector<double> w;
  for (int i = 0; i < 3000; i++) {
    w.push_back(i % 7 ? double(i) : i + 0.25);
    d.push_back(w.back());
  }
  const double put[] = {NAN, 7.5, -0.0, 3.0, 1e12, -5.0};
  for (size_t k = 0; k < 2000; k++) {
    size_t r = (k * 7919) % w.size();
    w[r] = put[k % 6];
    d.set(r, w[r]);
  }
  EXPECT_FALSE(d.isWhole());
  EXPECT_EQ(d.sideRows(),
            size_t(std::count_if(w.begin(), w.end(), [](double y) {
              int32_t c;
              return !IntegerFit::cell(y, 0, c);
            })));
  expectRows(d, w);
}

// Rows on a base of another column (chunks' ends from their starts), both
// with side rows, read one at a time, through a view and in runs.
TEST(GraphNarrow, RowsOnAnotherColumn) {
  using Starts = NarrowColumn<uint64_t, OffsetFit<int32_t>, BlockBase<8>>;
  Starts s;
  NarrowColumn<uint64_t, OffsetFit<uint32_t>, ColumnBase<Starts>> e(&s);
  std::vector<uint64_t> ends;
  for (uint64_t i = 0; i < 3000; i++) {
    s.push_back((uint64_t(1) << 50) + 1000 * i +
                (i % 301 ? 0 : uint64_t(1) << 33));
    ends.push_back(s[i] + (i % 13 ? i : uint64_t(1) << 32));
    e.push_back(ends.back());
  }
  EXPECT_GT(s.sideRows(), 0u);
  EXPECT_GT(e.sideRows(), 0u);
  expectRows(e, ends);
}

// taskRecording's tasks (graph_analysis_test.cpp) with every time S times
// later (S = 2^28: neighbours 2^31 and more apart) and creation times that
// are not integers, T4's above 2^32 ticks: T1 (made at 10 S), T2 (20 S), a
// taskwait 30 S..95 S during which T1 runs 30 S..50 S (making T4 at 40 S)
// and T2 50 S..90 S; then T3 (100 S), which never runs.
TEST(GraphNarrow, TaskTimesAndCreationsInSideTables) {
  const uint64_t S = uint64_t(1) << 28, Par = 100, I0 = 200;
  const uint64_t T1 = (1ull << 40) | 1, T2 = (1ull << 40) | 2,
                 T4 = (1ull << 40) | 3, T3 = (1ull << 40) | 4;
  const double C = 5.25, C4 = 8589934592.5; // 2^33 + 0.5
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t;
  t.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1)
      .task(10 * S, T1, I0, 0, C)
      .task(20 * S, T2, I0, 0, C)
      .rec(R_SYNC_BEGIN, 30 * S, I0, Par, 0, 5)
      .rec(R_TASK_SWITCH, 30 * S, I0, T1)
      .task(40 * S, T4, T1, 0, C4)
      .rec(R_TASK_SWITCH, 50 * S, T1, I0, 0, 1)
      .rec(R_TASK_SWITCH, 50 * S, I0, T2)
      .rec(R_TASK_SWITCH, 90 * S, T2, I0, 0, 1)
      .rec(R_SYNC_END, 95 * S, I0, Par, 0, 5)
      .task(100 * S, T3, I0, 0, C)
      .rec(R_IMPLICIT_END, 110 * S, I0, 0);
  t.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  const Tasks &T = an.tasks;
  ASSERT_EQ(T.size(), 4u);
  int64_t k1 = T.index(T1), k2 = T.index(T2), k4 = T.index(T4),
          k3 = T.index(T3);
  EXPECT_EQ(T.create[k1], 10 * S);
  EXPECT_EQ(T.create[k2], 20 * S);
  EXPECT_EQ(T.create[k4], 40 * S);
  EXPECT_EQ(T.create[k3], 100 * S);
  EXPECT_GT(T.create.sideRows(), 0u);
  EXPECT_EQ(T.creation[k1], C);
  EXPECT_EQ(T.creation[k4], C4);
  EXPECT_GT(T.creation.sideRows(), 0u);
  // Segments: T1 30 S..50 S, T2 50 S..90 S.
  ASSERT_EQ(T.segOff[k1 + 1] - T.segOff[k1], 1u);
  EXPECT_EQ(T.segStart[T.segOff[k1]], 30 * S);
  EXPECT_EQ(T.segEnd[T.segOff[k1]], 50 * S);
  EXPECT_EQ(T.segStart[T.segOff[k2]], 50 * S);
  EXPECT_EQ(T.segEnd[T.segOff[k2]], 90 * S);
  EXPECT_GT(T.segStart.sideRows() + T.segLen.sideRows(), 0u);
  EXPECT_EQ(T.execc(k1), int64_t(20 * S));
  EXPECT_EQ(T.execc(k2), int64_t(40 * S));
  // The implicit task's wait while on its CPU: 95 S - 90 S, its begin 30 S.
  size_t slot = T.pslot[k1];
  ASSERT_EQ(T.waitOff[slot + 1] - T.waitOff[slot], 1u);
  EXPECT_EQ(T.wBegin[T.waitOff[slot]], 30 * S);
  EXPECT_EQ(T.wTime[T.waitOff[slot]], int64_t(5 * S));
  EXPECT_EQ(T.joinWaits[slot], int64_t(5 * S));
  EXPECT_EQ(T.joinsAt[k1], 0u);
  EXPECT_EQ(T.joinsAt[k3], 1u);
  // T1's overhead is its child's creation (no waits), not an integer.
  EXPECT_EQ(T.overhead[k1], C4);
  EXPECT_EQ(T.overhead[k2], 0.0);
  GrainMetrics g1 = an.taskMetrics(k1), g2 = an.taskMetrics(k2);
  EXPECT_EQ(g1.work, double(20 * S) - C4);
  EXPECT_EQ(g1.sync, double(5 * S) / 3);
  EXPECT_EQ(g2.work, double(40 * S));
  EXPECT_EQ(g2.pb, double(40 * S) / (C + double(5 * S) / 3));
  EXPECT_EQ(an.taskMetrics(k4).sync, 0.0);
}

} // namespace

namespace {

// A task's code is a byte (its place among the codes met) while they are at
// most 256; the 257th makes every place 4 bytes, with the same codes.
TEST(GraphNarrow, TaskCodesWidenPastByteNumbers) {
  TaskCodes c;
  std::vector<uint64_t> v;
  for (uint64_t i = 0; i < 2000; i++)
    v.push_back(0x400000 + 16 * ((i * 7) % (i < 1000 ? 256 : 300)));
  for (size_t i = 0; i < v.size(); i++) {
    c.push_back(v[i]);
    EXPECT_EQ(c.wideplaces(), i >= 1000 && c.count() > 256) << i;
  }
  EXPECT_TRUE(c.wideplaces());
  c.set(3, 0x999);
  v[3] = 0x999;
  ASSERT_EQ(c.size(), v.size());
  for (size_t i = 0; i < v.size(); i++)
    ASSERT_EQ(c[i], v[i]) << i;
  EXPECT_EQ(c.distinct().size(), 301u); // 300 codes and 0x999
}

} // namespace

namespace {

// Thread numbers are a byte each until one is above 255: then every row is
// 2 bytes, with the same numbers.
TEST(GraphNarrow, ThreadNumbersWidenPastAByte) {
  ThreadColumn c;
  std::vector<uint16_t> v;
  for (uint16_t i = 0; i < 600; i++)
    v.push_back(uint16_t(i < 500 ? i % 256 : 65535 - i));
  for (size_t i = 0; i < v.size(); i++) {
    c.push_back(v[i]);
    EXPECT_EQ(c.wideRows(), i >= 500) << i;
  }
  ASSERT_EQ(c.size(), v.size());
  for (size_t i = 0; i < v.size(); i++)
    ASSERT_EQ(c[i], v[i]) << i;
}

} // namespace

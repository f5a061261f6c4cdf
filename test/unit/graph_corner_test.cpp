// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Hand-made inputs the kept recordings do not exercise, each with a
// known right answer: the loop instances' start order (LoopTable.h's
// StartOrder) where the first instance has no chunks, and report.html
// where its graph is bare but every grain is drawn.
#include "CoarseGraph.h"
#include "LoopTable.h"
#include "ReportWriter.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <random>

using namespace gcg;
using namespace gcgtest;

namespace {
std::vector<int32_t> listed(const StartOrder &o) {
  std::vector<int32_t> v;
  for (size_t k = 0; k < o.size(); k++)
    v.push_back(o[k]);
  return v;
}
} // namespace

// Instance 0 has no chunks (a loop of no iterations, or one whose chunks
// were cut off), 1 and 2 begin in order: the start order is 1, 2 (the
// instances with chunks), never instance 0.
TEST(GraphCorner, StartOrderFirstInstanceWithoutChunks) {
  LoopRows rows;
  ASSERT_TRUE(rows.add(0, 0, 0, true, 0, 5, 5)); // no chunks
  ASSERT_TRUE(rows.add(1, 0, 1, true, 1, 10, 11));
  ASSERT_TRUE(rows.add(2, 0, 1, true, 1, 20, 21));
  ASSERT_TRUE(rows.close(3));
  EXPECT_EQ(listed(instancesByStart(rows)), (std::vector<int32_t>{1, 2}));
  // Instance 0 with no row at all.
  LoopRows later;
  ASSERT_TRUE(later.add(1, 0, 1, true, 1, 10, 11));
  ASSERT_TRUE(later.close(2));
  EXPECT_EQ(listed(instancesByStart(later)), (std::vector<int32_t>{1}));
}

// The same through a recording: one thread, its first worksharing loop of
// no iterations (no chunk), then a loop of two chunks. The aggregated
// outputs' spans (CoarseGraph.h, from the start order) hold the second
// loop's instance, not the first's.
TEST(GraphCorner, SpansSkipALoopWithoutChunksFirst) {
  const uint64_t Par = 100, I0 = 200;
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  t0.str(0x77, ";src/s.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1)
      .rec(R_LOOP_BEGIN, 5, I0, Par, 0, 0)
      .rec(R_LOOP_END, 8, I0, Par)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(10, 0, 0, 2)
      .chunk(20, 1, 1, 2)
      .rec(R_LOOP_END, 40, I0, Par)
      .rec(R_IMPLICIT_END, 70, I0, 0);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 2u);
  ASSERT_EQ(an.chunks.size(), 2u);
  LoopTable lt = loopTable(an);
  EXPECT_EQ(listed(lt.byStart), (std::vector<int32_t>{1}));
  std::vector<int> spanOf;
  std::vector<LoopSpan> spans = loopSpans(lt, 1, &spanOf);
  int64_t chunks = 0;
  for (const LoopSpan &s : spans)
    chunks += s.chunks;
  EXPECT_EQ(chunks, 2);
  ASSERT_EQ(spanOf.size(), 2u);
  EXPECT_EQ(spanOf[0], -1);
  EXPECT_GE(spanOf[1], 0);
}

// The start order against its definition (the instances with chunks,
// stably sorted by their first chunk's start) on random rows: instances
// without rows or without chunks anywhere (first, last, runs of them),
// several threads per instance, starts mostly ascending.
TEST(GraphCorner, StartOrderAsItsDefinition) {
  std::mt19937 rng(11);
  for (int round = 0; round < 2000; round++) {
    SCOPED_TRACE(round);
    size_t n = rng() % 12;
    bool sorted = rng() % 2;
    LoopRows rows;
    std::vector<uint64_t> start(n, UINT64_MAX);
    uint64_t t = 100;
    for (size_t li = 0; li < n; li++) {
      int kind = int(rng() % 4); // 0: no rows, 1: rows without chunks
      int threads = 1 + int(rng() % 3);
      t += sorted ? rng() % 5 : 0;
      for (int th = 0; th < threads && kind; th++) {
        int64_t chunks = kind == 1 ? 0 : int64_t(rng() % 3);
        uint64_t f = sorted ? t + rng() % 3 : 100 + rng() % 50;
        ASSERT_TRUE(rows.add(int(li), th, chunks, true, chunks ? 1 : 0, f,
                             chunks ? f + 1 : f));
        if (chunks)
          start[li] = std::min(start[li], f);
      }
    }
    ASSERT_TRUE(rows.close(n));
    std::vector<int32_t> want;
    for (size_t li = 0; li < n; li++)
      if (start[li] != UINT64_MAX)
        want.push_back(int32_t(li));
    std::stable_sort(want.begin(), want.end(), [&](int32_t a, int32_t b) {
      return start[size_t(a)] < start[size_t(b)];
    });
    ASSERT_EQ(listed(instancesByStart(rows)), want);
  }
}

// report.html's graph at its bare level
// (start -> end: no node per chunk, CoarseGraph::chunkNode empty) where
// every grain is drawn. 1100 threads with a chunk each: even a node per
// (site, thread) is over the page's 1000 nodes. The critical path's
// chunks were looked up in the empty chunkNode (SIGSEGV).
TEST(GraphCorner, ReportWithABareGraph) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  const int N = 1100;
  const uint64_t Par = (1ull << 40) | 1;
  std::vector<Thread> th(N);
  th[0].rec(R_PARALLEL_BEGIN, 0, Par, 1, 0x500, N);
  for (int k = 0; k < N; k++) {
    uint64_t id = (uint64_t(k) + 1) << 40 | 10;
    th[k]
        .rec(R_IMPLICIT_BEGIN, 1, id, Par, uint32_t(k), N)
        .rec(R_LOOP_BEGIN, 10, id, Par, 0x600, GC_WORK_LOOP_DYNAMIC)
        .chunk(11 + k % 7, 2 * k, 2 * k + 1, 2)
        .rec(R_LOOP_END, 90, id, Par, 0, GC_WORK_LOOP_DYNAMIC)
        .rec(R_IMPLICIT_END, 95, id, 0);
  }
  th[0].rec(R_PARALLEL_END, 99, Par, 1);
  for (int k = 0; k < N; k++)
    th[k].write(d.path + "/thread-" + std::to_string(k) + ".bin");
  auto run = analyseRun({d.path}, {});
  auto R = computeResults(*run);
  ASSERT_FALSE(R->procs[0].crit.chunks.empty());
  Caps caps;
  std::vector<LeftOut> leftOut;
  writeReport(*R, d.path + "/report.html", caps, "test", leftOut);
  std::ifstream f(d.path + "/report.html");
  EXPECT_TRUE(f.good());
}

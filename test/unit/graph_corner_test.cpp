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
#include <numeric>
#include <random>
#include <set>

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

// report.html's loop bars take their spans one by one as each block is
// complete (streamLoopSpans), not all made first (loopSpans): the same
// spans in the same order, on random rows: loops taking turns, instances
// starting out of their order, without rows or chunks, threads met in
// any order, blocks of more than 32 threads (found by a table), every
// row with chunks given once to its span's row().
TEST(GraphCorner, StreamedSpansAreLoopSpans) {
  std::mt19937 rng(5);
  for (int round = 0; round < 600; round++) {
    SCOPED_TRACE(round);
    size_t n = 1 + rng() % 40;
    int loops = 1 + int(rng() % 4), most = round % 10 ? 4 : 40;
    LoopRows rows;
    std::vector<int> keys(n);
    for (size_t li = 0; li < n; li++) {
      keys[li] = int(rng() % unsigned(loops));
      if (rng() % 8 == 0)
        continue; // no rows
      std::vector<int> ths(static_cast<size_t>(most), 0);
      std::iota(ths.begin(), ths.end(), 0);
      std::shuffle(ths.begin(), ths.end(), rng);
      ths.resize(1 + rng() % unsigned(most));
      uint64_t t = rng() % 3 ? 10 * li : 1000 - 10 * li;
      for (int th : ths) {
        int64_t chunks = rng() % 5 ? int64_t(1 + rng() % 3) : 0;
        uint64_t f = t + rng() % 5;
        ASSERT_TRUE(rows.add(int(li), th, chunks, rng() % 6 != 0,
                             chunks ? int64_t(rng() % 7) : 0, f,
                             chunks ? f + 1 + rng() % 9 : f));
      }
    }
    ASSERT_TRUE(rows.close(n));
    for (uint64_t block : {1, 2, 3, 7, 0}) {
      SCOPED_TRACE(block);
      std::vector<int> spanOf;
      std::vector<LoopSpan> want = loopSpansOf(keys, rows, block, &spanOf);
      // Per span, the rows with chunks it merges: their count and sum.
      std::vector<std::pair<int, size_t>> wantRows(want.size());
      rows.forEach([&](size_t r, const LoopThread &x) {
        if (!x.chunks)
          return;
        size_t j = size_t(spanOf[size_t(x.loop)]);
        while (want[j].th != x.th)
          j++;
        wantRows[j].first++, wantRows[j].second += r;
      });
      std::vector<LoopSpan> got;
      std::vector<std::pair<int, size_t>> gotRows;
      streamLoopSpans<std::pair<int, size_t>>(
          keys, loopCount(keys), instancesByStart(rows), rows, block,
          [&](size_t r, const LoopThread &x, std::pair<int, size_t> &e) {
            EXPECT_GT(x.chunks, 0);
            e.first++, e.second += r;
          },
          [&](const LoopSpan &s, const std::pair<int, size_t> &e) {
            got.push_back(s);
            gotRows.push_back(e);
          });
      ASSERT_EQ(got.size(), want.size());
      for (size_t j = 0; j < got.size(); j++) {
        SCOPED_TRACE(j);
        EXPECT_EQ(got[j].loop, want[j].loop);
        EXPECT_EQ(got[j].th, want[j].th);
        EXPECT_EQ(got[j].instances, want[j].instances);
        EXPECT_EQ(got[j].hasWork, want[j].hasWork);
        EXPECT_EQ(got[j].chunks, want[j].chunks);
        EXPECT_EQ(got[j].work, want[j].work);
        EXPECT_EQ(got[j].minWork, want[j].minWork);
        EXPECT_EQ(got[j].maxWork, want[j].maxWork);
        EXPECT_EQ(got[j].first, want[j].first);
        EXPECT_EQ(got[j].last, want[j].last);
        EXPECT_EQ(gotRows[j], wantRows[j]);
      }
    }
  }
}

namespace {
/// The integers of report.html's bars array `name` (false: not a JSON
/// array of integers).
bool barsArray(const std::string &page, const std::string &name,
               std::vector<int64_t> &out) {
  out.clear();
  size_t at = page.find("\"bars\":{");
  if (at == std::string::npos)
    return false;
  at = page.find("\"" + name + "\":[", at);
  if (at == std::string::npos)
    return false;
  at += name.size() + 4;
  size_t end = page.find(']', at);
  if (end == std::string::npos)
    return false;
  std::string s = page.substr(at, end - at);
  if (s.empty())
    return true;
  size_t from = 0;
  for (;;) {
    size_t comma = s.find(',', from);
    std::string v = s.substr(from, comma - from);
    if (v.empty() || v.find_first_not_of("-0123456789") != std::string::npos)
      return false;
    out.push_back(std::stoll(v));
    if (comma == std::string::npos)
      return true;
    from = comma + 1;
  }
}
} // namespace

// report.html's bars are not held: a level measured (counted), or made
// with each bars' array spilled to a temporary file (Spill) up to the cap
// and copied into its place in the page. At caps from every grain down to
// the coarsest blocks: the page whole (no byte missing), its bars' arrays
// whole JSON arrays of one length (the bars'), their chunks every chunk,
// blocks of several instances among the levels (block > 1: bars streamed
// by streamLoopSpans).
TEST(GraphCorner, ReportBarsSpilledNotHeld) {
  TempDir d;
  const uint64_t Par = 100, I0 = 200, I1 = 201;
  const int N = 3000;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";src/s.c;work;12;3;;")
      .str(0x78, ";src/s.c;other;20;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  for (int k = 0; k < N; k++) {
    uint64_t b = 100 * uint64_t(k) + 10, src = k % 3 ? 0x77 : 0x78;
    t0.rec(R_LOOP_BEGIN, b, I0, Par, 0, 0)
        .rec(R_SOURCE, 0, src, 0)
        .chunk(b, 0, 0, 2 + k % 5, CH_EXT)
        .rec(R_LOOP_END, b + 40 + k % 13, I0, Par);
    t1.rec(R_LOOP_BEGIN, b + 1, I1, Par, 0, 0)
        .rec(R_SOURCE, 0, src, 0)
        .chunk(b + 1, 1, 1, 2 + k % 7,
               CH_EXT | CH_LAST_ITER | CH_LAST_ITER_KNOWN)
        .rec(R_LOOP_END, b + 30, I1, Par);
  }
  t0.rec(R_IMPLICIT_END, 100 * uint64_t(N) + 10, I0, 0);
  t1.rec(R_IMPLICIT_END, 100 * uint64_t(N) + 10, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  auto R = computeResults(*run);
  const size_t chunks = run->procs[0]->chunks.size();
  ASSERT_EQ(chunks, size_t(2 * N));
  std::set<uint64_t> blocks;
  for (uint64_t bytes : {100000000, 400000, 250000, 200000, 180000}) {
    SCOPED_TRACE(bytes);
    Caps caps;
    caps.reportBytes = bytes, caps.reportPerGrain = 0;
    std::vector<LeftOut> leftOut;
    std::string path = d.path + "/report.html";
    writeReport(*R, path, caps, "test", leftOut);
    std::ifstream f(path, std::ios::binary);
    std::string page((std::istreambuf_iterator<char>(f)),
                     std::istreambuf_iterator<char>());
    EXPECT_LE(page.size(), bytes);
    EXPECT_EQ(page.find('\0'), std::string::npos);
    EXPECT_EQ(page.substr(page.size() - 8), "</html>\n");
    size_t at = page.find("\"block\":");
    ASSERT_NE(at, std::string::npos);
    uint64_t block = std::stoull(page.substr(at + 8));
    bool every = page.find("\"aggregated\":false") != std::string::npos;
    blocks.insert(every ? 1000000 : block);
    std::vector<int64_t> count, v;
    ASSERT_TRUE(barsArray(page, "count", count));
    size_t bars = every ? chunks : count.size();
    for (const char *name :
         {"row", "s", "d", "k", "inst", "lo", "hi", "c", "n", "pm"}) {
      ASSERT_TRUE(barsArray(page, name, v)) << name;
      EXPECT_EQ(v.size(), bars) << name;
    }
    ASSERT_TRUE(barsArray(page, "pc", v));
    EXPECT_EQ(v.size() % 3, 0u);
    int64_t sum = 0;
    for (int64_t c : count)
      sum += c;
    if (!every)
      EXPECT_EQ(sum, int64_t(chunks));
  }
  // Every grain, a bar per instance and thread, blocks of several.
  EXPECT_TRUE(blocks.count(1000000));
  EXPECT_TRUE(blocks.count(1));
  EXPECT_GE(blocks.size(), 3u);
}

// The loop table's first chunks' making (CreationTicks) in 4 bytes a row:
// values of UINT32_MAX ticks or more held apart, given back the same,
// whatever order the rows are set in, a row set again keeping its last.
TEST(GraphCorner, CreationTicksKeepWideValues) {
  const std::vector<uint64_t> values = {0,
                                        7,
                                        UINT32_MAX - 1ull,
                                        UINT32_MAX,
                                        1ull << 32,
                                        (1ull << 40) + 3,
                                        UINT64_MAX - 1};
  std::mt19937 rng(3);
  for (int round = 0; round < 50; round++) {
    size_t n = 1 + rng() % 40;
    std::vector<uint64_t> want(n, 0);
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t(0));
    std::shuffle(order.begin(), order.end(), rng);
    CreationTicks c;
    c.assign(n);
    for (size_t r : order) {
      if (rng() % 4 == 0)
        continue;         // unset: 0
      if (rng() % 3 == 0) // set before, then again
        c.set(r, values[rng() % values.size()]);
      want[r] = values[rng() % values.size()];
      c.set(r, want[r]);
    }
    c.sorted();
    ASSERT_EQ(c.size(), n);
    for (size_t r = 0; r < n; r++)
      EXPECT_EQ(c[r], want[r]) << round << " " << r;
  }
}

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The loop instance model's narrow fields and their side tables, on
// hand-made recordings: a share's work and wait held in 32 bits (the
// values outside [0, 2^31) apart), an instance's end as a 32-bit offset
// from its begin (the others apart), its count of threads found from the
// next instance's run of shares, an instance's largest chunk work found
// from its threads' shares or, for the instances with a thread of two
// chunks or more, held apart (sparse or per instance); and the summary's
// flagged counts, found from the chunks when asked.
#include "LoopTable.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <algorithm>
#include <gtest/gtest.h>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100, I0 = 200, I1 = 201;

// The share of thread th in instance li.
const Share &shareOf(const Analysis &an, size_t li, int th) {
  const Share *s = an.shareOf(an.loops[li], th);
  EXPECT_NE(s, nullptr);
  return *s;
}

// The first chunk of thread th in instance li.
size_t chunkOf(const Analysis &an, size_t li, int th) {
  for (size_t i = 0; i < an.chunks.size(); i++)
    if (size_t(an.chunks.loop[i]) == li && an.chunks.thread[i] == th)
      return i;
  ADD_FAILURE() << "no chunk of thread " << th << " in instance " << li;
  return 0;
}

// The team's region and implicit tasks, begun at 0 (thread 0 begins the
// region).
void beginTeam(Thread &t0, Thread &t1) {
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
}

// The two threads' recording in dir, analysed.
std::unique_ptr<Run> analyseTwo(const std::string &dir, Thread &t0,
                                Thread &t1) {
  writeFile(dir + "/meta.txt", meta3());
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
  return analyseRun({dir}, {});
}

} // namespace

// Two threads, one loop, a chunk each: thread 0's runs 3e9 ticks (its
// loop end), thread 1's ends before it starts (its loop end at 30, the
// chunk at 40: work -10) and waits 5e9 ticks at the barrier, capped by how
// long thread 0 ran on (3e9 + 10 - 30). Both works and thread 1's wait are
// outside [0, 2^31): held apart, they read back whole.
TEST(GraphLoopModel, WideWorkAndWaitAreHeldApart) {
  static_assert(sizeof(Share) <= 16, "a loop instance's thread: 16 bytes");
  static_assert(sizeof(Loop) <= 32, "a loop instance: 32 bytes");
  const uint64_t Long = 3000000000ull, Sync = 5000000000ull;
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .chunk(10, 0, 0, 2)
      .rec(R_LOOP_END, 10 + Long, I0, Par)
      .rec(R_IMPLICIT_END, 20 + Long, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .chunk(40, 1, 1, 2)
      .rec(R_LOOP_END, 30, I1, Par)
      .rec(R_SYNC_BEGIN, 30, I1, Par, 0, 2)
      .rec(R_SYNC_END, 30 + Sync, I1, Par, 0, 2)
      .rec(R_IMPLICIT_END, 40 + Sync, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 1u);
  ASSERT_EQ(an.chunks.size(), 2u);
  const Share &s0 = shareOf(an, 0, 0), &s1 = shareOf(an, 0, 1);
  EXPECT_GE(s0.work32, Share::Wide);
  EXPECT_EQ(an.workOf(s0), int64_t(Long));
  EXPECT_EQ(an.workOf(s1), -10);
  EXPECT_EQ(an.waitOf(s0), 0);
  int64_t wait1 = int64_t(Long) + 10 - 30;
  EXPECT_EQ(an.waitOf(s1), wait1);
  EXPECT_EQ(shareWait(an, s1), double(wait1));
  // The chunks' metrics and the instance's balance are made of them.
  GrainMetrics m0 = an.chunkMetrics(chunkOf(an, 0, 0)),
               m1 = an.chunkMetrics(chunkOf(an, 0, 1));
  EXPECT_EQ(m0.work, double(Long));
  EXPECT_EQ(m0.sync, 0.0);
  EXPECT_EQ(m1.sync, double(wait1));
  double mean = double(int64_t(Long) - 10) / 2;
  EXPECT_DOUBLE_EQ(m0.cwb, double(Long) / mean);
  int64_t n;
  double cwb, cpu;
  an.balance(an.loops[0], n, cwb, cpu);
  EXPECT_EQ(n, 2);
  EXPECT_DOUBLE_EQ(cwb, double(Long) / mean);
  EXPECT_DOUBLE_EQ(cpu, double(Long) / mean);
  // The loop table's rows: thread 0's work whole (its share's, apart),
  // thread 1's chunk of no length.
  LoopTable lt = loopTable(an);
  ASSERT_EQ(lt.rows.size(), 2u);
  EXPECT_EQ(lt.rows[0].work, int64_t(Long));
  EXPECT_EQ(lt.rows[0].maxWork, int64_t(Long));
  EXPECT_EQ(lt.rows[0].last, 10 + Long);
  EXPECT_EQ(lt.rows[1].work, 0);
  // The summary's work per thread (ms: 2 ticks per ns).
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("work per thread (ms) t0=1500.000 t1=-0.000"),
            std::string::npos)
      << s;
}

// A loop table row read from a part whose one chunk's work its share
// cannot hold (2^31 ticks or more) keeps it apart, as its least and most.
TEST(GraphLoopModel, PartRowOfWideWork) {
  const int64_t Long = int64_t(Share::Wide) + 5;
  LoopRows rows;
  ASSERT_TRUE(rows.add(0, 3, 1, true, Long, 100, 100 + uint64_t(Long)));
  ASSERT_TRUE(rows.add(0, 4, 1, true, 7, 100, 107));
  ASSERT_TRUE(rows.close(1));
  LoopThread a = rows[0], b = rows[1];
  EXPECT_EQ(a.work, Long);
  EXPECT_EQ(a.minWork, Long);
  EXPECT_EQ(a.maxWork, Long);
  EXPECT_EQ(a.last, 100 + uint64_t(Long));
  EXPECT_EQ(b.work, 7);
  EXPECT_EQ(b.maxWork, 7);
  EXPECT_EQ(b.last, 107u);
}

namespace {

// Three instances of one loop on two threads (creation unmeasured: each
// chunk ends where the next starts). Instance k begins at 100k + 10;
// thread 0 runs one chunk to 100k + 40 (work 30), or, in the instances of
// multi, two: 5 ticks and 25; thread 1 one chunk of 20.
void threeInstances(const std::string &dir, std::vector<int> multi) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  for (uint64_t k = 0; k < 3; k++) {
    uint64_t b = 100 * k + 10;
    t0.rec(R_LOOP_BEGIN, b, I0, Par, 0, 0).chunk(b, 0, 0, NO_TICKS);
    if (std::count(multi.begin(), multi.end(), int(k)))
      t0.chunk(b + 5, 1, 1, NO_TICKS);
    t0.rec(R_LOOP_END, b + 30, I0, Par);
    t1.rec(R_LOOP_BEGIN, b + 1, I1, Par, 0, 0)
        .chunk(b + 1, 2, 2, NO_TICKS)
        .rec(R_LOOP_END, b + 21, I1, Par);
  }
  t0.rec(R_IMPLICIT_END, 400, I0, 0);
  t1.rec(R_IMPLICIT_END, 400, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

// chunk_work_balance of each instance (the largest chunk over the mean
// chunk), by its balance and by each of its chunks' metrics: 25 / (50 / 3)
// of those in multi, 30 / (50 / 2) of the others.
void expectCwb(std::vector<int> multi) {
  TempDir d;
  threeInstances(d.path, multi);
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 3u);
  ASSERT_EQ(an.chunks.size(), 6 + multi.size());
  for (size_t li = 0; li < 3; li++) {
    double want = std::count(multi.begin(), multi.end(), int(li))
                      ? 25.0 / (50.0 / 3)
                      : 30.0 / (50.0 / 2);
    int64_t n;
    double cwb, cpu;
    an.balance(an.loops[li], n, cwb, cpu);
    EXPECT_DOUBLE_EQ(cwb, want) << "instance " << li;
    for (size_t i = 0; i < an.chunks.size(); i++)
      if (size_t(an.chunks.loop[i]) == li)
        EXPECT_DOUBLE_EQ(an.chunkMetrics(i).cwb, want) << "chunk " << i;
  }
}

} // namespace

// Instance 1 alone has a thread of two chunks (of 3 instances: held
// apart, sparse): its largest chunk is 25, not its thread's 30. The
// others' is their threads' largest.
TEST(GraphLoopModel, LargestChunkOfFewInstancesWithManyChunks) {
  expectCwb({1});
}

// Instances 0 and 2 have a thread of two chunks (more than half: held per
// instance).
TEST(GraphLoopModel, LargestChunkOfMostInstancesWithManyChunks) {
  expectCwb({0, 2});
}

// The summary's flagged chunks of a loop, counted when asked (not per
// instance): in the order its instances first have them. Instance 0's
// thread 0 runs chunks of 1000, 1000, 1000 and 30000 ticks (the last an
// outlier), thread 1 one of 1000, all of unmeasured making; instance 1's
// two chunks of 10 ticks took 100 to make (parallel_benefit 0.1). One
// loop: one code pointer.
TEST(GraphLoopModel, FlaggedChunksInTheOrderInstancesHaveThem) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0x1234, 0);
  for (uint64_t k = 0; k < 4; k++)
    t0.chunk(10 + 1000 * k, k, k, NO_TICKS);
  t0.rec(R_LOOP_END, 33010, I0, Par)
      .rec(R_LOOP_BEGIN, 40000, I0, Par, 0x1234, 0)
      .chunk(40000, 0, 0, 100)
      .rec(R_LOOP_END, 40010, I0, Par)
      .rec(R_IMPLICIT_END, 50000, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 10, I1, Par, 0x1234, 0)
      .chunk(10, 4, 4, NO_TICKS)
      .rec(R_LOOP_END, 1010, I1, Par)
      .rec(R_LOOP_BEGIN, 40000, I1, Par, 0x1234, 0)
      .chunk(40000, 1, 1, 100)
      .rec(R_LOOP_END, 40010, I1, Par)
      .rec(R_IMPLICIT_END, 50000, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 2u);
  ASSERT_EQ(an.chunks.size(), 7u);
  std::vector<std::pair<size_t, int>> flagged;
  an.flaggedChunks([&](size_t i, int p) { flagged.push_back({i, p}); });
  // Thread 0's last chunk of instance 0 (chunk 3), the two of instance 1
  // (chunks 4 and 6).
  EXPECT_EQ(flagged,
            (std::vector<std::pair<size_t, int>>{{3, P_OUTLIER},
                                                 {4, P_PARALLEL_BENEFIT},
                                                 {6, P_PARALLEL_BENEFIT}}));
  std::string s = summary(*computeResults(*run));
  size_t out = s.find("flagged: 1 outlier grains"),
         pb = s.find(", 2 grains parallel_benefit < 1");
  EXPECT_NE(out, std::string::npos) << s;
  EXPECT_NE(pb, std::string::npos) << s;
  EXPECT_LT(out, pb) << s;
}

// Instances' ends, held as 32-bit offsets from their begins where they
// fit, else apart, read back whole (G: 2^32 ticks). Instance 0 ends
// G - 2 ticks after its begin (the widest that fits); instance 1's begin
// moves to thread 1's, G ticks earlier than thread 0's, after thread 0's
// end was held narrow: held apart then; instance 2 lasts 2G; an instance
// not seen to begin (thread 1's chunk after instance 2) has its end apart.
// Thread 1 waits 2G - 30 ticks after instance 1: its wait is capped by
// the instance's end (G - 25 ticks after thread 1 left the loop).
TEST(GraphLoopModel, LoopEndsHeldApartReadBackWhole) {
  const uint64_t G = 1ull << 32;
  TempDir d;
  Thread t0, t1;
  beginTeam(t0, t1);
  t0.rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .chunk(10, 0, 0, NO_TICKS)
      .rec(R_LOOP_END, 10 + G - 2, I0, Par)
      .rec(R_LOOP_BEGIN, 2 * G, I0, Par, 0, 0)
      .chunk(2 * G, 0, 0, NO_TICKS)
      .rec(R_LOOP_END, 2 * G + 5, I0, Par)
      .rec(R_LOOP_BEGIN, 3 * G, I0, Par, 0, 0)
      .chunk(3 * G, 0, 0, NO_TICKS)
      .rec(R_LOOP_END, 5 * G, I0, Par)
      .rec(R_IMPLICIT_END, 7 * G, I0, 0);
  t1.rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .chunk(12, 1, 1, NO_TICKS)
      .rec(R_LOOP_END, 20, I1, Par)
      .rec(R_LOOP_BEGIN, G, I1, Par, 0, 0)
      .chunk(G, 1, 1, NO_TICKS)
      .rec(R_LOOP_END, G + 30, I1, Par)
      .rec(R_SYNC_BEGIN, G + 30, I1, Par, 0, 2)
      .rec(R_SYNC_END, 3 * G, I1, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 3 * G + 1, I1, Par, 0, 0)
      .chunk(3 * G + 1, 1, 1, NO_TICKS)
      .rec(R_LOOP_END, 3 * G + 3, I1, Par)
      .chunk(6 * G, 7, 7, NO_TICKS)
      .rec(R_LOOP_END, 6 * G + 9, I1, Par)
      .rec(R_IMPLICIT_END, 7 * G, I1, 0);
  auto run = analyseTwo(d.path, t0, t1);
  const Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 4u);
  const uint64_t begin[] = {10, G, 3 * G, 0},
                 end[] = {10 + G - 2, 2 * G + 5, 5 * G, 6 * G + 9};
  const size_t threads[] = {2, 2, 2, 1};
  for (size_t li = 0; li < 4; li++) {
    const Loop &lp = an.loops[li];
    EXPECT_EQ(lp.hasBegin, li < 3) << "instance " << li;
    EXPECT_TRUE(lp.hasEnd) << "instance " << li;
    EXPECT_EQ(lp.begin, begin[li]) << "instance " << li;
    EXPECT_EQ(an.loopEnd(lp), end[li]) << "instance " << li;
    EXPECT_EQ(an.shares(lp).size(), threads[li]) << "instance " << li;
    EXPECT_EQ(an.nChunks(lp), int64_t(threads[li])) << "instance " << li;
  }
  EXPECT_EQ(an.loopEndsApart(), 3u);
  // Thread 1's wait after instance 1, and its chunk's wait per chunk.
  int64_t wait = int64_t(2 * G + 5 - (G + 30));
  EXPECT_EQ(an.waitOf(shareOf(an, 1, 1)), wait);
  EXPECT_EQ(an.chunkMetrics(chunkOf(an, 1, 1)).sync, double(wait));
}

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Problems ranked by time lost (tools/graph/Problems.h) on hand-made
// recordings with known numbers: the time lost of a loop instance, the
// one-thread team instances counted apart, the robust outlier rule, and
// the loop palette's distinct colours; the prototype's relational
// grain attributes (GraphAttrs.h).
#include "GraphAttrs.h"
#include "Palette.h"
#include "Problems.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100, Par2 = 101, I0 = 200, I1 = 201, I2 = 202;

/// One loop instance on a thread: chunk k (iterations lo + k x iters to
/// lo + (k + 1) x iters - 1) does works[k] ticks; each chunk's making
/// takes 1 tick, before it. Returns the end.
uint64_t loopOn(Thread &t, uint64_t task, uint64_t par, uint64_t start,
                const std::vector<uint64_t> &works, uint64_t lo,
                uint64_t iters = 1) {
  t.rec(R_LOOP_BEGIN, start, task, par, 0, 0).rec(R_SOURCE, 0, 0x77, 0);
  uint64_t at = start + 1;
  for (size_t k = 0; k < works.size(); k++) {
    t.chunk(at, lo + k * iters, lo + (k + 1) * iters - 1, 1);
    at += works[k] + (k + 1 < works.size() ? 1 : 0);
  }
  t.rec(R_LOOP_END, at, task, par);
  return at;
}

/// Two threads in a team of 2 run one static loop; thread 0's chunks do
/// w0, thread 1's w1 (then, when nested is set, thread 0 runs the same
/// loop again in a nested one-thread team, its chunks doing `nested`).
void teamRecording(const std::string &dir, const std::vector<uint64_t> &w0,
                   const std::vector<uint64_t> &w1,
                   const std::vector<uint64_t> &nested = {}, uint64_t iters = 1,
                   uint64_t late1 = 0) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  uint64_t e0 = loopOn(t0, I0, Par, 10, w0, 0, iters);
  uint64_t e1 = loopOn(t1, I1, Par, 10 + late1, w1, w0.size() * iters, iters);
  uint64_t end = std::max(e0, e1);
  t0.rec(R_SYNC_BEGIN, e0, I0, Par, 0, 2).rec(R_SYNC_END, end, I0, Par, 0, 2);
  t1.rec(R_SYNC_BEGIN, e1, I1, Par, 0, 2).rec(R_SYNC_END, end, I1, Par, 0, 2);
  if (!nested.empty()) {
    // A nested region of one thread, started by thread 0.
    t0.rec(R_PARALLEL_BEGIN, end + 10, Par2, I0, 0, 1)
        .rec(R_IMPLICIT_BEGIN, end + 10, I2, Par2, 0, 1);
    uint64_t e = loopOn(t0, I2, Par2, end + 20, nested, 0);
    t0.rec(R_IMPLICIT_END, e + 1, I2, 0).rec(R_PARALLEL_END, e + 2, Par2, I0);
    end = e + 2;
  }
  t0.rec(R_IMPLICIT_END, end + 5, I0, 0);
  t1.rec(R_IMPLICIT_END, end + 5, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

size_t flaggedOutliers(Analysis &an) {
  size_t n = 0;
  for (size_t i = 0; i < an.chunks.size(); i++)
    n += (an.chunkMetrics(i).problems >> P_OUTLIER) & 1;
  return n;
}

} // namespace

// Thread 0 makes and works 1 + 30 + 1 + 30, thread 1 makes and works
// 1 + 20: the instance spans 62 ticks from the first chunk's making to the
// last chunk's end, and its team of two loses 2 x 62 - 80 = 44 ticks (the
// three chunks' making, and thread 1's 41 ticks of waiting for thread 0):
// 22 ns at 2 ticks per ns.
TEST(GraphProblems, TimeLostOfALoopInstance) {
  TempDir d;
  teamRecording(d.path, {30, 30}, {20});
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 3u);
  EXPECT_EQ(an.teamSize[0], 2u);
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  const Problem &p = ps[0];
  EXPECT_EQ(p.kind, "loop");
  EXPECT_EQ(p.where, "loops.c:12 (work)");
  EXPECT_NEAR(p.lostMs, 44.0 / 2 / 1e6, 1e-15);
  EXPECT_NEAR(p.workMs, 80.0 / 2 / 1e6, 1e-15);
  EXPECT_EQ(p.instancesMulti, 1u);
  EXPECT_EQ(p.instancesSingle, 0u);
  EXPECT_NEAR(p.imbalance, 60.0 / 40, 1e-12);
  EXPECT_NE(p.why.find("its threads lost 0.000 ms in 1 multi-thread "
                       "instance(s)"),
            std::string::npos)
      << p.why;
  // The ranking over a run is the same for its one process.
  EXPECT_EQ(computeResults(*run)->problems.size(), 1u);
}

// Even work, but thread 1 reaches the loop 300 ticks after thread 0: thread
// 0 waits 300 ticks at the loop's end. The instance loses what the
// recording measured, 2 x (411 - 10) - 200 = 602 ticks (300 before thread
// 1's first chunk, 300 of thread 0's waiting, 2 making the chunks), not
// the spread of the chunks' work (none), and the late start is named.
TEST(GraphProblems, ALateThreadIsTimeLost) {
  TempDir d;
  teamRecording(d.path, {100}, {100}, {}, 1, 300);
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_NEAR(ps[0].lostMs, 602.0 / 2 / 1e6, 1e-15);
  EXPECT_NEAR(ps[0].imbalance, 1.0, 1e-12);
  EXPECT_NE(ps[0].why.find("before the threads' first chunks (thread 1 "
                           "started"),
            std::string::npos)
      << ps[0].why;
  EXPECT_EQ(ps[0].suggestion.find("its threads reach it at different times "
                                  "(thread 1 up to"),
            0u)
      << ps[0].suggestion;
}

// One instance whose threads' work differs by 9% (120 and 100 ticks): too
// little to tell an uneven split from a slowed thread, so no schedule is
// advised on it.
TEST(GraphProblems, OneSlightlyUnevenInstanceIsNotASchedule) {
  TempDir d;
  teamRecording(d.path, {120}, {100});
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_NEAR(ps[0].imbalance, 120.0 / 110, 1e-12);
  EXPECT_EQ(ps[0].suggestion.find("one instance, imbalance 1.09: too little "
                                  "to tell"),
            0u)
      << ps[0].suggestion;
}

// A loop whose one chunk per thread makes 4 tasks each: the chunks are
// small next to their making, but the loop feeds the tasks, so it is not
// told to run on one thread (that would serialize the tasks' making).
TEST(GraphProblems, ALoopThatMakesTasksIsNotTooSmall) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  auto tid = [](int th, int n) { return (uint64_t(th) + 1) << 40 | n; };
  Thread t0, t1;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  Thread *ts[2] = {&t0, &t1};
  uint64_t task[2] = {I0, I1};
  for (int th = 0; th < 2; th++) {
    Thread &t = *ts[th];
    t.rec(R_LOOP_BEGIN, 10, task[th], Par, 0, 0).rec(R_SOURCE, 0, 0x77, 0);
    t.chunk(12, uint64_t(th), uint64_t(th), 2);
    for (int c = 1; c <= 4; c++)
      t.task(12 + c, tid(th, c), task[th], 0xB0, 1.0);
    t.rec(R_LOOP_END, 18 + 10 * th, task[th], Par);
  }
  t0.rec(R_SYNC_BEGIN, 18, I0, Par, 0, 2).rec(R_SYNC_END, 28, I0, Par, 0, 2);
  t1.rec(R_SYNC_BEGIN, 28, I1, Par, 0, 2).rec(R_SYNC_END, 28, I1, Par, 0, 2);
  t0.rec(R_IMPLICIT_END, 40, I0, 0);
  t1.rec(R_IMPLICIT_END, 40, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  const Problem *loop = nullptr;
  for (const Problem &p : ps)
    if (p.kind == "loop")
      loop = &p;
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->suggestion.find("the loop is too small"), std::string::npos)
      << loop->suggestion;
  EXPECT_NE(loop->why.find("its chunks made 8 task(s)"), std::string::npos)
      << loop->why;
  EXPECT_EQ(loop->suggestion.find("it makes the tasks (8)"), 0u)
      << loop->suggestion;
}

// The same loop, once in the team of two and once in a nested one-thread
// team whose chunks do 1000 ticks on thread 0: that instance has no
// imbalance and loses only its creation (2 chunks: 2 ticks; 44 + 2), and the
// imbalance is the multi-thread instance's alone (not thread 0's 2060
// against thread 1's 20).
TEST(GraphProblems, OneThreadTeamsApart) {
  TempDir d;
  teamRecording(d.path, {30, 30}, {20}, {1000, 1000});
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 5u);
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].instancesMulti, 1u);
  EXPECT_EQ(ps[0].instancesSingle, 1u);
  EXPECT_NEAR(ps[0].imbalance, 60.0 / 40, 1e-12);
  EXPECT_NEAR(ps[0].lostMs, 46.0 / 2 / 1e6, 1e-15);
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("imbalance (max/mean) 1.50; 1 of 2 instance(s) in "
                   "one-thread teams"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("problems, ranked by time lost (1 of 1"), std::string::npos)
      << s;
}

// A team of two where thread 1 runs none of the loop's chunks: it waits
// for all of thread 0's making and work (62 ticks; 2 x 62 - 60 = 64 lost)
// and the imbalance is 2, in the problems and in the summary's loop line
// alike.
TEST(GraphProblems, AThreadWithoutChunksCounts) {
  TempDir d;
  teamRecording(d.path, {30, 30}, {});
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 2u);
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_NEAR(ps[0].imbalance, 2.0, 1e-12);
  EXPECT_NEAR(ps[0].lostMs, 64.0 / 2 / 1e6, 1e-15);
  EXPECT_NE(summary(*computeResults(*run)).find("imbalance (max/mean) 2.00"),
            std::string::npos)
      << summary(*computeResults(*run));
}

// What to try follows what was measured: chunks whose making (1 tick)
// is half their work (2 ticks) are too small; chunks of 100 ticks evenly
// shared lose 1% (their creation): little to gain.
TEST(GraphProblems, SmallChunksAndLittleToGain) {
  {
    TempDir d;
    teamRecording(d.path, {2, 2, 2, 2}, {2, 2, 2, 2});
    auto run = analyseRun({d.path}, {});
    std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
    ASSERT_EQ(ps.size(), 1u);
    // One iteration (2 ticks) already does more than making its chunk
    // (1 tick) costs: the suggestion gives the size where creation is a
    // tenth, not where parallel benefit passes 1.
    EXPECT_EQ(ps[0].suggestion,
              "chunks are small (1 iterations, 0.001 us of work each, "
              "creation 0.0005 us, 50% of it): use a larger chunk; at about 5 "
              "iterations per chunk creation is a tenth of the work")
        << ps[0].suggestion;
  }
  TempDir d;
  teamRecording(d.path, {100, 100, 100, 100}, {100, 100, 100, 100});
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].suggestion, "little to gain: it loses 1.0% of its work");
}

// One chunk per thread whose making costs half its work: there is no
// larger chunk to make, the loop is too small for its team.
TEST(GraphProblems, OneChunkPerThreadTooSmall) {
  TempDir d;
  teamRecording(d.path, {2}, {2});
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].suggestion.find("the loop is too small for its team"), 0u)
      << ps[0].suggestion;
}

// Two instances of one loop: thread 0 is the slow one in the first,
// thread 1 in the second. Each loses to its slowest thread, but over the
// instances the threads' work is even: variation, not the split.
TEST(GraphProblems, TheSlowThreadChangesBetweenInstances) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  uint64_t a0 = loopOn(t0, I0, Par, 10, {100, 100, 300}, 0);
  uint64_t a1 = loopOn(t1, I1, Par, 10, {100, 100, 100}, 3);
  uint64_t m = std::max(a0, a1);
  t0.rec(R_SYNC_BEGIN, a0, I0, Par, 0, 2).rec(R_SYNC_END, m, I0, Par, 0, 2);
  t1.rec(R_SYNC_BEGIN, a1, I1, Par, 0, 2).rec(R_SYNC_END, m, I1, Par, 0, 2);
  uint64_t b0 = loopOn(t0, I0, Par, m + 10, {100, 100, 100}, 0);
  uint64_t b1 = loopOn(t1, I1, Par, m + 10, {100, 100, 300}, 3);
  uint64_t e = std::max(b0, b1);
  t0.rec(R_SYNC_BEGIN, b0, I0, Par, 0, 2).rec(R_SYNC_END, e, I0, Par, 0, 2);
  t1.rec(R_SYNC_BEGIN, b1, I1, Par, 0, 2).rec(R_SYNC_END, e, I1, Par, 0, 2);
  t0.rec(R_IMPLICIT_END, e + 5, I0, 0);
  t1.rec(R_IMPLICIT_END, e + 5, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].instancesMulti, 2u);
  EXPECT_NEAR(ps[0].imbalance, 1.0, 1e-9);
  EXPECT_EQ(ps[0].suggestion.find("the slowest thread changes"), 0u)
      << ps[0].suggestion;
}

// A region of one thread, not nested (an if() that was false): no
// imbalance at all, and the suggestion says the region ran on one thread
// and what that cost (the making of its chunks), not that it is nested.
TEST(GraphProblems, SerializedLoopSuggestion) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1);
  uint64_t e = loopOn(t0, I0, Par, 10, {10, 500, 10}, 0);
  t0.rec(R_IMPLICIT_END, e + 5, I0, 0);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].instancesMulti, 0u);
  EXPECT_EQ(ps[0].instancesSingle, 1u);
  EXPECT_TRUE(std::isnan(ps[0].imbalance));
  EXPECT_NEAR(ps[0].lostMs, 3.0 / 2 / 1e6, 1e-15); // creation only
  EXPECT_EQ(ps[0].suggestion.find("its region ran on one thread in 1 of 1 "
                                  "instance(s), not nested in another"),
            0u)
      << ps[0].suggestion;
  EXPECT_NE(summary(*computeResults(*run))
                .find("imbalance (max/mean) NA; 1 of 1 instance(s) "
                      "in one-thread teams"),
            std::string::npos);
}

// A region of two threads each of which runs the loop in a nested region
// of one thread (nested parallelism off): it runs serialized.
TEST(GraphProblems, NestedSerializedLoopSuggestion) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  const uint64_t P0 = 300, P1 = 301, J0 = 400, J1 = 401;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_PARALLEL_BEGIN, 5, P0, I0, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 5, J0, P0, 0, 1);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_PARALLEL_BEGIN, 5, P1, I1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 5, J1, P1, 0, 1);
  uint64_t e0 = loopOn(t0, J0, P0, 10, {10, 10, 10}, 0);
  uint64_t e1 = loopOn(t1, J1, P1, 10, {10, 10, 10}, 0);
  t0.rec(R_IMPLICIT_END, e0 + 1, J0, 0).rec(R_PARALLEL_END, e0 + 2, P0, I0);
  t1.rec(R_IMPLICIT_END, e1 + 1, J1, 0).rec(R_PARALLEL_END, e1 + 2, P1, I1);
  t0.rec(R_IMPLICIT_END, e0 + 5, I0, 0);
  t1.rec(R_IMPLICIT_END, e1 + 5, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  EXPECT_EQ(ps[0].instancesSingle, 2u);
  EXPECT_EQ(ps[0].suggestion.find("runs serialized"), 0u) << ps[0].suggestion;
}

// Uniform chunks (with a little jitter) and one slow chunk: exactly that
// chunk is an outlier, the problem names it and suggests dynamic.
TEST(GraphProblems, OneSlowChunkIsTheOutlier) {
  std::vector<uint64_t> w0, w1;
  for (int k = 0; k < 20; k++) {
    w0.push_back(100 + k % 5);
    w1.push_back(102 - k % 3);
  }
  // Below OutlierMinNs over the median (2 ticks per ns): not an outlier,
  // whatever its ratio to the others.
  w0[7] = 100 + 2 * 4900;
  {
    TempDir d;
    teamRecording(d.path, w0, w1);
    auto run = analyseRun({d.path}, {});
    EXPECT_EQ(flaggedOutliers(*run->procs[0]), 0u);
  }
  w0[7] = 30000;
  TempDir d;
  teamRecording(d.path, w0, w1);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 40u);
  EXPECT_EQ(flaggedOutliers(an), 1u);
  EXPECT_TRUE(an.chunkMetrics(7).outlier);
  EXPECT_EQ(problemsText(an.chunkMetrics(7).problems).find("outlier"), 0u);
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  ASSERT_EQ(ps[0].outlierGrains.size(), 1u);
  EXPECT_EQ(ps[0].outlierGrains[0], 7u);
  EXPECT_NE(ps[0].suggestion.find("schedule(dynamic,N)"), std::string::npos)
      << ps[0].suggestion;
}

// Truly uniform: no outlier. And many uniform chunks with one three times
// as long (a preempted chunk that does not matter to the instance): no
// outlier either, where the prototype's max/mean rule (chunk_work_balance
// > 2) holds for the instance, and flagged every chunk of it before.
// The lines are formatted at any length: a long loop or file name is not
// cut at a buffer's size.
TEST(GraphProblems, LongNamesAreNotCut) {
  std::string name(3000, 'x');
  std::string s = fmt("loop %s: lost %.3f ms", name.c_str(), 1.5);
  EXPECT_EQ(s, "loop " + name + ": lost 1.500 ms");
  EXPECT_EQ(fmt("%d", 7), "7");
}

// In a run of several processes the summary names outlier chunks as the
// output files do, with the process prefix (Run::prefix).
TEST(GraphProblems, OutlierIdsCarryTheProcessPrefix) {
  std::vector<uint64_t> w0(20, 100), w1(20, 101);
  w0[7] = 30000;
  TempDir d1, d2;
  teamRecording(d1.path, w0, w1);
  teamRecording(d2.path, w0, w1);
  auto run = analyseRun({d1.path, d2.path}, {});
  ASSERT_TRUE(run->multi());
  std::string s = summary(*computeResults(*run));
  for (size_t i = 0; i < 2; i++) {
    std::string id = run->prefix(i) + "c0.7";
    EXPECT_NE(s.find("outlier chunks: " + id), std::string::npos) << s;
    EXPECT_EQ(chunkId(*run, i, 7), id);
  }
}

TEST(GraphProblems, UniformLoopsHaveNoOutliers) {
  {
    TempDir d;
    teamRecording(d.path, std::vector<uint64_t>(16, 100),
                  std::vector<uint64_t>(16, 100));
    auto run = analyseRun({d.path}, {});
    EXPECT_EQ(flaggedOutliers(*run->procs[0]), 0u);
  }
  std::vector<uint64_t> w0(20000), w1(20000);
  for (size_t k = 0; k < w0.size(); k++) {
    w0[k] = 100 + k % 7;
    w1[k] = 100 + k % 5;
  }
  w1[123] = 330;
  TempDir d;
  teamRecording(d.path, w0, w1);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  int64_t n;
  double cwb, cpu;
  an.balance(an.loops[0], n, cwb, cpu);
  EXPECT_GT(cwb, 2.0);
  EXPECT_EQ(flaggedOutliers(an), 0u);
  for (size_t i = 0; i < an.chunks.size(); i += 997)
    EXPECT_EQ(an.chunkMetrics(i).problems & (1u << P_CHUNK_WORK_BALANCE), 0u);
}

// The loop palette: deterministic and at least 40 colours, each far from
// every other (Euclidean distance in RGB above 40 of 441) and from red
// (the critical path's and the problem grains' colour: #ff0000 in
// grains.graphml, #d00000 and #ff0000 in report.html): at least 150 from
// either, and no red hue.
// Every palette colour is seen on white (the report's and the SVG's
// background): a contrast ratio (WCAG) of 1.6 or more (#ffff00 has 1.07),
// and none is a grey (grey marks forks, joins and what is not listed).
TEST(GraphProblems, PaletteColoursContrastWithWhite) {
  EXPECT_LT(1.05 / (luminance(255, 255, 0) + 0.05), 1.6);
  EXPECT_NEAR(luminance(255, 255, 255), 1.0, 1e-9);
  EXPECT_NEAR(luminance(0, 0, 0), 0.0, 1e-9);
  for (size_t k = 0; k < 200; k++) {
    std::string c = paletteColour(k);
    int r = std::stoi(c.substr(1, 2), nullptr, 16),
        g = std::stoi(c.substr(3, 2), nullptr, 16),
        b = std::stoi(c.substr(5, 2), nullptr, 16);
    EXPECT_GE(1.05 / (luminance(r, g, b) + 0.05), 1.6) << c;
    EXPECT_GE(std::max({r, g, b}) - std::min({r, g, b}), 51) << c;
  }
}

TEST(GraphProblems, PaletteHasFortyDistinctColours) {
  std::vector<std::array<int, 3>> rgb;
  for (size_t k = 0; k < 40; k++) {
    std::string c = paletteColour(k);
    ASSERT_EQ(c.size(), 7u);
    ASSERT_EQ(c[0], '#');
    EXPECT_EQ(c, paletteColour(k));
    rgb.push_back({std::stoi(c.substr(1, 2), nullptr, 16),
                   std::stoi(c.substr(3, 2), nullptr, 16),
                   std::stoi(c.substr(5, 2), nullptr, 16)});
  }
  double closest = 1e9;
  for (size_t i = 0; i < rgb.size(); i++)
    for (size_t j = i + 1; j < rgb.size(); j++) {
      double s = 0;
      for (int c = 0; c < 3; c++)
        s += double(rgb[i][c] - rgb[j][c]) * (rgb[i][c] - rgb[j][c]);
      closest = std::min(closest, std::sqrt(s));
    }
  EXPECT_GT(closest, 40.0);
  for (size_t k = 0; k < 200; k++) {
    std::string c = paletteColour(k);
    int r = std::stoi(c.substr(1, 2), nullptr, 16),
        g = std::stoi(c.substr(3, 2), nullptr, 16),
        b = std::stoi(c.substr(5, 2), nullptr, 16);
    EXPECT_FALSE(nearRed(r, g, b)) << c;
    for (int red : {255, 208})
      EXPECT_GE(std::sqrt(double(r - red) * (r - red) + g * g + b * b), 150.0)
          << c;
  }
  // Red and its neighbours are near red; the palette's first colour, a
  // grey, orange and a magenta-free purple are not.
  EXPECT_TRUE(nearRed(255, 0, 0));
  EXPECT_TRUE(nearRed(208, 0, 0));
  EXPECT_TRUE(nearRed(204, 51, 51));
  EXPECT_TRUE(nearRed(255, 0, 102));
  EXPECT_TRUE(nearRed(255, 102, 0));
  EXPECT_FALSE(nearRed(0, 102, 204));
  EXPECT_FALSE(nearRed(153, 153, 153));
  EXPECT_FALSE(nearRed(255, 204, 0));
  EXPECT_FALSE(nearRed(102, 0, 255));
}

// The prototype's relational attributes (GraphAttrs.h) on hand-made
// columns: last_to_finish per cpu, siblings and their scatter.
TEST(GraphAttrs, LastToFinishAndSiblings) {
  EXPECT_EQ(lastToFinish({0, 1, 0, 1, 2}, {10, 5, 20, 7, 1}),
            (std::vector<uint8_t>{0, 0, 1, 1, 1}));
  std::vector<uint32_t> num;
  std::vector<int64_t> scatter;
  siblings({9, 9, 4, 9}, {3, 7, 1, 5}, num, scatter);
  EXPECT_EQ(num, (std::vector<uint32_t>{3, 3, 1, 3}));
  EXPECT_EQ(scatter, (std::vector<int64_t>{4, 4, -1, 4}));
}

// Heights: 30 x the bin of 10 over [lo, hi], 30 when all are the same.
TEST(GraphAttrs, StepSize) {
  EXPECT_EQ(stepSize(0, 0, 100), 30);
  EXPECT_EQ(stepSize(49, 0, 100), 150);
  EXPECT_EQ(stepSize(100, 0, 100), 300);
  EXPECT_EQ(stepSize(7, 7, 7), 30);
}

// Grains A and B run [0, 10], C [10, 20]: bins of 10 ticks ([0, 9],
// [10, 19], [20, 29], ...) count 2, 3 and 1 grains (a grain ending at 10
// overlaps [10, 19]); A overlaps bins 0 and 1 (min 2, median 2.5, max 3),
// C bins 1 and 2 (1, 2, 3).
TEST(GraphAttrs, InstantaneousParallelism) {
  std::vector<double> mn, md, mx;
  instantaneousParallelism({0, 0, 10}, {10, 10, 10}, mn, md, mx);
  EXPECT_EQ(mn, (std::vector<double>{2, 2, 1}));
  EXPECT_EQ(md, (std::vector<double>{2.5, 2.5, 2}));
  EXPECT_EQ(mx, (std::vector<double>{3, 3, 3}));
  // Nothing to bin: NA.
  instantaneousParallelism({0}, {0}, mn, md, mx);
  EXPECT_TRUE(std::isnan(mn[0]));
}

// The prototype's own processed data (anamud/grain-graphs,
// prototype/test-data/{fib,for-loop}/task-stats.merged; not in this tree):
// last_to_finish and sibling_scatter computed from its cpu_id,
// exec_end_instant, parent and joins_at columns equal its values. Run with
// GRAINCHUNK_PROTOTYPE_DATA=<clone>/prototype/test-data; skipped without.
TEST(GraphAttrs, PrototypeTestData) {
  const char *dir = std::getenv("GRAINCHUNK_PROTOTYPE_DATA");
  if (!dir)
    GTEST_SKIP() << "GRAINCHUNK_PROTOTYPE_DATA not set";
  auto split = [](const std::string &l) {
    std::vector<std::string> f(1);
    bool quoted = false;
    for (char c : l)
      if (c == '"')
        quoted = !quoted;
      else if (c == ',' && !quoted)
        f.emplace_back();
      else
        f.back() += c;
    return f;
  };
  for (const char *prog : {"fib", "for-loop"}) {
    std::ifstream in(std::string(dir) + "/" + prog + "/task-stats.merged");
    ASSERT_TRUE(in.good()) << prog;
    std::string line;
    std::getline(in, line);
    std::map<std::string, size_t> col;
    std::vector<std::string> head = split(line);
    for (size_t i = 0; i < head.size(); i++)
      col[head[i]] = i;
    std::vector<int64_t> cpu;
    std::vector<uint64_t> end, group;
    std::vector<std::string> ltf, scatter;
    std::map<std::string, uint64_t> groups;
    while (std::getline(in, line)) {
      std::vector<std::string> f = split(line);
      cpu.push_back(std::stoll(f[col.at("cpu_id")]));
      end.push_back(std::stoull(f[col.at("exec_end_instant")]));
      group.push_back(
          groups
              .emplace(f[col.at("parent")] + "/" + f[col.at("joins_at")],
                       groups.size())
              .first->second);
      ltf.push_back(f[col.at("last_to_finish")]);
      scatter.push_back(col.count("sibling_scatter") ? f[col["sibling_scatter"]]
                                                     : std::string());
    }
    ASSERT_GT(cpu.size(), 100u) << prog;
    std::vector<uint8_t> last = lastToFinish(cpu, end);
    std::vector<uint32_t> num;
    std::vector<int64_t> sc;
    siblings(group, cpu, num, sc);
    for (size_t i = 0; i < cpu.size(); i++) {
      EXPECT_EQ(last[i] != 0, ltf[i] == "TRUE") << prog << " row " << i;
      if (col.count("sibling_scatter"))
        EXPECT_EQ(sc[i] < 0 ? std::string("NA") : std::to_string(sc[i]),
                  scatter[i])
            << prog << " row " << i;
    }
  }
}

// The work of iterations as a function of the recorded chunks: each
// chunk's work spread evenly over its iterations; gaps and overlaps are
// refused.
TEST(GraphProblems, WorkCurveFromChunks) {
  WorkCurve w;
  ASSERT_TRUE(w.build({{150, 199, 300}, {100, 149, 100}}));
  EXPECT_EQ(w.iterations(), 100);
  EXPECT_EQ(w.total(), 400);
  EXPECT_DOUBLE_EQ(w.before(50), 100);
  EXPECT_DOUBLE_EQ(w.before(75), 250);
  EXPECT_DOUBLE_EQ(w.before(100), 400);
  EXPECT_FALSE(w.build({{0, 9, 1}, {11, 20, 1}}));
  EXPECT_FALSE(w.build({{0, 9, 1}, {5, 20, 1}}));
  EXPECT_FALSE(w.build({}));
}

// Iterations 0-49 do 2 ticks each, 50-99 do 6 (static on 2 threads: 100
// against 300, 200 ticks lost). Worked by hand, chunks to the thread free
// first: dynamic,10 ends at 220 (40 lost), 225 when each chunk costs 1
// (50 lost); guided (chunks of 25, 18, 14, 10, 8, 6, 4, 3, 3, 2, then
// seven of 1) ends with both threads at 200: nothing lost.
TEST(GraphProblems, SimulatedSchedules) {
  WorkCurve w;
  ASSERT_TRUE(w.build({{0, 49, 100}, {50, 99, 300}}));
  EXPECT_DOUBLE_EQ(simulateSchedule(w, 2, 10, 0), 40);
  EXPECT_DOUBLE_EQ(simulateSchedule(w, 2, 10, 1), 50);
  EXPECT_DOUBLE_EQ(simulateSchedule(w, 2, 0, 0), 0);
  // One chunk of everything: one thread works, the other waits.
  EXPECT_DOUBLE_EQ(simulateSchedule(w, 2, 1000, 0), 400);
  // More chunks than allowed: no answer.
  EXPECT_TRUE(std::isnan(simulateSchedule(w, 2, 1, 0, 50)));
  // guided with at most 3 x team iterations: chunks of one.
  WorkCurve s;
  ASSERT_TRUE(s.build({{0, 5, 60}}));
  EXPECT_DOUBLE_EQ(simulateSchedule(s, 2, 0, 0), 0);
  EXPECT_DOUBLE_EQ(simulateSchedule(s, 4, 0, 0), 4 * 20 - 60);
}

// A loop of 100 iterations whose thread 1 does three times thread 0's
// work (one chunk of 50 iterations each, schedule(static)): the
// suggestion carries the estimate, and a dynamic schedule by it loses
// much less than the 200 ticks lost now.
TEST(GraphProblems, ScheduleEstimateInTheSuggestion) {
  TempDir d;
  teamRecording(d.path, {100}, {300}, {}, 50);
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 1u);
  const Problem &p = ps[0];
  EXPECT_EQ(p.estInstances, 1u);
  EXPECT_NEAR(p.nowLostMs, 202.0 / 2 / 1e6, 1e-15); // + 2 chunks made
  EXPECT_LT(p.dynLostMs, p.nowLostMs / 4);
  EXPECT_LT(p.guidedLostMs, p.nowLostMs / 4);
  EXPECT_NE(p.suggestion.find("would lose"), std::string::npos) << p.suggestion;
  EXPECT_NE(p.suggestion.find("with schedule(guided)"), std::string::npos)
      << p.suggestion;
}

// A generator task G (site 0xA0) on thread 1 makes 4 tasks (site 0xB0)
// and runs them at its taskwait, while its parent on thread 0 waits for it
// at a taskwait: G's own work is well above its creation, so G is not "too
// small" (the prototype's parallel_benefit, counting the parent's wait,
// would say so); its parent waits for its subtree. The 4 leaves do 20 ns
// of own work each: too small to be tasks, whatever their creation cost.
TEST(GraphProblems, AGeneratorTaskIsNotTooSmall) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  auto tid = [](int th, int n) { return (uint64_t(th) + 1) << 40 | n; };
  uint64_t G = tid(0, 1);
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .task(10, G, I0, 0xA0, 1.0)
      .rec(R_SYNC_BEGIN, 12, I0, Par, 0, 5)
      .rec(R_SYNC_END, 200, I0, Par, 0, 5)
      .rec(R_IMPLICIT_END, 210, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2).rec(R_TASK_SWITCH, 20, I1, G);
  for (int c = 1; c <= 4; c++)
    t1.task(20 + c, tid(1, c), G, 0xB0, 1.0);
  t1.rec(R_SYNC_BEGIN, 25, G, Par, 0, 5);
  uint64_t at = 25;
  for (int c = 1; c <= 4; c++, at += 40)
    t1.rec(R_TASK_SWITCH, at, G, tid(1, c))
        .rec(R_TASK_SWITCH, at + 40, tid(1, c), G, 0, 1);
  t1.rec(R_SYNC_END, 190, G, Par, 0, 5)
      .rec(R_TASK_SWITCH, 195, G, I1, 0, 1)
      .rec(R_IMPLICIT_END, 210, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  ASSERT_EQ(ps.size(), 2u);
  const Problem *gen = ps[0].instancesMulti == 1 ? &ps[0] : &ps[1];
  const Problem *leaf = gen == &ps[0] ? &ps[1] : &ps[0];
  EXPECT_EQ(gen->suggestion.find("the parents wait at the joins for these "
                                 "tasks and the 4 task(s) they made below"),
            0u)
      << gen->why << "\n"
      << gen->suggestion;
  EXPECT_EQ(leaf->instancesMulti, 4u);
  EXPECT_EQ(leaf->suggestion.find("tasks too small for what making and "
                                  "joining them costs"),
            0u)
      << leaf->suggestion;
  EXPECT_NE(leaf->why.find("0.02 us of own work per task, below 1 us"),
            std::string::npos)
      << leaf->why;
}

// An explicit task the initial task made outside any region starts a
// region of one thread: the region is not nested, so it ran on one thread
// for its own reasons (an if() that was false), not for want of nesting.
TEST(GraphProblems, RegionStartedByATopLevelTaskIsNotNested) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  const uint64_t G = uint64_t(1) << 40 | 1;
  Thread t0;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .task(2, G, 1, 0xA0, 1.0)
      .rec(R_TASK_SWITCH, 4, 1, G)
      .rec(R_PARALLEL_BEGIN, 5, Par, G, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 5, I0, Par, 0, 1);
  uint64_t e = loopOn(t0, I0, Par, 10, {10, 10, 10}, 0);
  t0.rec(R_IMPLICIT_END, e + 1, I0, 0)
      .rec(R_PARALLEL_END, e + 2, Par, G)
      .rec(R_TASK_SWITCH, e + 3, G, 1, 0, 1);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  std::vector<Problem> ps = computeResults(*run)->procs[0].problems;
  const Problem *loop = nullptr;
  for (const Problem &p : ps)
    if (p.kind == "loop")
      loop = &p;
  ASSERT_NE(loop, nullptr);
  EXPECT_EQ(loop->instancesSingle, 1u);
  EXPECT_EQ(loop->suggestion.find("its region ran on one thread"), 0u)
      << loop->suggestion;
}

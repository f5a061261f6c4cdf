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
/// Region `alone` (if any) runs on thread 0 alone (num_threads(1)): thread
/// 1 has no implicit task in it.
void forkedRegions(const std::string &dir, int regions, int alone = -1) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";loops.c;work;12;3;;");
  for (int k = 0; k < regions; k++) {
    uint64_t B = uint64_t(k) * 1000, par = 100 + k, i0 = 300 + 2 * k,
             i1 = 301 + 2 * k;
    uint32_t team = k == alone ? 1 : 2;
    t0.rec(R_PARALLEL_BEGIN, B, par, 1, 0, team)
        .rec(R_IMPLICIT_BEGIN, B + 1, i0, par, 0, team)
        .rec(R_LOOP_BEGIN, B + 10, i0, par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(B + 11, 0, 9, 1)
        .rec(R_LOOP_END, B + 411, i0, par)
        .rec(R_SYNC_BEGIN, B + 411, i0, par, 0,
             GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_SYNC_END, B + 600, i0, par, 0, GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        .rec(R_IMPLICIT_END, B + 601, i0, 0)
        .rec(R_PARALLEL_END, B + 610, par, 1);
    if (k == alone)
      continue;
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

// Thread 1 has no implicit task in the second of four regions: each of
// its implicit tasks is its region's (found after the thread's last
// region where it can be, never taken for the entry after it), and it is
// out of the team through the second.
TEST(GraphBreakdown, ImplicitTasksFoundInTheirRegions) {
  TempDir d;
  forkedRegions(d.path, 4, 1);
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Breakdown &b = res->procs[0].time;
  EXPECT_EQ(b.threads, 2u);
  // Per two-thread region: thread 0's fork 1 and join 9, thread 1's fork
  // 50; the region of one thread: thread 0's alone.
  EXPECT_DOUBLE_EQ(b.forkJoin, 3 * (1.0 + 9 + 50) + (1 + 9));
  EXPECT_DOUBLE_EQ(b.inRegions, 3 * (600.0 + 560) + 600);
  EXPECT_DOUBLE_EQ(b.notInTeam, 610.0);
  expectParts(b);
  // A late join: thread 1 began its implicit task 49 ticks after thread
  // 0, and its chunk 50 ticks after thread 0's, in each two-thread region
  // (its implicit task found in the region, after the one it skipped).
  const Analysis &an = *run->procs[0];
  LoopTable lt = loopTable(an);
  InstanceLosses losses(an, lt);
  ASSERT_EQ(an.loops.size(), 4u);
  for (int li = 0; li < 4; li++) {
    InstanceLoss x = losses(li);
    EXPECT_EQ(x.threads, li == 1 ? 1u : 2u) << "instance " << li;
    EXPECT_DOUBLE_EQ(x.lateStart, li == 1 ? 0.0 : 50.0) << "instance " << li;
    EXPECT_DOUBLE_EQ(x.lateJoin, li == 1 ? 0.0 : 49.0) << "instance " << li;
  }
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

namespace {

const uint64_t Par = 100, I0 = 200, I1 = 201;
uint64_t tid(int th, int n) { return (uint64_t(th) + 1) << 40 | uint64_t(n); }

/// A region Par of 2 threads begins at 0 (thread 1's implicit task at
/// `join`), its loops at loops.c:12.
void openTeam(Thread &t0, Thread &t1, uint64_t join = 0) {
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, join, I1, Par, 1, 2);
}

/// A combined parallel for of 2 threads, one chunk each (iterations 0 and
/// 1, made in 1 tick, working `work` ticks): thread 1's implicit task
/// begins `join` ticks late and its chunk `before` ticks after that (what
/// it ran in the region before the loop); thread 0 starts at once. With
/// `tasks`, each chunk makes that many tasks (their making 1 tick each),
/// which nobody runs.
std::unique_ptr<Run> lateLoop(const std::string &dir, uint64_t join,
                              uint64_t before, uint64_t work = 2,
                              int tasks = 0) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  openTeam(t0, t1, join);
  Thread *ts[2] = {&t0, &t1};
  uint64_t task[2] = {I0, I1}, start[2] = {10, 10 + join + before};
  uint64_t end[2];
  for (int th = 0; th < 2; th++) {
    Thread &t = *ts[th];
    t.rec(R_LOOP_BEGIN, start[th] - 2, task[th], Par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(start[th], uint64_t(th), uint64_t(th), 1);
    for (int c = 1; c <= tasks; c++)
      t.task(start[th] + uint64_t(c), tid(th, c), task[th], 0xB0, 1.0);
    end[th] = start[th] + work + uint64_t(tasks);
    t.rec(R_LOOP_END, end[th], task[th], Par);
  }
  uint64_t last = std::max(end[0], end[1]);
  const uint32_t Bar = GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
  t0.rec(R_SYNC_BEGIN, end[0], I0, Par, 0, Bar)
      .rec(R_SYNC_END, last, I0, Par, 0, Bar)
      .rec(R_IMPLICIT_END, last + 1, I0, 0)
      .rec(R_PARALLEL_END, last + 2, Par, 1);
  t1.rec(R_SYNC_BEGIN, end[1], I1, Par, 0, Bar)
      .rec(R_SYNC_END, last, I1, Par, 0, Bar)
      .rec(R_IMPLICIT_END, last + 1, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
  return analyseRun({dir}, {});
}

const Problem *loopProblem(const std::vector<Problem> &ps) {
  for (const Problem &p : ps)
    if (p.kind == "loop")
      return &p;
  return nullptr;
}

/// lateLoop's loop problem's suggestion.
std::string lateSuggestion(uint64_t join, uint64_t before) {
  TempDir d;
  auto run = lateLoop(d.path, join, before);
  auto res = computeResults(*run);
  const Problem *p = loopProblem(res->procs[0].problems);
  return p ? p->suggestion : "no loop problem";
}

} // namespace

// Thread 1 joins 300 ticks late; the work is even: thread 0's wait after
// its chunk is for the late thread, not uneven work (before: "waiting
// after their last chunks for the slowest (uneven work: imbalance 1.00)").
TEST(GraphAdvice, AWaitForALateThreadIsNamedAfterIt) {
  TempDir d;
  auto run = lateLoop(d.path, 300, 0, 100);
  auto res = computeResults(*run);
  const Problem *p = loopProblem(res->procs[0].problems);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->why.find("waiting after their last chunks for the threads "
                        "that started late"),
            std::string::npos)
      << p->why;
  EXPECT_EQ(p->why.find("uneven work"), std::string::npos) << p->why;
}

// A combined parallel for whose one chunk per thread is small next to its
// making, and whose thread 1 joins the team 300 ticks late: the late join
// holds 99% of the loss, so the advice leads with it (a thread joined the
// team late: the fork, a busy machine) and gives each cause its share;
// before: "the loop is too small for its team … run it on one thread",
// which is about the 2 ticks of making.
TEST(GraphAdvice, ALateJoinLeadsTheAdvice) {
  std::string s = lateSuggestion(300, 0);
  EXPECT_EQ(s.find("a thread joined the team late (thread 1 up to"), 0u) << s;
  EXPECT_NE(s.find("OMP_PROC_BIND"), std::string::npos);
  EXPECT_NE(s.find("late starts and the waits for them 99."), std::string::npos)
      << s;
  EXPECT_EQ(s.find("too small"), std::string::npos) << s;
}

// The same lateness spent in the region before the loop (thread 1 joined
// on time and ran 300 ticks of its own first): that is the work before
// the loop, as before.
TEST(GraphAdvice, ALateStartAfterWorkInTheRegionIsThatWork) {
  std::string s = lateSuggestion(0, 300);
  EXPECT_EQ(s.find("its threads reach it at different times (thread 1 up to"),
            0u)
      << s;
}

// A loop whose chunks make tasks, with a late join holding most of its
// loss: never told to run on one thread (before: it fell through to "the
// loop is too small for its team … run it on one thread").
TEST(GraphAdvice, ALoopThatMakesTasksIsNeverRunOnOneThread) {
  TempDir d;
  auto run = lateLoop(d.path, 300, 0, 2, 4);
  auto res = computeResults(*run);
  const Problem *p = loopProblem(res->procs[0].problems);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->suggestion.find("one thread (an if()"), std::string::npos)
      << p->suggestion;
  EXPECT_EQ(p->suggestion.find("too small"), std::string::npos)
      << p->suggestion;
  EXPECT_NE(p->suggestion.find("it makes the tasks (8)"), std::string::npos)
      << p->suggestion;
}

// Tasks of 36000 ticks (18 us) made 1 tick each by thread 0's chunk, run by
// thread 1 while thread 0 waits at the barrier ending the loop: making
// them costs 0.003% of their work, so they are not told they are too small,
// nor to give their parents other work before a taskwait the program does
// not have; the join is named as it is.
TEST(GraphAdvice, CheapTasksJoinedAtALoopBarrier) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  const uint32_t WsBar = GC_SYNC_BARRIER_IMPLICIT_WORKSHARE;
  t0.str(0x77, ";loops.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(12, 0, 0, 1);
  for (int c = 1; c <= 4; c++)
    t0.task(12 + uint64_t(c), tid(0, c), I0, 0xB0, 1.0);
  t0.rec(R_LOOP_END, 18, I0, Par)
      .rec(R_SYNC_BEGIN, 18, I0, Par, 0, WsBar)
      .rec(R_SYNC_END, 150100, I0, Par, 0, WsBar)
      .rec(R_IMPLICIT_END, 150110, I0, 0)
      .rec(R_PARALLEL_END, 150120, Par, 1);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 10, I1, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(12, 1, 1, 1)
      .rec(R_LOOP_END, 15, I1, Par)
      .rec(R_SYNC_BEGIN, 15, I1, Par, 0, WsBar);
  uint64_t at = 20;
  for (int c = 1; c <= 4; c++, at += 36000)
    t1.rec(R_TASK_SWITCH, at, I1, tid(0, c))
        .rec(R_TASK_SWITCH, at + 36000, tid(0, c), I1, 0, 1);
  t1.rec(R_SYNC_END, 150100, I1, Par, 0, WsBar)
      .rec(R_IMPLICIT_END, 150110, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Problem *site = nullptr;
  for (const Problem &p : res->procs[0].problems)
    if (p.kind != "loop")
      site = &p;
  ASSERT_NE(site, nullptr);
  EXPECT_EQ(site->suggestion.find("tasks too small"), std::string::npos)
      << site->suggestion;
  EXPECT_EQ(site->suggestion.find("taskwait"), std::string::npos)
      << site->suggestion;
  EXPECT_NE(site->suggestion.find("the barrier ending the loop whose chunks "
                                  "made them"),
            std::string::npos)
      << site->suggestion;
}

// One site's six tasks, each joined at its own taskwait (no siblings to
// compare with, as in a binary task tree), five of 100 ticks and one of
// 100000 (a preempted one): it is an outlier of its site, by the median
// and MAD rule, and the critical-path line says that one grain holds most
// of the span (before: not flagged, nothing said).
TEST(GraphAdvice, OneTaskThatMakesTheSpanIsAnOutlierOfItsSite) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1);
  uint64_t at = 10;
  for (int c = 1; c <= 6; c++) {
    uint64_t w = c == 4 ? 100000 : 100;
    t0.task(at, tid(0, c), I0, 0xB0, 1.0)
        .rec(R_SYNC_BEGIN, at + 2, I0, Par, 0, GC_SYNC_TASKWAIT)
        .rec(R_TASK_SWITCH, at + 3, I0, tid(0, c))
        .rec(R_TASK_SWITCH, at + 3 + w, tid(0, c), I0, 0, 1)
        .rec(R_SYNC_END, at + 4 + w, I0, Par, 0, GC_SYNC_TASKWAIT);
    at += 10 + w;
  }
  t0.rec(R_IMPLICIT_END, at, I0, 0).rec(R_PARALLEL_END, at + 1, Par, 1);
  t0.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.tasks.size(), 6u);
  size_t flagged = 0;
  for (size_t k = 0; k < 6; k++)
    flagged += an.taskOutliers[k];
  EXPECT_EQ(flagged, 1u);
  EXPECT_EQ(an.taskOutliers[3], 1u);
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("parallelism 1; one grain holds 100% of the span (task"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("an outlier of its kind"), std::string::npos) << s;
}

// A hand-split region (no loop, no task) whose thread 1 waits 1000 ticks
// at an explicit barrier for thread 0's work alone before it: the waits
// are ranked as a problem named by the barrier's code (before: no problem
// at all, as in SNAP, whose barriers hold 73% of its thread time).
TEST(GraphAdvice, WaitsAtAnExplicitBarrierAreAProblem) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  const uint32_t Ex = GC_SYNC_BARRIER_EXPLICIT,
                 Bar = GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_SYNC_BEGIN, 1010, I0, Par, 0xC0, Ex)
      .rec(R_SYNC_END, 1012, I0, Par, 0xC0, Ex)
      .rec(R_SYNC_BEGIN, 1100, I0, Par, 0, Bar)
      .rec(R_SYNC_END, 1110, I0, Par, 0, Bar)
      .rec(R_IMPLICIT_END, 1110, I0, 0)
      .rec(R_PARALLEL_END, 1111, Par, 1);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_SYNC_BEGIN, 10, I1, Par, 0xC0, Ex)
      .rec(R_SYNC_END, 1010, I1, Par, 0xC0, Ex)
      .rec(R_SYNC_BEGIN, 1100, I1, Par, 0, Bar)
      .rec(R_SYNC_END, 1110, I1, Par, 0, Bar)
      .rec(R_IMPLICIT_END, 1110, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const std::vector<Problem> &ps = res->procs[0].problems;
  ASSERT_FALSE(ps.empty());
  EXPECT_EQ(ps[0].kind, "barrier");
  EXPECT_EQ(ps[0].where.find("barrier "), 0u) << ps[0].where;
  EXPECT_NEAR(ps[0].lostMs, 1002.0 / 2 / 1e6, 1e-15);
  EXPECT_EQ(ps[0].instancesMulti, 2u);
  expectParts(res->procs[0].time);
}

// Twenty instances of one loop in a region of two threads, 100 ticks each
// but the two that `slow` stretches to 100000 (a descheduled thread): the
// summary says the slowest tenth hold most of their time (a busy machine);
// with none stretched it says the share and no more.
static std::string noiseLine(int slow) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  openTeam(t0, t1);
  Thread *ts[2] = {&t0, &t1};
  uint64_t task[2] = {I0, I1}, at = 10;
  for (int k = 0; k < 20; k++) {
    uint64_t w = k < slow ? 100000 : 100;
    for (int th = 0; th < 2; th++)
      ts[th]
          ->rec(R_LOOP_BEGIN, at, task[th], Par, 0, 0)
          .rec(R_SOURCE, 0, 0x77, 0)
          .chunk(at + 1, uint64_t(th), uint64_t(th), 1)
          .rec(R_LOOP_END, at + 1 + w, task[th], Par);
    at += w + 10;
  }
  t0.rec(R_IMPLICIT_END, at, I0, 0).rec(R_PARALLEL_END, at + 1, Par, 1);
  t1.rec(R_IMPLICIT_END, at, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  std::string s = summary(*computeResults(*run));
  size_t b = s.find("  noise: "), e = s.find('\n', b);
  return b == std::string::npos ? s : s.substr(b, e - b);
}

TEST(GraphAdvice, ANoisyRunIsSaidToBe) {
  std::string noisy = noiseLine(2), quiet = noiseLine(0);
  EXPECT_EQ(noisy.find("  noise: the 20 multi-thread instances of loop "
                       "loops.c:12 (work)"),
            0u)
      << noisy;
  EXPECT_NE(noisy.find("the slowest tenth of them 99% of that: the same "
                       "code took far longer"),
            std::string::npos)
      << noisy;
  EXPECT_NE(quiet.find("the slowest tenth of them 10% of that"),
            std::string::npos)
      << quiet;
  EXPECT_EQ(quiet.find("far longer"), std::string::npos) << quiet;
}

// A loop of 2 threads whose chunks (2 ticks of work each) were made for
// 150 ticks before they started: its threads lose 2 x 152 - 4 ticks from
// the making of their first chunks on, far more than the threads x the
// span of the grains (2 x 2 ticks) that the share was taken of (7500%; a
// forked child's short loop printed 100.2% so). The share is of the
// process's thread time, its threads x its recorded span, and never
// passes 100%.
TEST(GraphProblems, AShareIsOfTheThreadTimeAndNeverPasses100) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  openTeam(t0, t1);
  Thread *ts[2] = {&t0, &t1};
  uint64_t task[2] = {I0, I1};
  const uint32_t Bar = GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
  for (int th = 0; th < 2; th++)
    ts[th]
        ->rec(R_LOOP_BEGIN, 40, task[th], Par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(200, uint64_t(th), uint64_t(th), 150)
        .rec(R_LOOP_END, 202, task[th], Par)
        .rec(R_SYNC_BEGIN, 202, task[th], Par, 0, Bar)
        .rec(R_SYNC_END, 203, task[th], Par, 0, Bar)
        .rec(R_IMPLICIT_END, 204, task[th], 0);
  t0.rec(R_PARALLEL_END, 205, Par, 1);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Problem *p = loopProblem(res->procs[0].problems);
  ASSERT_NE(p, nullptr);
  const Breakdown &b = res->procs[0].time;
  double lost = p->lostMs * run->procs[0]->clockNs() * 1e6;
  EXPECT_NEAR(lost, 2 * 152.0 - 4, 1e-6);
  EXPECT_DOUBLE_EQ(b.threadTime, 2 * 205.0);
  EXPECT_NEAR(p->share, lost / b.threadTime, 1e-12);
  for (const Problem &q : res->procs[0].problems)
    EXPECT_LE(q.share, 1.0) << q.where;
}

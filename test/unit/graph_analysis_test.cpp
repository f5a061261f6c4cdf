// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grainchunk-graph engine's analysis on hand-made recordings with known
// answers: chunks, loop instances and their metrics; tasks, children,
// join points and metrics; task outliers per site; report.html's task
// bars; lineages; CSV quoting and run.json.
#include "LoopTable.h"
#include "ReportPage.h"
#include "Results.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <tuple>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100, I0 = 200, I1 = 201;
const uint64_t T1 = (1ull << 40) | 1, T2 = (1ull << 40) | 2,
               T4 = (1ull << 40) | 3, T3 = (1ull << 40) | 4;

// Two threads, one static loop of three chunks (creation 2 ticks each):
//   thread 0: chunk [0,0] at 10, [2,2] at 20 (so [0,0] ends at 18), loop
//             end 40, barrier wait 40..50;
//   thread 1: chunk [1,1] at 12, loop end 30, barrier wait 30..50.
// The loop's source location names a file with a comma in it.
void loopRecording(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";src/a,b.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(10, 0, 0, 2)
      .chunk(20, 2, 2, 2, CH_EXT | CH_LAST_ITER | CH_LAST_ITER_KNOWN)
      .rec(R_LOOP_END, 40, I0, Par)
      .rec(R_SYNC_BEGIN, 40, I0, Par, 0, 2)
      .rec(R_SYNC_END, 50, I0, Par, 0, 2)
      .rec(R_IMPLICIT_END, 60, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(12, 1, 1, 2, CH_EXT | CH_LAST_ITER_KNOWN)
      .rec(R_LOOP_END, 30, I1, Par)
      .rec(R_SYNC_BEGIN, 30, I1, Par, 0, 2)
      .rec(R_SYNC_END, 50, I1, Par, 0, 2)
      .rec(R_IMPLICIT_END, 60, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

// One thread: tasks T1 (made at 10), T2 (20), a taskwait 30..95 during
// which T1 runs 30..50 (making its child T4 at 40) and T2 50..90; then T3
// (100) that never runs. Creation 5 ticks each.
void taskRecording(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t;
  t.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1)
      .task(10, T1, I0, 0, 5.0)
      .task(20, T2, I0, 0, 5.0)
      .rec(R_SYNC_BEGIN, 30, I0, Par, 0, 5)
      .rec(R_TASK_SWITCH, 30, I0, T1)
      .task(40, T4, T1, 0, 5.0)
      .rec(R_TASK_SWITCH, 50, T1, I0, 0, 1)
      .rec(R_TASK_SWITCH, 50, I0, T2)
      .rec(R_TASK_SWITCH, 90, T2, I0, 0, 1)
      .rec(R_SYNC_END, 95, I0, Par, 0, 5)
      .task(100, T3, I0, 0, 5.0)
      .rec(R_IMPLICIT_END, 110, I0, 0);
  t.write(dir + "/thread-0.bin");
}

// The BOTS sparselu_for shape: a loop of 4 iterations whose iteration i
// makes task A_i (iteration 0 also B_0, and A_0 a child C); iteration 3
// starts a nested region that makes task N. With two threads (the
// recording) thread 0 runs chunk lo0..up0 and thread 1 chunk lo1..up1
// (flags f1); thread 1 makes its tasks first. With one thread (baseline)
// the only chunk 0..3 makes them in iteration order. Ids: thread+1 << 40.
const uint64_t P2 = 300, I2 = 301;
uint64_t tid(int th, int n) { return (uint64_t(th) + 1) << 40 | uint64_t(n); }

// A one-thread recording's meta.txt in dir, and its region Par and
// implicit task I0 begun at 0 (the test adds the rest).
Thread oneRegion(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t;
  t.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1);
  return t;
}

// Thread 0's tasks tid(0, first + step * i) made by I0 at at + i, i < count.
void tasksFrom(Thread &t, uint64_t at, uint64_t first, uint64_t count,
               uint64_t step = 1) {
  for (uint64_t i = 0; i < count; i++)
    t.task(at + i, tid(0, int(first + step * i)), I0, 0, 1.0);
}

// The implicit task it runs the tasks ids, 5 ticks each, from t on.
void runs(Thread &th, uint64_t it, std::vector<uint64_t> ids, uint64_t t) {
  for (uint64_t id : ids) {
    th.rec(R_TASK_SWITCH, t, it, id).rec(R_TASK_SWITCH, t + 5, id, it, 0, 1);
    t += 5;
  }
}

void chunkTaskRecording(const std::string &dir, bool oneThread,
                        uint64_t lo1 = 2, uint32_t f1 = CH_EXT,
                        const std::string &meta = meta3()) {
  writeFile(dir + "/meta.txt", meta);
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, oneThread ? 1 : 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, oneThread ? 1 : 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .chunk(10, 0, oneThread ? 3 : 1, 2)
      .task(20, tid(0, 1), I0, 0, 1.0)  // A_0
      .task(21, tid(0, 2), I0, 0, 1.0)  // B_0
      .task(22, tid(0, 3), I0, 0, 1.0); // A_1
  if (oneThread)
    t0.task(23, tid(0, 4), I0, 0, 1.0)   // A_2
        .task(24, tid(0, 5), I0, 0, 1.0) // A_3
        .rec(R_PARALLEL_BEGIN, 25, P2, I0, 0, 1)
        .rec(R_IMPLICIT_BEGIN, 25, I2, P2, 0, 1)
        .task(26, tid(0, 6), I2, 0, 1.0) // N
        .rec(R_TASK_SWITCH, 27, I2, tid(0, 6))
        .rec(R_TASK_SWITCH, 29, tid(0, 6), I2, 0, 1)
        .rec(R_IMPLICIT_END, 29, I2, 0);
  t0.rec(R_TASK_SWITCH, 30, I0, tid(0, 1))
      .task(31, tid(0, 7), tid(0, 1), 0, 1.0) // C
      .rec(R_TASK_SWITCH, 32, tid(0, 1), I0, 0, 1)
      .rec(R_LOOP_END, 40, I0, Par);
  if (oneThread)
    runs(t0, I0, {tid(0, 2), tid(0, 3), tid(0, 4), tid(0, 5), tid(0, 7)}, 41);
  else
    runs(t0, I0, {tid(0, 2), tid(0, 3), tid(0, 7)}, 41);
  t0.rec(R_IMPLICIT_END, 100, I0, 0);
  t0.write(dir + "/thread-0.bin");
  if (oneThread)
    return;
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 11, I1, Par, 0, 0)
      .chunk(11, lo1, 3, 2, f1)
      .task(12, tid(1, 1), I1, 0, 1.0) // A_2
      .task(13, tid(1, 2), I1, 0, 1.0) // A_3
      .rec(R_PARALLEL_BEGIN, 14, P2, I1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 14, I2, P2, 0, 1)
      .task(15, tid(1, 3), I2, 0, 1.0) // N
      .rec(R_TASK_SWITCH, 16, I2, tid(1, 3))
      .rec(R_TASK_SWITCH, 18, tid(1, 3), I2, 0, 1)
      .rec(R_IMPLICIT_END, 18, I2, 0)
      .rec(R_LOOP_END, 40, I1, Par);
  runs(t1, I1, {tid(1, 1), tid(1, 2)}, 41);
  t1.rec(R_IMPLICIT_END, 100, I1, 0);
  t1.write(dir + "/thread-1.bin");
}

std::vector<std::string> lines(const std::string &path) {
  std::ifstream f(path);
  std::vector<std::string> v;
  std::string l;
  while (std::getline(f, l))
    v.push_back(l);
  return v;
}

} // namespace

TEST(GraphAnalysis, ChunksLoopsAndMetrics) {
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 3u);
  ASSERT_EQ(an.loops.size(), 1u);
  const Loop &lp = an.loops[0];
  EXPECT_EQ(an.nChunks(lp), 3);
  EXPECT_EQ(an.codeOf(lp).fn, "work");
  EXPECT_EQ(an.codeOf(lp).loc, "a,b.c:12");
  EXPECT_EQ(an.loopName(0), "a,b.c:12 (work)");
  // Ends: [0,0] where [2,2]'s making began (20 - 2), the others at the
  // loop's end on their thread.
  EXPECT_EQ(an.chunks.end[0], 18u);
  EXPECT_EQ(an.chunks.end[1], 40u);
  EXPECT_EQ(an.chunks.end[2], 30u);
  // Work 8, 20 and 18: chunk_work_balance = 20 / (46 / 3); per thread
  // 28 and 18: chunk_work_cpu_balance = 28 / 23.
  int64_t n;
  double cwb, cpu;
  an.balance(lp, n, cwb, cpu);
  EXPECT_NEAR(cwb, 20.0 / (46.0 / 3), 1e-12);
  EXPECT_NEAR(cpu, 28.0 / 23, 1e-12);
  // Waits after the loop, capped by how long the last thread ran on:
  // thread 0 ended last (0 per chunk), thread 1 waited 20 of which 10 count.
  GrainMetrics m0 = an.chunkMetrics(0), m1 = an.chunkMetrics(1),
               m2 = an.chunkMetrics(2);
  EXPECT_DOUBLE_EQ(m0.sync, 0.0);
  EXPECT_DOUBLE_EQ(m2.sync, 10.0);
  EXPECT_DOUBLE_EQ(m0.pb, 8.0 / 2);
  EXPECT_DOUBLE_EQ(m1.pb, 20.0 / 2);
  EXPECT_DOUBLE_EQ(m2.pb, 18.0 / 12);
  EXPECT_EQ(m0.problems, 0u);
  EXPECT_EQ(an.threadNum(2), 1);
  // Lineages: the top region at "?" (no code pointer), its first loop.
  EXPECT_EQ(an.chunkLineage(0).value(), "/p?#0/L0:0-0");
  EXPECT_EQ(an.chunkLineage(2).value(), "/p?#0/L0:1-1");
}

// Chunks with no loop seen to begin anywhere in the recording (a thread's
// file that begins inside a loop, or a tool that lost the record): their
// instance has no loop code read, and is named without one.
TEST(GraphAnalysis, ChunksOfNoLoopSeenToBegin) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .chunk(10, 0, 3, 2)
      .rec(R_IMPLICIT_END, 60, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2).rec(R_IMPLICIT_END, 60, I1, 0);
  t0.write(d.path + "/thread-0.bin");
  t1.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 1u);
  EXPECT_EQ(an.nChunks(an.loops[0]), 1);
  EXPECT_EQ(an.codeOf(an.loops[0]).codeptr, 0u);
  EXPECT_EQ(an.chunks.size(), 1u);
  // The outputs are made of it: the summary names its one loop.
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("1 instance(s), 1 chunks"), std::string::npos) << s;
}

// A loop instance's model is small where a program runs millions of them
// (bench/shapes.sh (a)): no vector or string of its own; its threads are
// one run of the process's pool, in the order met. The loop table's
// medians of one and two chunks (taken from their least and most).
TEST(GraphAnalysis, LoopInstanceIsCompact) {
  static_assert(sizeof(Share) <= 16, "a loop instance's thread: 16 bytes");
  static_assert(sizeof(Loop) <= 32, "a loop instance: 32 bytes");
  static_assert(sizeof(LoopThread) <= 56, "a loop table row: 56 bytes");
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 1u);
  const Loop &lp = an.loops[0];
  ConstShareSpan sh = an.shares(lp);
  ASSERT_EQ(sh.size(), 2u);
  EXPECT_EQ(sh[0].th, 0);
  EXPECT_EQ(sh[0].count, 2);
  EXPECT_EQ(sh[1].th, 1);
  EXPECT_EQ(sh[1].count, 1);
  EXPECT_EQ(sh.end() - sh.begin(), 2);
  // A chunk's number among its thread's chunks of the instance, counted
  // when asked (not a column): thread 0's two, then thread 1's one.
  EXPECT_EQ(an.chunkNumbers(), (std::vector<uint32_t>{0, 1, 0}));
  LoopTable lt = loopTable(an);
  ASSERT_EQ(lt.rows.size(), 2u);
  // Thread 0: works 18 - 10 and 40 - 20; thread 1: 30 - 12.
  EXPECT_EQ(lt.median(0), 14.0);
  EXPECT_EQ(lt.median(1), 18.0);
}

// Chunks' parents become runs where those are under half of the column (a
// thread's chunks in one region: one run), and read the same either way.
TEST(GraphAnalysis, ChunkParentsInRuns) {
  Chunks runs, column;
  runs.parent = {5, 5, 5, 5, 5, 5, 5, 5, 9, 9, 9, 9};
  column.parent = {1, 2, 1, 2, 1, 2, 1, 2};
  std::vector<uint64_t> want = runs.parent, wantColumn = column.parent;
  runs.packParents();
  column.packParents();
  EXPECT_TRUE(runs.parent.empty());
  EXPECT_EQ(runs.runFirst, (std::vector<uint64_t>{0, 8}));
  for (size_t i = 0; i < want.size(); i++)
    EXPECT_EQ(runs.parentOf(i), want[i]);
  EXPECT_EQ(column.parent, wantColumn); // 8 runs of 8: kept a column
  for (size_t i = 0; i < wantColumn.size(); i++)
    EXPECT_EQ(column.parentOf(i), wantColumn[i]);
}

// Parents appended as read (pushParent) end as packParents leaves a
// column: runs where they are under a quarter of the chunks, else the
// column, also when runs outgrew the column while reading.
TEST(GraphAnalysis, ChunkParentsReadIntoRuns) {
  // Chunks are not copied (their columns read others): read into ch.
  auto read = [](const std::vector<uint64_t> &ps, Chunks &ch) {
    for (size_t i = 0; i < ps.size(); i++) {
      ch.thread.push_back(0);
      ch.pushParent(i, ps[i]);
    }
    ch.packParents();
  };
  std::vector<uint64_t> few(10000, 7), many(10000), some(10000);
  for (size_t i = 0; i < few.size(); i++) {
    few[i] = i < 6000 ? 7 : 8;
    many[i] = i % 2;     // a run per chunk: the column from 4096 on
    some[i] = i / 3 % 2; // runs of 3: a column in the end
  }
  for (const auto *ps : {&few, &many, &some}) {
    Chunks ch, col;
    read(*ps, ch);
    col.parent = *ps;
    col.packParents();
    EXPECT_EQ(ch.parent, col.parent);
    EXPECT_EQ(ch.runFirst, col.runFirst);
    EXPECT_EQ(ch.runParent, col.runParent);
    for (size_t i = 0; i < ps->size(); i += 997)
      EXPECT_EQ(ch.parentOf(i), (*ps)[i]);
  }
  Chunks fewRead, manyRead;
  read(few, fewRead);
  read(many, manyRead);
  EXPECT_EQ(fewRead.runFirst, (std::vector<uint64_t>{0, 6000}));
  EXPECT_EQ(manyRead.parent, many);
}

TEST(GraphAnalysis, TasksChildrenJoinsAndMetrics) {
  TempDir d;
  taskRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  Tasks &T = an.tasks;
  ASSERT_EQ(T.size(), 4u);
  // Creation order: T1, T2, T4, T3 (indexes 0, 1, 2, 3 by id).
  EXPECT_EQ(T.order, (std::vector<uint32_t>{0, 1, 2, 3}));
  int64_t k1 = T.index(T1), k2 = T.index(T2), k4 = T.index(T4),
          k3 = T.index(T3);
  EXPECT_EQ(T.childNumber[k1], 0u);
  EXPECT_EQ(T.childNumber[k2], 1u);
  EXPECT_EQ(T.childNumber[k3], 2u);
  EXPECT_EQ(T.childNumber[k4], 0u);
  EXPECT_EQ(T.kidOff[k1 + 1] - T.kidOff[k1], 1u); // T1 made T4
  // Joins: T1 and T2 at the taskwait (0), T3 made after it (1).
  EXPECT_EQ(T.joinsAt[k1], 0u);
  EXPECT_EQ(T.joinsAt[k2], 0u);
  EXPECT_EQ(T.joinsAt[k3], 1u);
  EXPECT_EQ(T.execc(k1), 20);
  EXPECT_EQ(T.execc(k2), 40);
  EXPECT_EQ(T.execc(k3), 0);
  // The implicit task's wait while on its CPU: 95 - 90 = 5, over its 3
  // children; T1's overhead is its child's creation (no waits).
  EXPECT_DOUBLE_EQ(T.overhead[k1], 5.0);
  GrainMetrics g1 = an.taskMetrics(k1), g2 = an.taskMetrics(k2),
               g3 = an.taskMetrics(k3), g4 = an.taskMetrics(k4);
  EXPECT_DOUBLE_EQ(g1.work, 15.0);
  EXPECT_DOUBLE_EQ(g1.sync, 5.0 / 3);
  EXPECT_DOUBLE_EQ(g1.pb, 15.0 / (5 + 5.0 / 3));
  EXPECT_DOUBLE_EQ(g2.pb, 40.0 / (5 + 5.0 / 3));
  EXPECT_DOUBLE_EQ(g1.swb, 40.0 / 27.5); // max / mean of 15 and 40
  EXPECT_TRUE(std::isnan(g3.swb));       // alone at its join, mean 0
  EXPECT_EQ(g3.problems, 1u << P_PARALLEL_BENEFIT);
  EXPECT_DOUBLE_EQ(g4.sync, 0.0);
  EXPECT_EQ(an.taskPbNa, 0);
  // Lineages: root tasks numbered per region, children per generation.
  EXPECT_EQ(an.taskLineage(k1).value(), "/p?#0>t0");
  EXPECT_EQ(an.taskLineage(k2).value(), "/p?#0>t1");
  EXPECT_EQ(an.taskLineage(k3).value(), "/p?#0>t2");
  EXPECT_EQ(an.taskLineage(k4).value(), "/p?#0>t0.0");
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("tasks: 4; flagged: 2 grains parallel_benefit < 1"),
            std::string::npos)
      << s;
}

// What only reading and finishing the model need is not kept per task:
// parents, threads, creators and executions are read from the parents'
// slots, the threads' ranges and the segments (12 + 8 + 8 + 8 bytes a task
// fewer than old main kept, with the same values). The ids are one run, no
// task was made in a chunk, and no other task than its parent ran where a
// task was made: none of them is a column.
TEST(GraphAnalysis, TasksKeepNoColumnsTheModelDerives) {
  TempDir d;
  taskRecording(d.path);
  auto run = analyseRun({d.path}, {});
  const Tasks &T = run->procs[0]->tasks;
  ASSERT_EQ(T.size(), 4u);
  EXPECT_TRUE(T.parent.empty());
  EXPECT_TRUE(T.creatorAt.empty());
  EXPECT_TRUE(T.id.column().empty());
  EXPECT_FALSE(T.ctx.any());
  EXPECT_TRUE(T.segTask.empty());
  EXPECT_TRUE(T.waitTask.empty());
  int64_t k1 = T.index(T1), k3 = T.index(T3), k4 = T.index(T4);
  EXPECT_EQ(T.parentOf(k1), I0);
  EXPECT_EQ(T.parentOf(k4), T1);
  EXPECT_EQ(T.slots(), 5u); // the four tasks and I0, which made three
  EXPECT_EQ(T.slotId(4), I0);
  EXPECT_EQ(T.threadOf(k1), 0); // ran on thread 0
  EXPECT_EQ(T.threadOf(k3), 0); // never ran: the thread that made it
  EXPECT_EQ(T.execc(k4), 0);
  EXPECT_DOUBLE_EQ(T.work(k1), 15.0);
}

// Ids with gaps (every other one, as when regions take ids between the
// tasks) are more runs than half the tasks: the column from the 4096th
// task on. Ids in runs or the column, a task is found by its id alone.
TEST(GraphAnalysis, TaskIdsInRunsOrTheColumn) {
  for (uint64_t step : {1, 2}) {
    TempDir d;
    Thread t = oneRegion(d.path);
    const uint64_t n = 5000;
    tasksFrom(t, 10, 1, n, step);
    t.rec(R_IMPLICIT_END, 10 + n, I0, 0);
    t.write(d.path + "/thread-0.bin");
    auto run = analyseRun({d.path}, {});
    const Tasks &T = run->procs[0]->tasks;
    ASSERT_EQ(T.size(), n);
    EXPECT_EQ(T.id.column().size(), step == 1 ? 0 : n) << step;
    for (uint64_t i = 0; i < n; i += 499) {
      EXPECT_EQ(T.id[i], tid(0, 1 + step * i));
      EXPECT_EQ(T.index(tid(0, 1 + step * i)), int64_t(i));
    }
    EXPECT_EQ(T.index(tid(0, 1 + step * n)), -1);
    EXPECT_EQ(T.index(tid(1, 1)), -1);
    if (step == 2)
      EXPECT_EQ(T.index(tid(0, 2)), -1); // a gap
  }
}

// A task's chunk is held for the tasks made in chunks; once they are more
// than half the tasks (from the 4096th task on), as the column. Either way
// the tasks made before the chunk have none.
TEST(GraphAnalysis, TaskChunksPerTaskMadeInAChunk) {
  for (uint64_t inChunk : {10, 5000}) {
    TempDir d;
    Thread t = oneRegion(d.path);
    const uint64_t before = 100;
    tasksFrom(t, 1, 1, before);
    t.rec(R_LOOP_BEGIN, 200, I0, Par, 0, 0).chunk(200, 0, 0, 2);
    tasksFrom(t, 300, 1 + before, inChunk);
    t.rec(R_LOOP_END, 400 + inChunk, I0, Par)
        .rec(R_IMPLICIT_END, 500 + inChunk, I0, 0);
    t.write(d.path + "/thread-0.bin");
    auto run = analyseRun({d.path}, {});
    const Analysis &an = *run->procs[0];
    const Tasks &T = an.tasks;
    ASSERT_EQ(T.size(), before + inChunk);
    EXPECT_TRUE(T.ctx.any());
    for (size_t k = 0; k < T.size(); k++)
      ASSERT_EQ(T.ctx[k], k < before ? -1 : 0) << k << " of " << T.size();
    EXPECT_EQ(an.madeInChunk(before - 1), -1);
    EXPECT_EQ(an.madeInChunk(before + inChunk - 1), 0);
  }
}

// A segment's thread is 16-bit: a thread numbered above 65535 that runs a
// task is refused, named, never cut to another thread's number.
TEST(GraphAnalysis, TaskThreadAbove65535Refused) {
  TempDir d;
  const int th = 65536;
  Thread t = oneRegion(d.path);
  t.task(10, tid(th, 1), I0, 0, 1.0)
      .rec(R_TASK_SWITCH, 20, I0, tid(th, 1))
      .rec(R_TASK_SWITCH, 30, tid(th, 1), I0, 0, 1)
      .rec(R_IMPLICIT_END, 40, I0, 0);
  t.write(d.path + "/thread-" + std::to_string(th) + ".bin");
  try {
    analyseRun({d.path}, {});
    ADD_FAILURE() << "thread " << th << " analysed";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("above 65535"), std::string::npos)
        << e.what();
  }
}

TEST(GraphAnalysis, TasksInChunksNamedInIterationOrder) {
  // The chunks differ with the team size, the tasks' lineages do not: the
  // instance and the rank in iteration order (the first chunk's tasks,
  // then the second's), children and nested regions as before.
  TempDir one, two;
  chunkTaskRecording(one.path, true);
  chunkTaskRecording(two.path, false);
  const std::string L = "/p?#0/L0";
  auto lin = [](Analysis &an, uint64_t id) {
    return an.taskLineage(size_t(an.tasks.index(id))).value_or("NA");
  };
  auto r1 = analyseRun({one.path}, {});
  Analysis &a1 = *r1->procs[0];
  EXPECT_EQ(lin(a1, tid(0, 1)), L + ">t0");
  EXPECT_EQ(lin(a1, tid(0, 2)), L + ">t1");
  EXPECT_EQ(lin(a1, tid(0, 3)), L + ">t2");
  EXPECT_EQ(lin(a1, tid(0, 4)), L + ">t3");
  EXPECT_EQ(lin(a1, tid(0, 5)), L + ">t4");
  EXPECT_EQ(lin(a1, tid(0, 6)), L + "/p?#0>t0");
  EXPECT_EQ(lin(a1, tid(0, 7)), L + ">t0.0");
  auto r2 = analyseRun({two.path}, {one.path});
  Analysis &a2 = *r2->procs[0];
  EXPECT_EQ(lin(a2, tid(0, 1)), L + ">t0");
  EXPECT_EQ(lin(a2, tid(0, 2)), L + ">t1");
  EXPECT_EQ(lin(a2, tid(0, 3)), L + ">t2");
  EXPECT_EQ(lin(a2, tid(1, 1)), L + ">t3");
  EXPECT_EQ(lin(a2, tid(1, 2)), L + ">t4");
  EXPECT_EQ(lin(a2, tid(1, 3)), L + "/p?#0>t0");
  EXPECT_EQ(lin(a2, tid(0, 7)), L + ">t0.0");
  EXPECT_EQ(a2.chunkLineage(1).value(), L + ":2-3");
  // Every task has its twin; the chunks none (other bounds).
  EXPECT_EQ(a2.matches.tasks, 7u);
  EXPECT_EQ(a2.matches.chunks, 0u);
  EXPECT_EQ(a2.matches.chunkNoTwin, 2u);
  std::string s = summary(*computeResults(*r2));
  EXPECT_NE(s.find("matched: chunks 0 of 2 (2 without a twin: the one-thread "
                   "run split their iterations otherwise"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("), tasks 7 of 7\n"), std::string::npos) << s;
}

TEST(GraphAnalysis, TasksInChunksWithoutIterationOrder) {
  // Iteration 2 not recorded (chunk [3,3] on thread 1): thread 0's tasks
  // keep their ranks, thread 1's (after the gap) and the region it started
  // are NA. A chunk reported ahead (its tasks' chunk unknown): all NA.
  TempDir gap, ahead;
  chunkTaskRecording(gap.path, false, 3);
  chunkTaskRecording(ahead.path, false, 2, CH_EXT | CH_AHEAD);
  auto lin = [](Analysis &an, uint64_t id) {
    return an.taskLineage(size_t(an.tasks.index(id))).value_or("NA");
  };
  auto rg = analyseRun({gap.path}, {});
  Analysis &g = *rg->procs[0];
  EXPECT_EQ(lin(g, tid(0, 2)), "/p?#0/L0>t1");
  EXPECT_EQ(lin(g, tid(0, 7)), "/p?#0/L0>t0.0");
  EXPECT_EQ(lin(g, tid(1, 1)), "NA");
  EXPECT_EQ(lin(g, tid(1, 3)), "NA");
  EXPECT_EQ(g.chunkLineage(1).value(), "/p?#0/L0:3-3");
  auto ra = analyseRun({ahead.path}, {});
  Analysis &a = *ra->procs[0];
  for (uint64_t id : {tid(0, 1), tid(0, 7), tid(1, 2), tid(1, 3)})
    EXPECT_EQ(lin(a, id), "NA");
  // A stock runtime (a thread's later static chunks unreported), a thread
  // lost or records dropped: the chunk a task was made in is not known.
  std::string m = meta3();
  auto set = [&](const std::string &key, const std::string &v) {
    std::string t = m;
    size_t at = t.find(key + " ");
    t.replace(at, t.find('\n', at) - at, key + " " + v);
    return t;
  };
  std::string stock = meta3(false);
  stock.replace(stock.find("grainchunk_runtime 1"), 20, "grainchunk_runtime 0");
  for (const std::string &mt :
       {stock, set("lost_threads", "1"), set("dropped", "5")}) {
    TempDir d;
    chunkTaskRecording(d.path, false, 2, CH_EXT, mt);
    auto r = analyseRun({d.path}, {});
    Analysis &an = *r->procs[0];
    for (uint64_t id : {tid(0, 1), tid(0, 7), tid(1, 2), tid(1, 3)})
      EXPECT_EQ(lin(an, id), "NA") << mt;
  }
  // The same with the grainchunk runtime: named.
  TempDir ok;
  chunkTaskRecording(ok.path, false, 2, CH_EXT, meta3(false));
  auto rk = analyseRun({ok.path}, {});
  EXPECT_EQ(lin(*rk->procs[0], tid(1, 2)), "/p?#0/L0>t4");
}

TEST(GraphAnalysis, CsvQuotingAndRunJson) {
  EXPECT_EQ(csvField("plain"), "plain");
  EXPECT_EQ(csvField("a,b"), "\"a,b\"");
  EXPECT_EQ(csvField("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csvField("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csvField("cr\r"), "\"cr\r\"");
  EXPECT_EQ(fmtNum(NAN), "NA");
  EXPECT_EQ(fmtNum(3.0), "3");
  EXPECT_EQ(fmtNum(1.0 / 3), "0.333333");
  EXPECT_EQ(fmtNum(2e16), "2e+16");
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  writeCsv(*computeResults(*run), d.path + "/grains.csv");
  auto l = lines(d.path + "/grains.csv");
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].rfind("process,rank,task,grain_type,parent,joins_at,", 0), 0u);
  // Format 3 names no pid: NA, NA; the comma'd names quoted.
  EXPECT_EQ(l[1],
            "NA,NA,c0.0,chunk,200,0,0,0,0,8,2,0,10,10,18,work,\"a,b.c:12\","
            "\"a,b.c:12 (work)\",L0,0,0,NA,0,8,0,4,NA,1.30435,1.21739,NA,,"
            "/p?#0/L0:0-0");
  EXPECT_NE(l[2].find(",2,2,1,0,"), std::string::npos) << l[2]; // last_chunk 1
  writeRunJson(*computeResults(*run), d.path + "/run.json", {"grains.csv"},
               "0.1");
  std::ifstream j(d.path + "/run.json");
  std::stringstream ss;
  ss << j.rdbuf();
  EXPECT_NE(ss.str().find("\"ticks_per_ns\": 2.0"), std::string::npos)
      << ss.str();
  EXPECT_NE(ss.str().find("\"creation_cycles\": \"measured\""),
            std::string::npos);
  EXPECT_NE(ss.str().find("\"outputs\": [\"grains.csv\"]"), std::string::npos);
}

TEST(GraphAnalysis, MultiProcessIdsAreUnique) {
  TempDir d;
  for (int pid : {11, 12}) {
    std::string p = d.path + "/h." + std::to_string(pid);
    mkdir(p.c_str(), 0777);
    loopRecording(p);
    writeFile(p + "/meta.txt", meta4(pid, pid - 11, true, 2));
  }
  auto run = analyseRun({d.path}, {});
  ASSERT_EQ(run->procs.size(), 2u);
  writeCsv(*computeResults(*run), d.path + "/grains.csv");
  auto l = lines(d.path + "/grains.csv");
  ASSERT_EQ(l.size(), 7u);
  EXPECT_EQ(l[1].rfind("11,0,p11.c0.0,chunk,", 0), 0u) << l[1];
  EXPECT_EQ(l[4].rfind("12,1,p12.c0.0,chunk,", 0), 0u) << l[4];
  writeGraphml(*computeResults(*run), d.path + "/g.graphml");
  std::ifstream g(d.path + "/g.graphml");
  std::stringstream ss;
  ss << g.rdbuf();
  EXPECT_NE(ss.str().find("node id=\"p11.f.L0\""), std::string::npos);
  EXPECT_NE(ss.str().find("node id=\"p12.f.L0\""), std::string::npos);
  writeTrace(*computeResults(*run), d.path + "/trace.json");
  std::ifstream tr(d.path + "/trace.json");
  std::stringstream ts;
  ts << tr.rdbuf();
  EXPECT_NE(ts.str().find("\"pid\": 11"), std::string::npos);
  EXPECT_NE(ts.str().find("\"pid\": 12"), std::string::npos);
}

// The implicit tasks' table (IdTable.h): ids found after it grew many
// times, ids that share their low or high bits (thread numbers in the top
// bits, counters below), absent ids not found, an id given again keeping
// its entry, and iteration in the order inserted.
TEST(GraphAnalysis, IdTableFindsEveryId) {
  IdTable<int> t;
  std::vector<uint64_t> ids;
  for (uint64_t th = 1; th <= 4; th++)
    for (uint64_t k = 0; k < 5000; k++)
      ids.push_back(th << 40 | k << 3);
  for (size_t i = 0; i < ids.size(); i++)
    t[ids[i]] = int(i);
  ASSERT_EQ(t.size(), ids.size());
  for (size_t i = 0; i < ids.size(); i++) {
    auto it = t.find(ids[i]);
    ASSERT_NE(it, t.end());
    EXPECT_EQ(it->first, ids[i]);
    EXPECT_EQ(it->second, int(i));
  }
  EXPECT_EQ(t.find(uint64_t(5) << 40), t.end());
  EXPECT_EQ(t.count(ids[0] + 1), 0u);
  t[ids[7]] = -7;
  EXPECT_EQ(t.size(), ids.size());
  EXPECT_EQ(t.find(ids[7])->second, -7);
  size_t n = 0;
  for (const auto &kv : t)
    EXPECT_EQ(kv.first, ids[n++]);
  EXPECT_EQ(n, ids.size());
  const IdTable<int> empty;
  EXPECT_EQ(empty.find(0), empty.end());
}

// IdTable.h's ascending mode: ids given in ascending order (a recording's:
// a thread's counter under its number, runs of many lengths and gaps,
// uneven steps that make the guesses miss) are found without an index, ids
// between them and around them are not, an id given again keeps its entry
// and the order; the first id out of order makes the index, and every id
// is found as before.
TEST(GraphAnalysis, IdTableFindsAscendingIdsWithoutAnIndex) {
  IdTable<int> t;
  std::vector<uint64_t> ids;
  uint64_t x = 1;
  for (uint64_t th = 1; th <= 5; th++)
    for (uint64_t k = 0; k < 3000 * th; k++) {
      // Steps of 1, then of a growing size, then 1 again: a guess from
      // the ends of a range lands far from the id.
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t step = k < 1000 ? 1 : k < 2000 ? 1 + (x >> 54) : 2;
      uint64_t prev =
          ids.empty() || (ids.back() >> 40) != th ? th << 40 : ids.back();
      ids.push_back(prev + step);
    }
  // Ids with other top bits each (more runs than the table tells apart).
  for (uint64_t k = 0; k < 2000; k++)
    ids.push_back((k + 6) << 40 | 5);
  for (size_t i = 0; i < ids.size(); i++)
    t[ids[i]] = int(i);
  ASSERT_EQ(t.size(), ids.size());
  EXPECT_TRUE(t.ascending());
  for (size_t i = 0; i < ids.size(); i++) {
    auto it = t.find(ids[i]);
    ASSERT_NE(it, t.end()) << i;
    EXPECT_EQ(it->second, int(i));
    if (i && ids[i - 1] + 1 < ids[i])
      EXPECT_EQ(t.count(ids[i] - 1), 0u) << i;
  }
  EXPECT_EQ(t.count(0), 0u);
  EXPECT_EQ(t.count(1), 0u);
  EXPECT_EQ(t.count(ids.back() + 1), 0u);
  // Given again: its entry, and the table stays ascending.
  t[ids[100]] = -100;
  EXPECT_EQ(t.size(), ids.size());
  EXPECT_TRUE(t.ascending());
  EXPECT_EQ(t.find(ids[100])->second, -100);
  // Out of order: indexed, every id found still, iteration as inserted.
  size_t gap = 1;
  while (ids[gap - 1] + 1 == ids[gap])
    gap++;
  uint64_t late = ids[gap] - 1;
  ASSERT_EQ(t.count(late), 0u);
  t[late] = 7;
  EXPECT_FALSE(t.ascending());
  EXPECT_EQ(t.find(late)->second, 7);
  for (size_t i = 0; i < ids.size(); i++)
    ASSERT_EQ(t.find(ids[i])->first, ids[i]) << i;
  size_t n = 0;
  for (const auto &kv : t)
    if (n < ids.size())
      EXPECT_EQ(kv.first, ids[n++]);
  EXPECT_EQ(t.size(), ids.size() + 1);
}

namespace {
// One thread's tasks made by I0, task c of site c % sites (code 0xB0 +
// site), of work[c] ticks, each joined at its own taskwait (no siblings to
// compare with, as in a binary task tree): per task, whether it is an
// outlier (outlierTasks(): among its site's tasks).
std::vector<uint8_t> siteOutliers(const std::vector<uint64_t> &work,
                                  int sites) {
  TempDir d;
  Thread t = oneRegion(d.path);
  uint64_t at = 10;
  for (size_t c = 0; c < work.size(); c++) {
    uint64_t id = tid(0, int(c + 1));
    t.task(at, id, I0, 0xB0 + c % size_t(sites), 1.0)
        .rec(R_SYNC_BEGIN, at + 2, I0, Par, 0, GC_SYNC_TASKWAIT)
        .rec(R_TASK_SWITCH, at + 3, I0, id)
        .rec(R_TASK_SWITCH, at + 3 + work[c], id, I0, 0, 1)
        .rec(R_SYNC_END, at + 4 + work[c], I0, Par, 0, GC_SYNC_TASKWAIT);
    at += 10 + work[c];
  }
  t.rec(R_IMPLICIT_END, at, I0, 0).rec(R_PARALLEL_END, at + 1, Par, 1);
  t.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  EXPECT_EQ(an.tasks.size(), work.size());
  return an.taskOutliers;
}
} // namespace

// The site rule's three ways of holding a site's works: few sites (a pass
// over the tasks per site), more than 8 sites (listed by site), works past
// 2^31 ticks (held in 8 bytes, not 4: the outliers of 3 * 2^30 ticks):
// in each, one task per site 1000
// times its siblings' work is its site's one outlier, the others none.
TEST(GraphAnalysis, TaskOutliersPerSiteHowEverTheirWorksAreHeld) {
  for (int sites : {3, 10})
    for (uint64_t unit : {uint64_t(100), uint64_t(3) << 20}) {
      if (unit > 100 && sites > 3)
        continue; // long works: a few sites are enough
      std::vector<uint64_t> work(size_t(sites) * 6, unit);
      std::vector<uint8_t> expect(work.size(), 0);
      for (int s = 0; s < sites; s++) {
        size_t c = size_t(s) + size_t(sites) * size_t(s % 6); // site s's
        work[c] = unit * 1000;
        expect[c] = 1;
      }
      EXPECT_EQ(siteOutliers(work, sites), expect)
          << sites << " sites, unit " << unit;
    }
}

// report.html's task bars (taskBars(): segments counted into cells by
// start, the cells' keys made and sorted in batches) against their
// definition: each (site, thread)'s segments by start, merged into a bar
// while one begins within the gap after the bar's end. 3000 tasks of two
// sites, each run as two segments in scrambled orders, in ten bursts
// (idle between them: bars apart); a task counted in the bar of its first
// segment.
TEST(GraphAnalysis, TaskBarsAreEachPairsSegmentsByStart) {
  TempDir d;
  Thread t = oneRegion(d.path);
  const uint64_t N = 3000;
  for (uint64_t c = 0; c < N; c++)
    t.task(10 + c, tid(0, int(c + 1)), I0, 0xB0 + c % 2, 1.0);
  uint64_t at = 10 + N;
  for (int last : {0, 1})
    for (uint64_t i = 0; i < N; i++) {
      if (i % 600 == 0)
        at += 100000; // a burst
      uint64_t c = (i * (last ? 7919 : 104729)) % N, w = 5 + c % 7;
      uint64_t id = tid(0, int(c + 1));
      t.rec(R_TASK_SWITCH, at, I0, id)
          .rec(R_TASK_SWITCH, at + w, id, I0, 0, uint32_t(last));
      at += w + 1;
    }
  t.rec(R_IMPLICIT_END, at, I0, 0).rec(R_PARALLEL_END, at + 1, Par, 1);
  t.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  auto res = computeResults(*run);
  const Analysis &an = *run->procs[0];
  const Tasks &T = an.tasks;
  ASSERT_EQ(T.size(), N);
  ASSERT_EQ(T.segOff[N], 2 * N);
  using Bar = std::tuple<int, int64_t, int64_t, int, int64_t, int64_t, unsigned,
                         std::vector<uint32_t>>;
  std::vector<Bar> got, want;
  Names gotSites, wantSites;
  taskBars(*res, 0, gotSites,
           [&](int th, int64_t s, int64_t dur, int k, int64_t, int64_t, int64_t,
               int, int64_t n, int64_t count, unsigned pm, const uint32_t *fc) {
             got.emplace_back(th, s, dur, k, n, count, pm,
                              std::vector<uint32_t>(fc, fc + P_COUNT));
           });
  // The definition.
  uint64_t t0 = run->firstInstant();
  double tpn = an.clockNs();
  auto ns = [&](uint64_t x) {
    return int64_t(std::llround(double(int64_t(x - t0)) / tpn));
  };
  struct Seg {
    int site, th;
    uint64_t start;
    uint32_t j, k;
  };
  std::vector<Seg> segs;
  std::set<std::pair<int, int>> pairs;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t k : T.order) {
    int st = wantSites(an.taskGrainName(k));
    for (uint32_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
      segs.push_back({st, int(T.segThread[j]), T.segStart[j], j, k});
      pairs.insert({st, int(T.segThread[j])});
      lo = std::min(lo, ns(T.segStart[j]));
      hi = std::max(hi, ns(T.segEnd[j]));
    }
  }
  ASSERT_EQ(wantSites.list.size(), 2u);
  std::stable_sort(segs.begin(), segs.end(), [](const Seg &x, const Seg &y) {
    return std::tie(x.site, x.th, x.start) < std::tie(y.site, y.th, y.start);
  });
  double span = double(hi - lo);
  int64_t gap =
      int64_t(std::max(span / 2000, span * double(pairs.size()) / 20000.0));
  const ProblemMasks &masks = res->procs[0].masks;
  int site = -1, th = -1;
  int64_t s0 = 0, e0 = 0, exec = 0, count = 0;
  std::vector<uint32_t> fc(P_COUNT, 0);
  auto flush = [&] {
    if (site < 0)
      return;
    unsigned pm = 0;
    for (int f = 0; f < P_COUNT; f++)
      pm |= fc[size_t(f)] ? 1u << f : 0;
    want.emplace_back(th, s0, std::max<int64_t>(e0 - s0, 0), -1 - site,
                      int64_t(std::llround(double(exec) / tpn)), count, pm, fc);
  };
  for (const Seg &x : segs) {
    int64_t s = ns(x.start), e = ns(T.segEnd[x.j]);
    if (x.site != site || x.th != th || s > e0 + gap) {
      flush();
      site = x.site, th = x.th, s0 = s, e0 = e, exec = 0, count = 0;
      fc.assign(P_COUNT, 0);
    }
    e0 = std::max(e0, e);
    exec += T.segLen[x.j];
    if (x.j == T.segOff[x.k]) {
      count++;
      for (int f = 0; f < P_COUNT; f++)
        fc[size_t(f)] += masks.tasks[x.k] >> f & 1;
    }
  }
  flush();
  EXPECT_EQ(gotSites.list, wantSites.list);
  EXPECT_GE(want.size(), 20u); // ten bursts, both sites in each
  EXPECT_EQ(got, want);
}

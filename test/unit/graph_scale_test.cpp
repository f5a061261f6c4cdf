// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The outputs that scale, on a hand-made recording with known answers: the
// loop-instance-per-thread table (loops.csv: counts, min/median/max chunk
// work, spans), the aggregated trace.json and grains.graphml, trace.otf2
// (each thread's events), the start order, the summary's loop line, and
// the writers' number formatting.
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <cstdlib>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <set>
#include <sstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100, I0 = 200, I1 = 201;

// Two threads, one static loop (creation 2 ticks per chunk; a chunk ends
// where the next one's making began, the last at the loop's end):
//   thread 0: chunks at 10, 20, 30, loop end 60: work 8, 8, 30;
//   thread 1: chunks at 12, 20, loop end 33: work 6, 13.
void loopRecording(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";src/s.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(10, 0, 0, 2)
      .chunk(20, 2, 2, 2)
      .chunk(30, 4, 4, 2, CH_EXT | CH_LAST_ITER | CH_LAST_ITER_KNOWN)
      .rec(R_LOOP_END, 60, I0, Par)
      .rec(R_IMPLICIT_END, 70, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .rec(R_SOURCE, 0, 0x77, 0)
      .chunk(12, 1, 1, 2)
      .chunk(20, 3, 3, 2)
      .rec(R_LOOP_END, 33, I1, Par)
      .rec(R_IMPLICIT_END, 70, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

std::string slurp(const std::string &path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1))
    n++;
  return n;
}

} // namespace

TEST(GraphScale, LoopThreadsTable) {
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 5u);
  LoopTable lt = loopTable(an);
  const LoopRows &rows = lt.rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].th, 0);
  EXPECT_EQ(rows[0].chunks, 3);
  EXPECT_EQ(rows[0].work, 46);
  EXPECT_EQ(lt.minWork(0), 8);
  EXPECT_EQ(lt.maxWork(0), 30);
  EXPECT_DOUBLE_EQ(lt.median(0), 8.0);
  EXPECT_EQ(rows[0].first, 10u);
  EXPECT_EQ(lt.last(0), 60u);
  EXPECT_EQ(rows[1].th, 1);
  EXPECT_EQ(rows[1].chunks, 2);
  EXPECT_EQ(rows[1].work, 19);
  EXPECT_DOUBLE_EQ(lt.median(1), 9.5); // the mean of the middle two
  // The medians held: of the rows of three chunks or more alone.
  ASSERT_EQ(lt.medians.size(), 1u);
  EXPECT_EQ(lt.medians[0].first, 0u);
  writeLoopsCsv(*computeResults(*run), d.path + "/loops.csv");
  std::string csv = slurp(d.path + "/loops.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "process,rank,loop,loop_instance,source_location,thread,chunks,"
            "work_cycles,min_chunk_work_cycles,median_chunk_work_cycles,"
            "max_chunk_work_cycles,wait_cycles,first_start_instant,"
            "last_end_instant");
  EXPECT_NE(csv.find("\nNA,NA,s.c:12 (work),L0,s.c:12,0,3,46,8,8,30,"),
            std::string::npos)
      << csv;
  EXPECT_NE(csv.find("\nNA,NA,s.c:12 (work),L0,s.c:12,1,2,19,6,9.5,13,"),
            std::string::npos)
      << csv;
}

TEST(GraphScale, AggregatedTraceAndGraph) {
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  writeTraceAggregated(*computeResults(*run), d.path + "/trace.json");
  std::string tr = slurp(d.path + "/trace.json");
  // One event per loop instance and thread, with its chunks and work.
  EXPECT_EQ(count(tr, "\"ph\": \"X\""), 2u) << tr;
  EXPECT_NE(
      tr.find("\"tid\": 0, \"ts\": 0.0, \"dur\": 0.025, \"args\": "
              "{\"loop_instance\": \"L0\", \"chunks\": 3, \"work_cycles\": 46"),
      std::string::npos)
      << tr;
  EXPECT_NE(tr.find("\"aggregated\": true"), std::string::npos);
  writeGraphmlAggregated(*computeResults(*run), d.path + "/grains.graphml");
  std::string g = slurp(d.path + "/grains.graphml");
  // Start and end, a fork and a join, a node per thread: 3 chunks and 2
  // chunks.
  EXPECT_EQ(count(g, "<node "), 6u) << g;
  EXPECT_NE(
      g.find(
          "<node id=\"g.L0.t0\"><data key=\"grain_type\">chunks</data>"
          "<data key=\"grains\">3</data><data key=\"exec_cycles\">46</data>"),
      std::string::npos)
      << g;
  EXPECT_EQ(count(g, ">creation<"), 2u);
  EXPECT_EQ(count(g, ">synchronization<"), 2u);
  // One DAG: start -> fork, join -> end.
  EXPECT_EQ(count(g, ">continuation<"), 2u);
}

// The loop of loopRecording run `n` times in its region, one chunk per
// thread each (the LULESH pattern): instance k at 100 k.
void instancesRecording(const std::string &dir, int n) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.str(0x77, ";src/s.c;work;12;3;;")
      .rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2);
  for (int k = 0; k < n; k++) {
    uint64_t b = 100 * uint64_t(k) + 10;
    t0.rec(R_LOOP_BEGIN, b, I0, Par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(b, 0, 0, 2, CH_EXT)
        .rec(R_LOOP_END, b + 40, I0, Par);
    t1.rec(R_LOOP_BEGIN, b + 1, I1, Par, 0, 0)
        .rec(R_SOURCE, 0, 0x77, 0)
        .chunk(b + 1, 1, 1, 2, CH_EXT | CH_LAST_ITER | CH_LAST_ITER_KNOWN)
        .rec(R_LOOP_END, b + 30, I1, Par);
  }
  t0.rec(R_IMPLICIT_END, 100 * uint64_t(n) + 10, I0, 0);
  t1.rec(R_IMPLICIT_END, 100 * uint64_t(n) + 10, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

// The loop table's rows are the model's shares, not a copy of them: a row
// of one chunk holds its first start alone (8 bytes) and per instance its
// first row (4); rows of more chunks hold their work, least, most and end
// apart. A part's rows (read without a model) give the same rows.
TEST(GraphScale, LoopRowsAreTheShares) {
  for (int shape = 0; shape < 2; shape++) {
    TempDir d;
    if (shape)
      loopRecording(d.path);
    else
      instancesRecording(d.path, 6);
    auto run = analyseRun({d.path}, {});
    const Analysis &an = *run->procs[0];
    LoopTable lt = loopTable(an);
    const LoopRows &rows = lt.rows;
    size_t apart = 0;
    for (const LoopThread &r : rows)
      apart += r.chunks > 1;
    EXPECT_EQ(apart, shape ? 2u : 0u);
    EXPECT_EQ(rows.size(), shape ? 2u : 12u);
    EXPECT_LE(rows.heldBytes(), 8 * rows.size() + 4 * (an.loops.size() + 1) +
                                    2 * apart * sizeof(LoopRows::Apart));
    LoopRows part;
    for (const LoopThread &r : rows)
      ASSERT_TRUE(
          part.add(r.loop, r.th, r.chunks, r.hasWork, r.work, r.first, r.last));
    ASSERT_TRUE(part.close(an.loops.size()));
    ASSERT_EQ(part.size(), rows.size());
    ASSERT_EQ(part.instances(), rows.instances());
    for (size_t k = 0; k < rows.size(); k++) {
      LoopThread a = rows[k], b = part[k];
      EXPECT_EQ(a.loop, b.loop);
      EXPECT_EQ(a.th, b.th);
      EXPECT_EQ(a.chunks, b.chunks);
      EXPECT_EQ(a.hasWork, b.hasWork);
      EXPECT_EQ(a.work, b.work);
      EXPECT_EQ(a.first, b.first);
      EXPECT_EQ(a.last, b.last);
      if (a.chunks == 1) // a part carries no least and most of more
        EXPECT_EQ(b.minWork, a.work);
    }
    EXPECT_EQ(instancesByStart(part), lt.byStart);
    // A row of an earlier instance after a later one's, more chunks than a
    // share counts, or a row past the instances: not a row a table wrote.
    if (rows.instances() > 1) {
      EXPECT_FALSE(part.add(0, 0, 1, true, 1, 0, 1));
      EXPECT_FALSE(part.close(1));
    }
    EXPECT_FALSE(part.add(int(rows.instances()), 0,
                          int64_t(Share::MaxCount) + 1, true, 1, 0, 1));
  }
}

// An instance's rows asked in any order are its rows: where the instances
// do not ascend from one call to the next, the place of the rows held apart
// (two chunks or more) is found again.
TEST(GraphScale, LoopRowsOfInstancesInAnyOrder) {
  LoopRows t;
  ASSERT_TRUE(t.add(0, 0, 2, true, 10, 0, 12));
  ASSERT_TRUE(t.add(0, 1, 1, true, 5, 1, 6));
  ASSERT_TRUE(t.add(1, 0, 3, true, 20, 100, 130));
  ASSERT_TRUE(t.add(2, 1, 2, true, 7, 200, 210));
  ASSERT_TRUE(t.close(3));
  std::vector<LoopThread> got;
  size_t ap = 0;
  for (size_t li : {2, 0, 1, 0, 2}) {
    t.rowsOf(li, got, ap);
    size_t e = li + 1 < t.instances() ? t.rowBegin(li + 1) : t.size();
    ASSERT_EQ(got.size(), e - t.rowBegin(li));
    for (size_t j = 0; j < got.size(); j++) {
      LoopThread want = t[t.rowBegin(li) + j];
      EXPECT_EQ(got[j].loop, int(li));
      EXPECT_EQ(got[j].work, want.work) << li << " " << j;
      EXPECT_EQ(got[j].last, want.last) << li << " " << j;
    }
  }
}

/// Whether g has exactly one node without predecessors (start) and one
/// without successors (end).
bool oneSourceOneSink(const CoarseGraph &g) {
  std::vector<int> in(g.nodes.size()), out(g.nodes.size());
  for (const CoarseGraph::Edge &e : g.edges)
    out[e.src]++, in[e.dst]++;
  int sources = 0, sinks = 0;
  for (size_t v = 0; v < g.nodes.size(); v++) {
    sources += !in[v] && g.nodes[v].kind == CoarseGraph::Start;
    sinks += !out[v] && g.nodes[v].kind == CoarseGraph::End;
    if ((!in[v] && g.nodes[v].kind != CoarseGraph::Start) ||
        (!out[v] && g.nodes[v].kind != CoarseGraph::End))
      return false;
  }
  return sources == 1 && sinks == 1;
}

TEST(GraphScale, CoarseGraphMergesConsecutiveInstances) {
  TempDir d;
  instancesRecording(d.path, 6);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.loops.size(), 6u);
  LoopTable lt = loopTable(an);
  EXPECT_EQ(lt.most, 6u);
  // Per instance and thread: 12 spans; blocks of 4: instances 0-3 and
  // 4-5 on each thread; the whole run: one per thread.
  EXPECT_EQ(loopSpans(lt, 1).size(), 12u);
  EXPECT_EQ(countLoopSpans(lt, 1), 12u);
  std::vector<LoopSpan> b4 = loopSpans(lt, 4);
  ASSERT_EQ(b4.size(), 4u);
  EXPECT_EQ(countLoopSpans(lt, 4), 4u);
  EXPECT_EQ(b4[0].instances, 4);
  EXPECT_EQ(b4[0].chunks, 4);
  EXPECT_EQ(b4[0].first, 10u);
  EXPECT_EQ(b4[2].instances, 2);
  EXPECT_EQ(loopSpans(lt, 0).size(), 2u);
  // The graph: start, end, a fork and a join per block, a node per block
  // and thread; one source, one sink; the grains all there.
  for (uint64_t block : {1, 4, 0}) {
    CoarseLevel level;
    level.block = block;
    CoarseGraph g = coarseGraph(an, lt, computeCritPath(an), level, "");
    size_t blocks = block == 1 ? 6 : block == 4 ? 2 : 1;
    EXPECT_EQ(g.nodes.size(), 2 + 4 * blocks) << block;
    EXPECT_TRUE(oneSourceOneSink(g)) << block;
    int64_t grains = 0;
    for (const CoarseGraph::Node &n : g.nodes)
      grains += n.kind == CoarseGraph::Chunks ? n.grains : 0;
    EXPECT_EQ(grains, 12) << block;
    uint64_t nodes = 0, edges = 0;
    coarseGraphSize(an, lt, level, nodes, edges);
    EXPECT_GE(nodes, g.nodes.size()) << block;
    EXPECT_GE(edges, g.edges.size()) << block;
  }
  CoarseLevel bare;
  bare.bare = true;
  EXPECT_EQ(coarseGraph(an, lt, computeCritPath(an), bare, "").nodes.size(),
            2u);
  // The next block: as many times more instances as the output is over
  // its cap, at least twice; the whole run from the most instances on.
  EXPECT_EQ(coarserBlock(1, 1.5, 6), 2u);
  EXPECT_EQ(coarserBlock(1, 3, 100), 4u);
  EXPECT_EQ(coarserBlock(4, 10, 6), 0u);
  EXPECT_EQ(coarserBlock(0, 10, 6), 0u);
  // Written within a byte cap: the trace at the coarsest level.
  Caps caps;
  caps.traceBytes = 1200, caps.tracePerGrain = 0;
  caps.trace = 1;
  CapResult r =
      writeTraceCapped(*computeResults(*run), d.path + "/trace.json", caps);
  EXPECT_FALSE(r.every);
  EXPECT_LE(slurp(d.path + "/trace.json").size(), 1200u);
}

TEST(GraphScale, CoarseGraphPathMembersAndLevel) {
  // By hand: start -> fork -> {a (holds a path grain), b} -> join -> end:
  // the drawn path goes through a; a cycle gives none.
  CoarseGraph h;
  auto add = [&](CoarseGraph::Kind k, bool onPath = false) {
    CoarseGraph::Node n{};
    n.kind = k;
    n.onPath = onPath;
    n.work = 1;
    h.nodes.push_back(n);
    return uint32_t(h.nodes.size() - 1);
  };
  uint32_t s = add(CoarseGraph::Start), e = add(CoarseGraph::End),
           f = add(CoarseGraph::Fork), b = add(CoarseGraph::Chunks),
           a = add(CoarseGraph::Chunks, true), j = add(CoarseGraph::Join);
  for (auto [x, y] : std::vector<std::pair<uint32_t, uint32_t>>{
           {s, f}, {f, b}, {f, a}, {b, j}, {a, j}, {j, e}})
    h.edges.push_back({x, y, CoarseGraph::Continuation});
  EXPECT_EQ(coarsePath(h), (std::vector<uint32_t>{s, f, a, j, e}));
  h.edges.push_back({j, f, CoarseGraph::Continuation});
  EXPECT_TRUE(coarsePath(h).empty());

  // 6 instances of a loop on 2 threads: per chunk its group, on its thread;
  // the path from start to end along edges through a group of each
  // instance, all holding path grains.
  TempDir d;
  instancesRecording(d.path, 6);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  LoopTable lt = loopTable(an);
  CoarseLevel level;
  level.members = true;
  CoarseGraph g = coarseGraph(an, lt, computeCritPath(an), level, "");
  ASSERT_EQ(g.chunkNode.size(), an.chunks.size());
  for (size_t i = 0; i < an.chunks.size(); i++) {
    ASSERT_LT(g.chunkNode[i], g.nodes.size());
    EXPECT_EQ(g.nodes[g.chunkNode[i]].kind, CoarseGraph::Chunks);
    EXPECT_EQ(g.nodes[g.chunkNode[i]].thread, an.chunks.thread[i]);
  }
  std::vector<uint32_t> path = coarsePath(g);
  ASSERT_GE(path.size(), 2u);
  EXPECT_EQ(g.nodes[path.front()].kind, CoarseGraph::Start);
  EXPECT_EQ(g.nodes[path.back()].kind, CoarseGraph::End);
  std::set<std::pair<uint32_t, uint32_t>> edges;
  for (const CoarseGraph::Edge &x : g.edges)
    edges.insert({x.src, x.dst});
  int groups = 0;
  for (size_t k = 1; k < path.size(); k++)
    EXPECT_TRUE(edges.count({path[k - 1], path[k]})) << k;
  for (uint32_t v : path)
    if (g.nodes[v].kind == CoarseGraph::Chunks) {
      groups++;
      EXPECT_TRUE(g.nodes[v].onPath);
    }
  EXPECT_EQ(groups, 6);
  // A node budget: per instance within 100 nodes; within 10, blocks.
  EXPECT_EQ(coarseLevelFor(an, lt, 100).block, 1u);
  CoarseLevel small = coarseLevelFor(an, lt, 10);
  EXPECT_NE(small.block, 1u);
  EXPECT_LE(coarseGraph(an, lt, computeCritPath(an), small, "").nodes.size(),
            10u);
  EXPECT_EQ(coarseLevelText(small, grainKinds(an))
                .rfind("a node per loop and thread ", 0),
            0u);
}

// The words of a level name only the grains the run has: a run of tasks
// has no loop to merge, a run of loops no task group.
TEST(GraphScale, CoarseLevelTextNamesTheRunsGrains) {
  GrainKinds loops, tasks, both;
  loops.loops = true;
  tasks.tasks = true;
  both.loops = both.tasks = true;
  CoarseLevel fine, blocks, sites;
  blocks.block = 8;
  sites.block = 0;
  sites.bySite = true;
  const std::string groups =
      "group of tasks (same generation, join point and creation site)";
  EXPECT_EQ(coarseLevelText(fine, tasks), "a node per " + groups);
  EXPECT_EQ(coarseLevelText(blocks, tasks), "a node per " + groups);
  EXPECT_EQ(coarseLevelText(sites, tasks), "a node per task creation site");
  EXPECT_EQ(coarseLevelText(fine, loops),
            "a node per loop instance and thread");
  EXPECT_EQ(coarseLevelText(blocks, loops),
            "a node per loop and thread over each 8 consecutive instances of "
            "the loop");
  EXPECT_EQ(coarseLevelText(fine, both),
            "a node per loop instance and thread and per " + groups);
  EXPECT_EQ(coarseLevelText(sites, both),
            "a node per loop and thread over the whole run, one per task "
            "creation site");
}

TEST(GraphScale, Otf2ArchiveWritten) {
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  std::string out = d.path + "/out";
  ASSERT_EQ(mkdir(out.c_str(), 0777), 0);
  writeOtf2(*computeResults(*run), out, "trace");
  struct stat st;
  EXPECT_EQ(stat((out + "/trace.otf2").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/trace.def").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/trace/0.evt").c_str(), &st), 0);
  EXPECT_EQ(stat((out + "/trace/1.evt").c_str(), &st), 0);
  // Each thread's chunks (one run of the columns, in time order: written
  // as they are, not listed by thread first) are its location's events:
  // an enter and a leave each, in time order, with the chunk's grain id.
  std::string cmd = std::string(OTF2_PRINT) + " '" + out + "/trace.otf2' 2>&1";
  FILE *f = popen(cmd.c_str(), "r");
  ASSERT_NE(f, nullptr);
  std::string text;
  char buf[4096];
  for (size_t n; (n = fread(buf, 1, sizeof buf, f)) > 0;)
    text.append(buf, n);
  ASSERT_EQ(pclose(f), 0) << text;
  // Per location, its events: "ENTER <time> <grain id>" or "LEAVE <time>".
  std::map<int, std::vector<std::string>> events;
  std::istringstream in(text);
  std::string line;
  int lastLoc = -1;
  while (std::getline(in, line)) {
    std::istringstream w(line);
    std::string what;
    int loc;
    uint64_t t;
    if ((w >> what >> loc >> t) && (what == "ENTER" || what == "LEAVE")) {
      events[loc].push_back(what + " " + std::to_string(t));
      lastLoc = what == "ENTER" ? loc : -1;
    } else if (lastLoc >= 0 && line.find("\"grain_id\"") != std::string::npos) {
      size_t v = line.find("UINT64; ", line.find("\"grain_id\"")) + 8;
      events[lastLoc].back() += " " + line.substr(v, line.find(')', v) - v);
      lastLoc = -1;
    }
  }
  ASSERT_EQ(events.size(), 2u) << text;
  EXPECT_EQ(events[0],
            (std::vector<std::string>{"ENTER 10 0", "LEAVE 18", "ENTER 20 1",
                                      "LEAVE 28", "ENTER 30 2", "LEAVE 60"}))
      << text;
  EXPECT_EQ(events[1], (std::vector<std::string>{"ENTER 12 3", "LEAVE 18",
                                                 "ENTER 20 4", "LEAVE 33"}))
      << text;
  // An archive already there: one error naming it.
  try {
    writeOtf2(*computeResults(*run), out, "trace");
    ADD_FAILURE() << "a second archive over the first was written";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("trace.otf2"), std::string::npos)
        << e.what();
  }
}

// The instances in start order are listed only where they are not the
// instances 0 .. n - 1 (4 bytes per instance saved where instances begin
// as they are numbered); an instance without chunks, or one starting
// before an earlier one, lists them.
TEST(GraphScale, StartOrderListedOnlyWhereNeeded) {
  auto order = [](std::vector<std::pair<int64_t, uint64_t>> inst) {
    LoopRows rows; // per instance: its chunks on thread 0, its first start
    for (size_t li = 0; li < inst.size(); li++)
      EXPECT_TRUE(rows.add(int(li), 0, inst[li].first, true, 1, inst[li].second,
                           inst[li].second + 1));
    EXPECT_TRUE(rows.close(inst.size()));
    return instancesByStart(rows);
  };
  auto listed = [](const StartOrder &o) {
    std::vector<int32_t> v;
    for (size_t k = 0; k < o.size(); k++)
      v.push_back(o[k]);
    return v;
  };
  StartOrder inOrder = order({{1, 10}, {2, 20}, {1, 30}});
  EXPECT_TRUE(inOrder.list.empty());
  EXPECT_EQ(listed(inOrder), (std::vector<int32_t>{0, 1, 2}));
  StartOrder gap = order({{1, 10}, {0, 20}, {1, 30}});
  EXPECT_EQ(listed(gap), (std::vector<int32_t>{0, 2}));
  StartOrder late = order({{1, 10}, {1, 30}, {1, 20}});
  EXPECT_EQ(listed(late), (std::vector<int32_t>{0, 2, 1}));
  StartOrder tail = order({{1, 10}, {1, 20}, {0, 0}});
  EXPECT_EQ(listed(tail), (std::vector<int32_t>{0, 1}));
  EXPECT_FALSE(inOrder == gap);
  EXPECT_TRUE(gap == order({{1, 5}, {0, 0}, {1, 7}}));
}

// The summary's line of the loop: its work per thread in thread order and
// the imbalance of the threads' sums (46 and 19 ticks: 46 / 32.5).
TEST(GraphScale, SummaryWorkPerThread) {
  TempDir d;
  loopRecording(d.path);
  auto run = analyseRun({d.path}, {});
  std::string text = summaryOf(*computeResults(*run), 0);
  EXPECT_NE(text.find("1 instance(s), 5 chunks; work per thread (ms) "
                      "t0=0.000 t1=0.000; imbalance (max/mean) 1.42"),
            std::string::npos)
      << text;
}

TEST(GraphScale, NumberFormatting) {
  TempDir d;
  std::string fast = d.path + "/fast.txt", slow = d.path + "/slow.txt";
  {
    // jnumRound(v, n) writes the number jnum(round(v, n)) wrote, without
    // formatting a double: values of every size, halves, negatives.
    OutFile f(fast), s(slow);
    std::vector<double> vs = {0.0,         1.5,  123.4564, 123.4565001,
                              2.0005,      -2.5, 0.0004,   1e6,
                              1234567.891, 1e16, 0.001,    99.9995};
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 20000; i++) { // xorshift: microseconds up to hours
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      vs.push_back(double(x % 4000000000000ull) / 997.0);
    }
    for (int n : {3, 4})
      for (double v : vs) {
        f.jnumRound(v, n) << '\n';
        s.jnum(std::nearbyint(v * (n == 3 ? 1e3 : 1e4)) / (n == 3 ? 1e3 : 1e4))
            << '\n';
      }
    f.close();
    s.close();
  }
  std::istringstream a(slurp(fast)), b(slurp(slow));
  std::string la, lb;
  size_t n = 0;
  // The same number (the old way wrote 4e-04 where Python's repr, and now
  // this, write 0.0004).
  while (std::getline(a, la) && std::getline(b, lb) &&
         std::strtod(la.c_str(), nullptr) == std::strtod(lb.c_str(), nullptr) &&
         la.find_first_of(".e") != std::string::npos)
    n++;
  EXPECT_EQ(n, 2 * 20012u) << "line " << n << ": " << la << " against " << lb;
  std::string path = d.path + "/n.txt";
  {
    OutFile o(path);
    o.jnumRound(123.4564, 3) << ' ';
    o.jnumRound(-2.5, 3) << ' ';
    o.jnum(12345.0) << ' ';
    o.jnum(0.25) << ' ';
    o.u(0) << ' ';
    o.u(7) << ' ';
    o.u(10) << ' ';
    o.u(18446744073709551615ull) << ' ';
    o.i(-9223372036854775807ll - 1) << ' ';
    o.i(-42) << '\n';
    o.close();
  }
  EXPECT_EQ(slurp(path), "123.456 -2.5 12345.0 0.25 0 7 10 "
                         "18446744073709551615 -9223372036854775808 -42\n");
}

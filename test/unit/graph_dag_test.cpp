// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grain graph as one DAG per process (tools/graph/GrainDag) on
// hand-made recordings: a task tree whose span is known by hand, and the
// shape (one start, one end, every node on a start -> end path) of the
// graphs of a loop and of a task program.
#include "GrainDag.h"
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <deque>
#include <fstream>
#include <gtest/gtest.h>
#include <random>
#include <sstream>

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100, I0 = 200, I1 = 201;
const uint64_t R = (1ull << 40) | 1, C1 = (1ull << 40) | 2,
               C2 = (1ull << 40) | 3;

// One thread. The implicit task makes the root task R at 10 and waits for
// it 15..155; R runs 20..50, makes C1 (30) and C2 (40), waits 50..135
// during which C1 runs 50..100 and C2 100..130, and runs on to 150.
// Creation 5 ticks each. R: exec 30 + 0 + 20 = 50, overhead = its wait on
// the CPU (130..135) + its children's creation (10) = 15: work 35. C1 50,
// C2 30. Span: R's own work + the longer child = 35 + 50 = 85; work 115.
// (The implicit task makes R at 10 and waits 15..155; R runs from 20, makes
// its kids (id, when) 5 ticks each, waits from 50 while they run one after
// the other from 50 to their ends, until waitEnd, and runs on to 150.)
void rootAndKidsRecording(const std::string &dir,
                          const std::vector<std::pair<uint64_t, int>> &kids,
                          const std::vector<int> &ends, int waitEnd) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t;
  t.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 1)
      .task(10, R, I0, 0, 5.0)
      .rec(R_SYNC_BEGIN, 15, I0, Par, 0, 5)
      .rec(R_TASK_SWITCH, 20, I0, R);
  for (auto [id, when] : kids)
    t.task(uint64_t(when), id, R, 0, 5.0);
  t.rec(R_SYNC_BEGIN, 50, R, Par, 0, 5);
  for (size_t i = 0, from = 50; i < kids.size(); from = size_t(ends[i++]))
    t.rec(R_TASK_SWITCH, from, R, kids[i].first)
        .rec(R_TASK_SWITCH, uint64_t(ends[i]), kids[i].first, R, 0, 1);
  t.rec(R_SYNC_END, uint64_t(waitEnd), R, Par, 0, 5)
      .rec(R_TASK_SWITCH, 150, R, I0, 0, 1)
      .rec(R_SYNC_END, 155, I0, Par, 0, 5)
      .rec(R_IMPLICIT_END, 160, I0, 0);
  t.write(dir + "/thread-0.bin");
}

void treeRecording(const std::string &dir) {
  rootAndKidsRecording(dir, {{C1, 30}, {C2, 40}}, {100, 130}, 135);
}

// Two threads, one static loop of three chunks; the second chunk makes a
// task that joins at the barrier.
void loopTaskRecording(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .chunk(10, 0, 0, 2)
      .chunk(20, 2, 2, 2)
      .task(25, R, I0, 0, 2.0)
      .rec(R_LOOP_END, 40, I0, Par)
      .rec(R_SYNC_BEGIN, 40, I0, Par, 0, 2)
      .rec(R_TASK_SWITCH, 41, I0, R)
      .rec(R_TASK_SWITCH, 45, R, I0, 0, 1)
      .rec(R_SYNC_END, 50, I0, Par, 0, 2)
      .rec(R_IMPLICIT_END, 60, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .chunk(12, 1, 1, 2)
      .rec(R_LOOP_END, 30, I1, Par)
      .rec(R_SYNC_BEGIN, 30, I1, Par, 0, 2)
      .rec(R_SYNC_END, 50, I1, Par, 0, 2)
      .rec(R_IMPLICIT_END, 60, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

// Two threads, one static loop: thread 0 runs chunk A [0,0] 10..28 (B's
// making starts at 28), which makes task a at 15, then chunk B [2,2]
// 30..35, which makes task b at 32; thread 1 runs chunk [1,1] 12..20. Both
// tasks join at the barrier: a runs 36..38, b 38..68. Each task hangs off
// its own chunk, so the longest path is B (5) then b (30): 35, not A (18)
// then b (48), which a chain of the implicit task's forks (a's fork before
// b's, A before a's) would make it.
const uint64_t TA = (1ull << 40) | 2, TB = (1ull << 40) | 3;
void chunksMakeTasksRecording(const std::string &dir) {
  writeFile(dir + "/meta.txt", meta3());
  Thread t0, t1;
  t0.rec(R_PARALLEL_BEGIN, 0, Par, 1, 0, 2)
      .rec(R_IMPLICIT_BEGIN, 0, I0, Par, 0, 2)
      .rec(R_LOOP_BEGIN, 10, I0, Par, 0, 0)
      .chunk(10, 0, 0, 2)
      .task(15, TA, I0, 0, 1.0)
      .chunk(30, 2, 2, 2)
      .task(32, TB, I0, 0, 1.0)
      .rec(R_LOOP_END, 35, I0, Par)
      .rec(R_SYNC_BEGIN, 35, I0, Par, 0, 2)
      .rec(R_TASK_SWITCH, 36, I0, TA)
      .rec(R_TASK_SWITCH, 38, TA, TB, 0, 1)
      .rec(R_TASK_SWITCH, 68, TB, I0, 0, 1)
      .rec(R_SYNC_END, 70, I0, Par, 0, 2)
      .rec(R_IMPLICIT_END, 80, I0, 0);
  t1.rec(R_IMPLICIT_BEGIN, 0, I1, Par, 1, 2)
      .rec(R_LOOP_BEGIN, 12, I1, Par, 0, 0)
      .chunk(12, 1, 1, 2)
      .rec(R_LOOP_END, 20, I1, Par)
      .rec(R_SYNC_BEGIN, 20, I1, Par, 0, 2)
      .rec(R_SYNC_END, 70, I1, Par, 0, 2)
      .rec(R_IMPLICIT_END, 80, I1, 0);
  t0.write(dir + "/thread-0.bin");
  t1.write(dir + "/thread-1.bin");
}

// Every node is reached from the start node and reaches the end node.
void expectOnStartEndPaths(const GrainDag &g) {
  size_t nv = g.kind.size();
  std::vector<std::vector<uint32_t>> out(nv), in(nv);
  for (size_t e = 0; e < g.src.size(); e++) {
    out[g.src[e]].push_back(g.dst[e]);
    in[g.dst[e]].push_back(g.src[e]);
  }
  auto reach = [&](uint32_t from, const std::vector<std::vector<uint32_t>> &a) {
    std::vector<uint8_t> seen(nv, 0);
    std::vector<uint32_t> st{from};
    seen[from] = 1;
    while (!st.empty()) {
      uint32_t u = st.back();
      st.pop_back();
      for (uint32_t v : a[u])
        if (!seen[v])
          seen[v] = 1, st.push_back(v);
    }
    return seen;
  };
  EXPECT_EQ(g.kind[0], GrainDag::Start);
  EXPECT_EQ(g.kind[1], GrainDag::End);
  EXPECT_EQ(std::count(g.kind.begin(), g.kind.end(), GrainDag::Start), 1);
  EXPECT_EQ(std::count(g.kind.begin(), g.kind.end(), GrainDag::End), 1);
  auto fromStart = reach(0, out), toEnd = reach(1, in);
  for (size_t v = 0; v < nv; v++) {
    EXPECT_TRUE(fromStart[v]) << "node " << v << " kind " << int(g.kind[v]);
    EXPECT_TRUE(toEnd[v]) << "node " << v << " kind " << int(g.kind[v]);
  }
}

} // namespace

TEST(GraphDag, TaskTreeSpanIsRootPlusLongestChild) {
  TempDir d;
  treeRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  const Tasks &T = an.tasks;
  ASSERT_EQ(T.size(), 3u);
  int64_t r = T.index(R), c1 = T.index(C1), c2 = T.index(C2);
  EXPECT_EQ(T.execc(r), 50);
  EXPECT_EQ(T.execc(c1), 50);
  EXPECT_EQ(T.execc(c2), 30);
  EXPECT_DOUBLE_EQ(an.taskOwnWork(r), 35.0);
  GrainDag g(an);
  ASSERT_TRUE(g.acyclic);
  EXPECT_DOUBLE_EQ(g.span, 85.0);
  EXPECT_DOUBLE_EQ(g.work, 115.0);
  expectOnStartEndPaths(g);
  // On the path: R and C1, not C2; start and end.
  for (uint32_t v = 0; v < g.kind.size(); v++)
    if (g.kind[v] == GrainDag::Task)
      EXPECT_EQ(g.onPath[v], int64_t(g.ref[v]) != c2) << "task " << g.ref[v];
  EXPECT_TRUE(g.onPath[0]);
  EXPECT_TRUE(g.onPath[1]);
  // The path's weights sum to the span.
  double sum = 0;
  for (uint32_t v = 0; v < g.kind.size(); v++)
    if (g.onPath[v])
      sum += g.weight(v);
  EXPECT_DOUBLE_EQ(sum, 85.0);
  // critPath names the same grains on it: R and C1 (end first).
  EXPECT_EQ(computeCritPath(an).tasks,
            (std::vector<uint32_t>{uint32_t(c1), uint32_t(r)}));
  EXPECT_TRUE(computeCritPath(an).chunks.empty());
  // The summary and run.json (ticks: 2 per ns).
  std::string s = summary(*computeResults(*run));
  // (The root holds 59% of the span: the line says so after the figures.)
  EXPECT_NE(s.find("critical path: span 4.25e-05 ms, work 5.75e-05 ms, "
                   "parallelism 1.35; one grain holds 59% of the span"),
            std::string::npos)
      << s;
  writeRunJson(*computeResults(*run), d.path + "/run.json", {}, "test");
  std::ifstream f(d.path + "/run.json");
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_NE(ss.str().find("\"critical_path\": {\"span_cycles\": 85.0, "
                          "\"work_cycles\": 115.0, \"parallelism\": "
                          "1.3529411764705883}"),
            std::string::npos)
      << ss.str();
}

TEST(GraphDag, LoopWithTaskIsOneGraph) {
  TempDir d;
  loopTaskRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), 3u);
  ASSERT_EQ(an.tasks.size(), 1u);
  ASSERT_GE(an.tasks.ctx[0], 0); // made in a chunk
  GrainDag g(an);
  ASSERT_TRUE(g.acyclic);
  expectOnStartEndPaths(g);
  // The task hangs off the chunk that made it: its creation edge starts
  // at that chunk, and it has no fork node.
  bool fromChunk = false;
  for (size_t e = 0; e < g.src.size(); e++)
    fromChunk |= g.kind[g.src[e]] == GrainDag::Chunk &&
                 g.ref[g.src[e]] == uint64_t(an.tasks.ctx[0]) &&
                 g.kind[g.dst[e]] == GrainDag::Task &&
                 g.ekind[e] == GrainDag::Creation;
  EXPECT_TRUE(fromChunk);
  EXPECT_EQ(std::count(g.kind.begin(), g.kind.end(), GrainDag::TaskFork), 0);
  // Chunks [0,0] 10..18, [2,2] 20..40, [1,1] 12..30; the task 41..45. The
  // longest path: chunk [2,2] (20), then the task (4): 24.
  EXPECT_DOUBLE_EQ(g.span, 24.0);
  EXPECT_DOUBLE_EQ(g.work, 8.0 + 20 + 18 + 4);
  // For the figures alone the two chunks that make nothing are one node
  // (the longer, [1,1]): the same span and work.
  GrainDag f(an, false);
  ASSERT_TRUE(f.acyclic);
  EXPECT_EQ(f.nodeCount() + 1, g.nodeCount()); // one chunk node less
  EXPECT_DOUBLE_EQ(f.span, 24.0);
  EXPECT_DOUBLE_EQ(f.work, 8.0 + 20 + 18 + 4);
  EXPECT_DOUBLE_EQ(computeCritPath(an).span, 24.0);
  // The grains on it: the chunk that made the task, and the task.
  EXPECT_EQ(computeCritPath(an).chunks,
            (std::vector<uint32_t>{uint32_t(an.tasks.ctx[0])}));
  EXPECT_EQ(computeCritPath(an).tasks, (std::vector<uint32_t>{0}));
}

TEST(GraphDag, CriticalPathGoesThroughTheCreatingChunk) {
  TempDir d;
  chunksMakeTasksRecording(d.path);
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  const Chunks &ch = an.chunks;
  const Tasks &T = an.tasks;
  ASSERT_EQ(ch.size(), 3u);
  ASSERT_EQ(T.size(), 2u);
  int64_t a = T.index(TA), b = T.index(TB), A = -1, B = -1;
  for (size_t i = 0; i < ch.size(); i++) {
    if (ch.lower[i] == 0)
      A = int64_t(i);
    if (ch.lower[i] == 2)
      B = int64_t(i);
  }
  ASSERT_GE(A, 0);
  ASSERT_GE(B, 0);
  EXPECT_EQ(ch.end[A] - ch.start[A], 18u);
  EXPECT_EQ(ch.end[B] - ch.start[B], 5u);
  EXPECT_EQ(an.madeInChunk(size_t(a)), A);
  EXPECT_EQ(an.madeInChunk(size_t(b)), B);
  GrainDag g(an);
  ASSERT_TRUE(g.acyclic);
  expectOnStartEndPaths(g);
  // Each task's only in-edge is its creation edge from its own chunk.
  for (uint32_t v = 0; v < g.kind.size(); v++) {
    if (g.kind[v] != GrainDag::Task)
      continue;
    int64_t want = g.ref[v] == uint64_t(a) ? A : B;
    int in = 0;
    for (size_t e = 0; e < g.src.size(); e++)
      if (g.dst[e] == v) {
        in++;
        EXPECT_EQ(g.kind[g.src[e]], GrainDag::Chunk);
        EXPECT_EQ(int64_t(g.ref[g.src[e]]), want);
        EXPECT_EQ(g.ekind[e], GrainDag::Creation);
      }
    EXPECT_EQ(in, 1) << "task " << g.ref[v];
  }
  // They join at the loop's barrier: that join goes back to the loop's
  // join (what follows the loop waits for them).
  int back = 0;
  for (size_t e = 0; e < g.src.size(); e++)
    back += g.kind[g.src[e]] == GrainDag::TaskJoin &&
            g.kind[g.dst[e]] == GrainDag::LoopJoin;
  EXPECT_EQ(back, 1);
  EXPECT_DOUBLE_EQ(g.span, 35.0);
  EXPECT_DOUBLE_EQ(g.work, 18.0 + 5 + 8 + 2 + 30);
  // The grains on it: b and the chunk that made it, B (end first); the
  // same when only the figures are computed.
  CritPath cp = computeCritPath(an);
  EXPECT_DOUBLE_EQ(cp.span, 35.0);
  EXPECT_EQ(cp.chunks, (std::vector<uint32_t>{uint32_t(B)}));
  EXPECT_EQ(cp.tasks, (std::vector<uint32_t>{uint32_t(b)}));
  EXPECT_EQ(g.pathChunks,
            std::vector<uint64_t>(cp.chunks.begin(), cp.chunks.end()));
  EXPECT_EQ(g.pathTasks,
            std::vector<uint64_t>(cp.tasks.begin(), cp.tasks.end()));
  // Indices past 32 bits: an Error naming the limit, never cut.
  EXPECT_EQ(grainIndices32({0, UINT32_MAX}, "chunk"),
            (std::vector<uint32_t>{0, UINT32_MAX}));
  try {
    grainIndices32({3, uint64_t(UINT32_MAX) + 1}, "chunk");
    ADD_FAILURE() << "no Error";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("at most 2^32 chunks"),
              std::string::npos)
        << e.what();
  }
}

// longestPaths (GrainDag.h) holds the longest path before a node only while
// the node is open; what it finds must be what one table per node (the
// longest path, predecessor and in-degree of every node, as before) finds:
// the same order taken, the same paths, the same predecessor where equal
// paths meet (the first taken of them).
namespace {

struct Dag {
  uint32_t nv = 0;
  std::vector<uint32_t> off, adj;
  std::vector<double> w;
  uint32_t from(uint32_t v) const { return off[v]; }
  uint32_t to(uint32_t x) const { return adj[x]; }
  uint32_t nextAt(uint32_t) const { return EdgesBySource::NoNext; }
};

Dag dagOf(uint32_t nv, const std::vector<std::pair<uint32_t, uint32_t>> &es,
          std::vector<double> w) {
  Dag g;
  g.nv = nv;
  g.w = std::move(w);
  g.off.assign(nv + 1, 0);
  for (auto [s, t] : es)
    g.off[s + 1]++;
  for (uint32_t v = 0; v < nv; v++)
    g.off[v + 1] += g.off[v];
  std::vector<uint32_t> at(g.off.begin(), g.off.end() - 1);
  g.adj.resize(es.size());
  for (auto [s, t] : es) // each source's edges in the order given
    g.adj[at[s]++] = t;
  return g;
}

struct Taken {
  std::vector<uint32_t> order, pred;
  std::vector<double> before;
};

// Kahn's order with a table per node, first in first out.
Taken byTable(const Dag &g) {
  struct Reach {
    double best = 0;
    uint32_t pred = UINT32_MAX, indeg = 0;
  };
  std::vector<Reach> r(g.nv);
  for (uint32_t t : g.adj)
    r[t].indeg++;
  std::deque<uint32_t> q;
  for (uint32_t v = 0; v < g.nv; v++)
    if (!r[v].indeg)
      q.push_back(v);
  Taken out;
  while (!q.empty()) {
    uint32_t u = q.front();
    q.pop_front();
    out.order.push_back(u);
    out.before.push_back(r[u].best);
    double du = r[u].best += g.w[u];
    for (uint32_t x = g.off[u]; x < g.off[u + 1]; x++) {
      Reach &t = r[g.adj[x]];
      if (t.pred == UINT32_MAX || du > t.best)
        t.best = du, t.pred = u;
      if (--t.indeg == 0)
        q.push_back(g.adj[x]);
    }
  }
  for (const Reach &x : r)
    out.pred.push_back(x.pred);
  return out;
}

Taken byLongestPaths(const Dag &g) {
  std::vector<uint32_t> link(g.nv, 0);
  for (uint32_t t : g.adj)
    link[t]++;
  Taken out;
  size_t queued = 0;
  size_t n = longestPaths(
      g.nv, g, link.data(), [&](uint32_t v) { return g.w[v]; },
      [&](uint32_t) { queued++; },
      [&](uint32_t v, double before, double after) {
        out.order.push_back(v);
        out.before.push_back(before);
        EXPECT_EQ(after, before + g.w[v]);
      });
  EXPECT_EQ(n, out.order.size());
  out.pred = link;
  return out;
}

void expectSameAsTable(const Dag &g) {
  Taken a = byTable(g), b = byLongestPaths(g);
  ASSERT_EQ(a.order.size(), g.nv); // no cycle
  EXPECT_EQ(a.order, b.order);
  EXPECT_EQ(a.before, b.before);
  EXPECT_EQ(a.pred, b.pred);
}

// A random DAG: node numbers not in a topological order, edges from a
// node earlier in one to later ones (some twice), small whole weights
// (many equal paths), a node with more than 255 in-edges and one with
// more than 255 out-edges, a layer wider than a block of the queue.
Dag randomDag(uint32_t seed, uint32_t nv) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> topo(nv);
  for (uint32_t i = 0; i < nv; i++)
    topo[i] = i;
  for (uint32_t i = nv - 1; i > 0; i--)
    std::swap(topo[i], topo[rng() % (i + 1)]);
  std::vector<std::pair<uint32_t, uint32_t>> es;
  for (uint32_t i = 1; i < nv; i++) {
    uint32_t k = 1 + rng() % 3; // in-edges from earlier nodes
    for (uint32_t e = 0; e < k; e++)
      es.emplace_back(topo[rng() % i], topo[i]);
  }
  uint32_t fanIn = topo[nv - 1], fanOut = topo[0];
  for (uint32_t i = 0; i < 300; i++) {
    es.emplace_back(topo[rng() % (nv - 1)], fanIn);
    es.emplace_back(fanOut, topo[1 + rng() % (nv - 1)]);
  }
  std::vector<double> w(nv);
  for (double &x : w)
    x = double(rng() % 3);
  return dagOf(nv, es, w);
}

} // namespace

TEST(GraphDag, LongestPathsTiesGoToTheFirstTaken) {
  // 0 -> 2, 3 (in that order); 1 -> 3; 2, 3 -> 4; 4 -> 5; 3 -> 5; all
  // weights 1 but 1's, 2. Nodes 0 and 1 are ready first (0 first).
  //  - 2 (from 0, path 1) and 3 (from 0: 1, then from 1: 2, longer) meet at
  //    4: 3's path (3) is longer than 2's (2): 4's predecessor is 3;
  //  - 5 is reached from 3 (path 3) then from 4 (path 4): 4.
  // With 1 weighing 1: 3 is reached from 0 and 1 with equal paths (1):
  // the first taken, 0; 4 is reached from 2 and 3 with equal paths (2):
  // 2, taken first.
  std::vector<std::pair<uint32_t, uint32_t>> es = {
      {0, 2}, {0, 3}, {1, 3}, {2, 4}, {3, 4}, {4, 5}, {3, 5}};
  Dag g = dagOf(6, es, {1, 2, 1, 1, 1, 1});
  Taken t = byLongestPaths(g);
  EXPECT_EQ(t.order, (std::vector<uint32_t>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(t.pred,
            (std::vector<uint32_t>{UINT32_MAX, UINT32_MAX, 0, 1, 3, 4}));
  EXPECT_EQ(t.before, (std::vector<double>{0, 0, 1, 2, 3, 4}));
  expectSameAsTable(g);
  Dag h = dagOf(6, es, {1, 1, 1, 1, 1, 1});
  t = byLongestPaths(h);
  EXPECT_EQ(t.pred,
            (std::vector<uint32_t>{UINT32_MAX, UINT32_MAX, 0, 0, 2, 4}));
  EXPECT_EQ(t.before, (std::vector<double>{0, 0, 1, 1, 2, 3}));
  expectSameAsTable(h);
}

TEST(GraphDag, LongestPathsAsATablePerNodeFindsThem) {
  // Random DAGs, many equal paths, slots used again and again.
  for (uint32_t seed = 1; seed <= 20; seed++) {
    SCOPED_TRACE(seed);
    expectSameAsTable(randomDag(seed, 500 + 97 * seed));
  }
  // A layer wider than a block of the queue (and of the slots): a source,
  // 10000 nodes after it, each with one in-edge from it and one from the
  // one before in the layer, all into one sink (10000 in-edges).
  uint32_t n = 10000;
  std::vector<std::pair<uint32_t, uint32_t>> es;
  for (uint32_t i = 1; i <= n; i++)
    es.emplace_back(0, i);
  for (uint32_t i = 1; i < n; i++)
    es.emplace_back(i, i + 1);
  for (uint32_t i = 1; i <= n; i++)
    es.emplace_back(i, n + 1);
  std::vector<double> w(n + 2, 1);
  expectSameAsTable(dagOf(n + 2, es, w));
  // A layer ready at once: the source into 10000 nodes, each into the
  // sink, the source also into the sink: the queue holds 10000 nodes.
  es.clear();
  for (uint32_t i = 1; i <= n; i++)
    es.emplace_back(0, i), es.emplace_back(i, n + 1);
  es.emplace_back(0, n + 1);
  for (uint32_t i = 1; i <= n; i++)
    w[i] = double(i % 7);
  expectSameAsTable(dagOf(n + 2, es, w));
}

// EdgesBySource holds a byte per node and a word per 8 nodes (a word per
// node where 8 nodes have more than 255 edges): the same places and the
// same order per source as a word per node.
TEST(GraphDag, EdgesBySourceAsAWordPerNode) {
  std::mt19937 rng(7);
  for (uint32_t nv : {0u, 1u, 7u, 8u, 9u, 16u, 1000u, 5003u}) {
    SCOPED_TRACE(nv);
    // Out-degrees mostly 0..3; some blocks of more than 255 edges, some
    // nodes with more than 255, the last node's too.
    std::vector<uint32_t> deg(nv);
    for (uint32_t v = 0; v < nv; v++) {
      uint32_t r = rng() % 100;
      deg[v] = r < 3 ? 256 + rng() % 300 : r < 8 ? 40 + rng() % 20 : r % 4;
    }
    if (nv)
      deg[nv - 1] = 300;
    if (nv == 16) // blocks of 255 and 256 edges, all from their first node
      deg.assign(16, 0), deg[0] = 255, deg[8] = 256;
    std::vector<uint32_t> start(nv + 1, 0);
    for (uint32_t v = 0; v < nv; v++)
      start[v + 1] = start[v] + deg[v];
    std::vector<uint32_t> want = start; // per node its first edge's place
    // The edges in a random order of sources, each source's numbered.
    std::vector<uint32_t> srcs;
    for (uint32_t v = 0; v < nv; v++)
      srcs.insert(srcs.end(), deg[v], v);
    for (size_t i = srcs.size(); i > 1; i--)
      std::swap(srcs[i - 1], srcs[rng() % i]);
    EdgesBySource e; // counted in the order placed; none to the next node
    e.expect(nv);
    for (uint32_t s : srcs)
      e.count(s, s + 2);
    e.make();
    std::vector<uint32_t> made(nv, 0);
    for (uint32_t s : srcs)
      e.place(s, s * 1000 + made[s]++);
    e.placed();
    for (uint32_t v = 0; v <= nv; v++)
      ASSERT_EQ(e.from(v), want[v]) << "node " << v;
    for (uint32_t v = 0; v < nv; v++)
      for (uint32_t x = e.from(v); x < e.from(v + 1); x++)
        ASSERT_EQ(e.to(x), v * 1000 + (x - want[v])) << "node " << v;
  }
}

// EdgesBySource holds a node's first edge to the next-numbered node, where
// it is among the node's first three, as two bits, not an entry: the
// edges it gives (in adj, the next at its place) must be those placed, in
// the order placed, and longestPaths on them must take the nodes in the
// same order and keep the same predecessors (ties: the first taken) as a
// table per node. Edges to the next node at every place (first, second,
// third, fourth: an entry), twice from one node, from the last node of a
// block of 8 and of 4.
TEST(GraphDag, EdgesBySourceNextsKeepTheOrderAndTies) {
  for (uint32_t seed = 1; seed <= 30; seed++) {
    SCOPED_TRACE(seed);
    std::mt19937 rng(seed);
    uint32_t nv = 50 + rng() % 400;
    // Edges from lower to higher numbers (a DAG, Kahn's order not the
    // numbers' since edges jump ahead), each source's in a random order
    // with edges to v + 1 among them; small weights: many ties.
    std::vector<std::pair<uint32_t, uint32_t>> es;
    for (uint32_t v = 0; v + 1 < nv; v++) {
      std::vector<uint32_t> to;
      uint32_t k = rng() % 5;
      for (uint32_t i = 0; i < k; i++)
        to.push_back(v + 1 + rng() % std::min<uint32_t>(nv - v - 1, 20));
      if (rng() % 4 != 0)
        to.insert(to.begin() + rng() % (to.size() + 1), v + 1);
      if (rng() % 8 == 0)
        to.insert(to.begin() + rng() % (to.size() + 1), v + 1);
      for (uint32_t t : to)
        es.emplace_back(v, t);
    }
    std::vector<double> w(nv);
    for (double &x : w)
      x = double(rng() % 3);
    Dag want = dagOf(nv, es, w);
    // The same edges counted and placed as GrainDag does (one pass to
    // count, one to place, each in the order made).
    EdgesBySource e;
    e.expect(nv);
    for (auto [s, t] : es)
      e.count(s, t);
    e.make();
    size_t nexts = 0;
    for (uint32_t v = 0; v < nv; v++)
      nexts += e.nextAt(v) != EdgesBySource::NoNext;
    EXPECT_GT(nexts, nv / 2);
    EXPECT_EQ(e.from(nv) + nexts, es.size());
    for (auto [s, t] : es)
      e.place(s, t);
    e.placed();
    for (uint32_t v = 0; v < nv; v++) {
      std::vector<uint32_t> got;
      uint32_t x = e.from(v), end = e.from(v + 1), next = e.nextAt(v);
      for (uint32_t i = 0;; i++) {
        if (i == next)
          got.push_back(v + 1);
        else if (x < end)
          got.push_back(e.to(x++));
        else
          break;
      }
      ASSERT_EQ(got, std::vector<uint32_t>(want.adj.begin() + want.off[v],
                                           want.adj.begin() + want.off[v + 1]))
          << "node " << v;
    }
    Taken a = byTable(want);
    std::vector<uint32_t> link(nv, 0);
    for (auto [s, t] : es)
      link[t]++;
    std::vector<uint32_t> order;
    size_t n = longestPaths(
        nv, e, link.data(), [&](uint32_t v) { return w[v]; }, [](uint32_t) {},
        [&](uint32_t v, double, double) { order.push_back(v); });
    EXPECT_EQ(n, size_t(nv));
    EXPECT_EQ(order, a.order);
    EXPECT_EQ(link, a.pred);
  }
}

namespace {
// One thread. The implicit task makes the root task R at 10 and waits for
// it; R makes C1, C2 and C3 (30, 35, 40) and waits 50..145 while they run
// 30 ticks each (50..80, 80..110, 110..140): three equal paths meet at
// R's join. Kahn's order takes C1 first (its fork is first in R's chain):
// the path goes through C1.
const uint64_t C3 = (1ull << 40) | 4;
void tiedKidsRecording(const std::string &dir) {
  rootAndKidsRecording(dir, {{C1, 30}, {C2, 35}, {C3, 40}}, {80, 110, 140},
                       145);
}

// The grains on the longest path of a kept graph (its edges as made, the
// kinds as numbered for GraphML), by a table per node (byTable), end first.
std::pair<std::vector<uint64_t>, std::vector<uint64_t>>
pathByTable(const GrainDag &g) {
  std::vector<std::pair<uint32_t, uint32_t>> es;
  for (size_t e = 0; e < g.src.size(); e++)
    es.emplace_back(g.src[e], g.dst[e]);
  std::vector<double> w(g.nodeCount());
  for (uint32_t v = 0; v < g.nodeCount(); v++)
    w[v] = g.weight(v);
  Taken t = byTable(dagOf(g.nodeCount(), es, w));
  std::pair<std::vector<uint64_t>, std::vector<uint64_t>> out;
  for (uint32_t v = 1; v != UINT32_MAX; v = t.pred[v])
    if (g.kind[v] == GrainDag::Chunk)
      out.first.push_back(g.ref[v]);
    else if (g.kind[v] == GrainDag::Task)
      out.second.push_back(g.ref[v]);
  return out;
}
} // namespace

// The critical path alone (computeCritPath: chunks nothing hangs off as one
// node, joins numbered after their forks, edges to the next node as bits)
// must name the grains a table per node names on the kept graph (GraphML's
// numbering, every edge an entry): the same edges, the same ties.
TEST(GraphDag, CritPathAloneKeepsTheKeptGraphsTiesAndEdges) {
  for (auto make : {treeRecording, tiedKidsRecording, loopTaskRecording,
                    chunksMakeTasksRecording}) {
    TempDir d;
    make(d.path);
    auto run = analyseRun({d.path}, {});
    Analysis &an = *run->procs[0];
    GrainDag g(an);
    ASSERT_TRUE(g.acyclic);
    auto [chunks, tasks] = pathByTable(g);
    EXPECT_EQ(g.pathChunks, chunks);
    EXPECT_EQ(g.pathTasks, tasks);
    CritPath cp = computeCritPath(an);
    ASSERT_TRUE(cp.acyclic);
    EXPECT_DOUBLE_EQ(cp.span, g.span);
    EXPECT_EQ(std::vector<uint64_t>(cp.chunks.begin(), cp.chunks.end()),
              chunks);
    EXPECT_EQ(std::vector<uint64_t>(cp.tasks.begin(), cp.tasks.end()), tasks);
  }
  // The tie: C1, C2 and C3 weigh the same; the first taken, C1, is on it.
  TempDir d;
  tiedKidsRecording(d.path);
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  const Tasks &T = an.tasks;
  ASSERT_EQ(T.size(), 4u);
  int64_t r = T.index(R), c1 = T.index(C1), c2 = T.index(C2), c3 = T.index(C3);
  EXPECT_EQ(an.taskOwnWork(c1), an.taskOwnWork(c2));
  EXPECT_EQ(an.taskOwnWork(c1), an.taskOwnWork(c3));
  EXPECT_EQ(computeCritPath(an).tasks,
            (std::vector<uint32_t>{uint32_t(c1), uint32_t(r)}));
}

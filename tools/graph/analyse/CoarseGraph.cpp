// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CoarseGraph.cpp - a process's grains merged as a reader merges them ===//
//
// Loop instances are ordered by their first chunk's start and numbered per
// loop (its name and code address); instance n of a loop falls in that loop's
// block n / block. The spans and the graph's groups are (block, thread) of
// those; the graph's loop blocks are chained in the order of their first
// instance. Task groups as GraphmlWriter made them before (generation,
// join point, site), or one per site. Then every node but start without a
// predecessor gets an edge from start, and every node but end without a
// successor one to end: one DAG per process.
//
// coarsePath: the graph's nodes in topological order, per node the best
// path from start to it (most onPath groups, then most work in them), then
// back from end along the best predecessors.
//
//===----------------------------------------------------------------------===//
#include "CoarseGraph.h"
#include "GrainDag.h"
#include "LoopTable.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace gcg {

namespace {
/// The loop blocks of a process: per loop instance its block (-1: no
/// chunks), the blocks in the order of their first instance, with their
/// loop name's index and first and last instance number.
struct Blocks {
  std::vector<int32_t> of; // per an.loops index (-1: none)
  struct B {
    int first = -1;           // its first instance (an.loops index)
    int64_t from = 0, to = 0; // instance numbers of its loop
    int instances = 0;
  };
  std::vector<B> list;
};

/// Instance n of a loop (in the order they started) is in its block n /
/// block: a loop's block numbers only grow, so a new one starts where its
/// number changes.
Blocks blocksOf(const std::vector<int32_t> &loopOf, size_t nLoops,
                const StartOrder &byStart, uint64_t block) {
  Blocks B;
  B.of.assign(loopOf.size(), -1);
  // Per loop: its instances so far and its last block. A new block where
  // the last one holds `block` instances (where n / block changes: no
  // division per instance).
  std::vector<int64_t> seen(nLoops, 0), lastAt(nLoops, -1);
  for (size_t k = 0; k < byStart.size(); k++) {
    int li = byStart[k];
    size_t key = size_t(loopOf[li]);
    int64_t n = seen[key]++;
    if (lastAt[key] < 0 ||
        (block && uint64_t(B.list[size_t(lastAt[key])].instances) == block)) {
      lastAt[key] = int64_t(B.list.size());
      B.list.push_back({li, n, n, 0});
    }
    B.of[li] = int32_t(lastAt[key]);
    B.list[size_t(lastAt[key])].to = n;
    B.list[size_t(lastAt[key])].instances++;
  }
  return B;
}

/// Numbers the (block, thread) pairs in the order met. A pair is found
/// along its block's list of threads, past the first few by a table.
class SpanFinder {
public:
  explicit SpanFinder(size_t blocks)
      : head(blocks, None), tail(blocks, None), listed(blocks, 0) {
    ths.reserve(blocks); // at least a pair per block
    next.reserve(blocks);
  }
  /// The number of (b, th); added: it is new. (The walk inline, the
  /// rest apart: a call per row saved.)
  uint32_t find(size_t b, int th, bool &added) {
    added = false;
    uint32_t at = head[b];
    for (int n = 0; at != None && n < Listed; at = next[at], n++)
      if (ths[at] == th)
        return at;
    return findMore(b, th, added);
  }
  __attribute__((noinline)) uint32_t findMore(size_t b, int th, bool &added) {
    uint64_t key = uint64_t(b) << 32 | uint32_t(th);
    if (listed[b] == Listed) {
      auto it = more.find(key);
      if (it != more.end())
        return it->second;
    }
    uint32_t k = uint32_t(ths.size());
    ths.push_back(th);
    next.push_back(None);
    if (tail[b] == None)
      head[b] = k;
    else
      next[tail[b]] = k;
    tail[b] = k;
    if (listed[b] < Listed)
      listed[b]++;
    else
      more.emplace(key, k);
    added = true;
    return k;
  }
  size_t size() const { return ths.size(); }
  /// The numbers by block, each block's in the order met.
  std::vector<uint32_t> byBlock() const {
    std::vector<uint32_t> out;
    out.reserve(ths.size());
    for (uint32_t h : head)
      for (uint32_t k = h; k != None; k = next[k])
        out.push_back(k);
    return out;
  }

private:
  static constexpr uint32_t None = UINT32_MAX;
  static constexpr int Listed = 8;
  std::vector<int> ths;
  std::vector<uint32_t> next, head, tail;
  std::vector<uint8_t> listed;
  std::unordered_map<uint64_t, uint32_t> more;
};

/// Per (block, thread) a span, in the order of the blocks then threads as
/// met.
std::vector<LoopSpan> spansOf(const LoopRows &rows, const Blocks &B) {
  // Room for every span at once, not grown by doubling (which touches
  // about twice the spans' bytes): at most a span per row with chunks, and
  // per block one per thread (the rows' threads: those numbered below
  // SmallTh counted by a flag each, not a search per row, the others
  // sorted). Address space past the spans made is not touched.
  constexpr int SmallTh = 4096;
  size_t most = 0, nThs = 0;
  std::vector<uint8_t> smallTh;
  std::vector<int> ths;
  for (size_t r = 0; r < rows.size(); r++)
    if (const Share &s = rows.share(r); s.count) {
      most++;
      if (s.th >= 0 && s.th < SmallTh) {
        if (size_t(s.th) >= smallTh.size())
          smallTh.resize(size_t(s.th) + 1, 0);
        nThs += !smallTh[size_t(s.th)];
        smallTh[size_t(s.th)] = 1;
        continue;
      }
      auto at = std::lower_bound(ths.begin(), ths.end(), s.th);
      if (at == ths.end() || *at != s.th)
        ths.insert(at, s.th), nThs++;
    }
  std::vector<LoopSpan> spans;
  spans.reserve(std::min(most, B.list.size() * nThs));
  SpanFinder find(B.list.size());
  rows.forEach([&](size_t, const LoopThread &r) {
    if (!r.chunks)
      return;
    size_t b = size_t(B.of[r.loop]);
    bool added;
    uint32_t k = find.find(b, r.th, added);
    if (added)
      spans.push_back(firstSpanRow(B.list[b].first, r));
    addSpanRow(spans[k], r);
  });
  // Into block order in place (along the permutation's cycles), without a
  // second copy of the spans.
  std::vector<uint32_t> order = find.byBlock(); // the j-th: spans[order[j]]
  for (uint32_t i = 0; i < order.size(); i++) {
    if (order[i] == i)
      continue;
    LoopSpan held = spans[i];
    uint32_t j = i;
    for (;;) {
      uint32_t k = order[j];
      order[j] = j;
      if (k == i) {
        spans[j] = held;
        break;
      }
      spans[j] = spans[k];
      j = k;
    }
  }
  return spans;
}

/// How many spans spansOf(rows, B) gives.
uint64_t countSpans(const LoopRows &rows, const Blocks &B) {
  SpanFinder find(B.list.size());
  bool added;
  rows.forEach([&](size_t, const LoopThread &r) {
    if (r.chunks)
      find.find(size_t(B.of[r.loop]), r.th, added);
  });
  return find.size();
}

Blocks blocksOf(const LoopTable &lt, uint64_t block) {
  return blocksOf(lt.loopOf, lt.nLoops, lt.byStart, block);
}

std::vector<LoopSpan> loopSpansAt(const std::vector<int32_t> &loopOf,
                                  size_t nLoops, const StartOrder &byStart,
                                  const LoopRows &rows, uint64_t block,
                                  std::vector<int> *spanOf) {
  Blocks B = blocksOf(loopOf, nLoops, byStart, block);
  std::vector<LoopSpan> spans = spansOf(rows, B);
  if (spanOf) {
    // A block's spans are consecutive (block order), each with the
    // block's first instance as its loop.
    std::vector<int> blockSpan(B.list.size(), -1);
    for (size_t j = 0; j < spans.size(); j++)
      if (j == 0 || spans[j].loop != spans[j - 1].loop)
        blockSpan[size_t(B.of[size_t(spans[j].loop)])] = int(j);
    // Made in the blocks' column (not beside it).
    std::vector<int32_t> &of = B.of;
    for (size_t li = 0; li < of.size(); li++)
      if (of[li] >= 0)
        of[li] = blockSpan[size_t(of[li])];
    spanOf->swap(of);
  }
  return spans;
}
} // namespace

std::vector<int> loopKeyIds(const Analysis &an) { return loopIds(an); }

std::vector<LoopSpan> loopSpans(const LoopTable &lt, uint64_t block,
                                std::vector<int> *spanOf) {
  return loopSpansAt(lt.loopOf, lt.nLoops, lt.byStart, lt.rows, block, spanOf);
}

std::vector<LoopSpan> loopSpansOf(const std::vector<int> &keys,
                                  const LoopRows &rows, uint64_t block,
                                  std::vector<int> *spanOf) {
  return loopSpansAt(keys, loopCount(keys), instancesByStart(rows), rows, block,
                     spanOf);
}

size_t loopCount(const std::vector<int> &keys) {
  size_t nLoops = 0;
  for (int k : keys)
    nLoops = std::max(nLoops, size_t(k) + 1);
  return nLoops;
}

uint64_t countLoopSpans(const LoopTable &lt, uint64_t block) {
  const LoopRows &rows = lt.rows;
  if (block == 1) {
    uint64_t n = 0;
    rows.forEach([&](size_t, const LoopThread &r) { n += r.chunks > 0; });
    return n;
  }
  return countSpans(rows, blocksOf(lt, block));
}

uint64_t coarserBlock(uint64_t block, double over, uint64_t most) {
  if (!block)
    return 0;
  double next = std::max(2.0 * double(block), double(block) * over * 1.2 + 1);
  return next >= double(most) ? 0 : uint64_t(next);
}

namespace {
/// The task groups of a process (as the aggregated GraphML had them).
struct TaskGroups {
  struct Group {
    int64_t root;   // the implicit task's slot the generations start from
    uint32_t depth; // 1: the implicit task's children
    uint32_t join;
    uint64_t site;
    uint32_t first; // its first task (its name)
    int64_t count = 0, exec = 0, flagged = 0;
    double work = 0;
    bool onPath = false;
  };
  using Gen = std::pair<int64_t, uint32_t>; // (root, depth of the parents)
  std::vector<Group> groups;
  std::vector<Gen> gens; // parent generations, in the order first met
  std::map<Gen, std::vector<uint32_t>> children;
  std::map<Gen, std::set<uint32_t>> makers; // the parents' groups
  // Per group, the chunks (loop instance, thread) that made its tasks
  // (Analysis::madeInChunk): its fork comes after them.
  std::map<uint32_t, std::set<std::pair<int, int>>> chunkMakers;
  std::vector<uint32_t> groupOf; // per task
};

/// Groups by generation, join point and site; bySite: by site alone.
/// Parents are made before their children, so creation order gives each
/// parent's group first. !whole: the groups alone (how many there are),
/// without their figures, generations and makers.
TaskGroups taskGroups(const Analysis &an, bool bySite, int view,
                      const std::vector<uint8_t> &taskOnPath,
                      bool whole = true) {
  TaskGroups G;
  const Tasks &T = an.tasks;
  size_t n = T.size();
  std::vector<uint32_t> &groupOf = G.groupOf;
  groupOf.assign(n, UINT32_MAX);
  // A group by its key, by hash (the groups are numbered as met).
  using Key = std::tuple<int64_t, uint32_t, uint32_t, uint64_t>;
  struct KeyHash {
    size_t operator()(const Key &x) const {
      uint64_t h = uint64_t(std::get<0>(x)) * 0x9E3779B97F4A7C15ull;
      h = (h ^ (uint64_t(std::get<1>(x)) << 32 | std::get<2>(x))) *
          0xC2B2AE3D27D4EB4Full;
      h = (h ^ std::get<3>(x)) * 0x165667B19E3779F9ull;
      return size_t(h ^ (h >> 29));
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> byKey;
  // The last (generation, parent group) made a maker: tasks of one parent
  // come in runs.
  TaskGroups::Gen lastGen{-1, 0};
  uint32_t lastMaker = UINT32_MAX;
  for (uint32_t k : T.order) {
    int64_t ps = T.pslot[k];
    TaskGroups::Gen gen{ps, 0};
    bool explicitParent = size_t(ps) < n && groupOf[ps] != UINT32_MAX;
    if (explicitParent)
      gen = {G.groups[groupOf[ps]].root, G.groups[groupOf[ps]].depth};
    auto key = bySite ? std::make_tuple(int64_t(0), 0u, 0u, T.codeptr[k])
                      : std::make_tuple(gen.first, gen.second, T.joinsAt[k],
                                        T.codeptr[k]);
    auto it = byKey.find(key);
    if (it == byKey.end()) {
      it = byKey.emplace(key, uint32_t(G.groups.size())).first;
      G.groups.push_back(
          {gen.first, gen.second + 1, T.joinsAt[k], T.codeptr[k], k});
      if (!bySite && whole) {
        auto &kids = G.children[gen];
        if (kids.empty())
          G.gens.push_back(gen);
        kids.push_back(it->second);
      }
    }
    groupOf[k] = it->second;
    if (!whole)
      continue;
    if (explicitParent && !bySite &&
        (gen != lastGen || groupOf[ps] != lastMaker)) {
      G.makers[gen].insert(groupOf[ps]);
      lastGen = gen, lastMaker = groupOf[ps];
    }
    if (int64_t c = an.madeInChunk(k); c >= 0)
      G.chunkMakers[it->second].insert(
          {an.chunks.loop[size_t(c)], an.chunks.thread[size_t(c)]});
    TaskGroups::Group &g = G.groups[it->second];
    g.count++;
    g.exec += T.execc(k);
    GrainMetrics m = an.taskMetrics(k);
    g.work += m.work;
    g.flagged += view >= 0 && (m.problems >> view & 1);
    g.onPath = g.onPath || taskOnPath[k];
  }
  return G;
}
} // namespace

void coarseGraphSize(const Analysis &an, const LoopTable &lt,
                     const CoarseLevel &level, uint64_t &nodes,
                     uint64_t &edges) {
  if (level.bare) { // start -> end
    nodes = 2, edges = 1;
    return;
  }
  const LoopRows &rows = lt.rows;
  uint64_t spans = 0, blocks = 0;
  if (level.block == 1) {
    std::vector<uint8_t> has(an.loops.size(), 0);
    rows.forEach([&](size_t, const LoopThread &r) {
      spans += r.chunks > 0;
      has[r.loop] |= r.chunks > 0;
    });
    for (uint8_t h : has)
      blocks += h;
  } else {
    Blocks B = blocksOf(lt, level.block);
    blocks = B.list.size();
    spans = countSpans(rows, B);
  }
  // Tasks: at most a group, a fork and a join per task site and
  // generation; bounded by the tasks.
  uint64_t tasks = an.tasks.size();
  uint64_t taskNodes = 0;
  if (level.bySite) {
    taskNodes = 3 * an.tasks.codeptr.distinct().size();
  } else if (tasks) {
    // The groups as the builder makes them: a group, its fork and at
    // most one join each.
    std::vector<uint8_t> none;
    taskNodes = 3 * taskGroups(an, false, -1, none, false).groups.size();
  }
  nodes = 2 + 2 * blocks + spans + taskNodes;
  edges = 2 + blocks + 2 * spans + 2 * taskNodes;
}

CoarseGraph coarseGraph(const Analysis &an, const LoopTable &lt,
                        const CritPath &cp, const CoarseLevel &level,
                        const std::string &pre, int view,
                        const GrainNodeFn *each) {
  CoarseGraph g;
  using Node = CoarseGraph::Node;
  auto node = [&](CoarseGraph::Kind kind, std::string id, std::string label) {
    Node n;
    n.kind = kind;
    n.id = pre + std::move(id);
    n.label = std::move(label);
    g.nodes.push_back(std::move(n));
    return uint32_t(g.nodes.size() - 1);
  };
  auto edge = [&](uint32_t s, uint32_t t, CoarseGraph::EdgeKind k) {
    g.edges.push_back({s, t, k});
  };
  uint32_t start = node(CoarseGraph::Start, "start", "start");
  uint32_t end = node(CoarseGraph::End, "end", "end");
  if (level.bare) {
    edge(start, end, CoarseGraph::Continuation);
    return g;
  }
  // The critical path's grains.
  const Chunks &ch = an.chunks;
  // Loops: per block a fork, a node per thread and a join, chained.
  Blocks B = blocksOf(lt, level.block);
  std::vector<LoopSpan> spans = spansOf(lt.rows, B);
  // Per block its spans (consecutive: block order), per span its node; a
  // (block, thread)'s node found among its block's spans, one per thread.
  std::vector<uint32_t> blockAt(B.list.size() + 1, 0), spanV(spans.size());
  for (const LoopSpan &x : spans)
    blockAt[size_t(B.of[x.loop]) + 1]++;
  for (size_t b = 0; b < B.list.size(); b++)
    blockAt[b + 1] += blockAt[b];
  auto spanNode = [&](int64_t b, int th) {
    if (b < 0)
      return UINT32_MAX;
    for (uint32_t j = blockAt[size_t(b)]; j < blockAt[size_t(b) + 1]; j++)
      if (spans[j].th == th)
        return spanV[j];
    return UINT32_MAX;
  };
  // Consecutive chunks of one instance and thread: looked up once.
  int lastLoop = -1, lastTh = 0;
  uint32_t lastV = UINT32_MAX;
  auto chunkNode = [&](size_t i) {
    if (ch.loop[i] != lastLoop || ch.thread[i] != lastTh) {
      lastLoop = ch.loop[i], lastTh = ch.thread[i];
      lastV = spanNode(B.of[size_t(lastLoop)], lastTh);
    }
    return lastV;
  };
  std::vector<uint32_t> forkOf(B.list.size()), joinOf(B.list.size());
  for (size_t b = 0; b < B.list.size(); b++) {
    const Blocks::B &bl = B.list[b];
    std::string name = an.loopName(bl.first);
    std::string which = bl.instances > 1
                            ? " (instances " + std::to_string(bl.from) + ".." +
                                  std::to_string(bl.to) + ")"
                            : "";
    std::string tag = level.block == 1 ? "L" + std::to_string(bl.first)
                                       : "B" + std::to_string(b);
    forkOf[b] = node(CoarseGraph::Fork, "f." + tag, "fork " + name + which);
    joinOf[b] = node(CoarseGraph::Join, "j." + tag, "join " + name + which);
    if (b)
      edge(joinOf[b - 1], forkOf[b], CoarseGraph::Continuation);
  }
  for (const LoopSpan &s : spans) {
    int64_t b = B.of[s.loop];
    std::string name = an.loopName(s.loop);
    std::string tag = level.block == 1 ? "L" + std::to_string(s.loop)
                                       : "B" + std::to_string(b);
    uint32_t v =
        node(CoarseGraph::Chunks, "g." + tag + ".t" + std::to_string(s.th), "");
    spanV[size_t(&s - spans.data())] = v;
    Node &n = g.nodes[v];
    n.name = name;
    n.loc = an.codeOf(an.loops[s.loop]).loc;
    n.thread = s.th;
    n.grains = s.chunks;
    n.instances = s.instances;
    n.label = groupLabel(n);
    n.hasExec = s.hasWork;
    n.exec = s.work;
    n.work = s.hasWork ? double(s.work) : NAN;
    edge(forkOf[b], v, CoarseGraph::Creation);
    edge(v, joinOf[b], CoarseGraph::Synchronization);
  }
  if (level.members)
    g.chunkNode.assign(ch.size(), UINT32_MAX);
  if (level.members || each)
    for (size_t i = 0; i < ch.size(); i++) {
      uint32_t v = chunkNode(i);
      if (level.members)
        g.chunkNode[i] = v;
      if (each && v != UINT32_MAX)
        (*each)(true, i, v);
    }
  for (uint64_t i : cp.chunks)
    if (uint32_t v = chunkNode(size_t(i)); v != UINT32_MAX)
      g.nodes[v].onPath = true;
  if (view >= 0)
    for (size_t i = 0; i < ch.size(); i++)
      if (an.chunkMetrics(i).problems >> view & 1)
        if (uint32_t v = chunkNode(i); v != UINT32_MAX)
          g.nodes[v].flagged++;
  // Tasks.
  const Tasks &T = an.tasks;
  std::vector<uint8_t> taskOnPath(T.size(), 0);
  for (uint64_t k : cp.tasks)
    taskOnPath[k] = 1;
  TaskGroups G = taskGroups(an, level.bySite, view, taskOnPath);
  std::vector<uint32_t> groupNode(G.groups.size()), forkNode(G.groups.size());
  auto memberTasks = [&] {
    if (level.members)
      g.taskNode.assign(T.size(), UINT32_MAX);
    for (size_t k = 0; (level.members || each) && k < T.size(); k++)
      if (G.groupOf[k] != UINT32_MAX) {
        uint32_t v = groupNode[G.groupOf[k]];
        if (level.members)
          g.taskNode[k] = v;
        if (each)
          (*each)(false, k, v);
      }
  };
  auto genId = [&](const TaskGroups::Gen &gn) {
    std::string s = "i" + std::to_string(T.slotId(gn.first));
    return gn.second ? s + ".d" + std::to_string(gn.second) : s;
  };
  for (size_t x = 0; x < G.groups.size(); x++) {
    const TaskGroups::Group &Gr = G.groups[x];
    std::string name = an.taskGrainName(Gr.first);
    uint32_t v = node(CoarseGraph::Tasks, "g" + std::to_string(x), "");
    Node &n = g.nodes[v];
    n.name = name;
    n.loc = an.maps.get(Gr.site).second;
    n.thread = T.threadOf(Gr.first);
    n.grains = Gr.count;
    n.label = groupLabel(n);
    n.hasExec = true;
    n.exec = Gr.exec;
    n.work = Gr.work;
    n.flagged = Gr.flagged;
    n.onPath = Gr.onPath;
    groupNode[x] = v;
    forkNode[x] =
        node(CoarseGraph::Fork, "f.g" + std::to_string(x),
             "fork " + (level.bySite ? name : genId({Gr.root, Gr.depth - 1})));
    g.nodes[forkNode[x]].runtimeLabel = !level.bySite;
    edge(forkNode[x], v, CoarseGraph::Creation);
    // After the chunk groups that made its tasks.
    auto cm = G.chunkMakers.find(uint32_t(x));
    if (cm != G.chunkMakers.end()) {
      std::set<uint32_t> from;
      for (auto [li, th] : cm->second) {
        if (uint32_t sv = spanNode(B.of[size_t(li)], th); sv != UINT32_MAX)
          from.insert(sv);
      }
      for (uint32_t u : from)
        edge(u, forkNode[x], CoarseGraph::Continuation);
    }
    if (level.bySite) {
      uint32_t j =
          node(CoarseGraph::Join, "j.g" + std::to_string(x), "join " + name);
      edge(v, j, CoarseGraph::Synchronization);
    }
  }
  memberTasks();
  // Each parent generation's chain: its child groups' forks, join point
  // by join point, then the join; the groups between a fork and their
  // join. The chain starts from the groups of the parents.
  for (const TaskGroups::Gen &gen : G.gens) {
    std::vector<uint32_t> &kids = G.children[gen];
    std::stable_sort(kids.begin(), kids.end(), [&](uint32_t a, uint32_t b) {
      return G.groups[a].join < G.groups[b].join;
    });
    std::vector<uint32_t> prev;
    for (uint32_t m : G.makers[gen])
      prev.push_back(groupNode[m]);
    for (size_t b = 0; b < kids.size();) {
      size_t e = b;
      uint32_t jn = G.groups[kids[b]].join;
      for (; e < kids.size() && G.groups[kids[e]].join == jn; e++) {
        for (uint32_t p : prev)
          edge(p, forkNode[kids[e]], CoarseGraph::Continuation);
        prev = {forkNode[kids[e]]};
      }
      uint32_t j =
          node(CoarseGraph::Join, genId(gen) + ".j" + std::to_string(jn),
               "join " + genId(gen));
      g.nodes[j].runtimeLabel = true;
      for (uint32_t p : prev)
        edge(p, j, CoarseGraph::Continuation);
      for (size_t x = b; x < e; x++)
        edge(groupNode[kids[x]], j, CoarseGraph::Synchronization);
      prev = {j};
      b = e;
    }
  }
  // One source and one sink.
  std::vector<uint8_t> hasIn(g.nodes.size(), 0), hasOut(g.nodes.size(), 0);
  for (const CoarseGraph::Edge &e : g.edges)
    hasOut[e.src] = hasIn[e.dst] = 1;
  for (uint32_t v = 0; v < g.nodes.size(); v++) {
    if (v != start && v != end && !hasIn[v])
      edge(start, v, CoarseGraph::Continuation);
    if (v != start && v != end && !hasOut[v])
      edge(v, end, CoarseGraph::Continuation);
  }
  if (g.nodes.size() == 2)
    edge(start, end, CoarseGraph::Continuation);
  return g;
}

std::string groupLabel(const CoarseGraph::Node &n, size_t processes) {
  std::string l =
      n.kind == CoarseGraph::Tasks
          ? std::to_string(n.grains) + " x " + n.name
          : std::to_string(n.grains) + " chunks of " + n.name + " on thread " +
                std::to_string(n.thread) +
                (n.instances > 1
                     ? " in " + std::to_string(n.instances) + " instances"
                     : "");
  if (processes > 1)
    l += " over " + std::to_string(processes) + " processes";
  return l;
}

namespace {
/// Two 64-bit FNV-1a hashes (other offsets and primes) of what is added.
struct ShapeHash {
  uint64_t a = 0xcbf29ce484222325ull, b = 0x84222325cbf29ce4ull;
  void bytes(const void *p, size_t n) {
    const unsigned char *c = static_cast<const unsigned char *>(p);
    for (size_t i = 0; i < n; i++) {
      a = (a ^ c[i]) * 0x100000001b3ull;
      b = (b ^ c[i]) * 0x100000000000067ull;
    }
  }
  void u(uint64_t v) { bytes(&v, sizeof v); }
  void s(const std::string &t) {
    u(t.size());
    bytes(t.data(), t.size());
  }
};
} // namespace

Shape shapeOf(const CoarseGraph &g) {
  ShapeHash h;
  h.u(g.nodes.size());
  for (const CoarseGraph::Node &n : g.nodes) {
    h.u(n.kind);
    h.s(n.name);
    h.s(n.loc);
    h.u(uint64_t(int64_t(n.thread)));
    if (n.kind != CoarseGraph::Chunks && n.kind != CoarseGraph::Tasks &&
        !n.runtimeLabel)
      h.s(n.label);
  }
  h.u(g.edges.size());
  for (const CoarseGraph::Edge &e : g.edges) {
    h.u(e.src);
    h.u(e.dst);
    h.u(e.kind);
  }
  return {h.a, h.b};
}

void classesOf(const std::vector<ProcessShape> &f, ShapeLevel &s) {
  std::map<std::tuple<uint64_t, uint64_t, bool, Shape>, uint32_t> classes;
  s.classOf.assign(f.size(), 0);
  s.first.clear();
  for (size_t p = 0; p < f.size(); p++) {
    auto key = std::make_tuple(f[p].nodes, f[p].edges, f[p].shaped,
                               f[p].shaped ? f[p].shape : Shape());
    auto it = classes.emplace(key, uint32_t(s.first.size())).first;
    if (it->second == s.first.size())
      s.first.push_back(uint32_t(p));
    s.classOf[p] = it->second;
  }
}

ShapeLevel shapeLevelFor(ShapeSearch &s, uint64_t cap, uint64_t most,
                         uint64_t nodeBytes, uint64_t edgeBytes) {
  ShapeLevel r;
  auto bytesOf = [&](const ProcessShape &f) {
    return f.nodes * nodeBytes + f.edges * edgeBytes;
  };
  for (;;) {
    std::vector<ProcessShape> f = s.sizes(r.level);
    // Processes of other sizes are never alike: shapes only where sizes
    // meet, and the classes' least estimate is over the distinct sizes.
    std::map<std::pair<uint64_t, uint64_t>, uint32_t> bySize;
    for (const ProcessShape &x : f)
      bySize[{x.nodes, x.edges}]++;
    std::vector<uint8_t> need(f.size());
    uint64_t least = 0;
    for (size_t p = 0; p < f.size(); p++)
      need[p] = bySize[{f[p].nodes, f[p].edges}] > 1;
    for (auto &[k, n] : bySize)
      least += k.first * nodeBytes + k.second * edgeBytes;
    uint64_t est = 0;
    if (least > cap && !r.level.bare) {
      // Past the cap even were all processes of a size alike: no shape
      // is made (a process's shape is its coarse graph built: at a fine
      // level, about a node per chunk), the next level is as many times
      // coarser as that least estimate is over.
      est = least;
    } else {
      s.shapes(r.level, f, need, true);
      classesOf(f, r);
      for (uint32_t p : r.first)
        est += bytesOf(f[p]);
    }
    if (est <= cap || r.level.bare) {
      s.bytes(r.level, f, r.first);
      uint64_t got = s.fileBytes(r, f);
      if (got <= cap || r.level.bare)
        return r;
      est = got;
    }
    if (r.level.bySite)
      r.level.bare = true;
    else if (r.level.block == 0)
      r.level.bySite = true;
    else
      r.level.block =
          coarserBlock(r.level.block, double(est) / double(cap), most);
  }
}

GrainKinds grainKinds(const Analysis &an) {
  GrainKinds k;
  k.loops = an.chunks.size() > 0;
  k.tasks = an.tasks.size() > 0;
  return k;
}

std::string coarseLevelText(const CoarseLevel &level, GrainKinds kinds) {
  if (level.bare)
    return "only a start and an end node per process";
  const char *groups = "group of tasks (same generation, join point and "
                       "creation site)";
  // A run of tasks only: the loops' blocks change nothing.
  if (kinds.tasks && !kinds.loops)
    return level.bySite ? "a node per task creation site"
                        : std::string("a node per ") + groups;
  std::string loops = level.block == 1 ? "a node per loop instance and thread"
                      : level.block
                          ? "a node per loop and thread over each " +
                                std::to_string(level.block) +
                                " consecutive instances of the loop"
                          : "a node per loop and thread over the whole run";
  if (!kinds.tasks)
    return loops;
  return loops + (level.bySite ? ", one per task creation site"
                               : std::string(" and per ") + groups);
}

std::vector<uint32_t> coarsePath(const CoarseGraph &g) {
  size_t n = g.nodes.size();
  std::vector<std::vector<uint32_t>> succ(n);
  std::vector<uint32_t> indeg(n, 0);
  for (const CoarseGraph::Edge &e : g.edges) {
    succ[e.src].push_back(e.dst);
    indeg[e.dst]++;
  }
  uint32_t start = UINT32_MAX, end = UINT32_MAX;
  for (uint32_t v = 0; v < n; v++)
    if (g.nodes[v].kind == CoarseGraph::Start)
      start = v;
    else if (g.nodes[v].kind == CoarseGraph::End)
      end = v;
  if (start == UINT32_MAX || end == UINT32_MAX)
    return {};
  // Per node the best path from start: (groups on the path, their work);
  // reached false: no path from start.
  struct Best {
    bool reached = false;
    int64_t groups = 0;
    double work = 0;
    uint32_t pred = UINT32_MAX;
  };
  std::vector<Best> best(n);
  best[start].reached = true;
  std::vector<uint32_t> queue;
  for (uint32_t v = 0; v < n; v++)
    if (!indeg[v])
      queue.push_back(v);
  size_t done = 0;
  for (size_t q = 0; q < queue.size(); q++) {
    uint32_t v = queue[q];
    done++;
    const CoarseGraph::Node &nv = g.nodes[v];
    if (best[v].reached && nv.onPath) {
      best[v].groups++;
      best[v].work += std::isnan(nv.work) ? 0 : nv.work;
    }
    for (uint32_t t : succ[v]) {
      if (best[v].reached) {
        Best &b = best[t];
        if (!b.reached || best[v].groups > b.groups ||
            (best[v].groups == b.groups && best[v].work > b.work)) {
          b.reached = true;
          b.groups = best[v].groups;
          b.work = best[v].work;
          b.pred = v;
        }
      }
      if (!--indeg[t])
        queue.push_back(t);
    }
  }
  if (done != n || !best[end].reached)
    return {};
  std::vector<uint32_t> path;
  for (uint32_t v = end; v != UINT32_MAX; v = best[v].pred)
    path.push_back(v);
  std::reverse(path.begin(), path.end());
  return path;
}

CoarseLevel coarseLevelFor(const Analysis &an, const LoopTable &lt,
                           uint64_t maxNodes) {
  CoarseLevel level;
  uint64_t most = lt.most;
  for (;;) {
    uint64_t nodes = 0, edges = 0;
    coarseGraphSize(an, lt, level, nodes, edges);
    if (nodes <= maxNodes || level.bare)
      return level;
    if (level.bySite)
      level.bare = true;
    else if (level.block == 0)
      level.bySite = true;
    else
      level.block =
          coarserBlock(level.block, double(nodes) / double(maxNodes), most);
  }
}

} // namespace gcg

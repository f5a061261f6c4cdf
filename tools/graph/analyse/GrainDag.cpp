// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GrainDag.cpp - a process's grain graph as a DAG, its critical path ===//
//
// Where each part of the graph hangs (its anchor: the fork it starts from
// and the join it ends at):
//  - a parallel region: the chunk that started it (ends at that chunk's
//    loop join), else the explicit task that started it (ends at that
//    task's join), else the region whose implicit task started it, else
//    the process (start .. end; such regions chained in time order per
//    encountering task);
//  - the loop instances of a region: chained fork -> join -> next fork
//    between the region's fork and join; chunks between their instance's
//    fork and join;
//  - the tasks a task made: its children's forks and join points chained
//    after it, ending at its own join; the tasks an implicit task made:
//    their forks and join points chained between its region's fork and
//    join;
//  - a task made inside a loop chunk: its creation edge starts at that
//    chunk, the grain that made it (the chunk stands for its fork, as a
//    parent node precedes its children's forks in the prototype's grain
//    graph), and it has no fork node in its implicit task's chain; it
//    synchronizes at its implicit task's join point (a chunk does not
//    wait: the implicit task running it does), which stays in that chain.
//    A chunk is one node, not split at its creation points (tasks are not
//    split at theirs either): the whole chunk precedes the tasks it made.
//    Where that join point is the end of the loop instance (its barrier,
//    or a wait inside its chunks: the thread's last chunk before the wait
//    is of the instance that made the last of these tasks), the join goes
//    back to the instance's join: what follows the loop waits for them.
// Where the recording does not name an anchor (a region or loop whose
// parent is unknown), the process's start and end.
//
//===----------------------------------------------------------------------===//
#include "GrainDag.h"
#include "Run.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <iterator>
#include <string>
#include <tuple>
#include <unordered_map>

namespace gcg {

/// What the edges are made from, made once by nodes() for both passes of
/// edges(): the nodes of the regions, loops and tasks (blocks in that
/// order, after start and end), each chunk's node, each task's fork and
/// join, each region's anchor, and the orders the edges follow.
struct GrainDag::Parts {
  size_t nr = 0;
  uint32_t taskBase = 0;
  uint32_t collapsedFrom = 0, chunksEnd = 0; // the collapsed chunks' nodes
  uint32_t rf(size_t r) const { return uint32_t(2 + 2 * r); }
  uint32_t rj(size_t r) const { return uint32_t(3 + 2 * r); }
  uint32_t lf(size_t li) const { return uint32_t(2 + 2 * nr + 2 * li); }
  uint32_t lj(size_t li) const { return lf(li) + 1; }
  uint32_t tn(size_t k) const { return taskBase + uint32_t(k); }
  std::vector<uint32_t> tj; // per task
  // The chunks with a node of their own, ascending: every chunk (all), or
  // those something hangs off (anchored); the x-th's node chunkFrom + x
  // (no column per chunk).
  bool all = false;
  std::vector<uint64_t> anchored;
  uint32_t chunkFrom = 0;
  /// Chunk c's node: c made a task or started a region (anchored holds
  /// every such chunk), or every chunk has one.
  uint32_t cn(int64_t c) const {
    if (all)
      return chunkFrom + uint32_t(c);
    auto it = std::lower_bound(anchored.begin(), anchored.end(), uint64_t(c));
    assert(it != anchored.end() && *it == uint64_t(c));
    return chunkFrom + uint32_t(it - anchored.begin());
  }
  // The task forks' and joins' nodes start here, made per slot in kid
  // order: a kid's fork (if it has one), then (kept graphs) its join
  // point's join if the slot has none yet, else (the critical path alone)
  // that join after the forks of the run of kids that join there.
  // edges() numbers the forks again the same way (no table of them).
  uint32_t forkJoinFrom = 0;
  // Per region, the fork and join it hangs between (none: the process's,
  // chained in time order per encountering task). Dense where more than
  // half the regions have one, else only theirs (anchoredAt, ascending).
  std::vector<std::pair<uint32_t, uint32_t>> anchor;
  std::vector<uint32_t> anchoredAt;
  bool denseAnchors = false;
  /// Region r's anchor, the regions asked for in ascending order (at: a
  /// cursor in anchoredAt, from 0); {UINT32_MAX, UINT32_MAX}: none.
  std::pair<uint32_t, uint32_t> anchorOf(size_t r, size_t &at) const {
    if (denseAnchors)
      return anchor[r];
    while (at < anchoredAt.size() && anchoredAt[at] < r)
      at++;
    if (at < anchoredAt.size() && anchoredAt[at] == r)
      return anchor[at];
    return {UINT32_MAX, UINT32_MAX};
  }
  // The regions without an anchor, by encountering task, then time: in
  // topLevel, or (topLevel empty, topInOrder) those in index order.
  std::vector<uint32_t> topLevel;
  bool topInOrder = false;
  // The loop instances of each region (or task) in order: per group (in
  // the order first met) its run of grouped, from .. to (grouped empty:
  // the instances in order, grouped[x] x), and the region it hangs in (-1:
  // the process). to is the next group's from where the groups are in
  // the order of their runs (groupTo empty), else groupTo's.
  struct Group {
    uint32_t from;
    int32_t region;
  };
  std::vector<Group> groups;
  std::vector<uint32_t> groupTo;
  uint32_t groupEnd(size_t x, size_t nl) const {
    if (!groupTo.empty())
      return groupTo[x];
    return x + 1 < groups.size() ? groups[x + 1].from : uint32_t(nl);
  }
  std::vector<int> grouped;
  int groupedAt(size_t x) const {
    return grouped.empty() ? int(x) : grouped[x];
  }
  // Chunk starts per thread, sorted once, where tasks are made in chunks.
  std::vector<std::vector<std::pair<uint64_t, int32_t>>> starts;
};

uint32_t GrainDag::node(Kind k, uint64_t r) {
  if (nv == MaxNodes)
    throw Error("the critical path's graph: more than " +
                std::to_string(MaxNodes) + " nodes in one process");
  uint32_t v = nv++;
  if (keep)
    kind.push_back(k), ref.push_back(r);
  else if (k == Chunk)
    chunkRef.push_back(uint32_t(r));
  return v;
}

uint64_t GrainDag::grainRef(uint32_t v) const {
  if (keep)
    return ref[v];
  return kindOf(v) == Task ? v - taskBase : chunkRef[v - chunkBase];
}

/// Chunk i's weight: its work in ticks (0 where its times are unknown).
static double chunkWork(const Analysis &an, size_t i) {
  return an.chunkUnknown(i) ? 0.0 : double(an.chunks.span(i));
}

double GrainDag::weight(uint32_t v) const {
  Kind k = kindOf(v);
  if (k == Task)
    return an->taskOwnWork(grainRef(v));
  return k == Chunk ? chunkWork(*an, grainRef(v)) : 0;
}

/// The region whose implicit task id is, or -1.
static int64_t regionOfTask(const Analysis &an, uint64_t id) {
  auto it = an.implicit.find(id);
  if (it == an.implicit.end())
    return -1;
  return an.regionIndexOf(it);
}

GrainDag::GrainDag(const Analysis &an, bool everyGrain, bool keep)
    : an(&an), keep(keep) {
  {
    Parts p; // gone before the critical path's tables are made
    nodes(p, everyGrain);
    // At most 4 edges per region, 3 per loop (and its collapsed chunks), 2
    // per chunk node, 4 per task, 4 per join (kept graphs' joins).
    size_t maxEdges = 4 * p.nr + 3 * an.loops.size() +
                      2 * size_t(p.chunksEnd - chunkBase) +
                      4 * an.tasks.size() + 4 * joins.size() + 1;
    link.assign(nv, 0);
    // The edges by source (a counting sort), each source's in the order
    // made; link counts each node's in-edges.
    size_t ne = 0;
    out.expect(nv);
    auto count = [&](uint32_t s, uint32_t t) {
      out.count(s, t);
      link[t]++;
      ne++;
    };
    auto place = [&](uint32_t s, uint32_t t) { out.place(s, t); };
    if (keep) {
      // Reserved, not grown (maxEdges).
      src.reserve(maxEdges);
      dst.reserve(maxEdges);
      ekind.reserve(maxEdges);
      edges(p, [&](uint32_t s, uint32_t t, EdgeKind k) {
        src.push_back(s);
        dst.push_back(t);
        ekind.push_back(k);
      });
      for (size_t e = 0; e < src.size(); e++)
        count(src[e], dst[e]);
    } else {
      edges(p, [&](uint32_t s, uint32_t t, EdgeKind) { count(s, t); });
    }
    if (ne > MaxNodes)
      throw Error("the critical path's graph: more than " +
                  std::to_string(MaxNodes) + " edges in one process");
    out.make();
    if (keep)
      for (size_t e = 0; e < src.size(); e++)
        place(src[e], dst[e]);
    else
      edges(p, [&](uint32_t s, uint32_t t, EdgeKind) { place(s, t); });
    out.placed();
  }
  criticalPath();
}

void GrainDag::nodes(Parts &p, bool everyGrain) {
  const Analysis &an = *this->an;
  const Chunks &ch = an.chunks;
  const Tasks &T = an.tasks;
  size_t n = T.size(), nr = an.regionList.size(), nl = an.loops.size();
  p.nr = nr;
  // Reserved, not grown: no slack to pay for at 10^6 grains. Nodes: 2 per
  // region and loop, 1 per chunk, task and fork, at most 1 join per task.
  // For the figures alone: a chunk node per loop and per chunk something
  // hangs off (at most one per task and region).
  size_t maxNodes = 2 + 2 * nr + 2 * nl + 3 * n +
                    (everyGrain ? ch.size() : nl + std::min(ch.size(), n + nr));
  if (keep)
    kind.reserve(maxNodes), ref.reserve(maxNodes);
  node(Start, 0);
  node(End, 0); // node 1: the node End names below
  for (size_t r = 0; r < nr; r++) {
    node(RegionFork, r);
    node(RegionJoin, r);
  }
  for (size_t li = 0; li < nl; li++) {
    node(LoopFork, li);
    node(LoopJoin, li);
  }
  // Chunks. For the critical path alone, the chunks nothing hangs off (no
  // task, no region) of a loop instance are one node: the longest of them
  // (the others cannot be on the path).
  std::vector<uint64_t> &anchored = p.anchored;
  p.all = everyGrain;
  if (!everyGrain) {
    for (size_t k = 0; k < n; k++)
      if (an.madeInChunk(k) >= 0)
        anchored.push_back(uint64_t(an.madeInChunk(k)));
    for (const Region &R : an.regionList)
      if (R.chunk >= 0 && size_t(R.chunk) < ch.size())
        anchored.push_back(uint64_t(R.chunk));
    std::sort(anchored.begin(), anchored.end());
    anchored.erase(std::unique(anchored.begin(), anchored.end()),
                   anchored.end());
    anchored.shrink_to_fit();
  }
  // Chunks are numbered in 32 bits (chunkRef, longest).
  if (ch.size() >= UINT32_MAX)
    throw Error("the critical path's graph: more than " +
                std::to_string(UINT32_MAX - 1) + " chunks in one process");
  if (!keep)
    chunkRef.reserve(everyGrain ? ch.size()
                                : anchored.size() + std::min(nl, ch.size()));
  // Per loop instance, its longest chunk not anchored (UINT32_MAX: none);
  // its weight read again from the chunks.
  std::vector<uint32_t> longest(everyGrain ? 0 : nl, UINT32_MAX);
  p.chunkFrom = chunkBase = nv;
  work = 0;
  size_t at = 0; // the next anchored chunk
  for (size_t i = 0; i < ch.size(); i++) {
    double x = chunkWork(an, i);
    work += x;
    if (everyGrain || (at < anchored.size() && anchored[at] == i)) {
      node(Chunk, i);
      at++;
    } else if (longest[ch.loop[i]] == UINT32_MAX ||
               x > chunkWork(an, longest[ch.loop[i]])) {
      longest[ch.loop[i]] = uint32_t(i);
    }
  }
  p.collapsedFrom = nv;
  for (size_t li = 0; li < longest.size(); li++)
    if (longest[li] != UINT32_MAX)
      node(Chunk, longest[li]);
  p.chunksEnd = chunksEnd = nv;
  // Tasks, their forks, and the join points of their parents.
  // A task made inside a loop chunk by its implicit task hangs off that
  // chunk's node (its creation edge), without a fork node of its own.
  p.taskBase = taskBase = nv;
  for (size_t k = 0; k < n; k++) {
    node(Task, k);
    work += an.taskOwnWork(k);
  }
  p.tj.assign(n, 0);
  p.forkJoinFrom = tasksEnd = nv;
  std::vector<std::pair<uint32_t, uint32_t>> joinNode; // (join point, node)
  uint64_t nj = 0;
  // Kept graphs: a join point's join right after the fork of its first
  // task; else after the forks of the run of tasks that join there (then
  // a fork's edge to the next fork, and the last's to the join, are
  // EdgesBySource's nexts, not entries).
  bool forksFirst = !keep;
  auto joinOf = [&](size_t s, uint32_t at) {
    auto it = joinNode.rbegin(); // join points do not decrease: the last
    while (it != joinNode.rend() && it->first != at)
      ++it;
    if (it != joinNode.rend())
      return it->second;
    if (keep)
      joins.emplace_back(int64_t(s), at);
    joinNode.emplace_back(at, node(TaskJoin, nj++));
    return joinNode.back().second;
  };
  for (size_t s = 0; s < T.slots(); s++) {
    joinNode.clear();
    for (int64_t j = T.kidOff[s], e; j < T.kidOff[s + 1]; j = e) {
      uint32_t at = T.joinsAt[T.kids[j]], jn = UINT32_MAX;
      for (e = j; e < T.kidOff[s + 1] && T.joinsAt[T.kids[e]] == at; e++) {
        uint32_t k = T.kids[e];
        if (an.madeInChunk(k) < 0) // (one made in a chunk hangs off it)
          node(TaskFork, k);
        if (!forksFirst && jn == UINT32_MAX)
          jn = joinOf(s, at);
      }
      if (jn == UINT32_MAX)
        jn = joinOf(s, at);
      for (int64_t x = j; x < e; x++)
        p.tj[T.kids[x]] = jn;
    }
  }
  // Each region's anchor; the top-level ones by encountering task.
  auto anchorFor = [&](size_t r) -> std::pair<uint32_t, uint32_t> {
    const Region &R = an.regionList[r];
    int64_t k, pr;
    if (R.chunk >= 0 && size_t(R.chunk) < ch.size())
      return {p.cn(R.chunk), p.lj(ch.loop[R.chunk])};
    if ((k = T.index(an.encOf(R))) >= 0)
      return {p.tn(k), p.tj[k]};
    if ((pr = regionOfTask(an, an.encOf(R))) >= 0 && size_t(pr) != r)
      return {p.rf(pr), p.rj(pr)};
    return {UINT32_MAX, UINT32_MAX};
  };
  // Found once each (hash look-ups): listed, then dense where most have
  // one.
  std::vector<bool> atTop(nr, false);
  size_t top = 0;
  for (size_t r = 0; r < nr; r++) {
    auto a = anchorFor(r);
    if (a.first == UINT32_MAX)
      atTop[r] = true, top++;
    else
      p.anchoredAt.push_back(uint32_t(r)), p.anchor.push_back(a);
  }
  if (2 * (nr - top) > nr) {
    std::vector<std::pair<uint32_t, uint32_t>> dense;
    dense.reserve(nr);
    for (size_t r = 0, at = 0; r < nr; r++)
      dense.push_back(p.anchorOf(r, at)); // (from the list)
    p.anchor.swap(dense);
    std::vector<uint32_t>().swap(p.anchoredAt);
    p.denseAnchors = true;
  } else {
    p.anchor.shrink_to_fit();
    p.anchoredAt.shrink_to_fit();
  }
  auto byEncTime = [&](uint32_t a, uint32_t b) {
    const Region &A = an.regionList[a], &B = an.regionList[b];
    uint64_t ea = an.encOf(A), eb = an.encOf(B);
    return ea != eb ? ea < eb : A.t < B.t;
  };
  // In index order already (the usual): no column of them.
  p.topInOrder = true;
  for (size_t r = 0, last = SIZE_MAX; r < nr && p.topInOrder; r++)
    if (atTop[r]) {
      p.topInOrder =
          last == SIZE_MAX || !byEncTime(uint32_t(r), uint32_t(last));
      last = r;
    }
  if (!p.topInOrder) {
    p.topLevel.reserve(top);
    for (size_t r = 0; r < nr; r++)
      if (atTop[r])
        p.topLevel.push_back(uint32_t(r));
    std::stable_sort(p.topLevel.begin(), p.topLevel.end(), byEncTime);
  }
  // The loop instances of each region (or task) in order: grouped by key
  // (kind, region or task, thread), the groups in the order first met,
  // each's instances in the order met, sorted by their last key where
  // they were not met in order.
  std::vector<int> &g = p.grouped;
  g.resize(nl);
  for (size_t li = 0; li < nl; li++)
    g[li] = int(li);
  auto keyOf = [&](int x) {
    const Loop &lp = an.loops[x];
    return std::make_tuple(int(lp.keyKind), lp.k0(),
                           lp.keyKind == 2 ? lp.k1() : uint64_t(0));
  };
  auto byKey = [&](int x, int y) { return keyOf(x) < keyOf(y); };
  if (!std::is_sorted(g.begin(), g.end(), byKey)) // met in order: usual
    std::stable_sort(g.begin(), g.end(), byKey);
  size_t ng = nl ? 1 : 0; // counted first: no slack
  for (size_t x = 1; x < nl; x++)
    ng += keyOf(g[x]) != keyOf(g[x - 1]);
  p.groups.reserve(ng);
  for (size_t a = 0, b; a < nl; a = b) {
    for (b = a + 1; b < nl && keyOf(g[b]) == keyOf(g[a]); b++)
      ;
    p.groups.push_back({uint32_t(a), -1});
  }
  auto firstMet = [&](const Parts::Group &x, const Parts::Group &y) {
    return g[x.from] < g[y.from];
  };
  if (!std::is_sorted(p.groups.begin(), p.groups.end(), firstMet)) {
    // Their ends, before they leave the order of their runs.
    std::vector<std::pair<Parts::Group, uint32_t>> ends;
    ends.reserve(ng);
    for (size_t x = 0; x < ng; x++)
      ends.emplace_back(p.groups[x], p.groupEnd(x, nl));
    std::sort(ends.begin(), ends.end(), [&](const auto &x, const auto &y) {
      return firstMet(x.first, y.first);
    });
    p.groupTo.reserve(ng);
    for (size_t x = 0; x < ng; x++)
      p.groups[x] = ends[x].first, p.groupTo.push_back(ends[x].second);
  }
  auto byLast = [&](int x, int y) {
    return an.loops[x].lastKey(x) < an.loops[y].lastKey(y);
  };
  for (size_t x = 0; x < ng; x++) {
    Parts::Group &gr = p.groups[x];
    auto a = g.begin() + gr.from, b = g.begin() + p.groupEnd(x, nl);
    if (!std::is_sorted(a, b, byLast))
      std::stable_sort(a, b, byLast);
    const Loop &l0 = an.loops[*a];
    int64_t r = -1;
    if (l0.keyKind == 0) {
      r = an.regionIndex(l0.k0());
    } else {
      r = regionOfTask(an, l0.keyKind == 1 ? l0.k0() : l0.k1());
    }
    gr.region = int32_t(r);
  }
  // Met in order (the usual): no column of them beside the graph.
  bool inOrder = true;
  for (size_t x = 0; x < nl && inOrder; x++)
    inOrder = g[x] == int(x);
  if (inOrder)
    std::vector<int>().swap(g);
}

template <class Edge> void GrainDag::edges(Parts &p, Edge &&edge) const {
  const Analysis &an = *this->an;
  const Chunks &ch = an.chunks;
  const Tasks &T = an.tasks;
  size_t n = T.size(), nr = p.nr;
  // The collapsed chunks of each loop instance.
  for (uint32_t c = p.collapsedFrom; c < p.chunksEnd; c++) {
    int32_t li = ch.loop[grainRef(c)];
    edge(p.lf(li), c, Creation);
    edge(c, p.lj(li), Synchronization);
  }
  // Regions in their anchors.
  for (size_t r = 0, at = 0; r < nr; r++) {
    edge(p.rf(r), p.rj(r), Scope);
    auto [f, j] = p.anchorOf(r, at);
    if (f == UINT32_MAX)
      continue;
    edge(f, p.rf(r), Continuation);
    edge(p.rj(r), j, Continuation);
  }
  { // The top-level ones chained per encountering task.
    uint32_t prev = UINT32_MAX;
    uint64_t enc = 0;
    auto chain = [&](uint32_t r) {
      const Region &R = an.regionList[r];
      if (prev == UINT32_MAX || an.encOf(R) != enc) {
        if (prev != UINT32_MAX)
          edge(prev, End, Continuation);
        prev = Start, enc = an.encOf(R);
      }
      edge(prev, p.rf(r), Continuation);
      prev = p.rj(r);
    };
    if (p.topInOrder) {
      for (size_t r = 0, at = 0; r < nr; r++)
        if (p.anchorOf(r, at).first == UINT32_MAX)
          chain(uint32_t(r));
    } else {
      for (uint32_t r : p.topLevel)
        chain(r);
    }
    if (prev != UINT32_MAX)
      edge(prev, End, Continuation);
  }
  // The loop instances of each region (or task) in order.
  for (size_t y = 0; y < p.groups.size(); y++) {
    const Parts::Group &gr = p.groups[y];
    uint32_t prev = gr.region >= 0 ? p.rf(gr.region) : uint32_t(Start);
    uint32_t last = gr.region >= 0 ? p.rj(gr.region) : uint32_t(End);
    for (size_t x = gr.from, to = p.groupEnd(y, an.loops.size()); x < to; x++) {
      int li = p.groupedAt(x);
      edge(prev, p.lf(li), Continuation);
      edge(p.lf(li), p.lj(li), Scope);
      prev = p.lj(li);
    }
    edge(prev, last, Continuation);
  }
  size_t own = p.all ? ch.size() : p.anchored.size(); // chunks with nodes
  for (size_t x = 0; x < own; x++) {
    size_t i = p.all ? x : size_t(p.anchored[x]);
    uint32_t c = p.chunkFrom + uint32_t(x);
    edge(p.lf(ch.loop[i]), c, Creation);
    edge(c, p.lj(ch.loop[i]), Synchronization);
  }
  // The loop instance of the last chunk a thread started before t, or -1
  // (chunk starts per thread, sorted once, where tasks are made in chunks).
  auto loopBefore = [&](int32_t th, uint64_t t) -> int64_t {
    auto &starts = p.starts;
    if (starts.empty()) {
      for (size_t i = 0; i < ch.size(); i++) {
        if (size_t(ch.thread[i]) >= starts.size())
          starts.resize(size_t(ch.thread[i]) + 1);
        starts[ch.thread[i]].emplace_back(ch.start[i], ch.loop[i]);
      }
      for (auto &v : starts)
        std::sort(v.begin(), v.end());
    }
    if (th < 0 || size_t(th) >= starts.size())
      return -1;
    const auto &v = starts[th];
    auto it = std::lower_bound(v.begin(), v.end(),
                               std::make_pair(t, int32_t(INT32_MIN)));
    return it == v.begin() ? -1 : std::prev(it)->second;
  };
  // The chunk node that made task k, or UINT32_MAX.
  auto maker = [&](size_t k) -> uint32_t {
    int64_t c = an.madeInChunk(k);
    return c < 0 ? UINT32_MAX : p.cn(c);
  };
  // Each parent's children: forks in creation order, a join per join point.
  // The forks' nodes numbered as nodes() made them (Parts::forkJoinFrom).
  uint32_t next = p.forkJoinFrom;
  std::vector<uint32_t> seen;       // the slot's join points met
  bool forksFirst = !keep;          // as nodes() numbered them
  auto joinMet = [&](uint32_t at) { // a join node made at its first
    auto it = seen.rbegin();
    while (it != seen.rend() && *it != at)
      ++it;
    if (it == seen.rend())
      seen.push_back(at), next++;
  };
  for (size_t s = 0; s < T.slots(); s++) {
    if (T.kidOff[s] == T.kidOff[s + 1])
      continue;
    seen.clear();
    uint32_t prev, last;
    if (s < n) {
      prev = p.tn(s);
      last = p.tj[s];
    } else {
      int64_t r = regionOfTask(an, T.slotId(s));
      prev = r >= 0 ? p.rf(r) : uint32_t(Start);
      last = r >= 0 ? p.rj(r) : uint32_t(End);
    }
    // Kids are in creation order; their join points do not decrease.
    for (int64_t j = T.kidOff[s]; j < T.kidOff[s + 1];) {
      int64_t e = j;
      uint32_t jn = T.joinsAt[T.kids[j]];
      int64_t lastMaker = -1; // the chunk that made the last of them
      for (; e < T.kidOff[s + 1] && T.joinsAt[T.kids[e]] == jn; e++) {
        uint32_t k = T.kids[e], c = maker(k), fork = UINT32_MAX;
        if (c == UINT32_MAX)
          fork = next++;
        if (!forksFirst && e == j) // its join was made after it
          joinMet(jn);
        if (c != UINT32_MAX) { // made by a chunk: its creation edge
          edge(c, p.tn(k), Creation);
          lastMaker = an.madeInChunk(k);
          continue;
        }
        edge(prev, fork, Continuation);
        edge(fork, p.tn(k), Creation);
        prev = fork;
      }
      if (forksFirst) // its join was made after their forks
        joinMet(jn);
      uint32_t join = p.tj[T.kids[j]];
      edge(prev, join, Continuation);
      for (int64_t x = j; x < e; x++)
        edge(p.tn(T.kids[x]), join, Synchronization);
      if (lastMaker >= 0 && T.waitOff[s] + jn < T.waitOff[s + 1]) {
        int32_t li = ch.loop[lastMaker];
        if (loopBefore(ch.thread[lastMaker], T.wBegin[T.waitOff[s] + jn]) == li)
          edge(join, p.lj(li), Continuation);
      }
      prev = join;
      j = e;
    }
    edge(prev, last, Continuation);
  }
  // Nothing at all: the process still runs from start to end.
  if (nr == 0 && an.loops.empty() && n == 0)
    edge(Start, End, Continuation);
}

void EdgesBySource::make() {
  size_t n = rel.size(), nb = (n + 7) / 8; // the nodes and one past
  base.assign(nb, 0);
  wide.clear();
  auto counted = [&](size_t v) {
    return rel[v] == 255 ? over.find(uint32_t(v))->second : uint32_t(rel[v]);
  };
  uint32_t s0 = 0; // the block's first edge's place
  for (size_t k = 0; k < nb; k++) {
    size_t first = 8 * k, last = std::min(first + 8, n);
    uint64_t sum = 0;
    for (size_t v = first; v < last; v++)
      sum += counted(v);
    if (sum <= 255) { // each node's place from the block's first
      base[k] = s0;
      for (size_t v = first, at = 0; v < last; v++) {
        uint32_t c = rel[v];
        rel[v] = uint8_t(at);
        at += c;
      }
    } else { // its nodes' places, the block's end in the rest of the row
      base[k] = Wide | uint32_t(wide.size() / 8);
      uint32_t at = s0;
      for (size_t v = first; v < first + 8; v++) {
        wide.push_back(at);
        if (v < last)
          at += counted(v), rel[v] = 0;
      }
    }
    s0 += uint32_t(sum);
  }
  std::unordered_map<uint32_t, uint32_t>().swap(over);
  adj.assign(s0, 0);
}

void EdgesBySource::placed() {
  std::vector<uint64_t>().swap(seen);
  // Each node's place is its end (the next node's start): back to its
  // start, the last block first (a block's start is the end of the one
  // before it, not yet moved back).
  size_t n = rel.size();
  for (size_t k = base.size(); k-- > 0;) {
    size_t first = 8 * k, last = std::min(first + 8, n);
    uint32_t b = base[k];
    if (b & Wide) {
      uint32_t *w = &wide[size_t(b & ~Wide) * 8];
      for (size_t j = last - first - 1; j > 0; j--)
        w[j] = w[j - 1];
      w[0] = k ? from(uint32_t(first - 1)) : 0;
    } else {
      for (size_t v = last - 1; v > first; v--)
        rel[v] = rel[v - 1];
      rel[first] = 0;
    }
  }
}

void EdgesBySource::clear() {
  std::vector<uint32_t>().swap(base);
  std::vector<uint32_t>().swap(wide);
  std::vector<uint32_t>().swap(adj);
  std::vector<uint8_t>().swap(rel);
  std::vector<uint8_t>().swap(nx);
  std::vector<uint64_t>().swap(seen);
}

void detail::ReadyQueue::addBlock() {
  blocks.push_back(spare ? std::move(spare) : std::make_unique<Entries>());
}

void detail::ReadyQueue::dropBlock() {
  spare = std::move(blocks.front());
  blocks.erase(blocks.begin());
  head = 0;
}

void GrainDag::prefetchWeight(uint32_t v) const {
  // A task's weight reads its columns at random (the path's order): asked
  // for when it is queued, they are there when it is taken.
  if (v < taskBase || v >= tasksEnd || keep)
    return;
  const Tasks &T = an->tasks;
  size_t k = v - taskBase;
  T.overhead.prefetch(k);
  __builtin_prefetch(&T.segOff[k]);
}

void GrainDag::criticalPath() {
  // Kahn's order (longestPaths); link becomes each node's predecessor.
  if (keep)
    earliest.assign(nv, 0);
  double endBest = 0;
  size_t taken = longestPaths(
      nv, out, link.data(), [this](uint32_t v) { return weight(v); },
      [this](uint32_t v) { prefetchWeight(v); },
      [&](uint32_t v, double before, double after) {
        if (keep)
          earliest[v] = before;
        if (v == End)
          endBest = after;
      });
  out.clear();
  acyclic = taken == nv;
  if (keep)
    onPath.assign(nv, 0);
  if (acyclic) { // the path, end first: its grains counted, then kept
    span = endBest;
    size_t nc = 0, nt = 0;
    for (uint32_t v = End; v != UINT32_MAX; v = link[v])
      nc += kindOf(v) == Chunk, nt += kindOf(v) == Task;
    pathChunks.reserve(nc);
    pathTasks.reserve(nt);
    for (uint32_t v = End; v != UINT32_MAX; v = link[v]) {
      if (keep)
        onPath[v] = 1;
      if (kindOf(v) == Chunk)
        pathChunks.push_back(grainRef(v));
      else if (kindOf(v) == Task)
        pathTasks.push_back(grainRef(v));
    }
  }
  std::vector<uint32_t>().swap(link);
  if (!keep) { // the figures alone: the graph is not read again
    std::vector<uint32_t>().swap(chunkRef);
  }
}

std::vector<uint32_t> grainIndices32(const std::vector<uint64_t> &v,
                                     const char *what) {
  std::vector<uint32_t> out;
  out.reserve(v.size());
  for (uint64_t i : v) {
    if (i > UINT32_MAX)
      throw Error(std::string("the critical path: ") + what + " " +
                  std::to_string(i) +
                  " of one process (its grains are numbered in 32 bits: at "
                  "most 2^32 " +
                  what + "s)");
    out.push_back(uint32_t(i));
  }
  return out;
}

CritPath computeCritPath(const Analysis &an) {
  GrainDag g(an, false);
  return CritPath{g.acyclic, g.span, g.work,
                  grainIndices32(g.pathChunks, "chunk"),
                  grainIndices32(g.pathTasks, "task")};
}

} // namespace gcg

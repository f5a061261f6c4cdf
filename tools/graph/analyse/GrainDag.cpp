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

#include <algorithm>
#include <climits>
#include <iterator>
#include <map>
#include <tuple>

namespace gcg {

uint32_t GrainDag::node(Kind k, uint64_t r, double weight) {
  kind.push_back(k);
  ref.push_back(r);
  w.push_back(weight);
  return uint32_t(kind.size() - 1);
}

void GrainDag::edge(uint32_t s, uint32_t t, EdgeKind k) {
  src.push_back(s);
  dst.push_back(t);
  ekind.push_back(k);
}

GrainDag::GrainDag(const Analysis &an, bool everyGrain, bool keep) {
  build(an, everyGrain); // its tables of node numbers are gone after it
  criticalPath(keep);
}

void GrainDag::build(const Analysis &an, bool everyGrain) {
  const Chunks &ch = an.chunks;
  const Tasks &T = an.tasks;
  size_t n = T.size();
  uint32_t start = node(Start, 0);
  node(End, 0); // node 1: the node End names below
  // Nodes. Regions.
  size_t nr = an.regionList.size();
  std::vector<uint32_t> rf(nr), rj(nr);
  // Reserved, not grown: no slack to pay for at 10^6 grains. Nodes: 2 per
  // region and loop, 1 per chunk, task and fork, at most 1 join per task.
  // For the figures alone: a chunk node per loop and per chunk something
  // hangs off (at most one per task and region).
  size_t nl = an.loops.size(),
         maxNodes = 2 + 2 * nr + 2 * nl + 3 * n +
                    (everyGrain ? ch.size() : nl + std::min(ch.size(), n + nr));
  kind.reserve(maxNodes);
  ref.reserve(maxNodes);
  w.reserve(maxNodes);
  for (size_t r = 0; r < nr; r++) {
    rf[r] = node(RegionFork, r);
    rj[r] = node(RegionJoin, r);
  }
  auto regionOfTask = [&](uint64_t id) -> int64_t {
    auto it = an.implicit.find(id);
    if (it == an.implicit.end())
      return -1;
    auto r = an.regions.find(it->second.par);
    return r == an.regions.end() ? -1 : int64_t(r->second);
  };
  // Loops and chunks. For the critical path alone, the chunks nothing
  // hangs off (no task, no region) of a loop instance are one node: the
  // longest of them (the others cannot be on the path).
  std::vector<uint32_t> lf(an.loops.size()), lj(an.loops.size());
  for (size_t li = 0; li < an.loops.size(); li++) {
    lf[li] = node(LoopFork, li);
    lj[li] = node(LoopJoin, li);
  }
  std::vector<uint8_t> anchor;
  if (!everyGrain) {
    anchor.assign(ch.size(), 0);
    for (size_t k = 0; k < n; k++)
      if (an.madeInChunk(k) >= 0)
        anchor[an.madeInChunk(k)] = 1;
    for (const Region &R : an.regionList)
      if (R.chunk >= 0 && size_t(R.chunk) < ch.size())
        anchor[R.chunk] = 1;
  }
  std::vector<uint32_t> cn(ch.size(), UINT32_MAX);
  std::vector<int64_t> longest(everyGrain ? 0 : an.loops.size(), -1);
  std::vector<double> longestW(longest.size(), -1);
  work = 0;
  for (size_t i = 0; i < ch.size(); i++) {
    double x = an.chunkUnknown(i) ? 0.0 : double(ch.end[i] - ch.start[i]);
    work += x;
    if (everyGrain || anchor[i]) {
      cn[i] = node(Chunk, i, x);
    } else if (x > longestW[ch.loop[i]]) {
      longestW[ch.loop[i]] = x;
      longest[ch.loop[i]] = int64_t(i);
    }
  }
  std::vector<uint8_t>().swap(anchor);
  for (size_t li = 0; li < longest.size(); li++)
    if (longest[li] >= 0) {
      uint32_t c = node(Chunk, uint64_t(longest[li]), longestW[li]);
      edge(lf[li], c, Creation);
      edge(c, lj[li], Synchronization);
    }
  // Tasks, their forks, and the join points of their parents.
  // A task made inside a loop chunk by its implicit task hangs off that
  // chunk's node (its creation edge), without a fork node of its own.
  auto maker = [&](size_t k) -> uint32_t {
    int64_t c = an.madeInChunk(k);
    return c < 0 ? UINT32_MAX : cn[c];
  };
  std::vector<uint32_t> tn(n), tf(n, UINT32_MAX), tj(n);
  for (size_t k = 0; k < n; k++) {
    tn[k] = node(Task, k, an.taskOwnWork(k));
    work += w.back();
  }
  size_t slots = T.slotId.size();
  for (size_t p = 0; p < slots; p++) {
    std::map<uint32_t, uint32_t> joinNode;
    for (int64_t j = T.kidOff[p]; j < T.kidOff[p + 1]; j++) {
      uint32_t k = T.kids[j];
      if (maker(k) == UINT32_MAX)
        tf[k] = node(TaskFork, k);
      auto it = joinNode.find(T.joinsAt[k]);
      if (it == joinNode.end()) {
        joins.emplace_back(int64_t(p), T.joinsAt[k]);
        it = joinNode.emplace(T.joinsAt[k], node(TaskJoin, joins.size() - 1))
                 .first;
      }
      tj[k] = it->second;
    }
  }
  // Edges: at most 4 per region, 3 per loop (and its collapsed chunks), 2
  // per chunk node, 4 per task, 4 per join point.
  size_t chunkNodes = size_t(std::count(kind.begin(), kind.end(), Chunk));
  src.reserve(4 * nr + 3 * nl + 2 * chunkNodes + 4 * n + 4 * joins.size() + 1);
  dst.reserve(src.capacity());
  ekind.reserve(src.capacity());
  // Edges. Regions in their anchors.
  std::map<uint64_t, std::vector<size_t>> topLevel; // by encountering task
  for (size_t r = 0; r < nr; r++) {
    const Region &R = an.regionList[r];
    edge(rf[r], rj[r], Scope);
    uint32_t f, j;
    int64_t k, pr;
    if (R.chunk >= 0 && size_t(R.chunk) < ch.size()) {
      f = cn[R.chunk];
      j = lj[ch.loop[R.chunk]];
    } else if ((k = T.index(R.enc)) >= 0) {
      f = tn[k];
      j = tj[k];
    } else if ((pr = regionOfTask(R.enc)) >= 0 && size_t(pr) != r) {
      f = rf[pr];
      j = rj[pr];
    } else {
      topLevel[R.enc].push_back(r);
      continue;
    }
    edge(f, rf[r], Continuation);
    edge(rj[r], j, Continuation);
  }
  for (auto &[enc, rs] : topLevel) {
    std::stable_sort(rs.begin(), rs.end(), [&](size_t a, size_t b) {
      return an.regionList[a].t < an.regionList[b].t;
    });
    uint32_t prev = start;
    for (size_t r : rs) {
      edge(prev, rf[r], Continuation);
      prev = rj[r];
    }
    edge(prev, End, Continuation);
  }
  // The loop instances of each region (or task) in order.
  std::map<std::tuple<int, uint64_t, uint64_t>, std::vector<int>> groups;
  std::vector<std::tuple<int, uint64_t, uint64_t>> groupOrder;
  for (const Loop &lp : an.loops) {
    auto key = std::make_tuple(lp.keyKind, lp.k0, lp.keyKind == 2 ? lp.k1 : 0);
    auto &g = groups[key];
    if (g.empty())
      groupOrder.push_back(key);
    g.push_back(lp.index);
  }
  for (auto &key : groupOrder) {
    std::vector<int> &g = groups[key];
    auto byKey = [&](int x, int y) {
      return an.loops[x].lastKey() < an.loops[y].lastKey();
    };
    if (!std::is_sorted(g.begin(), g.end(), byKey)) // met in order: usual
      std::stable_sort(g.begin(), g.end(), byKey);
    const Loop &l0 = an.loops[g[0]];
    int64_t r = -1;
    if (l0.keyKind == 0) {
      auto it = an.regions.find(l0.k0);
      r = it == an.regions.end() ? -1 : int64_t(it->second);
    } else {
      r = regionOfTask(l0.keyKind == 1 ? l0.k0 : l0.k1);
    }
    uint32_t prev = r >= 0 ? rf[r] : start, last = r >= 0 ? rj[r] : End;
    for (int li : g) {
      edge(prev, lf[li], Continuation);
      edge(lf[li], lj[li], Scope);
      prev = lj[li];
    }
    edge(prev, last, Continuation);
  }
  for (size_t i = 0; i < ch.size(); i++)
    if (cn[i] != UINT32_MAX) {
      edge(lf[ch.loop[i]], cn[i], Creation);
      edge(cn[i], lj[ch.loop[i]], Synchronization);
    }
  // The loop instance of the last chunk a thread started before t, or -1
  // (chunk starts per thread, sorted once, where tasks are made in chunks).
  std::vector<std::vector<std::pair<uint64_t, int32_t>>> starts;
  auto loopBefore = [&](int32_t th, uint64_t t) -> int64_t {
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
  // Each parent's children: forks in creation order, a join per join point.
  for (size_t p = 0; p < slots; p++) {
    if (T.kidOff[p] == T.kidOff[p + 1])
      continue;
    uint32_t prev, last;
    if (p < n) {
      prev = tn[p];
      last = tj[p];
    } else {
      int64_t r = regionOfTask(T.slotId[p]);
      prev = r >= 0 ? rf[r] : start;
      last = r >= 0 ? rj[r] : End;
    }
    // Kids are in creation order; their join points do not decrease.
    for (int64_t j = T.kidOff[p]; j < T.kidOff[p + 1];) {
      int64_t e = j;
      uint32_t jn = T.joinsAt[T.kids[j]];
      int64_t lastMaker = -1; // the chunk that made the last of them
      for (; e < T.kidOff[p + 1] && T.joinsAt[T.kids[e]] == jn; e++) {
        uint32_t k = T.kids[e], c = maker(k);
        if (c != UINT32_MAX) { // made by a chunk: its creation edge
          edge(c, tn[k], Creation);
          lastMaker = an.madeInChunk(k);
          continue;
        }
        edge(prev, tf[k], Continuation);
        edge(tf[k], tn[k], Creation);
        prev = tf[k];
      }
      uint32_t join = tj[T.kids[j]];
      edge(prev, join, Continuation);
      for (int64_t x = j; x < e; x++)
        edge(tn[T.kids[x]], join, Synchronization);
      if (lastMaker >= 0 && T.waitOff[p] + jn < T.waitOff[p + 1]) {
        int32_t li = ch.loop[lastMaker];
        if (loopBefore(ch.thread[lastMaker], T.wBegin[T.waitOff[p] + jn]) == li)
          edge(join, lj[li], Continuation);
      }
      prev = join;
      j = e;
    }
    edge(prev, last, Continuation);
  }
  // Nothing at all: the process still runs from start to end.
  if (nr == 0 && an.loops.empty() && n == 0)
    edge(start, End, Continuation);
}

void GrainDag::criticalPath(bool keep) {
  size_t nv = w.size(), ne = src.size();
  if (!keep) { // the figures alone: kind and ref name the path's grains
    std::vector<std::pair<int64_t, uint32_t>>().swap(joins);
    std::vector<uint8_t>().swap(ekind);
  }
  // The edges by source (counting sort): off[v] .. off[v + 1].
  std::vector<uint32_t> off(nv + 1, 0), adj(ne), indeg(nv, 0);
  for (size_t e = 0; e < ne; e++) {
    off[src[e]]++;
    indeg[dst[e]]++;
  }
  for (size_t v = 1; v <= nv; v++)
    off[v] += off[v - 1];
  for (size_t e = ne; e-- > 0;)
    adj[--off[src[e]]] = dst[e];
  if (!keep) {
    std::vector<uint32_t>().swap(src);
    std::vector<uint32_t>().swap(dst);
  }
  // Kahn's order; best[v]: the longest path ending just before v.
  // best[u] becomes the longest path ending with u once u is reached.
  std::vector<double> best(nv, 0);
  std::vector<uint32_t> pred(nv, UINT32_MAX), queue;
  queue.reserve(nv);
  for (size_t v = 0; v < nv; v++)
    if (!indeg[v])
      queue.push_back(uint32_t(v));
  if (keep)
    earliest.assign(nv, 0);
  for (size_t q = 0; q < queue.size(); q++) {
    uint32_t u = queue[q];
    if (keep)
      earliest[u] = best[u];
    double du = best[u] += w[u];
    for (uint32_t x = off[u]; x < off[u + 1]; x++) {
      uint32_t v = adj[x];
      if (pred[v] == UINT32_MAX || du > best[v]) {
        best[v] = du;
        pred[v] = u;
      }
      if (--indeg[v] == 0)
        queue.push_back(v);
    }
  }
  acyclic = queue.size() == nv;
  onPath.assign(nv, 0);
  if (!acyclic) {
    if (!keep) {
      std::vector<uint8_t>().swap(kind);
      std::vector<uint64_t>().swap(ref);
    }
    return;
  }
  span = best[End];
  for (uint32_t v = End; v != UINT32_MAX; v = pred[v]) {
    onPath[v] = 1;
    if (kind[v] == Chunk)
      pathChunks.push_back(ref[v]);
    else if (kind[v] == Task)
      pathTasks.push_back(ref[v]);
  }
  if (!keep) {
    std::vector<uint8_t>().swap(kind);
    std::vector<uint64_t>().swap(ref);
  }
}

CritPath computeCritPath(const Analysis &an) {
  GrainDag g(an, false);
  return CritPath{g.acyclic, g.span, g.work, std::move(g.pathChunks),
                  std::move(g.pathTasks)};
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CoarseGraph.h - a process's grains merged as a reader merges them --===//
//
// What the aggregated outputs draw when every grain would not fit their
// byte caps (Writers.h: Caps), and report.html's grain graph always: one
// process's grain graph with grains merged into groups, at a level of
// coarseness chosen by the writer (coarseLevelFor: by a node budget).
//
//   - Loops: the process's loop instances in the order they started, cut
//     into blocks of `block` consecutive instances; within a block the
//     instances of one loop are one fork, a node per thread (their chunks)
//     and one join. block 1: a group per loop instance and thread; block
//     0: one group per loop and thread over the whole run.
//   - Tasks: per generation (the tasks an implicit task made, the tasks
//     those made, ...), join point of their parents and creation site; or,
//     with bySite, one group per creation site.
//
// The graph is one DAG from a start node to an end node: the blocks are
// chained in time order, each task generation's chain hangs from its
// parents' groups (the first from start), and whatever has no successor
// goes to end. LoopSpans is the same merging for the timelines (trace.json,
// report.html): per loop, thread and block of consecutive instances.
// coarsePath is the critical path drawn through the graph: one path from
// start to end (report.html draws it, not every edge between two groups
// that hold path grains).
//
// Processes of the same shape (the aggregated grains.graphml): a process's
// shape at a level is a hash of its coarse graph's structure (shapeOf: the
// nodes' kinds, names, locations, threads and fork, join, start and end
// labels but those naming a task generation by its implicit task's runtime
// id, and the edges; not the values nor the ids). Processes of equal
// sizes and shapes are a class, drawn as one DAG. The level is chosen with
// the class count in the budget (shapeLevelFor), by this rule: the levels
// are tried in coarseLevelFor's order, from one group per loop instance
// and thread; at each, the classes are made at that level (a process's
// shape is made only where its estimated size is another's: processes of
// other sizes are never alike; and none where even every process of a
// size alike would pass the cap, the least estimate: a shape is a coarse
// graph built, a node per chunk at the finest levels, and the next level
// is then as many times coarser as that least estimate is over the cap),
// the estimate is the classes' first
// members' sizes times the bytes per element, and the level is taken when
// that estimate and then the output's bytes (exact for classes of one
// process, at most for the others) are within the cap; else the next is as
// many times coarser as the larger of the two is over the cap. Each step
// is strictly coarser and start and end alone ends it, so it ends; every
// input is the processes' figures in run order, so it is deterministic,
// and an MPI job's ranks (each its own processes' figures, exchanged)
// reach the same level as one command. Where no two processes are alike
// it is the search the writer made before classes (the same estimates,
// the file's bytes).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_COARSEGRAPH_H
#define GRAINCHUNK_GRAPH_COARSEGRAPH_H

#include "Analysis.h"
#include "GrainDag.h"
#include "LoopTable.h"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcg {

/// One loop's instances block..block+n-1 (of that loop's, in time order)
/// on one thread; block 1: one loop instance and thread.
struct LoopSpan {
  int loop = 0;      // its first instance (an.loops index)
  int instances = 0; // how many it merges (with chunks on this thread)
  int th = 0;
  bool hasWork = true;
  int64_t chunks = 0;
  int64_t work = 0, minWork = 0, maxWork = 0;
  uint64_t first = 0, last = 0; // the first chunk's start, the last's end
};
/// Per loop (LoopTable::loopOf: its name and code address), thread and block of
/// `block` consecutive instances of that loop (0: all of them), in the order of
/// their first instance. spanOf, when given, gets per loop instance (an.loops
/// index) its block's first span (the block's spans are consecutive, one per
/// thread, each with the block's first instance as its loop), -1 for one
/// without chunks.
std::vector<LoopSpan> loopSpans(const LoopTable &lt, uint64_t block,
                                std::vector<int> *spanOf = nullptr);
/// Span s with row r (with chunks) of its (block, thread) merged in: its
/// first (loop: the block's first instance), or one after it.
inline LoopSpan firstSpanRow(int loop, const LoopThread &r) {
  LoopSpan s;
  s.loop = loop;
  s.th = r.th;
  s.first = r.first, s.last = r.last;
  s.minWork = r.minWork, s.maxWork = r.maxWork;
  return s;
}
inline void addSpanRow(LoopSpan &s, const LoopThread &r) {
  s.instances++;
  s.chunks += r.chunks;
  s.hasWork = s.hasWork && r.hasWork;
  s.work += r.work;
  s.first = std::min(s.first, r.first);
  s.last = std::max(s.last, r.last);
  s.minWork = std::min(s.minWork, r.minWork);
  s.maxWork = std::max(s.maxWork, r.maxWork);
}

/// loopSpansAt's spans (loopSpans, loopSpansOf: the same spans in the same
/// order) made as the instances come in start order, each given to
/// done(span, extra) once it and every span before it are complete: not
/// all held. A block's spans are held from its first instance to its last
/// (or the end: block 0) and while a block begun before it is open: one
/// block at a time where a loop's instances follow each other, one per
/// loop where loops take turns. Per span, with its (block, thread) found
/// from its rows' thread (the place of the row in its instance first, then
/// along the block's spans, past 32 of them by a table): 64 bytes, an
/// Extra and a row number. Each row with chunks is given to row(r, x,
/// extra) (its number, its values, its span's Extra: Extra{} at first).
/// Within a block the spans come in the order their threads are met in
/// row order (their first rows' numbers).
template <class Extra, class Row, class Done>
void streamLoopSpans(const std::vector<int32_t> &loopOf, size_t nLoops,
                     const StartOrder &byStart, const LoopRows &rows,
                     uint64_t block, Row &&row, Done &&done) {
  struct Open {
    LoopSpan s;
    Extra extra{};
    size_t firstRow = 0; // its first row in row order
  };
  struct Blk {
    int first = 0;
    uint64_t instances = 0;
    bool closed = false;
    std::vector<Open> spans;
    std::unordered_map<int, uint32_t> byThread; // past 32 spans
  };
  constexpr size_t Listed = 32;
  std::deque<Blk> pending; // from the oldest block not given yet
  size_t base = 0;         // pending.front()'s number
  std::vector<size_t> cur(nLoops, SIZE_MAX); // per loop its open block
  auto flush = [&] {
    while (!pending.empty() && pending.front().closed) {
      std::vector<Open> &sp = pending.front().spans;
      std::sort(sp.begin(), sp.end(), [](const Open &a, const Open &b) {
        return a.firstRow < b.firstRow;
      });
      for (const Open &o : sp)
        done(o.s, o.extra);
      pending.pop_front();
      base++;
    }
  };
  // Instance li's block (opened at its first instance).
  auto blockOf = [&](int li) -> Blk & {
    size_t key = size_t(loopOf[size_t(li)]);
    if (cur[key] == SIZE_MAX) {
      cur[key] = base + pending.size();
      pending.emplace_back();
      pending.back().first = li;
    }
    return pending[cur[key] - base];
  };
  // Row r of its instance's rows (its j-th) into block b's span of its
  // thread.
  auto add = [&](Blk &b, size_t j, size_t r, const LoopThread &x) {
    if (!x.chunks)
      return;
    Open *o = nullptr;
    if (j < b.spans.size() && b.spans[j].s.th == x.th) {
      o = &b.spans[j];
    } else if (b.spans.size() <= Listed) {
      for (Open &c : b.spans)
        if (c.s.th == x.th) {
          o = &c;
          break;
        }
    } else {
      auto it = b.byThread.find(x.th);
      if (it != b.byThread.end())
        o = &b.spans[it->second];
    }
    if (!o) {
      if (b.spans.size() == Listed)
        for (uint32_t i = 0; i < Listed; i++)
          b.byThread.emplace(b.spans[i].s.th, i);
      if (b.spans.size() >= Listed)
        b.byThread.emplace(x.th, uint32_t(b.spans.size()));
      b.spans.push_back({firstSpanRow(b.first, x), Extra{}, r});
      o = &b.spans.back();
    }
    addSpanRow(o->s, x);
    o->firstRow = std::min(o->firstRow, r);
    row(r, x, o->extra);
  };
  // An instance done: its block closed at `block` instances.
  auto done1 = [&](int li, Blk &b) {
    if (block && ++b.instances == block) {
      b.closed = true;
      cur[size_t(loopOf[size_t(li)])] = SIZE_MAX;
      flush();
    }
  };
  if (byStart.list.empty()) {
    // The instances 0 .. n - 1 in their own order (each with chunks; any
    // after them without): the rows in row order, not copied per instance.
    int li = -1;
    Blk *b = nullptr;
    size_t j = 0;
    rows.forEach([&](size_t r, const LoopThread &x) {
      if (size_t(x.loop) >= byStart.size())
        return; // after the last with chunks: none
      if (x.loop != li) {
        if (b)
          done1(li, *b);
        li = x.loop, j = 0;
        b = &blockOf(li);
      }
      add(*b, j++, r, x);
    });
    if (b)
      done1(li, *b);
  } else {
    std::vector<LoopThread> mine;
    size_t ap = 0;
    for (size_t k = 0; k < byStart.size(); k++) {
      int li = byStart[k];
      Blk &b = blockOf(li);
      rows.rowsOf(size_t(li), mine, ap);
      size_t r = rows.rowBegin(size_t(li));
      for (size_t j = 0; j < mine.size(); j++, r++)
        add(b, j, r, mine[j]);
      done1(li, b);
    }
  }
  for (Blk &b : pending)
    b.closed = true;
  flush();
}

/// How many spans loopSpans(lt, block) gives, without making them.
uint64_t countLoopSpans(const LoopTable &lt, uint64_t block);
/// Per loop instance (an.loops index) its loop's id (its name and code
/// address; ids from 0 in the order met: LoopTable::loopOf).
std::vector<int> loopKeyIds(const Analysis &an);
/// The loops of keys (per instance its loop's id): the largest id + 1.
size_t loopCount(const std::vector<int> &keys);
/// loopSpans of a process's loop table rows (loopThreads) and its
/// instances' loop ids (loopKeyIds): what an MPI rank's report fragment
/// carries.
std::vector<LoopSpan> loopSpansOf(const std::vector<int> &keys,
                                  const LoopRows &rows, uint64_t block,
                                  std::vector<int> *spanOf = nullptr);
/// The next coarser block after `block` when the output at it took `over`
/// times its cap: as many times more instances (with a margin), at least
/// twice; 0 (the whole run) from `most` instances on.
uint64_t coarserBlock(uint64_t block, double over, uint64_t most);

struct CoarseGraph {
  enum Kind : uint8_t { Start, End, Fork, Join, Chunks, Tasks };
  enum EdgeKind : uint8_t { Creation, Synchronization, Continuation };
  struct Node {
    Kind kind;
    std::string id, label;
    std::string name; // a group's loop or task site (its colour)
    std::string loc;  // a group's source location
    int thread = -1;
    int64_t grains = 0;
    bool hasExec = false;
    int64_t exec = 0;
    double work = 0;
    int64_t flagged = 0;   // grains the problem view's flag marks
    bool onPath = false;   // holds a grain on the critical path
    int64_t instances = 0; // a chunk group's loop instances (its label)
    /// Its label names a task generation by the runtime's id of its
    /// implicit task ("fork i<id>.d1"): not part of the shape.
    bool runtimeLabel = false;
  };
  struct Edge {
    uint32_t src, dst;
    EdgeKind kind;
  };
  std::vector<Node> nodes;
  std::vector<Edge> edges;
  /// With CoarseLevel::members: per chunk and per task (an.chunks and
  /// an.tasks index) the group node that holds it (UINT32_MAX: none, a
  /// loop instance left out).
  std::vector<uint32_t> chunkNode, taskNode;
};

/// The merging a coarse graph is built at.
struct CoarseLevel {
  uint64_t block = 1; // loop instances per block (0: the whole run)
  bool bySite = false;
  /// Only start -> end: what is left when even the coarsest groups do
  /// not fit.
  bool bare = false;
  /// Also fill CoarseGraph::chunkNode and taskNode (what report.html
  /// expands a group into).
  bool members = false;
};

/// A group node's label from its values: "<grains> chunks of <name> on
/// thread <t>" (" in <n> instances" when more than one) or "<grains> x
/// <name>"; of a class of `processes` alike processes (its values summed
/// over them) then " over <k> processes".
std::string groupLabel(const CoarseGraph::Node &n, size_t processes = 1);

/// A process's shape at a level: a 128-bit hash of its coarse graph's
/// structure (per node its kind, loop or task-site name, source location,
/// thread and, for start, end, forks and joins, its label unless it names a
/// runtime id, runtimeLabel; every edge with its kind), not of its values
/// (grains, instances, exec, work, flags) nor of its ids (their process
/// prefix, their loop-instance numbers, their implicit tasks' ids).
struct Shape {
  uint64_t a = 0, b = 0;
  bool operator<(const Shape &o) const { return a != o.a ? a < o.a : b < o.b; }
};
Shape shapeOf(const CoarseGraph &g);

/// What the level search (shapeLevelFor) knows of a process at a level.
struct ProcessShape {
  uint64_t nodes = 0, edges = 0; // coarseGraphSize's
  /// Its shape, made when another process has the same nodes and edges
  /// (processes of other sizes are never alike).
  bool shaped = false;
  Shape shape;
  /// Its graph written alone, when asked (ShapeSearch::bytes): its
  /// bytes, edges and group nodes.
  bool sized = false;
  uint64_t bytes = 0, edgesOut = 0, groups = 0;
};

/// A level and the classes of alike processes at it: per process its
/// class, per class its first member (the classes in that order).
struct ShapeLevel {
  CoarseLevel level;
  std::vector<uint32_t> classOf, first;
};

/// The classes of f's processes into s (classOf, first): processes of
/// equal nodes, edges and (where made) shape are one class.
void classesOf(const std::vector<ProcessShape> &f, ShapeLevel &s);

/// Where the level search gets its figures: from the processes at hand
/// (one command) or from every MPI rank's (each its own, Parts.cpp). Each
/// call gives every process's, in run order.
class ShapeSearch {
public:
  virtual ~ShapeSearch() = default;
  /// nodes and edges of every process at level.
  virtual std::vector<ProcessShape> sizes(const CoarseLevel &level) = 0;
  /// The shapes of the processes `need` marks (1); bytesLikely: their
  /// bytes may be asked next (a rank may send its own at once).
  virtual void shapes(const CoarseLevel &level, std::vector<ProcessShape> &f,
                      const std::vector<uint8_t> &need, bool bytesLikely) = 0;
  /// The bytes of the classes' first members.
  virtual void bytes(const CoarseLevel &level, std::vector<ProcessShape> &f,
                     const std::vector<uint32_t> &first) = 0;
  /// The output's bytes at s (at most: exact for a class of one).
  virtual uint64_t fileBytes(const ShapeLevel &s,
                             const std::vector<ProcessShape> &f) = 0;
};

/// The level of an aggregated output of several processes, with the class
/// count in the budget: levels as coarseLevelFor tries them (per instance,
/// blocks of ever more instances, one block per loop, tasks per site,
/// start and end alone); at each, processes of equal sizes and shape are
/// one class, the estimate is nodeBytes per node and edgeBytes per edge of
/// each class's first member, and the first level whose estimate and then
/// whose fileBytes are within cap is taken (the next coarser is as many
/// times more instances per block as the larger of those is over cap).
ShapeLevel shapeLevelFor(ShapeSearch &s, uint64_t cap, uint64_t most,
                         uint64_t nodeBytes, uint64_t edgeBytes);

/// Which grains a process (or, or-ed over its processes, a run) has: the
/// aggregated outputs' left-out lines name only what they merged.
struct GrainKinds {
  bool loops = false, tasks = false;
  GrainKinds &operator|=(const GrainKinds &o) {
    loops |= o.loops;
    tasks |= o.tasks;
    return *this;
  }
};
GrainKinds grainKinds(const Analysis &an);

/// What a graph at `level` has, in words ("a node per loop and thread
/// over ...", "a node per task creation site"), for the grains of `kinds`:
/// the outputs' left-out lines.
std::string coarseLevelText(const CoarseLevel &level, GrainKinds kinds);

/// How many nodes and edges coarseGraph(an, lt, level) has, at most,
/// without making it (the writers' size estimate).
void coarseGraphSize(const Analysis &an, const LoopTable &lt,
                     const CoarseLevel &level, uint64_t &nodes,
                     uint64_t &edges);

/// Each grain a group holds, one at a time (chunk or task, its an.chunks
/// or an.tasks index, its group node): the chunks ascending, then the
/// tasks ascending.
using GrainNodeFn = std::function<void(bool chunk, size_t i, uint32_t v)>;

/// Process an's coarse graph (lt: its loop table, cp: its critical path);
/// ids start with prefix; view >= 0 counts the grains problem flag `view`
/// marks in each group; each, when given, is given every grain a group
/// holds (what CoarseLevel::members holds, without a table per grain).
CoarseGraph coarseGraph(const Analysis &an, const LoopTable &lt,
                        const CritPath &cp, const CoarseLevel &level,
                        const std::string &prefix, int view = -1,
                        const GrainNodeFn *each = nullptr);

/// The critical path through g: node indices from start to end along g's
/// edges, through as many groups holding critical-path grains (onPath) as
/// one path goes through, and of those paths the one with the most work in
/// them; start and end alone when none holds one. Empty when g has a cycle.
std::vector<uint32_t> coarsePath(const CoarseGraph &g);

/// The merging for a graph of at most maxNodes nodes per process: per
/// instance, then blocks of ever more consecutive instances, one block per
/// loop, tasks per site, and start and end alone.
CoarseLevel coarseLevelFor(const Analysis &an, const LoopTable &lt,
                           uint64_t maxNodes);

} // namespace gcg

#endif

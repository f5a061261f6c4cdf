// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GrainDag.h - one process's grain graph as a DAG, its critical path -===//
//
// The grain graph of one process as one DAG from a start node to an end
// node (docs/grain-graphs.md, "grains.graphml"): a fork and a join per
// parallel region instance and per loop instance, the chunks between their
// instance's fork and join, tasks between a fork and a join of the grain
// that made them (a task made inside a loop chunk: from that chunk's node),
// continuation edges in program order. Nodes and edges are
// numbers in columns. The critical path is the longest path weighted by
// the grains' work, found in one pass over a topological order (Kahn's,
// first in first out: of equal paths into a node, the one reached first).
// A node's weight is read from the model (weight()), not held.
// For the critical path alone (computeCritPath) the graph keeps no lists
// of edges and no node references or kinds: its edges are made twice, once
// to count them per node and once into their places (the node's
// successors in the order made), task and chunk nodes are numbered in
// blocks (a node's kind is its block's), the task forks are numbered again
// as they were made (no table of them), a join point's join after the
// forks of the tasks that join there. Per node 5.25 bytes and a word per 8
// nodes: a word, its in-degree and then its predecessor on the path
// (longestPaths), a byte, where its successors are (EdgesBySource: their
// count while they are counted; and a bit while they are placed), and two
// bits, the place of its first
// edge to the next-numbered node (a fork's to the next fork or its join, a
// region's fork's to its join and join's to the next region's fork, a loop
// instance's fork's to its join): such an edge is not an entry; per other
// edge 4; per chunk node 4 (its chunk). The longest path before a node is
// held only while the node is open: 16 bytes while some of its in-edges
// are taken, not all, 12 while it waits in the queue. Gone before the path
// is found, the parts the edges are made from: per task 4 (its join), per
// chunk something hangs off 8 (the sorted chunks with nodes of their own:
// a chunk's node is its place among them), per other chunk nothing, per
// region with an anchor 12 (8 each where most have one), per top-level
// region nothing where they are in index order (else 4), per run of loop
// instances of one region, task or thread 8 (12 where the runs are not in
// the order first met), per loop instance 4 where they were not met in
// order. Measured on bench/shapes (RSS: the peak while the path is found
// above the RSS before): 35 bytes per task of fib(25)'s task tree, was 39
// (37 and 72 before that); 29 per chunk where each loop instance has its
// own parallel region and two chunks, at 60,200 chunks and at ten times as
// many, was 45 and 46 (48 and 44; 99 before). Where 10^6 instances of one
// region have two chunks, below the model's own peak (was 18 per chunk).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_GRAINDAG_H
#define GRAINCHUNK_GRAPH_GRAINDAG_H

#include "Analysis.h"

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gcg {

/// The critical path's figures of one process (GrainDag.h): span and work
/// in ticks; acyclic false if the graph had a cycle (then no figures);
/// the chunks and tasks on it (indices into chunks and tasks, 4 bytes
/// each: held through every output).
struct CritPath {
  bool acyclic = false;
  double span = 0, work = 0;
  std::vector<uint32_t> chunks, tasks;
};

/// Grain indices in 32 bits (CritPath); an Error naming the limit for an
/// index of 2^32 or more (what: "chunk" or "task").
std::vector<uint32_t> grainIndices32(const std::vector<uint64_t> &v,
                                     const char *what);

/// A graph's edges by source: node v's at from(v) .. from(v + 1) in adj,
/// each source's in the order placed, and, not in adj, v's first edge to
/// v + 1 where it is among v's first three (nextAt(v): its place among v's
/// edges; NoNext: none). Per node a byte and two bits, per block of 8
/// nodes a word: the place of the block's first edge, and each node's from
/// it; where a block's edges are more than 255, the word names (its top bit
/// set) a row of wide with a word per node of the block. Counted in the
/// byte per node (no word per node while made).
class EdgesBySource {
public:
  static constexpr uint32_t NoNext = UINT32_MAX;
  /// Before the edges are counted: nodes 0 .. n - 1, none with an edge or
  /// a next yet.
  void expect(size_t n) {
    nx.assign((n + 3) / 4, 0xff);
    std::vector<uint64_t>(n / 64 + 1, 0).swap(seen);
    rel.assign(n + 1, 0);
    over.clear();
  }
  /// Counts s -> t (each edge once, in the order it will be placed): s's
  /// next if it is s's first edge to s + 1 and among its first three,
  /// else an entry. Counted in rel (a byte per node; from 255 on in over).
  void count(uint32_t s, uint32_t t) {
    uint32_t before = rel[s];
    if (t == s + 1 && before < 3 && nextAt(s) == NoNext) {
      unsigned sh = 2 * (s % 4);
      nx[s / 4] = uint8_t((nx[s / 4] & ~(3u << sh)) | before << sh);
    } else if (before < 254) {
      rel[s]++;
    } else if (before == 254) {
      rel[s] = 255, over[s] = 255;
    } else {
      over[s]++;
    }
  }
  /// Once every edge is counted (below 2^31): the places, and the edges'
  /// column.
  void make();
  /// Places the next edge from s (make()'s nodes' edges, each once, in the
  /// order counted).
  void place(uint32_t s, uint32_t t) {
    if (t == s + 1 && nextAt(s) != NoNext && !(seen[s / 64] >> s % 64 & 1)) {
      seen[s / 64] |= uint64_t(1) << s % 64; // the next: not in adj
      return;
    }
    uint32_t b = base[s / 8];
    if (b & Wide)
      adj[wide[size_t(b & ~Wide) * 8 + s % 8]++] = t;
    else
      adj[b + rel[s]++] = t;
  }
  /// Once every edge is placed.
  void placed();
  uint32_t from(uint32_t v) const {
    uint32_t b = base[v / 8];
    return b & Wide ? wide[size_t(b & ~Wide) * 8 + v % 8] : b + rel[v];
  }
  uint32_t to(uint32_t x) const { return adj[x]; }
  /// The place of v's edge to v + 1 among v's edges, or NoNext.
  uint32_t nextAt(uint32_t v) const {
    uint32_t c = v / 4 < nx.size() ? nx[v / 4] >> (2 * (v % 4)) & 3 : 3;
    return c == 3 ? NoNext : c;
  }
  void clear();

private:
  static constexpr uint32_t Wide = 1u << 31;
  std::vector<uint32_t> base, wide, adj;
  std::vector<uint8_t> rel;   // per node, and one past the last
  std::vector<uint8_t> nx;    // per node 2 bits: nextAt (3: NoNext)
  std::vector<uint64_t> seen; // while placed: a bit per node, its next met
  std::unordered_map<uint32_t, uint32_t> over; // counts from 255 on
};

struct GrainDag {
  enum Kind : uint8_t {
    Start,
    End,
    RegionFork, // ref: the region's index in regionList
    RegionJoin,
    LoopFork, // ref: the loop instance
    LoopJoin,
    Chunk,    // ref: the chunk
    Task,     // ref: the task
    TaskFork, // ref: the task it makes
    TaskJoin  // ref: an index into joins
  };
  enum EdgeKind : uint8_t { Creation, Synchronization, Continuation, Scope };

  // Kept graphs only (keep): each node's kind and ref, the join points,
  // the edges.
  std::vector<uint8_t> kind;
  std::vector<uint64_t> ref;
  std::vector<std::pair<int64_t, uint32_t>> joins; // (parent slot, join point)
  std::vector<uint32_t> src, dst;
  std::vector<uint8_t> ekind;

  // The critical path (computed by the constructor).
  bool acyclic = false;
  std::vector<uint8_t> onPath; // per node (kept graphs only)
  // Per node (kept graphs only): its earliest start, the longest
  // path weight before it from the start node (the prototype's root_dist).
  std::vector<double> earliest;
  double span = 0, work = 0; // ticks
  // The grains on the critical path, end first (indices into chunks and
  // tasks).
  std::vector<uint64_t> pathChunks, pathTasks;

  /// Builds the graph of an and its critical path. everyGrain false: the
  /// chunks of a loop instance that nothing hangs off are one node, the
  /// longest of them (the same span and work; for the figures alone).
  explicit GrainDag(const Analysis &an, bool everyGrain = true)
      : GrainDag(an, everyGrain, everyGrain) {}
  /// keep: the nodes and edges stay after the critical path is found
  /// (grains.graphml's graph), also when everyGrain is false.
  GrainDag(const Analysis &an, bool everyGrain, bool keep);
  /// A node's weight: a grain's work (ticks), 0 for the others.
  double weight(uint32_t v) const;
  /// The number of nodes.
  uint32_t nodeCount() const { return nv; }
  /// The most nodes, and edges, a graph may have (node numbers and
  /// in-degrees have 31 bits in longestPaths).
  static constexpr uint32_t MaxNodes = (1u << 31) - 1;

private:
  struct Parts; // the tables the edges are made from (GrainDag.cpp)
  void nodes(Parts &p, bool everyGrain);
  template <class Edge> void edges(Parts &p, Edge &&edge) const;
  uint32_t node(Kind k, uint64_t r);
  uint64_t grainRef(uint32_t v) const;
  /// A node's kind: kind's (kept graphs), else of its block (Chunk, Task,
  /// or Start for the nodes that weigh nothing).
  Kind kindOf(uint32_t v) const {
    if (keep)
      return Kind(kind[v]);
    return v >= chunkBase && v < chunksEnd ? Chunk
           : v >= taskBase && v < tasksEnd ? Task
                                           : Start;
  }
  void criticalPath();
  void prefetchWeight(uint32_t v) const;
  const Analysis *an;
  bool keep;
  // The task nodes are taskBase + k; the chunk nodes chunkBase + j, of
  // chunk chunkRef[j] (not kept graphs).
  uint32_t taskBase = 0, chunkBase = 0;
  uint32_t nv = 0, chunksEnd = 0, tasksEnd = 0; // nodes, the blocks' ends
  std::vector<uint32_t> chunkRef;
  EdgesBySource out; // the edges by source
  // Per node: its in-degree, then (longestPaths) its predecessor on the
  // longest path into it.
  std::vector<uint32_t> link;
};

namespace detail {
/// Blocks of Block entries: grown a block at a time, nothing moved (no
/// copy while growing, at most a block unused).
constexpr size_t Block = 4096;

/// A first-in first-out queue of nodes and the longest path before each,
/// in blocks: as long as the most nodes waiting in it at once and a block.
class ReadyQueue {
public:
  bool empty() const { return !n; }
  void push(uint32_t v, double before) {
    size_t at = head + n++;
    if (at == blocks.size() * Block)
      addBlock();
    Entries &e = *blocks[at / Block];
    e.node[at % Block] = v;
    e.best[at % Block] = before;
  }
  uint32_t pop(double &before) {
    Entries &e = *blocks.front();
    uint32_t v = e.node[head];
    before = e.best[head];
    n--;
    if (++head == Block)
      dropBlock();
    return v;
  }

private:
  struct Entries {
    uint32_t node[Block];
    double best[Block];
  };
  void addBlock();
  void dropBlock(); // the first, all taken
  std::vector<std::unique_ptr<Entries>> blocks;
  std::unique_ptr<Entries> spare; // the last dropped, to add again
  size_t head = 0, n = 0;         // head: in the first block
};

/// What longestPaths holds of a node reached by some of its in-edges, not
/// all: the longest path into it so far, its predecessor on that path, and
/// its in-edges left (free: the next free slot). In blocks, each used
/// again once its node is queued (the last freed first).
class OpenSlots {
public:
  struct Slot {
    double best;
    uint32_t pred, left;
  };
  Slot &operator[](uint32_t i) { return blocks[i / Block][i % Block]; }
  uint32_t open(double best, uint32_t pred, uint32_t left) {
    uint32_t i = free;
    if (i != UINT32_MAX) {
      free = (*this)[i].left;
    } else {
      if (made == blocks.size() * Block)
        blocks.emplace_back(new Slot[Block]);
      i = made++;
    }
    (*this)[i] = Slot{best, pred, left};
    return i;
  }
  void close(uint32_t i) {
    (*this)[i].left = free;
    free = i;
  }
  size_t size() const { return made; } // the most open at once

private:
  std::vector<std::unique_ptr<Slot[]>> blocks;
  uint32_t made = 0, free = UINT32_MAX;
};
} // namespace detail

/// The longest paths through a DAG in Kahn's order (GrainDag's critical
/// path; apart, to be tested on graphs made by hand). Nodes 0 .. nv - 1,
/// their edges by source: e.to(x) for x in e.from(v) .. e.from(v + 1)
/// (EdgesBySource), and u + 1 at place e.nextAt(u) among them (a
/// number past them: none). The nodes without
/// in-edges are queued first, ascending; the queue is first in first out;
/// a node taken relaxes its successors in their order in adj, and each is
/// queued when its last in-edge is relaxed. A node's predecessor is the
/// first node taken whose path into it is the longest (a later one only if
/// its path is longer).
/// link: per node, its in-degree on entry (below 2^31: nv and the edges at
/// most MaxNodes); on return, each node's predecessor (UINT32_MAX: none;
/// nodes not taken, on or behind a cycle: undefined).
/// weight(v): v's weight; queued(v): v was queued (to prefetch what its
/// weight reads); taken(v, before, after): v is taken, with the longest
/// path before it and with it. Returns the number of nodes taken (nv: no
/// cycle).
/// The longest path before a node is held only while the node is open:
/// in its queue entry once it is ready, and before that (reached by some
/// of its in-edges, not all) in a slot, with its predecessor so far and
/// its in-edges left, that link names (its top bit set) and that is used
/// again once the node is queued. Nodes with one in-edge never have one.
template <class Edges, class Weight, class Queued, class Taken>
size_t longestPaths(uint32_t nv, const Edges &e, uint32_t *link,
                    Weight &&weight, Queued &&queued, Taken &&taken) {
  constexpr uint32_t Open = 1u << 31;
  detail::OpenSlots slots;
  detail::ReadyQueue queue;
  for (uint32_t v = 0; v < nv; v++)
    if (!link[v]) {
      link[v] = UINT32_MAX;
      queue.push(v, 0);
    }
  size_t done = 0;
  while (!queue.empty()) {
    double before;
    uint32_t u = queue.pop(before);
    done++;
    double du = before + weight(u);
    taken(u, before, du);
    uint32_t x = e.from(u), end = e.from(u + 1), next = e.nextAt(u);
    for (uint32_t i = 0;; i++) { // its edges in adj, its next at its place
      uint32_t t;
      if (i == next)
        t = u + 1;
      else if (x < end)
        t = e.to(x++);
      else
        break;
      uint32_t &l = link[t];
      if (l == 1) { // its only (or last) in-edge, never open
        l = u;
        queue.push(t, du);
        queued(t);
      } else if (l & Open) {
        uint32_t i = l & ~Open;
        detail::OpenSlots::Slot &s = slots[i];
        if (du > s.best)
          s.best = du, s.pred = u;
        if (--s.left == 0) {
          l = s.pred;
          queue.push(t, s.best);
          queued(t);
          slots.close(i);
        }
      } else { // reached first: open
        l = Open | slots.open(du, u, l - 1);
      }
    }
  }
  return done;
}

/// The critical path's figures of one process and the grains on it (the
/// graph is not kept); the Results hold it (diagnose/Results.h).
CritPath computeCritPath(const Analysis &an);

} // namespace gcg

#endif

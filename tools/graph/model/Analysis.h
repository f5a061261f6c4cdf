// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Analysis.h - one process's grains, in columns, and their metrics ---===//
//
// One process's model and the baseline it is compared with: chunks and
// explicit tasks in columns (no object per grain), loop instances, parallel
// regions and implicit tasks; the grain-graph metrics (Muddukrishna et al.,
// PPoPP'16, with the definitions the prototype's processed data satisfy;
// docs/grain-graphs.md) and lineages. None (NA) is NaN in double columns.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_ANALYSIS_H
#define GRAINCHUNK_GRAPH_ANALYSIS_H

#include "IdTable.h"
#include "Names.h"
#include "Narrow.h"
#include "Recording.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <deque>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace gcg {

// A grain's problem flags: the prototype's thresholds
// (configs/grain-problems.cfg), in order, then ours: a chunk that is an
// outlier of its loop instance (Problems.h). A chunk's problems hold
// chunk_work_balance and chunk_work_cpu_balance no more (they are values
// of the whole instance, so every chunk of it was flagged): the summary
// counts the instances past them, for comparison with the prototype.
enum ProblemFlag {
  P_PARALLEL_BENEFIT,
  P_SIBLING_WORK_BALANCE,
  P_CHUNK_WORK_BALANCE,
  P_CHUNK_WORK_CPU_BALANCE,
  P_WORK_DEVIATION,
  P_THRESHOLDS, // the prototype's thresholds end here
  P_OUTLIER = P_THRESHOLDS,
  P_COUNT
};
struct Threshold {
  const char *name;
  char op; // '<' or '>'
  double value;
};
extern const Threshold Thresholds[P_THRESHOLDS];
/// A flag's name in problems (a threshold's metric, or "outlier").
const char *problemName(int p);
/// printf into a string, of any length (the summary's and the problems'
/// lines).
std::string fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
/// "a|b" of the problems set in mask.
std::string problemsText(unsigned mask);

/// An insertion-ordered counter (Python's collections.Counter order).
struct Counter {
  std::vector<std::pair<int, int64_t>> items;
  int64_t &operator[](int k);
  void update(const Counter &o);
};

/// What a loop instance knows of one thread (16 bytes; where it left the
/// loop Analysis::threadEnd()). Its count of chunks (at most MaxCount:
/// more is an error while reading) and its flags share 32 bits. Its work
/// and its wait at the barrier after the loop (ticks) are 32 bits each: a
/// value in [0, Wide) held in place, any other in the process's side
/// column of wide values (its index plus Wide; Analysis::workOf(),
/// waitOf()).
struct Share {
  Share(int th = 0)
      : th(th), count(0), hasEnd(false), hasWork(false), unknown(false) {}
  int th;
  static constexpr uint32_t MaxCount = (1u << 29) - 1;
  uint32_t count : 29;
  bool hasEnd : 1, hasWork : 1, unknown : 1;
  static constexpr uint32_t Wide = 1u << 31;
  /// Its work, once the model is made (0 before).
  uint32_t work32 = 0;
  /// Its wait once the model is made (0 where its wait per chunk is NA);
  /// while the recording is read, the thread's waits at the barrier after
  /// the loop, which the wait is made of (Analysis::chunkMetricsPass()).
  uint32_t wait32 = 0;
};
static_assert(sizeof(Share) == 16, "a share is 16 bytes");

/// A loop instance's threads (Analysis::shares()): a run of the process's
/// share pool (Analysis::sharePool), in the order the instance met them. A
/// view, made when asked: the instance holds where its run begins and its
/// length.
template <class S> class ShareRun {
public:
  ShareRun(S *b, uint32_t n) : b(b), n(n) {}
  // A run of shares read as const.
  template <class T>
  ShareRun(const ShareRun<T> &o) : b(o.begin()), n(uint32_t(o.size())) {}
  S *begin() const { return b; }
  S *end() const { return b + n; }
  S *data() const { return b; }
  size_t size() const { return n; }
  bool empty() const { return !n; }
  S &operator[](size_t i) const { return b[i]; }

private:
  S *b;
  uint32_t n;
};
using ShareSpan = ShareRun<Share>;
using ConstShareSpan = ShareRun<const Share>;

/// A name held once per process (Analysis's name pool): read as the
/// string it points to.
class PooledName {
public:
  PooledName() : s(&empty()) {}
  explicit PooledName(const std::string *p) : s(p) {}
  operator const std::string &() const { return *s; }
  const std::string &str() const { return *s; }
  bool operator==(const std::string &o) const { return *s == o; }
  bool operator==(const char *o) const { return *s == o; }
  bool operator!=(const std::string &o) const { return *s != o; }
  bool operator!=(const char *o) const { return *s != o; }

private:
  static const std::string &empty();
  const std::string *s;
};

/// What a loop instance's code says of it: its code pointer, schedule
/// (the loop-begin record's), the source location its chunks name
/// (grainchunk's psource: a string id of the recording, 0: none) and its
/// name. Held once per distinct value (Analysis::loopCodes), most
/// instances of a loop sharing one.
struct LoopCode {
  uint64_t codeptr = 0;
  uint64_t psource = 0;
  PooledName fn, loc; // its name (set once the recording is read)
  uint32_t sched = 0;
};

/// A loop instance: the same worksharing loop on every thread of a team
/// (32 bytes, was 40). Its index is its place in Analysis::loops
/// (indexOf()), its threads Analysis::shares(): once the model is made, the
/// run of the share pool from its shareAt to the next instance's (its count
/// of threads is not held). Its end is Analysis::loopEnd()'s: a 32-bit
/// offset from its begin, those that do not fit (before its begin, 2^32 - 1
/// ticks or more after it, or of an instance not seen to begin) held apart.
/// What its chunks give (its chunks' largest work, those each problem
/// flags) is found when asked (Analysis::balance(), flaggedChunks()).
struct Loop {
  Loop() : code(0), keyKind(0), hasBegin(false), hasEnd(false) {}
  // The key: (region, n) (kind 0), ("task", task, n) (kind 1) or
  // ("orphan", thread, task, k) (kind 2), k the instance's own index. Held
  // as its 64-bit id (the region's or the task's) and a 32-bit part (n,
  // below the instances' count; the thread number).
  uint64_t k0() const {
    return keyKind == 2 ? uint64_t(int64_t(int32_t(small))) : id;
  }
  uint64_t k1() const { return keyKind == 2 ? id : small; }
  /// The key's last part, of the instance with that index.
  uint64_t lastKey(int index) const {
    return keyKind == 2 ? uint64_t(index) : small;
  }
  uint64_t begin = 0;
  static constexpr uint32_t MaxCodes = 1u << 28;
  uint32_t code : 28; // its LoopCode (Analysis::codeOf())
  uint32_t keyKind : 2;
  bool hasBegin : 1, hasEnd : 1;

private:
  friend class Analysis;
  // Its end less its begin (with hasEnd), or EndApart: held apart
  // (Analysis::loopEndApart), whole.
  static constexpr uint32_t EndApart = UINT32_MAX;
  uint32_t end32 = 0;
  uint64_t id = 0;
  uint32_t small = 0;
  // Its threads' run of the share pool begins here (while the recording
  // is read: the pool index of the one made last, a list through
  // Analysis::sharePrev; NoShare: none yet).
  static constexpr uint32_t NoShare = UINT32_MAX;
  uint32_t shareAt = NoShare;
};
static_assert(sizeof(Loop) == 32, "a loop instance is 32 bytes");

/// Per chunk, its thread number: runs of consecutive chunks of one thread
/// (chunks are read thread by thread: one run per thread read), and per
/// block of 256 chunks the run of its first, where a look-up starts.
class ThreadRuns {
public:
  __attribute__((always_inline)) int32_t operator[](size_t i) const {
    size_t b = i / Block, r = blockRun[b];
    size_t last = b + 1 < blockRun.size() ? blockRun[b + 1] : th.size() - 1;
    return r == last ? th[r] : within(i, r, last);
  }
  size_t size() const { return n; }
  void push_back(int32_t t) {
    if (th.empty() || th.back() != t) {
      first.push_back(n);
      th.push_back(t);
    }
    if (!(n % Block))
      blockRun.push_back(th.size() - 1);
    n++;
  }
  size_t runs() const { return th.size(); }

private:
  // Runs r..last begin in i's block: the last that began by i.
  __attribute__((noinline)) int32_t within(size_t i, size_t r,
                                           size_t last) const {
    return th[size_t(std::upper_bound(first.begin() + r + 1,
                                      first.begin() + last + 1, i) -
                     first.begin()) -
              1];
  }
  static constexpr size_t Block = 256;
  size_t n = 0;
  std::vector<size_t> first; // each run's first chunk, ascending
  std::vector<int32_t> th;
  std::vector<size_t> blockRun;
};

/// Chunks' starts (ticks): each as its difference from its block's first
/// (blocks of 256 chunks, in the order read), a signed 32-bit number, or in
/// a side table (Narrow.h).
using Starts = NarrowColumn<uint64_t, OffsetFit<int32_t>, BlockBase<8>>;

/// Every chunk grain, in columns: 23 bytes each where its values fit their
/// cells (loop 4; start 4, Starts; end 4, from start; lower 4; upper 4,
/// from lower; creation 2; flags 1), the others in side tables
/// (NarrowColumn, Narrow.h); its thread in runs; and 8 more for its parent (its
/// implicit task's id, parentOf()) where that is not held in runs. A
/// chunk's number among its thread's chunks of its loop instance is not a
/// column: Analysis::chunkNumbers(). Not copied: columns read others.
struct Chunks {
  Chunks() = default;
  Chunks(const Chunks &) = delete;
  Chunks &operator=(const Chunks &) = delete;
  ThreadRuns thread;
  std::vector<int32_t> loop;
  Starts start;
  /// Where it ended (ticks): below start or 2^32 - 1 ticks or more after
  /// it, in a side table.
  NarrowColumn<uint64_t, OffsetFit<uint32_t>, ColumnBase<Starts>> end{&start};
  /// Its first iteration: as a signed 32-bit number, or in a side table.
  using Lower = NarrowColumn<uint64_t, OffsetFit<int32_t>>;
  Lower lower;
  /// Its last iteration: up to 2^32 - 2 past lower, or in a side table.
  NarrowColumn<uint64_t, OffsetFit<uint32_t>, ColumnBase<Lower>> upper{&lower};
  /// Clock ticks (NaN: unmeasured): whole and below 65534, or in a side
  /// table.
  NarrowColumn<double, CreationFit> creation;
  std::vector<uint8_t> flags;
  size_t size() const { return thread.size(); }
  /// Chunk i's end less its start (ticks), wrapping as end[i] - start[i].
  uint64_t span(size_t i) const { return end.fromBase(i); }
  void reserve(size_t n);
  /// Chunk i's parent: its implicit task's id.
  uint64_t parentOf(size_t i) const;
  /// Chunk i's (the last appended) parent, while the recording is read:
  /// into runs, or once they would take more than the column, the column.
  void pushParent(size_t i, uint64_t p);
  /// Then the column (parent), or where that is less than half of it,
  /// runs of consecutive chunks of one parent (runFirst: each run's first
  /// chunk, ascending): chunks are read thread by thread, a thread's
  /// chunks in one region's implicit task one run.
  void packParents();
  std::vector<uint64_t> parent; // empty once in runs
  std::vector<uint64_t> runFirst, runParent;

private:
  /// The runs of the first n chunks made the column.
  void unpackParents(size_t n);
};

/// The tasks' ids, strictly ascending (a thread's ids ascend, threads are
/// read in the order of their numbers, which an id's top bits hold): runs
/// of consecutive ids (a thread hands its ids out one after another), or,
/// once the runs would take more than it, the column.
class TaskIds {
public:
  uint64_t operator[](size_t k) const {
    if (!col.empty())
      return col[k];
    size_t r = size_t(std::upper_bound(first.begin(), first.end(), k) -
                      first.begin()) -
               1;
    return start[r] + (k - first[r]);
  }
  size_t size() const { return n; }
  /// Room for m ids, should they become the column.
  void reserve(size_t m) { room = m; }
  void push_back(uint64_t id);
  /// The index of id, or -1 (held as runs).
  int64_t findInRuns(uint64_t id) const;
  /// The column, or empty (held as runs).
  const std::vector<uint64_t> &column() const { return col; }

private:
  size_t n = 0, room = 0;
  std::vector<uint64_t> col;
  std::vector<size_t> first; // each run's first index, its first id
  std::vector<uint64_t> start;
};

/// Code pointers met, each given a 32-bit index in the order met (most
/// tasks and regions share a few).
class CodeTable {
public:
  uint64_t operator[](uint32_t i) const { return codes[i]; }
  size_t size() const { return codes.size(); }
  /// c's index, c added if new (more than 2^32 codes: an Error naming
  /// rows, what the codes are of).
  uint32_t indexOf(uint64_t c, const char *rows);
  /// The codes of the indices marked in has (as many), ascending.
  std::vector<uint64_t> distinct(const std::vector<uint8_t> &has) const;

private:
  std::vector<uint64_t> codes;
  std::unordered_map<uint64_t, uint32_t> index; // their places, past 16
  uint32_t last = UINT32_MAX;
};

/// The tasks' code pointers: each task's in a table of those met (most
/// tasks share a few): its place there a byte while they are at most 256,
/// then 4 bytes (wide, from the 257th code on).
class TaskCodes {
public:
  uint64_t operator[](size_t k) const { return codes[placeOf(k)]; }
  size_t size() const { return isWide ? wide.size() : at.size(); }
  void reserve(size_t m) {
    room = m;
    at.reserve(m);
  }
  void push_back(uint64_t c) {
    uint32_t i = codeIndex(c);
    if (isWide)
      wide.push_back(i);
    else
      at.push_back(uint8_t(i));
  }
  void set(size_t k, uint64_t c) {
    uint32_t i = codeIndex(c);
    if (isWide)
      wide[k] = i;
    else
      at[k] = uint8_t(i);
  }
  /// Task k's code's place among the codes met (0 .. count() - 1).
  uint32_t placeOf(size_t k) const { return isWide ? wide[k] : at[k]; }
  /// The codes met (some perhaps no task's, once set() replaced them).
  size_t count() const { return codes.size(); }
  /// Whether the places are 4 bytes.
  bool wideplaces() const { return isWide; }
  /// The code pointers some task has, ascending.
  std::vector<uint64_t> distinct() const;

private:
  uint32_t codeIndex(uint64_t c);
  std::vector<uint8_t> at;
  std::vector<uint32_t> wide;
  bool isWide = false;
  size_t room = 0;
  CodeTable codes;
};

/// A column whose rows mostly hold one value (Default): the rows that do
/// not (ascending) and their values, or, once they are more than half the
/// rows (from the 4096th on), the column. Rows are tasks: at most 2^32.
template <typename T, T Default> class MostlyColumn {
public:
  T operator[](size_t k) const {
    if (dense)
      return col[k];
    auto it = std::lower_bound(at.begin(), at.end(), uint32_t(k));
    return it != at.end() && *it == k ? val[size_t(it - at.begin())] : Default;
  }
  size_t size() const { return n; }
  /// Room for m rows, should they become the column.
  void reserve(size_t m) { room = m; }
  void push_back(T v) {
    n++;
    if (dense) {
      col.push_back(v);
      return;
    }
    if (v != Default) {
      if (n > UINT32_MAX)
        throw Error("more than 2^32 tasks and parents: not analysed");
      at.push_back(uint32_t(n - 1));
      val.push_back(v);
    }
    if (n >= 4096 && at.size() > n / 2) { // more than the column: made it
      col.reserve(std::max(room, n));
      col.assign(n, Default);
      for (size_t i = 0; i < at.size(); i++)
        col[at[i]] = val[i];
      std::vector<uint32_t>().swap(at);
      std::vector<T>().swap(val);
      dense = true;
    }
  }
  /// Whether some row holds another value.
  bool any() const {
    return dense ? std::any_of(col.begin(), col.end(),
                               [](T v) { return v != Default; })
                 : !at.empty();
  }

private:
  bool dense = false;
  size_t n = 0, room = 0;
  std::vector<T> col;
  std::vector<uint32_t> at;
  std::vector<T> val;
};

/// Per task, the loop chunk its creator was running, or -1.
using TaskChunks = MostlyColumn<int32_t, -1>;
/// Per task, the place among its parent's waits (Tasks::wBegin) of the one
/// it joins at: the first that begins after it was made (mostly the first).
using JoinPoints = MostlyColumn<uint32_t, 0>;

struct Tasks;

/// Per task segment, its end: its start and its length (Tasks::segLen).
class SegEnds {
public:
  explicit SegEnds(const Tasks *t) : t(t) {}
  inline uint64_t operator[](size_t j) const;
  inline size_t size() const;

private:
  const Tasks *t;
};

/// Per task, its number among its parent's children (in creation order):
/// its place in its parent's kids where every parent's kids ascend (made on
/// one thread, whose tasks are numbered in creation order), else col.
class ChildNumbers {
public:
  explicit ChildNumbers(const Tasks *t) : t(t) {}
  uint32_t operator[](size_t k) const;
  std::vector<uint32_t> col; // empty: found in kids

private:
  const Tasks *t;
};

/// Every explicit task, in columns. What only reading and finishing the
/// model need goes once it is made: the as-read segments' and waits' task
/// ids, creators (taskloops' sites), parent (the parent's slot holds it).
/// Neither a task's execution nor the thread it first ran on is a column:
/// its segments give both; the thread that made it is its range's.
/// Offsets and slots are 32-bit (a task is a 32-bit number in order and kids;
/// finishTasks() refuses more segments or waits than that); a segment's
/// thread number 16-bit (readThread() refuses a thread above 65535 that
/// runs tasks). A task's work is not a column: work(k).
/// Times, durations and creation times are narrow columns (Narrow.h: 4
/// bytes a row, the rows that do not fit in 32 bits in a side table), and
/// sync_cycles_per_child is not a column (sync(k): its parent's slot's
/// joinWaits, per child). Measured on fib(25)'s task tree (242,784 tasks,
/// two segments and half a wait each): the model 77 bytes a task, was 116.
struct Tasks {
  Tasks() = default;
  // Not copied: childNumber reads the other columns.
  Tasks(const Tasks &) = delete;
  Tasks &operator=(const Tasks &) = delete;
  TaskIds id;
  TickColumn<uint64_t> create;
  TaskCodes codeptr;
  TickColumn<uint64_t> parent; // while the model is made: parentOf()
  // While the model is made: the tasks (ascending) made while a task
  // other than their parent ran, and that task (taskloops' helpers).
  std::vector<uint32_t> creatorAt;
  std::vector<uint64_t> creatorId;
  NarrowDoubles creation; // clock ticks (NaN: unmeasured)
  TaskChunks ctx;         // the chunk its creator was running, or -1
  // Each thread's tasks [first, end), by thread number (ascending): sized
  // by the threads read, never by their numbers.
  std::vector<uint64_t> rangeThread;
  std::vector<std::pair<size_t, size_t>> ranges;
  // As read: run segments and join waits.
  TickColumn<uint64_t> segTask, segStart;
  TickColumn<int64_t, false> segLen; // its end less its start (ticks)
  SegEnds segEnd{this};
  ThreadColumn segThread;
  std::vector<uint64_t> waitTask, waitBegin;
  std::vector<int64_t> waitTime;
  // Finished.
  std::vector<uint32_t> order; // creation order
  std::vector<uint32_t> segOff;
  // A parent's slot: an explicit task's index, or n + j for the j-th
  // implicit (or unknown) task that made tasks (implicitIds[j]).
  std::vector<uint32_t> pslot;
  std::vector<uint64_t> implicitIds;
  std::vector<uint32_t> kids;
  ChildNumbers childNumber{this};
  JoinPoints joinsAt;
  std::vector<uint32_t> kidOff, waitOff;
  TickColumn<uint64_t> wBegin;
  TickColumn<int64_t> wTime;
  /// Per task its overhead (ticks: its waits at its children's join points
  /// and its children's creation; NaN: NA), per slot its waits at its
  /// children's join points (Analysis::joinWait()), which sync() shares out.
  NarrowDoubles overhead;
  TickColumn<int64_t, false> joinWaits;
  std::vector<double> swb, deviation;
  // Root tasks: their number in their region, or in the iteration order
  // of the loop instance they were made in (-1: unknown); lineages(). Per
  // task (rootAt empty), or where at most half the tasks are roots, per
  // root (rootAt: the roots, ascending).
  std::vector<int32_t> rootk;
  std::vector<uint32_t> rootAt;
  /// Root task k's place in rootk.
  size_t rootPlace(size_t k) const {
    return rootAt.empty() ? k
                          : size_t(std::lower_bound(rootAt.begin(),
                                                    rootAt.end(), uint32_t(k)) -
                                   rootAt.begin());
  }
  size_t size() const { return id.size(); }
  /// The parents' slots: the tasks, then the implicit tasks that made
  /// tasks.
  size_t slots() const { return id.size() + implicitIds.size(); }
  /// The task id of slot s.
  uint64_t slotId(size_t s) const {
    return s < id.size() ? id[s] : implicitIds[s - id.size()];
  }
  /// Task k's parent's id (its slot's, once the model is made).
  uint64_t parentOf(size_t k) const {
    return parent.empty() ? slotId(pslot[k]) : parent[k];
  }
  /// Task k's work (ticks): its execution less its overhead (NaN: NA).
  __attribute__((always_inline)) double work(size_t k) const {
    return double(execc(k)) - overhead[k];
  }
  /// Task k's sync_cycles_per_child: its parent's waits at its children's
  /// join points, per child (NaN: its creation unmeasured).
  __attribute__((always_inline)) double sync(size_t k) const {
    if (std::isnan(creation[k]))
      return NAN;
    uint32_t p = pslot[k];
    return double(joinWaits[p]) / double(kidOff[p + 1] - kidOff[p]);
  }
  /// Task k's execution (ticks): its segments' sum.
  __attribute__((always_inline)) int64_t execc(size_t k) const {
    int64_t s = 0;
    for (uint32_t j = segOff[k]; j < segOff[k + 1]; j++)
      s += segLen[j];
    return s;
  }
  /// The thread task k first ran on (the one that made it if it never
  /// ran).
  int32_t threadOf(size_t k) const;
  /// The index of the explicit task with id tid, or -1.
  int64_t index(uint64_t tid) const;
};

uint64_t SegEnds::operator[](size_t j) const {
  return t->segStart[j] + uint64_t(t->segLen[j]);
}
size_t SegEnds::size() const { return t->segLen.size(); }

/// A parallel region (24 bytes, was 32): its begin, its code pointer (an
/// index in Analysis::regionCodes: Analysis::codeptrOf()), the chunk its
/// encountering task was running (-1: none; chunks past 2^31: an Error);
/// its encountering task Analysis::encOf()'s (held as its number among the
/// regions' encountering tasks, Analysis::regionEncs: a process's regions
/// have few, mostly its initial task), its end Analysis::regionEnd()'s (a
/// 32-bit offset from its begin, else apart).
struct Region {
  Region(uint64_t t = 0, uint32_t code = 0, int32_t chunk = -1)
      : t(t), code(code), chunk(chunk) {}
  uint64_t t;
  uint32_t code;
  int32_t chunk;

private:
  friend class Analysis;
  static constexpr uint32_t Far = UINT32_MAX;
  // Its encountering task's number in Analysis::regionEncs (at most one
  // per region: fits, as regions are fewer than 2^32).
  uint32_t enc32 = 0;
  // 0: not seen to end; below Far: its end is t + end32 - 1; Far: held
  // apart (Analysis::regionEndApart), whole.
  uint32_t end32 = 0;
};
static_assert(sizeof(Region) == 24, "a region is 24 bytes");
/// An implicit task (32 bytes, was 40): its begin on its thread, the
/// thread file it ran in; its region is Analysis::parOf()'s (held as the
/// region's number in Analysis::regions, its index in regionList, where the
/// region is recorded, else its parallel id apart: at most 2^32 - 1
/// regions, more an Error), its end Analysis::implicitEnd()'s (a 32-bit
/// offset from its begin, else apart), its thread's number in the team and
/// the team's size Analysis::threadNumOf() and teamOf()'s, its wait at the
/// region's end barrier Analysis::joinOf()'s.
struct Implicit {
  uint64_t begin = 0; // on its thread
  /// Its wait at the region's end barrier (Analysis::joinOf()): join32
  /// 0: none seen; below JoinApart: the wait's begin is begin + joinAt32
  /// and its end that plus join32 - 1; JoinApart: both held apart
  /// (Analysis::wideJoin), whole.
  static constexpr uint32_t JoinApart = UINT32_MAX;
  uint32_t joinAt32 = 0, join32 = 0;
  int32_t th;
  /// The thread number and team size where both are below Apart, else
  /// both Apart: held apart (Analysis::wideImplicit), whole.
  static constexpr uint16_t Apart = UINT16_MAX;
  uint16_t num16 = 0, team16 = 0;

private:
  friend class Analysis;
  static constexpr uint32_t Far = UINT32_MAX;
  // Its region's number in Analysis::regions (its index in regionList), or
  // Far: its parallel id held
  // apart (Analysis::implicitParApart; once the recording is read, only
  // where no region of that id was recorded).
  uint32_t region = Far;
  // 0: not seen to end; below Far: its end is begin + end32 - 1; Far: held
  // apart (Analysis::implicitEndApart), whole.
  uint32_t end32 = 0;
};
static_assert(sizeof(Implicit) == 32, "an implicit task is 32 bytes");

/// A chunk's or task's metrics (NaN: NA).
struct GrainMetrics {
  bool hasWork = false;
  double work = NAN; // chunks: an integer
  double sync = NAN, pb = NAN, swb = NAN, cwb = NAN, cpu = NAN, dev = NAN;
  bool outlier = false; // an outlier of its loop instance or siblings
  unsigned problems = 0;
};

class Baseline;

class Analysis {
public:
  /// Reads and analyses one process's recording.
  Analysis(const ProcessDir &pd, const Baseline *baseline = nullptr);
  Analysis(const Analysis &) = delete;

  ProcessDir proc; // complete made false when a thread's records are corrupt
  const Baseline *baseline;
  std::unordered_map<uint64_t, std::string> strings;
  std::vector<Loop> loops;
  /// The loop instances' codes (Loop::code).
  std::vector<LoopCode> loopCodes;
  const LoopCode &codeOf(const Loop &lp) const { return loopCodes[lp.code]; }
  /// The index of lp, an instance of loops.
  int indexOf(const Loop &lp) const { return int(&lp - loops.data()); }
  /// Per loop instance, its chunks work_deviation flags (empty without a
  /// baseline: none).
  std::vector<uint32_t> loopDeviations;
  /// f(i, p) for each chunk i and each of parallel_benefit and outlier (p,
  /// in that order) that flags it, as the summary counts them per instance
  /// (work_deviation's: loopDeviations).
  void flaggedChunks(const std::function<void(size_t, int)> &f) const;
  /// Loop instance lp's threads, in the order met.
  ShareSpan shares(const Loop &lp) {
    return ShareSpan(sharePool.data() + lp.shareAt, nShares(lp));
  }
  ConstShareSpan shares(const Loop &lp) const {
    return ConstShareSpan(sharePool.data() + lp.shareAt, nShares(lp));
  }
  /// The loop instances whose end is held apart (tests).
  size_t loopEndsApart() const { return loopEndApart.size(); }
  /// Where loop instance lp ended (ticks; 0: not seen to end).
  uint64_t loopEnd(const Loop &lp) const {
    if (!lp.hasEnd)
      return 0;
    return lp.end32 != Loop::EndApart ? lp.begin + lp.end32
                                      : loopEndApart.at(uint32_t(indexOf(lp)));
  }
  ConstShareSpan shares(size_t li) const { return shares(loops[li]); }
  /// The share of thread th in lp, or null.
  const Share *shareOf(const Loop &lp, int th) const {
    for (const Share &x : shares(lp))
      if (x.th == th)
        return &x;
    return nullptr;
  }
  /// A share's place in the pool (the loop table's row).
  size_t shareIndex(const Share &s) const {
    return size_t(&s - sharePool.data());
  }
  /// lp's chunks: its shares' counts.
  int64_t nChunks(const Loop &lp) const;
  /// A share's work and wait (ticks; the wait once the model is made, 0
  /// where waitPer() is NA).
  int64_t workOf(const Share &s) const { return wideValue(s.work32); }
  int64_t waitOf(const Share &s) const { return wideValue(s.wait32); }
  /// Its wait per chunk (NaN: NA; no chunk, or no wait events recorded).
  double waitPer(const Share &s) const {
    return waitsKnown && s.count ? double(waitOf(s)) / double(s.count) : NAN;
  }
  /// chunk_work_balance and chunk_work_cpu_balance of instance lp (NaN:
  /// NA) and its chunks (nChunks()), in one pass over its shares.
  void balance(const Loop &lp, int64_t &n, double &cwb, double &cpu) const;
  Chunks chunks;
  int64_t leftOut = 0; // chunks reported ahead of loops cancelled
  Tasks tasks;
  std::vector<int> threads;
  Maps maps;
  bool waitsKnown = false;
  bool extToolTime = false, extLoop = false, extChunk = false,
       extTaskCreate = false;
  Counter taskFlagged;
  int64_t taskPbNa = 0;
  std::vector<double> deviations;
  uint64_t lastRecord = 0;           // the latest record time (where it ends)
  uint64_t firstRecord = UINT64_MAX; // the earliest record time
  /// Thread time spent waiting (the waits' own time, ticks) by
  /// ompt_sync_region_t kind (GC_SYNC_*; 0: any other).
  std::vector<double> waitByKind = std::vector<double>(16, 0.0);
  /// The waits at explicit barriers by the barrier's code pointer: their
  /// thread time (ticks) and count.
  std::map<uint64_t, std::pair<double, uint64_t>> barrierWaits;
  std::vector<std::string> readNotes; // threads whose file ended early
  /// Per chunk: 1 if it is an outlier of its loop instance
  /// (outlierChunks(), Problems.h).
  std::vector<uint8_t> outliers;
  /// Per task: 1 if it is an outlier among its siblings (outlierTasks(),
  /// Problems.h).
  std::vector<uint8_t> taskOutliers;
  /// Per loop instance: the size of the team that ran it (0: unknown).
  std::vector<uint32_t> teamSize;

  std::vector<Region> regionList;
  /// The regions' parallel ids, numbered as regionList (8 bytes a region).
  IdIndex regions;
  /// The index in regionList of the region of parallel id par, or -1.
  int64_t regionIndex(uint64_t par) const {
    size_t r = regions.find(par);
    return r == IdIndex::None ? -1 : int64_t(r);
  }
  IdTable<Implicit> implicit; // by task id, in the order read
  CodeTable regionCodes;      // the regions' code pointers
  /// A region's code pointer.
  uint64_t codeptrOf(const Region &r) const { return regionCodes[r.code]; }
  /// The regions' encountering tasks' ids, each once (Region::enc32: 8
  /// bytes an encountering task).
  IdIndex regionEncs;
  /// A region's encountering task (r: an entry of regionList).
  uint64_t encOf(const Region &r) const { return regionEncs[r.enc32]; }
  /// Where a region ended (ticks; 0: not seen to end; r: an entry of
  /// regionList).
  uint64_t regionEnd(const Region &r) const {
    uint32_t e = r.end32;
    if (__builtin_expect(e == Region::Far, 0))
      return regionEndApart.at(uint32_t(&r - regionList.data()));
    return e ? r.t + e - 1 : 0;
  }
  /// The regions whose end is held apart (tests).
  size_t regionEndsApart() const { return regionEndApart.size(); }
  /// An implicit task's region: its parallel id.
  uint64_t parOf(IdTable<Implicit>::const_iterator im) const {
    uint32_t r = im->second.region;
    return r != Implicit::Far ? regions[r] : implicitParApart.at(im->first);
  }
  /// An implicit task's region's index in regionList, or -1: none of its
  /// id recorded (once the recording is read).
  int64_t regionIndexOf(IdTable<Implicit>::const_iterator im) const {
    uint32_t r = im->second.region;
    return r != Implicit::Far ? int64_t(r) : -1;
  }
  /// The implicit tasks whose parallel id, and those whose end, are held
  /// apart (tests).
  std::pair<size_t, size_t> implicitsApart() const {
    return {implicitParApart.size(), implicitEndApart.size()};
  }
  /// Where an implicit task ended on its thread (ticks; 0: not seen to).
  uint64_t implicitEnd(IdTable<Implicit>::const_iterator im) const {
    uint32_t e = im->second.end32;
    if (__builtin_expect(e == Implicit::Far, 0))
      return implicitEndApart.at(im->first);
    return e ? im->second.begin + e - 1 : 0;
  }
  /// An implicit task's thread number in its team, and its team's size.
  uint64_t threadNumOf(IdTable<Implicit>::const_iterator im) const {
    return im->second.num16 != Implicit::Apart
               ? im->second.num16
               : wideImplicit.at(im->first).first;
  }
  uint32_t teamOf(IdTable<Implicit>::const_iterator im) const {
    return im->second.team16 != Implicit::Apart
               ? im->second.team16
               : wideImplicit.at(im->first).second;
  }

  /// An implicit task's wait at its region's end barrier: its begin and
  /// end (ticks; both 0: none seen). libomp reports a worker's end of it,
  /// and its implicit task's end, only when it is released for the next
  /// region: the breakdown clips both to the region's end.
  std::pair<uint64_t, uint64_t>
  joinOf(IdTable<Implicit>::const_iterator im) const {
    const Implicit &x = im->second;
    if (x.join32 != Implicit::JoinApart)
      return x.join32 ? std::make_pair(x.begin + x.joinAt32,
                                       x.begin + x.joinAt32 + x.join32 - 1)
                      : std::make_pair(uint64_t(0), uint64_t(0));
    return wideJoin.at(im->first);
  }
  /// Sets it: narrow where it fits, else held apart.
  void setJoin(IdTable<Implicit>::iterator im, uint64_t begin, uint64_t end);

  double clockNs() const { return tpn; }
  /// The first grain's start and the last one's end (ticks; 0: no grain),
  /// found once the model is made.
  uint64_t firstInstant() const { return firstAt; }
  uint64_t lastInstant() const { return lastAt; }
  size_t nGrains() const { return chunks.size() + tasks.size(); }
  std::string loopName(const Loop &lp) const;
  /// A loop instance's name: its site's (its code), unique per site: where
  /// sites share a source name, or it names no line, the name adds the
  /// code's address ("at object+0xoffset").
  const std::string &loopName(int li) const {
    return siteLoopNames[loopSite[li]];
  }
  /// Per loop instance: its site, the loop's code (its code pointer, its
  /// copies of one source line included; loops seen only through chunks:
  /// their source location, else the instance).
  std::vector<int32_t> loopSite;
  /// A task's (function, location): its site's (its creation's code
  /// pointer), the location unique per site as loop names are.
  const std::pair<std::string, std::string> &taskName(size_t k) const {
    return taskSites.at(tasks.codeptr[k]).first;
  }
  /// A task's name: "task LOCATION (FUNCTION)", unique per site.
  const std::string &taskGrainName(size_t k) const {
    return taskSites.at(tasks.codeptr[k]).second;
  }
  /// A task's site (0, 1, ...): its creation's code, its copies included.
  int32_t taskSite(size_t k) const { return taskSiteOf.at(tasks.codeptr[k]); }
  /// Why some sites' names give no source line, and what to add.
  std::vector<std::string> nameNotes;

  /// Where a share's thread left its loop (its loop end; with hasEnd),
  /// for the tasks made in loop chunks: kept only when there are such
  /// tasks (Tasks::ctx).
  uint64_t threadEnd(const Share &s) const {
    return shareEnd[size_t(&s - sharePool.data())];
  }

  /// Per chunk, its number among its thread's chunks of its loop
  /// instance (0, 1, ...: the order they were read).
  std::vector<uint32_t> chunkNumbers() const;

  GrainMetrics chunkMetrics(size_t i) const;
  GrainMetrics taskMetrics(size_t k) const;
  /// A task's own work (ticks): work_cycles, or where that is NA (a
  /// child's creation unmeasured) its execution less its waits at its
  /// children's join points; never below 0.
  double taskOwnWork(size_t k) const;
  /// Chunk i's own times are unknown (its thread's share's, Share::unknown).
  bool chunkUnknown(size_t i) const {
    if (!anyUnknown) // no share's (mostly): none looked up
      return false;
    const Share *s = shareOf(loops[size_t(chunks.loop[i])], chunks.thread[i]);
    return s && s->unknown;
  }
  /// The loop chunk that made task k, or -1: the chunk its implicit task
  /// was running when it made k (a task made by an explicit task is that
  /// task's child, whatever chunk its thread ran). The grain graph's
  /// creation edge of k starts there and grains.csv names it k's parent.
  int64_t madeInChunk(size_t k) const;

  /// With a baseline: the chunks and tasks that have a twin there, and
  /// why the others have none (the summary's "matched" line).
  struct Matches {
    size_t chunks = 0, chunkNoLineage = 0, chunkUnknown = 0, chunkNoTwin = 0;
    size_t tasks = 0, taskNoLineage = 0, taskNoWork = 0, taskNoTwin = 0;
  } matches;

  // Lineages (std::nullopt: NA).
  std::optional<std::string> instanceLineage(int li) const;
  std::optional<std::string> chunkLineage(size_t i) const;
  /// A task's lineage walks up to its root; the memo, the caller's, keeps
  /// the walks of the tasks asked before (their children stop there).
  using LineageMemo = std::unordered_map<size_t, std::optional<std::string>>;
  std::optional<std::string> taskLineage(size_t k, LineageMemo &memo) const;
  /// One task's lineage, walked alone.
  std::optional<std::string> taskLineage(size_t k) const {
    LineageMemo memo;
    return taskLineage(k, memo);
  }
  /// The OpenMP thread number of chunk i's implicit task, or -1.
  int64_t threadNum(size_t i) const;

private:
  void readThread(int th, ThreadReader &rd);
  int newLoop(int kind, uint64_t a, uint64_t b);
  // The code of a new or renamed instance: an index in loopCodes, those
  // asked for lately found again without a look-up (by a hash of the code
  // pointer, source and schedule: a loop's code and its code once its first
  // chunk names its source, of each of a program's loops).
  uint32_t codeId(const LoopCode &c);
  std::map<std::tuple<uint64_t, uint32_t, uint64_t, const std::string *,
                      const std::string *>,
           uint32_t>
      codeIds;
  static constexpr unsigned RecentCodesBits = 6;
  std::array<uint32_t, 1u << RecentCodesBits> recentCodes = [] {
    std::array<uint32_t, 1u << RecentCodesBits> a;
    a.fill(UINT32_MAX);
    return a;
  }();
  // While the recording is read: the source location (psource) of each
  // loop instance not seen to begin that has one, by its index (the
  // others' is their code's).
  std::unordered_map<int, uint64_t> orphanSource;
  struct Frame;
  Frame &frame(std::vector<Frame> &frames, uint64_t task, uint64_t par);
  void release(Frame &fr, int th);
  void closeChunk(Frame &fr, bool has, uint64_t t);
  void appendChunk(Frame &fr, int th, uint64_t t, uint64_t a, uint64_t b,
                   double c, uint64_t e, uint32_t d);
  void orderTasks();
  void taskloopTasks();
  void finish();
  void finishTasks();
  void lineages();
  void iterationOrder(std::unordered_map<int64_t, int32_t> &perChunk,
                      std::vector<int32_t> &regionRank);
  void metrics();
  void chunkMetricsPass();
  std::string siteFunction(uint64_t codeptr, uint64_t task) const;
  void taskContexts();
  int64_t joinWait(int64_t p) const;
  double chunkDeviation(int li, uint64_t lo, uint64_t up, bool has,
                        double work) const;
  std::optional<uint64_t> rootRegion(size_t k) const;
  std::optional<std::string> rootLineage(size_t k) const;

  // The implicit tasks whose region is not held as its entry in regions
  // (Implicit::region Far), by task id: its parallel id; those whose end is
  // held apart (Implicit::end32 Far): their end.
  std::unordered_map<uint64_t, uint64_t> implicitParApart, implicitEndApart;
  // Sets an implicit task's end: narrow where it fits, else held apart
  // (setImplicitEndApart(), which also sets one held apart again or 0).
  void setImplicitEnd(IdTable<Implicit>::iterator im, uint64_t end);
  void setImplicitEndApart(IdTable<Implicit>::iterator im, uint64_t end);
  // The regions whose end does not fit Region::end32 (end32 Far), by
  // index in regionList: their end.
  std::unordered_map<uint32_t, uint64_t> regionEndApart;
  // Sets region r's end: narrow where it fits, else held apart (0: not
  // seen to end).
  void setRegionEnd(size_t r, uint64_t end);
  // Once the recording is read: the implicit tasks whose region was
  // recorded after they began (by a thread read later) hold it as its
  // entry.
  void resolveImplicitRegions();
  // The implicit tasks whose thread number or team size is Implicit::Apart
  // or more, by task id: both.
  std::unordered_map<uint64_t, std::pair<uint64_t, uint32_t>> wideImplicit;
  // The implicit tasks' waits at their region's end barrier that do not
  // fit Implicit's 32-bit fields (join32 JoinApart), by task id: begin and
  // end.
  std::unordered_map<uint64_t, std::pair<uint64_t, uint64_t>> wideJoin;
  double tpn = 1.0;
  uint64_t firstAt = 0, lastAt = 0; // firstInstant(), lastInstant()
  void instants();
  bool createsInOrder = true;
  std::unordered_map<uint64_t,
                     std::vector<std::tuple<uint64_t, uint64_t, uint64_t>>>
      taskloops;
  std::vector<uint64_t> taskloopOrder;
  std::unordered_map<uint64_t, std::string> context;
  std::vector<std::string> siteLoopNames; // per loop site
  // Every loop instance's threads (shares()); while the recording is
  // read, each instance's shares are a list through sharePrev from the
  // one made last (Loop::shareAt), made one run per instance when it has
  // been read (packShares()).
  std::vector<Share> sharePool;
  std::vector<uint32_t> sharePrev;
  // Whether some share's chunks' own times are unknown (Share::unknown).
  bool anyUnknown = false;
  // Instance lp's count of threads, once its shares are one run: up to
  // the next instance's run (instances' runs are laid out in their order).
  uint32_t nShares(const Loop &lp) const {
    assert(sharePrev.empty() && "the shares are one run per instance");
    size_t li = size_t(indexOf(lp));
    size_t e = li + 1 < loops.size() ? loops[li + 1].shareAt : sharePool.size();
    return uint32_t(e - lp.shareAt);
  }
  // The loop instances' ends that do not fit Loop::end32, by instance.
  std::unordered_map<uint32_t, uint64_t> loopEndApart;
  // Sets instance lp's end (with hasEnd) to e, narrow where it fits (from
  // its begin: set again where that moves); the others, and an end held
  // apart set again, setLoopEndApart().
  void setLoopEnd(Loop &lp, uint64_t e);
  void setLoopEndApart(Loop &lp, uint64_t e);
  // Per share, where its thread left the loop (threadEnd(); 0: not seen
  // to), set while the recording is read; dropped once the model is made
  // where no task was made in a chunk (Tasks::ctx), the only readers then.
  std::vector<uint64_t> shareEnd;
  Share &readShare(int li, int th);
  void packShares();
  // The shares' work and wait values outside [0, Share::Wide), by the
  // index their field holds (less Wide).
  std::vector<int64_t> shareWide;
  int64_t wideValue(uint32_t f) const {
    return f < Share::Wide ? int64_t(f) : shareWide[f - Share::Wide];
  }
  // Sets a share's work or wait field to v.
  void setWide(uint32_t &f, int64_t v);
  // Per loop instance one of whose threads ran two chunks or more: its
  // largest chunk's work (at least 0; an instance of one chunk per thread:
  // its threads' largest work). The instances ascending (multiAt) and
  // their values, or, where they are more than half the instances, per
  // instance (multiDense).
  std::vector<uint32_t> multiAt;
  std::vector<int64_t> multiMax;
  bool multiDense = false;
  // The largest chunk work of instance li, whose shares' largest work is
  // mx (of cnt shares with work).
  int64_t maxWorkOf(size_t li, int64_t mx, int64_t cnt) const;
  // The loops' function names and locations, each held once.
  std::unordered_set<std::string> namePool;
  PooledName pooled(const std::string &s);
  // By code pointer: (function, location) and name.
  std::unordered_map<
      uint64_t, std::pair<std::pair<std::string, std::string>, std::string>>
      taskSites;
  std::unordered_map<uint64_t, int32_t> taskSiteOf;
  std::pair<std::string, std::string> taskSource(size_t k) const;
  void siteNames();
  // Per region (regionList index), how its lineage is made, not the text:
  // none, its starting chunk's instance's, its encountering task's or the
  // process's (""), then "/p<location>#<its number>" (lineages()).
  enum RegionLineage : uint8_t { RL_NONE, RL_CHUNK, RL_TASK, RL_ROOT };
  std::vector<uint8_t> regionLineage;
  std::vector<int32_t> regionNumber;
  std::optional<std::string> regionLineageOf(uint64_t par) const;
  LineageMemo tlin; // the model's own walks, while it is built
  std::vector<std::optional<uint64_t>>
      oneMaker; // regions whose root tasks one task made
  // Per loop: its baseline instance (or null), for work_deviation.
  std::vector<const void *> baseInstance;
  // While the recording is read: the loop instances of a region (kind 0)
  // or a task (kind 1) by their number n there (-1: none yet), the first
  // (most keys' only one) held in place (8 bytes), the others in
  // loopKeyMore.
  struct ByN {
    int first = -1;
    uint32_t more = 0; // 0: none; else its place in loopKeyMore, plus one
  };
  // A key's instances n = 1, 2, ...: while each is the instance after
  // the one before (as a team's first thread read makes them, when no
  // other loop comes between), a run (n = 1..run: first + n); then the
  // others one by one (n = run + 1, ...).
  struct MoreN {
    uint32_t run = 0;
    std::vector<int> rest;
  };
  std::vector<MoreN> loopKeyMore;
  int loopOf(const ByN &k, uint64_t n) const;
  void setLoop(ByN &k, uint64_t n, int li);
  // Kind 1's keys by task id; kind 0's (regions) by region number
  // (regionKeys: 8 bytes a region, not 16), those of a region not recorded
  // when its first instance began by parallel id (loopKeys[0]; its key
  // stays there).
  IdTable<ByN> loopKeys[2];
  std::vector<ByN> regionKeys;
  // Region par's key, made if make, else null where it has none.
  ByN *regionKey(uint64_t par, bool make);
};

/// The grains of a one-thread run of the same program, by lineage.
class Baseline {
public:
  explicit Baseline(Analysis &an);
  struct Instance {
    std::vector<uint64_t> lo, up;
    std::vector<int64_t> work;
  };
  std::unordered_map<std::string, Instance> instances;
  std::unordered_map<std::string, int64_t> instanceWork;
  std::unordered_map<std::string, double> tasks;
  size_t grains = 0, threads = 0;
  /// The work of the twin chunk [lo, up] of an instance, or false.
  static bool chunkWork(const Instance &in, uint64_t lo, uint64_t up,
                        int64_t &work);
};

} // namespace gcg

#endif

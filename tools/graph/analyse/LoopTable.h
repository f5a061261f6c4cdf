// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopTable.h - loop instances per thread ---------------------------===//
//
// The table behind loops.csv, the aggregated outputs and the problems: per
// loop instance and thread, its chunks, their work and the wait after them.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_LOOPTABLE_H
#define GRAINCHUNK_GRAPH_LOOPTABLE_H

#include "Analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcg {

/// One loop instance on one thread, as its loop table gives it (a value
/// made when asked: LoopRows): its chunks, their work (ticks; NA when the
/// chunks' own times are unknown), least and most, its first chunk's start
/// and its last chunk's end. Its median chunk work is LoopTable::median,
/// its wait at the loop's end shareWait of its share (the row's thread's in
/// the instance).
struct LoopThread {
  int loop = 0, th = 0;
  int32_t chunks = 0; // at most Share::MaxCount
  bool hasWork = false;
  int64_t work = 0, minWork = 0, maxWork = 0;
  uint64_t first = 0, last = 0;
};

/// Every loop instance and thread of a process, by instance then thread
/// (the order the instance met them: its shares'), not held twice: a row's
/// thread, chunks, flags and (of one chunk) work are its share's, of the
/// model's pool (a part's rows, read without a model, hold shares of their
/// own). A row holds its first chunk's start alone (8 bytes); a row of two
/// chunks or more (or whose share cannot give its work: a part's, or one
/// chunk ending before it starts or of Share::Wide ticks or more) holds its
/// work, least, most and last end apart (an Apart, by row). Per instance
/// its first row (4 bytes).
class LoopRows {
public:
  /// Row r's values held apart from its share.
  struct Apart {
    uint32_t row = 0;
    int64_t minWork = 0, maxWork = 0, work = 0;
    uint64_t last = 0;
  };
  /// The rows over the model's share pool (pool: the first instance's
  /// shares; every instance's a run of it, in instance order), per instance
  /// its shares' count; first and apart: per row its first chunk's start,
  /// and what its rows hold apart (by row).
  LoopRows(const Share *pool, const std::vector<uint32_t> &perInstance,
           std::vector<uint64_t> first, std::vector<Apart> apart);
  LoopRows() : rowStart(1, 0) {}
  size_t size() const { return first.size(); }
  /// Loop instances (the last with rows, or as many as add() was told).
  size_t instances() const { return rowStart.size() - 1; }
  /// Row r's share: its thread, chunks (count) and flags.
  const Share &share(size_t r) const { return shares()[r]; }
  /// Instance li's first row (its rows: consecutive).
  size_t rowBegin(size_t li) const { return rowStart[li]; }
  /// Row r (its instance looked up).
  LoopThread operator[](size_t r) const;
  /// Appends a row read from a part (instances ascending, rows of one
  /// instance consecutive); false if it cannot be a row a table wrote.
  bool add(int loop, int th, int64_t chunks, bool hasWork, int64_t work,
           uint64_t first, uint64_t last);
  /// A part's rows read: its instances, as many as it has (false: a row
  /// of a later one).
  bool close(size_t instances);

  class Iterator {
  public:
    LoopThread operator*() const {
      return t->make(r, int(li),
                     ap < t->apart.size() && t->apart[ap].row == r
                         ? &t->apart[ap]
                         : nullptr);
    }
    Iterator &operator++() {
      r++;
      while (li + 1 < t->instances() && t->rowStart[li + 1] <= r)
        li++;
      while (ap < t->apart.size() && t->apart[ap].row < r)
        ap++;
      return *this;
    }
    bool operator!=(const Iterator &o) const { return r != o.r; }
    /// Its row's number.
    size_t row() const { return r; }

  private:
    friend class LoopRows;
    Iterator(const LoopRows *t, size_t r);
    const LoopRows *t;
    size_t r, li = 0, ap = 0;
  };
  Iterator begin() const { return Iterator(this, 0); }
  Iterator end() const { return Iterator(this, size()); }
  /// f(r, row r) for every row in order (instance by instance: no lookup
  /// per row).
  template <class F> void forEach(F &&f) const {
    size_t ap = 0;
    for (size_t li = 0; li + 1 < rowStart.size(); li++)
      for (size_t r = rowStart[li], e = rowStart[li + 1]; r < e; r++)
        f(r, make(r, int(li), nextApart(r, ap)));
  }
  /// Instance li's rows into out; ap: where the rows held apart were left
  /// (0 at first; found again when li does not ascend from one call to the
  /// next).
  void rowsOf(size_t li, std::vector<LoopThread> &out, size_t &ap) const {
    out.clear();
    if (ap > apart.size() || (ap && apart[ap - 1].row >= rowStart[li]))
      ap = size_t(
          std::lower_bound(apart.begin(), apart.end(), rowStart[li],
                           [](const Apart &a, size_t r) { return a.row < r; }) -
          apart.begin());
    for (size_t r = rowStart[li], e = rowStart[li + 1]; r < e; r++)
      out.push_back(make(r, int(li), nextApart(r, ap)));
  }
  /// The bytes its columns hold (not its shares').
  size_t heldBytes() const;

private:
  const Share *shares() const { return pool ? pool : own.data(); }
  const Apart *apartOf(size_t r) const;
  /// Row r's Apart if it is the one at ap (rows asked in order; ap moves
  /// past the rows before r).
  const Apart *nextApart(size_t r, size_t &ap) const {
    while (ap < apart.size() && apart[ap].row < r)
      ap++;
    return ap < apart.size() && apart[ap].row == r ? &apart[ap] : nullptr;
  }
  /// Row r of instance li, a its Apart or null.
  LoopThread make(size_t r, int li, const Apart *a) const {
    const Share &s = shares()[r];
    LoopThread x;
    x.loop = li;
    x.th = s.th;
    x.chunks = int32_t(s.count);
    x.hasWork = !s.unknown;
    x.first = first[r];
    if (a) {
      x.work = a->work, x.minWork = a->minWork, x.maxWork = a->maxWork;
      x.last = a->last;
    } else if (x.chunks) { // its one chunk's work and end (in its share)
      x.work = x.minWork = x.maxWork = s.work32;
      x.last = x.first + uint64_t(s.work32);
    } else {
      x.last = x.first;
    }
    return x;
  }
  const Share *pool = nullptr;
  std::vector<Share> own; // a part's
  std::vector<uint64_t> first;
  std::vector<uint32_t> rowStart; // per instance its first row, then size()
  std::vector<Apart> apart;       // by row
};

/// Per loop table row, its first chunk's making in whole ticks (what the
/// losses take from its first start; 0: unmeasured): 4 bytes a row, a
/// value of UINT32_MAX ticks or more held apart (by row, with the row's
/// 4 bytes UINT32_MAX).
class CreationTicks {
public:
  /// rows rows, each 0.
  void assign(size_t rows) {
    low.assign(rows, 0);
    high.clear();
  }
  /// Row r's value (the last set counts; then sorted()).
  void set(size_t r, uint64_t v) {
    low[r] = uint32_t(std::min<uint64_t>(v, UINT32_MAX));
    if (v >= UINT32_MAX)
      high.push_back({r, v});
  }
  /// Once every row is set: those apart by row, each row's last.
  void sorted() {
    std::stable_sort(
        high.begin(), high.end(),
        [](const auto &a, const auto &b) { return a.first < b.first; });
    size_t n = 0;
    for (size_t j = 0; j < high.size(); j++) {
      if (n && high[n - 1].first == high[j].first)
        n--;
      high[n++] = high[j];
    }
    high.resize(n);
  }
  uint64_t operator[](size_t r) const {
    if (low[r] != UINT32_MAX)
      return low[r];
    return std::lower_bound(high.begin(), high.end(),
                            std::make_pair(r, uint64_t(0)))
        ->second;
  }
  size_t size() const { return low.size(); }
  /// Empty, its memory freed.
  void clear() {
    std::vector<uint32_t>().swap(low);
    std::vector<std::pair<size_t, uint64_t>>().swap(high);
  }

private:
  std::vector<uint32_t> low;
  std::vector<std::pair<size_t, uint64_t>> high;
};

/// Every loop instance and thread of a process (LoopRows). medians, when
/// given, gets the median chunk work of each row of three chunks or more
/// (by row; a sort of their chunks' work); firstCreation, when given, per
/// row its first chunk's making (whole ticks; 0: unmeasured).
LoopRows loopThreads(const Analysis &an,
                     std::vector<std::pair<size_t, double>> *medians = nullptr,
                     CreationTicks *firstCreation = nullptr);
/// A loop instance's thread's wait at the loop's end (ticks; NaN: NA).
inline double shareWait(const Analysis &an, const Share &sh) {
  double per = an.waitPer(sh);
  return std::isnan(per) ? NAN : per * double(sh.count);
}

/// Loop instances in the order their first chunk started, listed only
/// where they are not the instances 0 .. n - 1 in that order (4 bytes per
/// instance saved where instances begin as they are numbered).
struct StartOrder {
  std::vector<int32_t> list; // empty: the instances 0 .. n - 1
  size_t n = 0;
  size_t size() const { return list.empty() ? n : list.size(); }
  int32_t operator[](size_t k) const {
    return list.empty() ? int32_t(k) : list[k];
  }
  bool operator==(const StartOrder &o) const {
    if (size() != o.size())
      return false;
    for (size_t k = 0; k < size(); k++)
      if ((*this)[k] != o[k])
        return false;
    return true;
  }
};

/// A process's loop table, made once (diagnose/Results.h holds it): its
/// rows, and what the aggregated outputs (CoarseGraph.h) merge instances
/// by, so that no level they try makes any of it again.
struct LoopTable {
  /// Every loop instance and thread (loopThreads()).
  LoopRows rows;
  int64_t minWork(size_t r) const { return rows[r].minWork; }
  int64_t maxWork(size_t r) const { return rows[r].maxWork; }
  uint64_t last(size_t r) const { return rows[r].last; }
  /// Row r's median chunk work (of an even count: the mean of the middle
  /// two; NaN: no chunks); x: row r.
  double median(size_t r, const LoopThread &x) const;
  double median(size_t r) const { return median(r, rows[r]); }
  /// The medians of the rows of three chunks or more, by row.
  std::vector<std::pair<size_t, double>> medians;
  /// Per row, its first chunk's making (whole ticks; 0: unmeasured): what
  /// the losses (InstanceLosses) need of it, emptied once they are made
  /// (computeResults).
  CreationTicks firstCreation;
  /// Per loop instance: its loop (its name and code address: two loops of
  /// one function built without -g share a name), numbered from 0 in the
  /// order of their first instance.
  std::vector<int32_t> loopOf;
  size_t nLoops = 0;
  /// The instances with chunks, in the order their first chunk started
  /// (ties in instance order).
  StartOrder byStart;
  /// The most instances one loop has.
  uint64_t most = 0;
};
LoopTable loopTable(const Analysis &an);
/// Per loop instance its loop (LoopTable::loopOf); nLoops gets how many
/// loops, most the most instances of one.
std::vector<int32_t> loopIds(const Analysis &an, size_t *nLoops = nullptr,
                             uint64_t *most = nullptr);
/// The instances (of rows.instances()) with chunks in rows, in the order
/// their first chunk started (LoopTable::byStart).
StartOrder instancesByStart(const LoopRows &rows);

/// One loop instance's thread time lost, as the recording measured it: its
/// team x (its last chunk's end - its first chunk's start) - its chunks'
/// work, and where that time went. Per thread of the team that span is its
/// time before its first chunk (a late start), between its chunks (making
/// them, the schedule), after its last chunk (waiting for the others) or
/// all of it for a thread that ran no chunk; those four add up to lost. A
/// thread's time starts where it began making its first chunk, where that
/// was measured.
struct InstanceLoss {
  int loop = -1;
  /// Every chunk's own time known (not reported ahead by a stock build).
  bool known = false;
  uint32_t team = 0, threads = 0; // its team, the threads that ran chunks
  uint64_t first = 0, last = 0;   // its first chunk's start, last's end
  double work = 0, lost = 0;      // ticks
  double lateStart = 0, between = 0, endWait = 0, idle = 0; // ticks
  /// Of endWait, what the threads' late starts caused (the rest is uneven
  /// work: the wait had they all started with the first, the longest
  /// thread's span less each one's, at most endWait).
  double endWaitLate = 0;
  /// Of lateStart, what the threads' late joins explain: per thread, up to
  /// how much later than the first of the instance's threads its implicit
  /// task began (the rest it spent in the region before the loop).
  double lateJoin = 0;
  double latest = 0; // the latest first chunk's start after the first's
  int latestThread = -1;
  double maxWork = 0; // the busiest thread's work
};
/// Each loop instance's InstanceLoss in turn, from its loop table: none is
/// held for every instance (the problems read each once).
class InstanceLosses {
public:
  InstanceLosses(const Analysis &an, const LoopTable &t);
  /// Instance li's; li ascends from one call to the next.
  InstanceLoss operator()(int li);

private:
  struct Joined {
    uint64_t par;
    int th;
    uint64_t begin;
  };
  static bool byKey(const Joined &a, const Joined &b);
  /// Past this many sorted runs of implicit tasks, they are sorted whole.
  static constexpr size_t MaxRuns = 16;
  /// The first of region par's implicit tasks in joined (the first of a
  /// later region's, or the end, if it has none): found on from the last
  /// region asked's (jat).
  size_t regionTasks(uint64_t par);
  /// Where thread th's implicit task began in region par, if known: found
  /// in th's run of the implicit tasks, on from the last one asked.
  const uint64_t *threadJoined(uint64_t par, int th);
  /// Where r's thread's implicit task began in r's region, if known: of
  /// its region's implicit tasks b..e (by thread, then as they came).
  const uint64_t *joinedAt(const LoopThread &r, const Joined *b,
                           const Joined *e) const;
  const Analysis &an;
  const LoopRows &rows;
  const CreationTicks &firstCreation; // by row
  /// The model's implicit tasks; where each thread's are one run in the
  /// order of their regions, per thread number its run [b, e) and where
  /// the last lookup left off (at); else (byThread empty) joined: their
  /// (region, thread, begin) by region then thread.
  const std::pair<uint64_t, Implicit> *implicit = nullptr;
  struct ThreadRun {
    size_t b, e, at;
  };
  static constexpr int MaxThread = 1 << 16;
  std::vector<ThreadRun> byThread;
  std::vector<Joined> joined;
  /// Where the rows held apart were left (LoopRows::rowsOf), and the last
  /// region's implicit tasks found (regionTasks).
  size_t ap = 0, jat = 0;
  /// The rows of the instance asked, and per row joinedAt's (reused).
  std::vector<LoopThread> mine;
  std::vector<const uint64_t *> at;
};

/// What the outputs read of an instance's InstanceLoss once the problems
/// are ranked (32 bytes, not 104): its thread time lost and its span.
struct InstanceLost {
  int loop = -1;
  uint32_t threads = 0; // the threads that ran chunks
  double lost = 0;      // ticks
  uint64_t first = 0, last = 0;
};

} // namespace gcg

#endif

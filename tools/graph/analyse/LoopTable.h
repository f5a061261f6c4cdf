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

#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcg {

/// What a row of two chunks or more holds apart (LoopThread::spread): its
/// least and most chunk work and its last chunk's end.
struct Spread {
  int64_t minWork = 0, maxWork = 0;
  uint64_t last = 0;
};
using Spreads = std::vector<Spread>;

/// One loop instance on one thread: its chunks and their work (ticks; NA
/// when the chunks' own times are unknown): 32 bytes. Of one chunk, its
/// least and most chunk work are the row's and its last chunk's end its
/// start and work; of more (or any a part's row cannot hold so), they are
/// held apart (a Spread; minWork(), maxWork(), last()). Its median chunk
/// work is LoopTable::median, its first chunk's making
/// LoopTable::firstCreation (while the losses are made), its wait at the
/// loop's end shareWait of its share (the row's thread's in the instance).
struct LoopThread {
  static constexpr uint32_t NoSpread = UINT32_MAX;
  LoopThread() : chunks(0), hasWork(false) {}
  int loop = 0, th = 0;
  int32_t chunks : 31; // at most Share::MaxCount
  bool hasWork : 1;
  uint32_t spread = NoSpread; // its entry in its Spreads, or NoSpread
  int64_t work = 0;
  uint64_t first = 0; // the first chunk's start
  /// Its least and most chunk work, and its last chunk's end, of its
  /// spreads (never null).
  int64_t minWork(const Spreads *s) const {
    return spread != NoSpread ? (*s)[spread].minWork : chunks ? work : 0;
  }
  int64_t maxWork(const Spreads *s) const {
    return spread != NoSpread ? (*s)[spread].maxWork : chunks ? work : 0;
  }
  uint64_t last(const Spreads *s) const {
    return spread != NoSpread ? (*s)[spread].last : first + uint64_t(work);
  }
};
static_assert(sizeof(LoopThread) == 32, "a loop table row is 32 bytes");
/// Every loop instance and thread of a process, by instance then thread
/// (the order the instance met them: its shares'). medians, when given,
/// gets the median chunk work of each row of three chunks or more (by row;
/// a sort of their chunks' work); firstCreation, when given, per row its
/// first chunk's making (ticks; 0: unmeasured); spreads, when given, the
/// least and most chunk work of the rows of two chunks or more.
std::vector<LoopThread>
loopThreads(const Analysis &an,
            std::vector<std::pair<size_t, double>> *medians = nullptr,
            std::vector<double> *firstCreation = nullptr,
            Spreads *spreads = nullptr);
/// A loop instance's thread's wait at the loop's end (ticks; NaN: NA).
inline double shareWait(const Share &sh) {
  return std::isnan(sh.waitPer) ? NAN : sh.waitPer * double(sh.count);
}

/// A process's loop table, made once (diagnose/Results.h holds it): its
/// rows, and what the aggregated outputs (CoarseGraph.h) merge instances
/// by, so that no level they try makes any of it again.
struct LoopTable {
  /// Every loop instance and thread (loopThreads()).
  std::vector<LoopThread> rows;
  /// What its rows of two chunks or more hold apart.
  Spreads spreads;
  int64_t minWork(size_t r) const { return rows[r].minWork(&spreads); }
  int64_t maxWork(size_t r) const { return rows[r].maxWork(&spreads); }
  uint64_t last(size_t r) const { return rows[r].last(&spreads); }
  /// Row r's median chunk work (of an even count: the mean of the middle
  /// two; NaN: no chunks).
  double median(size_t r) const;
  /// The medians of the rows of three chunks or more, by row.
  std::vector<std::pair<size_t, double>> medians;
  /// Per row, its first chunk's making (ticks; 0: unmeasured): what the
  /// losses (InstanceLosses) need of it, emptied once they are made
  /// (computeResults).
  std::vector<double> firstCreation;
  /// Per loop instance: its loop (its name and code address: two loops of
  /// one function built without -g share a name), numbered from 0 in the
  /// order of their first instance.
  std::vector<int32_t> loopOf;
  size_t nLoops = 0;
  /// The instances with chunks, in the order their first chunk started
  /// (ties in instance order).
  std::vector<int32_t> byStart;
  /// The most instances one loop has.
  uint64_t most = 0;
};
LoopTable loopTable(const Analysis &an);
/// Per loop instance its loop (LoopTable::loopOf); nLoops gets how many
/// loops, most the most instances of one.
std::vector<int32_t> loopIds(const Analysis &an, size_t *nLoops = nullptr,
                             uint64_t *most = nullptr);
/// The instances (of `instances`) with chunks in rows, in the order their
/// first chunk started (LoopTable::byStart).
std::vector<int32_t> instancesByStart(const std::vector<LoopThread> &rows,
                                      size_t instances);

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
  /// Where r's thread's implicit task began in r's region, if known: of
  /// its region's implicit tasks b..e (by thread, then as they came).
  const uint64_t *joinedAt(const LoopThread &r, const Joined *b,
                           const Joined *e) const;
  const Analysis &an;
  const std::vector<LoopThread> &rows;
  const Spreads &spreads;
  const std::vector<double> &firstCreation; // by row
  size_t row = 0; // the first row of the next instance asked
  /// The implicit tasks' (region, thread, begin).
  std::vector<Joined> joined;
  /// Per row of the instance asked, joinedAt's (reused).
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

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Otf2Output.cpp - trace.otf2: every grain of every process ---------===//
//
// Walks the Run's tables and gives them to Otf2Writer: a location per
// thread of each process (a location group per process or MPI rank), a
// region per loop (named as in the summary: file:line and function) and
// per task creation site, an enter/leave per chunk (attributes: first and
// last iteration, loop instance, creation time, grain id) and per run
// segment of a task. Events go out thread by thread in time order; a task
// segment that runs inside a chunk (or a chunk inside a task) nests in it.
// Memory: a chunk index per chunk of one thread while it is written.
//
//===----------------------------------------------------------------------===//
#include "Otf2Writer.h"
#include "Writers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gcg {

using grainchunk::graph::GrainAttributes;
using grainchunk::graph::Otf2Clock;
using grainchunk::graph::Otf2Writer;
using grainchunk::graph::RegionKind;

/// "file.c:12" -> ("file.c", 12); no line (":?", none) -> 0.
static std::pair<std::string, uint32_t> fileLine(const std::string &loc) {
  size_t c = loc.rfind(':');
  if (c == std::string::npos)
    return {loc, 0};
  uint32_t line = 0;
  for (size_t i = c + 1; i < loc.size(); i++) {
    if (loc[i] < '0' || loc[i] > '9')
      return {loc.substr(0, c), 0};
    line = line * 10 + uint32_t(loc[i] - '0');
  }
  return {loc.substr(0, c), line};
}

namespace {
/// Regions by name (shared by all processes, so that a loop of every rank
/// is the same region).
struct Regions {
  Otf2Writer &w;
  std::map<std::string, uint32_t> ids;
  uint32_t get(const std::string &name, const std::string &loc,
               RegionKind kind) {
    auto it = ids.find(name);
    if (it != ids.end())
      return it->second;
    auto fl = fileLine(loc);
    uint32_t r = w.addRegion(name, fl.first, fl.second, kind);
    ids.emplace(name, r);
    return r;
  }
};

} // namespace

void writeOtf2(const Results &R, const std::string &dir, const std::string &name) {
  const Run &run = R.run;
  Otf2Clock clk;
  const Analysis &a0 = *run.procs[0];
  clk.TicksPerNs = a0.clockNs() > 0 ? a0.clockNs() : 1.0;
  clk.Start = run.firstInstant();
  uint64_t last = clk.Start;
  for (auto &a : run.procs)
    if (a->nGrains())
      last = std::max(last, a->lastInstant());
  clk.End = last;
  Otf2Writer w(dir, name, clk);
  Regions regions{w, {}};
  std::set<uint64_t> pidsUsed;
  for (size_t p = 0; p < run.procs.size() && w.ok(); p++) {
    const Analysis &an = *run.procs[p];
    const ProcessDir &pd = an.proc;
    uint64_t pid = pd.pid >= 0 ? uint64_t(pd.pid) : uint64_t(p);
    // A program that exec'd keeps its pid: each image is a process of its
    // own (its number in the high half, shown as "process <pid>.<n>").
    while (!pidsUsed.insert(pid).second)
      pid += uint64_t(1) << 32;
    int rank = pd.rank >= 0 ? int(pd.rank) : -1;
    std::string host = pd.host.empty() ? "localhost" : pd.host;
    std::vector<uint32_t> loopRegion;
    for (const Loop &lp : an.loops)
      loopRegion.push_back(
          regions.get(an.loopName(lp.index), lp.loc, RegionKind::LoopChunk));
    const Tasks &T = an.tasks;
    std::vector<uint32_t> taskRegion(T.size());
    std::map<uint64_t, uint32_t> bySite; // code pointer -> region
    for (size_t k = 0; k < T.size(); k++) {
      auto it = bySite.find(T.codeptr[k]);
      if (it == bySite.end()) {
        auto nl = an.taskName(k);
        it =
            bySite
                .emplace(T.codeptr[k], regions.get(an.taskGrainName(k),
                                                   nl.second, RegionKind::Task))
                .first;
      }
      taskRegion[k] = it->second;
    }
    // The segments' owners (segments are grouped per task: segOff).
    std::vector<uint32_t> segOwner(T.segStart.size());
    for (size_t k = 0; k < T.size(); k++)
      for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++)
        segOwner[j] = uint32_t(k);
    // Threads: those with chunks or task segments.
    std::set<int> thSet(an.threads.begin(), an.threads.end());
    thSet.insert(T.segThread.begin(), T.segThread.end());
    for (size_t i = 0, last = SIZE_MAX; i < an.chunks.size(); i++)
      if (last == SIZE_MAX || an.chunks.thread[i] != an.chunks.thread[last])
        thSet.insert(an.chunks.thread[last = i]);
    std::vector<int> threads(thSet.begin(), thSet.end());
    // Each thread's grains: chunks (index i) and task run segments
    // (SegBit | j), by thread (a counting sort), then in time order.
    const Chunks &ch = an.chunks;
    const uint32_t SegBit = 0x80000000u;
    std::map<int, size_t> slot;
    for (size_t t = 0; t < threads.size(); t++)
      slot[threads[t]] = t;
    std::vector<size_t> off(threads.size() + 1, 0);
    std::vector<int32_t> thSlot(ch.size());
    int lastTh = -1;
    size_t lastSlot = 0;
    for (size_t i = 0; i < ch.size(); i++) {
      if (ch.thread[i] != lastTh)
        lastTh = ch.thread[i], lastSlot = slot[lastTh];
      thSlot[i] = int32_t(lastSlot);
      off[lastSlot + 1]++;
    }
    for (size_t j = 0; j < T.segStart.size(); j++)
      off[slot[T.segThread[j]] + 1]++;
    for (size_t t = 0; t < threads.size(); t++)
      off[t + 1] += off[t];
    std::vector<uint32_t> items(off.back());
    {
      std::vector<size_t> pos(off.begin(), off.end() - 1);
      for (size_t i = 0; i < ch.size(); i++)
        items[pos[thSlot[i]]++] = uint32_t(i);
      std::vector<int32_t>().swap(thSlot);
      for (size_t j = 0; j < T.segStart.size(); j++)
        items[pos[slot[T.segThread[j]]]++] = SegBit | uint32_t(j);
    }
    auto startOf = [&](uint32_t x) {
      return x & SegBit ? T.segStart[x & ~SegBit] : ch.start[x];
    };
    auto endOf = [&](uint32_t x) {
      uint64_t s = startOf(x);
      uint64_t e = x & SegBit ? T.segEnd[x & ~SegBit] : ch.end[x];
      return std::max(s, e);
    };
    auto regionOf = [&](uint32_t x) {
      return x & SegBit ? taskRegion[segOwner[x & ~SegBit]]
                        : loopRegion[ch.loop[x]];
    };
    // Time order; an enclosing grain (longer) before what it holds.
    auto before = [&](uint32_t a, uint32_t b) {
      uint64_t sa = startOf(a), sb = startOf(b);
      return sa != sb ? sa < sb : endOf(a) > endOf(b);
    };
    std::vector<std::pair<uint32_t, uint64_t>> open; // grain, its end
    for (size_t t = 0; t < threads.size() && w.ok(); t++) {
      uint32_t loc = w.addLocation(pid, rank, host, uint32_t(threads[t]));
      auto b = items.begin() + off[t], e = items.begin() + off[t + 1];
      if (!std::is_sorted(b, e, before))
        std::stable_sort(b, e, before);
      open.clear();
      for (auto it = b; it != e; ++it) {
        uint32_t x = *it;
        uint64_t s = startOf(x), end = endOf(x);
        while (!open.empty() && open.back().second <= s) {
          w.leave(loc, open.back().second, regionOf(open.back().first));
          open.pop_back();
        }
        // Grains that overlap without nesting (clock noise): the inner one
        // ends with the outer one.
        if (!open.empty() && end > open.back().second)
          end = open.back().second;
        GrainAttributes a;
        if (!(x & SegBit)) {
          size_t i = x;
          a.Present = GrainAttributes::HasIterations |
                      GrainAttributes::HasLoopInstance |
                      GrainAttributes::HasGrainId;
          a.FirstIteration = int64_t(ch.lower[i]);
          a.LastIteration = int64_t(ch.upper[i]);
          a.LoopInstance = uint64_t(ch.loop[i]);
          a.GrainId = i;
          if (!std::isnan(ch.creation[i]) && ch.creation[i] >= 0) {
            a.Present |= GrainAttributes::HasCreationCycles;
            a.CreationCycles = uint64_t(ch.creation[i]);
          }
        } else {
          size_t k = segOwner[x & ~SegBit];
          a.Present = GrainAttributes::HasGrainId;
          a.GrainId = T.id[k];
          if (!std::isnan(T.creation[k]) && T.creation[k] >= 0) {
            a.Present |= GrainAttributes::HasCreationCycles;
            a.CreationCycles = uint64_t(T.creation[k]);
          }
        }
        w.enter(loc, s, regionOf(x), &a);
        open.push_back({x, end});
      }
      while (!open.empty()) {
        w.leave(loc, open.back().second, regionOf(open.back().first));
        open.pop_back();
      }
      w.endLocation(loc);
    }
  }
  std::string err;
  if (!w.close(&err))
    throw Error("cannot write " + dir + "/" + name + ".otf2: " + err);
}

} // namespace gcg

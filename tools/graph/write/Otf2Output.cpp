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
// Memory: a region id per loop site and per task code (4 bytes), a task
// number per 16 task segments (their owners found from there); nothing per
// chunk where there are no task segments and each thread's chunks are one
// run of the columns (a run not in time order: its chunks' numbers while it
// is written); else a number (4 bytes) per grain.
//
// An MPI job analysed where it ran (Parts.cpp) writes the archive in parts,
// with the ids one command gives: before the ranks' heads are exchanged,
// each rank writes its region names (otf2.regions) and gives its counts
// of locations and regions (otf2Counts, head figures); then it numbers
// its locations after those of the ranks before it and its regions after
// the names of their regions fragments, writes its locations' event files
// (part/trace/<L>.evt, Otf2Mode::EventsOnly) and a fragment of its
// definitions (otf2.defs: per process its pid, rank, host, clock, regions
// and threads with their event counts, and the clock's span). Rank 0
// (mergeOtf2) checks every fragment, replays them in rank order into the
// job's definitions (trace.otf2, trace.def, trace/<L>.def; the same calls
// in the same order as one command, so the same files) and moves the
// ranks' event files into trace/.
//
//===----------------------------------------------------------------------===//
#include "Otf2Writer.h"
#include "Writers.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>

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
/// A region of the archive: a loop (its chunks) or a task creation site.
struct RegionDef {
  std::string name, file;
  uint32_t line = 0;
  RegionKind kind = RegionKind::LoopChunk;
};

/// What a process gives the archive's definitions: its regions (each once,
/// in order of first use: its loops, then its task sites), its threads
/// (locations, ascending) and, for a part, each thread's event count.
struct ProcDef {
  int64_t pid = -1; // -1: unknown (the process's number in the run then)
  int rank = -1;
  std::string host;
  double clockNs = 1.0;
  std::vector<RegionDef> regions;
  std::vector<uint32_t> threads;
  std::vector<uint64_t> events;
};

/// Regions by name (shared by all processes, so that a loop of every rank
/// is the same region).
struct Regions {
  Otf2Writer &w;
  std::map<std::string, uint32_t> ids;
  uint32_t get(const RegionDef &d) {
    auto it = ids.find(d.name);
    if (it != ids.end())
      return it->second;
    uint32_t r = w.addRegion(d.name, d.file, d.line, d.kind);
    ids.emplace(d.name, r);
    return r;
  }
};

/// Grains [b, e) (numbers) in time order: by start, then an enclosing
/// (later ending) grain before what it holds, then by number (the order a
/// stable sort of ascending numbers leaves). In place, without comparing
/// pairs: by the start's bits less lo from the top (bit shift up), a byte
/// at a time (an American flag sort: each grain's start read twice a byte,
/// not in each of a merge sort's comparisons), then each bucket of 32
/// grains or fewer, or of one start, by the whole order (less).
template <typename Start, typename Less>
static void timeSort(uint32_t *b, uint32_t *e, uint64_t lo, unsigned shift,
                     const Start &start, const Less &less) {
  if (e - b <= 32) {
    std::sort(b, e, less);
    return;
  }
  auto digit = [&](uint32_t x) __attribute__((always_inline)) {
    return unsigned((start(x) - lo) >> shift) & 255;
  };
  size_t count[256] = {};
  for (uint32_t *p = b; p < e; p++)
    count[digit(*p)]++;
  size_t head[256], tail[256], at = 0;
  for (unsigned d = 0; d < 256; d++) {
    head[d] = at;
    at += count[d];
    tail[d] = at;
  }
  for (unsigned d = 0; d < 256; d++)
    while (head[d] < tail[d]) {
      uint32_t x = b[head[d]];
      for (unsigned k = digit(x); k != d; k = digit(x))
        std::swap(x, b[head[k]++]);
      b[head[d]++] = x;
    }
  size_t from = 0;
  for (unsigned d = 0; d < 256; from = tail[d++]) {
    if (tail[d] - from < 2)
      continue;
    if (shift == 0) // one start a bucket
      std::sort(b + from, b + tail[d], less);
    else
      timeSort(b + from, b + tail[d], lo, shift >= 8 ? shift - 8 : 0, start,
               less);
  }
}

/// Process an's definitions; with siteIdx and taskIdx, the index in its
/// regions of each loop site (Analysis::loopSite) and each task code
/// (by its place, TaskCodes::placeOf(); UINT32_MAX: no task's).
ProcDef procDefOf(const Analysis &an, std::vector<uint32_t> *siteIdx = nullptr,
                  std::vector<uint32_t> *taskIdx = nullptr) {
  ProcDef d;
  const ProcessDir &pd = an.proc;
  d.pid = pd.pid >= 0 ? pd.pid : -1;
  d.rank = pd.rank >= 0 ? int(pd.rank) : -1;
  d.host = pd.host.empty() ? "localhost" : pd.host;
  d.clockNs = an.clockNs() > 0 ? an.clockNs() : 1.0;
  std::map<std::string, uint32_t> byName;
  auto add = [&](const std::string &name, const std::string &loc,
                 RegionKind kind) {
    auto it = byName.find(name);
    if (it != byName.end())
      return it->second;
    auto fl = fileLine(loc);
    d.regions.push_back({name, fl.first, fl.second, kind});
    return byName.emplace(name, uint32_t(d.regions.size() - 1)).first->second;
  };
  // A region per loop site (its instances share its name): a name looked
  // up per site, not per instance.
  std::vector<int64_t> bySiteOf;
  for (const Loop &lp : an.loops) {
    size_t site = size_t(an.loopSite[an.indexOf(lp)]);
    if (site >= bySiteOf.size())
      bySiteOf.resize(site + 1, -1);
    if (bySiteOf[site] < 0)
      bySiteOf[site] = add(an.loopName(an.indexOf(lp)), an.codeOf(lp).loc,
                           RegionKind::LoopChunk);
  }
  if (siteIdx)
    siteIdx->assign(bySiteOf.begin(), bySiteOf.end());
  const Tasks &T = an.tasks;
  // A region per task code, named by its first task (in order).
  std::vector<uint32_t> byCode(T.codeptr.count(), UINT32_MAX);
  for (size_t k = 0; k < T.size(); k++) {
    uint32_t &r = byCode[T.codeptr.placeOf(k)];
    if (r == UINT32_MAX)
      r = add(an.taskGrainName(k), an.taskName(k).second, RegionKind::Task);
  }
  if (taskIdx)
    taskIdx->swap(byCode);
  // Threads: those with chunks or task segments.
  std::set<int> thSet(an.threads.begin(), an.threads.end());
  for (size_t j = 0; j < T.segThread.size(); j++)
    thSet.insert(T.segThread[j]);
  for (size_t i = 0, last = SIZE_MAX; i < an.chunks.size(); i++)
    if (last == SIZE_MAX || an.chunks.thread[i] != an.chunks.thread[last])
      thSet.insert(an.chunks.thread[last = i]);
  d.threads.assign(thSet.begin(), thSet.end());
  return d;
}

/// The process's pid in the archive: its own, or its number p in the run;
/// a program that exec'd keeps its pid: each image is a process of its own
/// (its number in the high half, shown as "process <pid>.<n>").
uint64_t uniquePid(int64_t pid, size_t p, std::set<uint64_t> &used) {
  uint64_t u = pid >= 0 ? uint64_t(pid) : uint64_t(p);
  while (!used.insert(u).second)
    u += uint64_t(1) << 32;
  return u;
}

/// Defines process d (pid: uniquePid's) in w: its regions (the writer's
/// ids, per region of d, in *regionIds) and its locations (per thread).
std::vector<uint32_t> defineProcess(Otf2Writer &w, Regions &regions,
                                    const ProcDef &d, uint64_t pid,
                                    std::vector<uint32_t> &regionIds) {
  regionIds.clear();
  for (const RegionDef &r : d.regions)
    regionIds.push_back(regions.get(r));
  std::vector<uint32_t> locs;
  for (uint32_t t : d.threads)
    locs.push_back(w.addLocation(pid, d.rank, d.host, t));
  return locs;
}

/// Process an's events: an enter and a leave per chunk and per task run
/// segment, on the location of its thread (locs, per thread of threads),
/// its region the writer's siteRegion[its loop's site] or taskRegion[its
/// task's code's place].
void writeEvents(Otf2Writer &w, const Analysis &an,
                 const std::vector<uint32_t> &threads,
                 const std::vector<uint32_t> &locs,
                 const std::vector<uint32_t> &siteRegion,
                 const std::vector<uint32_t> &taskRegion) {
  const Tasks &T = an.tasks;
  // A segment's owner (segments are grouped per task: segOff), found from
  // that of every 16th segment (ownerAt) onwards.
  std::vector<uint32_t> ownerAt((T.segStart.size() + 15) / 16);
  for (size_t k = 0; k < T.size(); k++)
    for (uint32_t j = T.segOff[k]; j < T.segOff[k + 1]; j++)
      if (!(j & 15))
        ownerAt[j >> 4] = uint32_t(k);
  auto ownerOf = [&](uint32_t j) {
    size_t k = ownerAt[j >> 4];
    while (T.segOff[k + 1] <= j)
      k++;
    return k;
  };
  // Each thread's grains: chunks (index i) and task run segments
  // (SegBit | j), by thread (a counting sort), then in time order.
  const Chunks &ch = an.chunks;
  const uint32_t SegBit = 0x80000000u;
  std::map<int, size_t> slot;
  for (size_t t = 0; t < threads.size(); t++)
    slot[int(threads[t])] = t;
  std::vector<size_t> off(threads.size() + 1, 0);
  // A grain's thread's slot: looked up once per run of one thread (and
  // again in the second pass, not held per chunk).
  int lastTh = -1;
  size_t lastSlot = 0;
  auto slotOf = [&](int th) {
    if (th != lastTh)
      lastTh = th, lastSlot = slot[th];
    return lastSlot;
  };
  // Where there are no task segments and each thread's chunks are one run
  // of the columns (each thread's recording read in turn), a thread's
  // grains are that run (runs[t]), not listed apart: else every grain's
  // number, by thread (4 bytes a grain).
  std::vector<std::pair<size_t, size_t>> runs(threads.size(), {0, 0});
  bool inRuns = T.segStart.empty();
  for (size_t i = 0, j; i < ch.size() && inRuns; i = j) {
    for (j = i + 1; j < ch.size() && ch.thread[j] == ch.thread[i]; j++)
      ;
    auto &r = runs[slotOf(ch.thread[i])];
    inRuns = r.first == r.second; // the thread's first run
    r = {i, j};
  }
  std::vector<uint32_t> items;
  if (!inRuns) {
    for (size_t i = 0; i < ch.size(); i++)
      off[slotOf(ch.thread[i]) + 1]++;
    for (size_t j = 0; j < T.segStart.size(); j++)
      off[slotOf(T.segThread[j]) + 1]++;
    for (size_t t = 0; t < threads.size(); t++)
      off[t + 1] += off[t];
    items.resize(off.back());
    std::vector<size_t> pos(off.begin(), off.end() - 1);
    for (size_t i = 0; i < ch.size(); i++)
      items[pos[slotOf(ch.thread[i])]++] = uint32_t(i);
    for (size_t j = 0; j < T.segStart.size(); j++)
      items[pos[slotOf(T.segThread[j])]++] = SegBit | uint32_t(j);
  }
  // The segments' columns read through views (held in registers); a
  // chunk's start and end (not before its start) read out of line
  // (chunkStart, chunkEnd) so that the grains' order (before, order) stays
  // short, inlined into its sort; inline for chunks alone (chunkBefore) and
  // in the events' loop (chStart).
  auto segStart = T.segStart.view();
  auto segLen = T.segLen.view();
  auto chunkStart = [&](uint32_t x) __attribute__((noinline)) {
    return ch.start[x];
  };
  auto chunkEnd = [&](uint32_t x) __attribute__((noinline)) {
    uint64_t s = ch.start[x];
    return std::max(s, s + ch.span(x));
  };
  auto startOf = [=](uint32_t x) __attribute__((always_inline)) {
    return x & SegBit ? segStart[x & ~SegBit] : chunkStart(x);
  };
  auto endOf = [=](uint32_t x) __attribute__((always_inline)) {
    if (x & SegBit) {
      uint64_t s = segStart[x & ~SegBit];
      return std::max(s, s + uint64_t(segLen[x & ~SegBit]));
    }
    return chunkEnd(x);
  };

  // Time order; an enclosing grain (longer) before what it holds.
  auto before = [&](uint32_t a, uint32_t b) __attribute__((always_inline)) {
    uint64_t sa = startOf(a), sb = startOf(b);
    return sa != sb ? sa < sb : endOf(a) > endOf(b);
  };
  // The same, a total order: equal grains by number (timeSort()).
  auto order = [&](uint32_t a, uint32_t b) __attribute__((always_inline)) {
    uint64_t sa = startOf(a), sb = startOf(b);
    if (sa != sb)
      return sa < sb;
    uint64_t ea = endOf(a), eb = endOf(b);
    return ea != eb ? ea > eb : a < b;
  };
  // Grains [b, e) (ascending numbers) put in time order.
  auto inTime = [&](uint32_t *b, uint32_t *e) {
    uint64_t lo = UINT64_MAX, hi = 0;
    for (const uint32_t *p = b; p < e; p++) {
      uint64_t s = startOf(*p);
      lo = std::min(lo, s), hi = std::max(hi, s);
    }
    unsigned width = hi > lo ? 64 - unsigned(__builtin_clzll(hi - lo)) : 0;
    timeSort(b, e, lo, width > 8 ? width - 8 : 0, startOf, order);
  };
  auto chStart = ch.start.view(); // the events' loop
  auto chunkBefore = [&](uint32_t a, uint32_t b) {
    uint64_t sa = ch.start[a], sb = ch.start[b];
    return sa != sb
               ? sa < sb
               : std::max(sa, sa + ch.span(a)) > std::max(sb, sb + ch.span(b));
  };
  struct Open {
    uint64_t end;
    uint32_t region;
  };
  std::vector<Open> open;     // the grains entered, not yet left
  std::vector<uint32_t> mine; // a run's grains, where not in time order
  for (size_t t = 0; t < threads.size() && w.ok(); t++) {
    uint32_t loc = locs[t];
    // The thread's grains: its run of chunks rb..re as they are (time
    // order, as they mostly are), else listed (b..e) in time order.
    size_t rb = 0, re = 0;
    const uint32_t *b = nullptr, *e = nullptr;
    if (inRuns) {
      std::tie(rb, re) = runs[t];
      // In time order (no chunk before the one ahead of it): the starts
      // read in order (rows(): a block's base once).
      bool inOrder = true;
      uint64_t last = 0;
      ch.start.rows(rb, re, [&](size_t r, uint64_t st) {
        if (r > rb &&
            (st < last ||
             (st == last && chunkBefore(uint32_t(r), uint32_t(r - 1)))))
          inOrder = false;
        last = st;
      });
      if (!inOrder) {
        mine.clear();
        for (size_t k = rb; k < re; k++)
          mine.push_back(uint32_t(k));
        inTime(mine.data(), mine.data() + mine.size());
        b = mine.data(), e = b + mine.size();
        rb = re = 0;
      }
    } else {
      auto ib = items.begin() + long(off[t]),
           ie = items.begin() + long(off[t + 1]);
      if (!std::is_sorted(ib, ie, before))
        inTime(&*ib, &*ib + (ie - ib));
      b = items.data() + off[t], e = items.data() + off[t + 1];
    }
    open.clear();
    for (size_t n = 0, count = (re - rb) + size_t(e - b); n < count; n++) {
      uint32_t x = b ? b[n] : uint32_t(rb + n);
      uint64_t s, end;
      if (x & SegBit) {
        s = segStart[x & ~SegBit];
        end = std::max(s, s + uint64_t(segLen[x & ~SegBit]));
      } else {
        s = chStart[x];
        end = std::max(s, s + ch.span(x));
      }
      while (!open.empty() && open.back().end <= s) {
        w.leave(loc, open.back().end, open.back().region);
        open.pop_back();
      }
      // Grains that overlap without nesting (clock noise): the inner one
      // ends with the outer one.
      if (!open.empty() && end > open.back().end)
        end = open.back().end;
      GrainAttributes a;
      uint32_t region;
      if (!(x & SegBit)) {
        size_t i = x;
        a.Present = GrainAttributes::HasIterations |
                    GrainAttributes::HasLoopInstance |
                    GrainAttributes::HasGrainId;
        // Its last iteration from its first and its cell (upper[i] less
        // lower[i]): lower read once.
        uint64_t lo = ch.lower[i];
        a.FirstIteration = int64_t(lo);
        a.LastIteration = int64_t(lo + ch.upper.fromBase(i));
        a.LoopInstance = uint64_t(ch.loop[i]);
        a.GrainId = i;
        if (double c = ch.creation[i]; !std::isnan(c) && c >= 0) {
          a.Present |= GrainAttributes::HasCreationCycles;
          a.CreationCycles = uint64_t(c);
        }
        region = siteRegion[size_t(an.loopSite[ch.loop[i]])];
      } else {
        size_t k = ownerOf(x & ~SegBit);
        region = taskRegion[T.codeptr.placeOf(k)];
        a.Present = GrainAttributes::HasGrainId;
        a.GrainId = T.id[k];
        if (double c = T.creation[k]; !std::isnan(c) && c >= 0) {
          a.Present |= GrainAttributes::HasCreationCycles;
          a.CreationCycles = uint64_t(c);
        }
      }
      w.enter(loc, s, region, &a);
      open.push_back({end, region});
    }
    while (!open.empty()) {
      w.leave(loc, open.back().end, open.back().region);
      open.pop_back();
    }
    w.endLocation(loc);
  }
}

/// The writer's ids of process an's loop sites and tasks: its regions'
/// indexes (siteIdx, taskIdx) made the writer's ids in place (no second
/// number per task).
void grainRegions(const std::vector<uint32_t> &regionIds,
                  std::vector<uint32_t> &siteIdx,
                  std::vector<uint32_t> &taskIdx) {
  for (uint32_t &i : siteIdx)
    i = regionIds[i];
  for (uint32_t &i : taskIdx)
    if (i != UINT32_MAX)
      i = regionIds[i];
}

/// The archive's clock for run: its first grain's start (the job's, for a
/// part), its last grain's end (Last, when known), the first process's
/// clock.
Otf2Clock clockOf(const Run &run, uint64_t last) {
  Otf2Clock clk;
  const Analysis &a0 = *run.procs[0];
  clk.TicksPerNs = a0.clockNs() > 0 ? a0.clockNs() : 1.0;
  clk.Start = run.firstInstant();
  last = std::max(last, clk.Start);
  for (auto &a : run.procs)
    if (a->nGrains())
      last = std::max(last, a->lastInstant());
  clk.End = last;
  return clk;
}

const char *const RegionsMagic = "grainchunk-otf2-regions 1";
const char *const PartMagic = "grainchunk-otf2-part 1";

/// A string as "<length>\n<bytes>\n" (any bytes) and back.
void putString(OutFile &f, const std::string &s) {
  f.u(s.size()) << "\n" << s << "\n";
}
bool getString(std::istream &in, std::string &s) {
  std::string line;
  unsigned long n = 0;
  char end = 0;
  if (!std::getline(in, line) || std::sscanf(line.c_str(), "%lu", &n) != 1 ||
      n > (1ul << 24))
    return false;
  s.resize(n);
  return (!n || in.read(&s[0], std::streamsize(n))) && in.get(end) &&
         end == '\n';
}

/// The region names of a regions fragment (RegionsMagic), or false.
bool readRegionNames(const std::string &path, std::vector<std::string> &out) {
  std::ifstream in(path, std::ios::binary);
  std::string line, name;
  unsigned long n = 0;
  if (!std::getline(in, line) || line != RegionsMagic ||
      !std::getline(in, line) || std::sscanf(line.c_str(), "%lu", &n) != 1)
    return false;
  for (unsigned long i = 0; i < n; i++) {
    if (!getString(in, name))
      return false;
    out.push_back(name);
  }
  return std::getline(in, line) && line == "end";
}

/// A rank's definitions fragment (otf2.defs) read back.
struct PartDefs {
  uint64_t start = 0, end = 0, minT = 0, maxT = 0, base = 0;
  std::vector<ProcDef> procs;
  std::vector<std::vector<uint32_t>> regionIds; // the job's, per process
};

/// Reads the definitions fragment path into d; returns what is wrong with
/// it (empty: nothing).
std::string readPartDefs(const std::string &path, PartDefs &d) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return "cannot open it";
  std::string line;
  unsigned long long start, end, lo, hi, base, n;
  if (!std::getline(in, line) || line != PartMagic)
    return "its first line is not \"" + std::string(PartMagic) + "\"";
  if (!std::getline(in, line) ||
      std::sscanf(line.c_str(), "clock %llu %llu %llu %llu %llu %llu", &start,
                  &end, &lo, &hi, &base, &n) != 6 ||
      n > (1ull << 24))
    return "no clock line";
  d.start = start, d.end = end, d.minT = lo, d.maxT = hi, d.base = base;
  for (unsigned long long p = 0; p < n; p++) {
    ProcDef pd;
    long long pid;
    unsigned long nr, nt;
    if (!std::getline(in, line) ||
        std::sscanf(line.c_str(), "process %lld %d %la %lu %lu", &pid, &pd.rank,
                    &pd.clockNs, &nr, &nt) != 5 ||
        nr > (1ul << 24) || nt > (1ul << 24) || !getString(in, pd.host))
      return "process " + std::to_string(p) + " is cut short or garbled";
    pd.pid = pid;
    std::vector<uint32_t> ids;
    for (unsigned long r = 0; r < nr; r++) {
      unsigned kind, rl, id;
      RegionDef rd;
      if (!std::getline(in, line) ||
          std::sscanf(line.c_str(), "region %u %u %u", &kind, &rl, &id) != 3 ||
          kind > unsigned(RegionKind::Parallel) || !getString(in, rd.name) ||
          !getString(in, rd.file))
        return "a region of process " + std::to_string(p) +
               " is cut short or garbled";
      rd.kind = RegionKind(kind);
      rd.line = rl;
      pd.regions.push_back(std::move(rd));
      ids.push_back(id);
    }
    for (unsigned long t = 0; t < nt; t++) {
      unsigned th;
      unsigned long long ev;
      if (!std::getline(in, line) ||
          std::sscanf(line.c_str(), "thread %u %llu", &th, &ev) != 2)
        return "a thread of process " + std::to_string(p) +
               " is cut short or garbled";
      pd.threads.push_back(th);
      pd.events.push_back(ev);
    }
    d.procs.push_back(std::move(pd));
    d.regionIds.push_back(std::move(ids));
  }
  if (!std::getline(in, line) || line != "end" || in.get() != EOF)
    return "it does not end as a fragment ends";
  return "";
}

/// Moves (or, across file systems, copies) file from to to.
bool moveFile(const std::string &from, const std::string &to,
              std::string &err) {
  if (rename(from.c_str(), to.c_str()) == 0)
    return true;
  if (errno != EXDEV) {
    err = "cannot move " + from + " to " + to + ": " + std::strerror(errno);
    return false;
  }
  std::ifstream in(from, std::ios::binary);
  OutFile out(to);
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount())
    out.put(buf, size_t(in.gcount()));
  out.close();
  if (in.bad()) {
    err = "cannot read " + from;
    return false;
  }
  return true;
}

} // namespace

void writeOtf2(const Results &R, const std::string &dir,
               const std::string &name) {
  const Run &run = R.run;
  Otf2Writer w(dir, name, clockOf(run, 0));
  Regions regions{w, {}};
  std::set<uint64_t> pidsUsed;
  std::vector<uint32_t> siteIdx, taskIdx, ids;
  for (size_t p = 0; p < run.procs.size() && w.ok(); p++) {
    const Analysis &an = *run.procs[p];
    ProcDef d = procDefOf(an, &siteIdx, &taskIdx);
    std::vector<uint32_t> locs =
        defineProcess(w, regions, d, uniquePid(d.pid, p, pidsUsed), ids);
    grainRegions(ids, siteIdx, taskIdx);
    writeEvents(w, an, d.threads, locs, siteIdx, taskIdx);
  }
  // The tables of the events and OTF2's file buffers, freed as each
  // location ended, are not held (by the C library's heap) beside the
  // definitions' chunk close() makes, nor through the outputs after this
  // one.
  releaseFreed();
  std::string err;
  if (!w.close(&err))
    throw Error("cannot write " + dir + "/" + name + ".otf2: " + err);
}

Otf2Counts otf2Counts(const Results &R) {
  Otf2Counts c;
  std::set<std::string> names;
  for (const auto &a : R.run.procs) {
    ProcDef d = procDefOf(*a);
    c.locations += d.threads.size();
    for (const RegionDef &r : d.regions)
      names.insert(r.name);
  }
  c.regions = names.size();
  return c;
}

void writeOtf2Regions(const Results &R, const std::string &path) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const auto &a : R.run.procs)
    for (const RegionDef &r : procDefOf(*a).regions)
      if (seen.insert(r.name).second)
        names.push_back(r.name);
  OutFile f(path);
  f << RegionsMagic << "\n";
  f.u(names.size()) << "\n";
  for (const std::string &n : names)
    putString(f, n);
  f << "end\n";
  f.close();
}

void writeOtf2Part(const Results &R, const std::string &part,
                   uint64_t locationBase,
                   const std::vector<std::string> &earlierRegions,
                   uint64_t jobLast) {
  const Run &run = R.run;
  // The job's region ids: those of the ranks before (in rank order), then
  // this rank's new ones in its writer's order (its regions fragment's).
  std::map<std::string, uint32_t> job;
  for (const std::string &path : earlierRegions) {
    std::vector<std::string> names;
    if (!readRegionNames(path, names))
      throw Error(path + " is not a regions fragment grainchunk-graph wrote");
    for (const std::string &n : names)
      job.emplace(n, uint32_t(job.size()));
  }
  Otf2Clock clk = clockOf(run, jobLast);
  Otf2Writer w(part, "trace", clk, grainchunk::graph::Otf2Mode::EventsOnly);
  Regions regions{w, {}};
  std::set<uint64_t> pidsUsed;
  std::vector<ProcDef> defs;
  std::vector<std::vector<uint32_t>> locsOf, idsOf;
  std::vector<uint32_t> siteIdx, taskIdx;
  for (size_t p = 0; p < run.procs.size(); p++) {
    defs.push_back(procDefOf(*run.procs[p]));
    idsOf.emplace_back();
    locsOf.push_back(defineProcess(w, regions, defs.back(),
                                   uniquePid(defs.back().pid, p, pidsUsed),
                                   idsOf.back()));
  }
  std::vector<std::pair<uint32_t, std::string>> mine;
  for (const auto &r : regions.ids)
    mine.emplace_back(r.second, r.first);
  std::sort(mine.begin(), mine.end());
  std::vector<uint32_t> global;
  for (const auto &m : mine)
    global.push_back(job.emplace(m.second, uint32_t(job.size())).first->second);
  w.setGlobalIds(uint32_t(locationBase), global);
  for (size_t p = 0; p < run.procs.size() && w.ok(); p++) {
    procDefOf(*run.procs[p], &siteIdx, &taskIdx);
    grainRegions(idsOf[p], siteIdx, taskIdx);
    writeEvents(w, *run.procs[p], defs[p].threads, locsOf[p], siteIdx, taskIdx);
  }
  std::string err;
  if (!w.close(&err))
    throw Error("cannot write " + part + "/trace: " + err);
  // The definitions fragment: the clock, the events' span, then per
  // process its definitions and its threads' event counts; "end" last.
  OutFile f(part + "/otf2.defs");
  f << PartMagic << "\n";
  f << "clock ";
  f.u(clk.Start) << " ";
  f.u(clk.End) << " ";
  f.u(w.minTime()) << " ";
  f.u(w.maxTime()) << " ";
  f.u(locationBase) << " ";
  f.u(defs.size()) << "\n";
  char b[64];
  for (size_t p = 0; p < defs.size(); p++) {
    const ProcDef &d = defs[p];
    std::snprintf(b, sizeof b, "process %lld %d %a ", (long long)d.pid, d.rank,
                  d.clockNs);
    f << b;
    f.u(d.regions.size()) << " ";
    f.u(d.threads.size()) << "\n";
    putString(f, d.host);
    for (size_t r = 0; r < d.regions.size(); r++) {
      f << "region " << std::to_string(int(d.regions[r].kind)) << " ";
      f.u(d.regions[r].line) << " ";
      f.u(global[idsOf[p][r]]) << "\n";
      putString(f, d.regions[r].name);
      putString(f, d.regions[r].file);
    }
    for (size_t t = 0; t < d.threads.size(); t++) {
      f << "thread ";
      f.u(d.threads[t]) << " ";
      f.u(w.locationEvents(locsOf[p][t])) << "\n";
    }
  }
  f << "end\n";
  f.close();
}

void mergeOtf2(const std::vector<std::pair<int, std::string>> &parts,
               const std::string &dir, const std::string &name) {
  // Every fragment is read and checked first: from a damaged one, nothing
  // is written. Its locations must follow the ranks' before it, its
  // regions be numbered as the job numbers them, and each location's
  // event file be there.
  std::vector<PartDefs> defs(parts.size());
  std::map<std::string, uint32_t> job; // region names, the job's ids
  uint64_t locations = 0;
  for (size_t i = 0; i < parts.size(); i++) {
    const std::string path = parts[i].second + "/otf2.defs";
    PartDefs &d = defs[i];
    std::string why = readPartDefs(path, d);
    if (why.empty() && d.base != locations)
      why = "its locations start at " + std::to_string(d.base) +
            ", the ranks before it have " + std::to_string(locations);
    if (why.empty() && i && (d.start != defs[0].start || d.end != defs[0].end))
      why = "its clock span is not the job's (rank " +
            std::to_string(parts[0].first) + "'s)";
    for (size_t p = 0; why.empty() && p < d.procs.size(); p++) {
      for (size_t r = 0; why.empty() && r < d.procs[p].regions.size(); r++) {
        uint32_t id =
            job.emplace(d.procs[p].regions[r].name, uint32_t(job.size()))
                .first->second;
        if (d.regionIds[p][r] != id)
          why = "region " + d.procs[p].regions[r].name + " numbered " +
                std::to_string(d.regionIds[p][r]) + ", the job's " +
                std::to_string(id);
      }
      for (size_t t = 0; why.empty() && t < d.procs[p].threads.size(); t++) {
        std::string evt =
            parts[i].second + "/trace/" + std::to_string(locations++) + ".evt";
        struct stat st;
        if (stat(evt.c_str(), &st) != 0 || !S_ISREG(st.st_mode))
          why = "no event file " + evt;
      }
    }
    if (!why.empty())
      throw Error("rank " + std::to_string(parts[i].first) +
                  "'s part refused: " + path + ": " + why +
                  " (not an OTF2 fragment grainchunk-graph wrote: a damaged "
                  "or foreign part)");
  }
  // The job's definitions, as one command makes them for every process.
  Otf2Clock clk;
  if (!defs.empty()) {
    clk.Start = defs[0].start;
    clk.End = defs[0].end;
    if (!defs[0].procs.empty())
      clk.TicksPerNs = defs[0].procs[0].clockNs;
  }
  Otf2Writer w(dir, name, clk, grainchunk::graph::Otf2Mode::DefinitionsOnly);
  Regions regions{w, {}};
  std::set<uint64_t> pidsUsed;
  std::vector<uint32_t> ids;
  size_t p = 0;
  for (const PartDefs &d : defs) {
    w.widenTime(d.minT, d.maxT);
    for (const ProcDef &pd : d.procs) {
      std::vector<uint32_t> locs =
          defineProcess(w, regions, pd, uniquePid(pd.pid, p++, pidsUsed), ids);
      for (size_t t = 0; t < locs.size(); t++)
        w.setLocationEvents(locs[t], pd.events[t]);
    }
  }
  std::string err;
  if (!w.close(&err))
    throw Error("cannot write " + dir + "/" + name + ".otf2: " + err);
  // The ranks' event files, into the archive's directory.
  uint64_t loc = 0;
  for (size_t i = 0; i < parts.size(); i++)
    for (const ProcDef &pd : defs[i].procs)
      for (size_t t = 0; t < pd.threads.size(); t++, loc++) {
        std::string f = "/" + std::to_string(loc) + ".evt";
        if (!moveFile(parts[i].second + "/trace" + f, dir + "/" + name + f,
                      err))
          throw Error(err);
      }
}

} // namespace gcg

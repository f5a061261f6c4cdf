// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Problems.cpp - problems ranked by time lost, and outlier chunks ----===//
//
// The outlier chunks of each loop instance (median and MAD of its chunks'
// work) and, per process, the loops and task creation sites ranked by the
// time they lose, each with why and what to try (Problems.h).
//
//===----------------------------------------------------------------------===//
#include "Problems.h"
#include "Outliers.h"
#include "Run.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <numeric>
#include <queue>
#include <unordered_map>

namespace gcg {

bool WorkCurve::build(std::vector<std::array<uint64_t, 3>> chunks) {
  off.clear();
  cum.clear();
  if (chunks.empty())
    return false;
  std::sort(chunks.begin(), chunks.end());
  uint64_t first = chunks[0][0];
  double c = 0;
  for (size_t i = 0; i < chunks.size(); i++) {
    const auto &k = chunks[i];
    // Contiguous: each chunk starts where the one before ended.
    if (k[1] < k[0] || (i && k[0] != chunks[i - 1][1] + 1)) {
      off.clear();
      cum.clear();
      return false;
    }
    off.push_back(double(k[0] - first));
    cum.push_back(c);
    c += double(k[2]);
  }
  off.push_back(double(chunks.back()[1] - first) + 1);
  cum.push_back(c);
  return true;
}

double WorkCurve::before(double x) const {
  if (off.empty() || x <= 0)
    return 0;
  if (x >= off.back())
    return cum.back();
  size_t k = size_t(std::upper_bound(off.begin(), off.end(), x) - off.begin());
  // off[k-1] <= x < off[k]: a part of chunk k-1, evenly.
  double f = (x - off[k - 1]) / (off[k] - off[k - 1]);
  return cum[k - 1] + f * (cum[k] - cum[k - 1]);
}

double simulateSchedule(const WorkCurve &w, size_t team, uint64_t chunk,
                        double perChunk, size_t maxChunks) {
  double n = w.iterations();
  if (!(n > 0) || team == 0)
    return NAN;
  // The threads' finish times, earliest first.
  std::priority_queue<double, std::vector<double>, std::greater<double>> free;
  for (size_t t = 0; t < team; t++)
    free.push(0);
  double T = double(team), at = 0, last = 0;
  // libomp's guided: chunks of one iteration when there are at most
  // 3 x team iterations, or once fewer than 4 x team remain.
  bool allOnes = chunk == 0 && n <= 3 * T;
  size_t count = 0;
  while (at < n) {
    if (++count > maxChunks)
      return NAN;
    double size;
    if (chunk)
      size = double(chunk);
    else if (allOnes || n - at < 4 * T)
      size = 1;
    else
      size = std::floor((n - at) / (2 * T));
    double end = std::min(n, at + size);
    double t = free.top() + (w.before(end) - w.before(at)) + perChunk;
    free.pop();
    free.push(t);
    last = std::max(last, t);
    at = end;
  }
  return T * last - w.total();
}

/// Whether loop instance lp's region is nested in another region: its
/// encountering task is an implicit task of a region, or an explicit task
/// descending from one (an explicit task the initial task made outside
/// any region is not); true where that is not known (a loop not bound to
/// a region's instance).
static bool nestedInstance(const Analysis &an, const Loop &lp) {
  if (lp.keyKind != 0)
    return true;
  int64_t r = an.regionIndex(lp.k0());
  if (r < 0)
    return true;
  uint64_t enc = an.encOf(an.regionList[size_t(r)]);
  const Tasks &T = an.tasks;
  int64_t k = T.index(enc);
  if (k >= 0) {
    // Up to the root task: its parent is the implicit task it descends
    // from.
    while (T.pslot[k] < int64_t(T.size()))
      k = T.pslot[k];
    enc = T.parentOf(k);
  }
  auto im = an.implicit.find(enc);
  return im != an.implicit.end() && an.regionIndexOf(im) >= 0;
}

namespace {
/// What one loop (all instances of one source loop) or task site adds up.
struct Acc {
  bool isLoop = true;
  std::string where;
  double first = INFINITY; // order of first appearance, for ties
  // Loops.
  unsigned multi = 0, single = 0, singleTop = 0; // top: not nested
  double singleCreation = 0;                     // creation in one-thread teams
  double imbLost = 0, creation = 0, singleWork = 0, work = 0;
  // The multi-thread instances' thread time lost as measured (InstanceLoss,
  // LoopTable.h), and where it went; instances whose chunks' times are
  // unknown count their uneven work alone (unknownInst of them).
  double lost = 0, lateStart = 0, between = 0, endWait = 0, idle = 0;
  // Of endWait, the waits for late threads; of lateStart, late joins
  // (InstanceLoss).
  double endWaitLate = 0, lateJoin = 0;
  double latest = 0; // the largest delay of a thread's first chunk
  int latestThread = -1;
  unsigned unknownInst = 0;
  int64_t chunks = 0, creationMeasured = 0;
  double iterations = 0;
  std::map<int, double> perThread; // multi-thread instances
  size_t team = 0;                 // their largest team
  int64_t minCount = INT64_MAX, maxCount = 0;
  std::vector<std::pair<double, uint64_t>> outliers; // (excess ratio, chunk)
  // The schedule estimate (estimateSchedules): over estInstances
  // instances, the time lost now, under dynamic(estChunk), under guided.
  unsigned estInstances = 0;
  double estNow = 0, estDyn = NAN, estGuided = NAN;
  uint64_t estChunk = 0;
  // Task sites.
  int64_t tasks = 0, pbBelow = 0, taskOutliers = 0;
  // Tasks joined at the barrier ending the loop whose chunk made them (no
  // taskwait or taskgroup before it), of those whose join is known.
  int64_t joinedAtLoop = 0, joinKnown = 0;
  int64_t tiny = 0;         // tasks whose own work is below their creation
  double outlierWork = 0;   // the outlier tasks' own work
  int64_t children = 0;     // the tasks the site's tasks made
  int64_t madeInChunks = 0; // loops: the tasks its chunks made
  double sync = 0;
};
} // namespace

/// A task whose own work is below this is too small to be one.
constexpr double TaskFloorNs = 1000;

static std::string ms(double ticks, double tpn) {
  return fmt("%.3f ms", ticks / tpn / 1e6);
}
static std::string us(double ticks, double tpn) {
  double v = ticks / tpn / 1e3;
  return v < 1000 ? fmt("%.3g us", v) : fmt("%.4g ms", v / 1e3);
}

/// What a dynamic or guided schedule would have lost, as a clause for the
/// suggestions about imbalance ("" when not estimated).
static std::string estimateText(const Acc &a, double tpn) {
  if (!a.estInstances || std::isnan(a.estDyn))
    return "";
  double perChunk =
      a.creationMeasured ? a.creation / double(a.creationMeasured) : 0;
  std::string cost =
      a.creationMeasured
          ? "each chunk costing " + us(perChunk, tpn) + " as in this run"
          : "the chunks' cost taken as 0: this run did not "
            "measure it";
  std::string s =
      fmt("; estimated from the measured work of each chunk (spread evenly "
          "over its iterations, %s; a dynamic dispatch costs more): the %u "
          "instance(s) that lose %s now would lose %s with "
          "schedule(dynamic,%llu)",
          cost.c_str(), a.estInstances, ms(a.estNow, tpn).c_str(),
          ms(a.estDyn, tpn).c_str(), (unsigned long long)a.estChunk);
  if (!std::isnan(a.estGuided))
    s += fmt(" and %s with schedule(guided)", ms(a.estGuided, tpn).c_str());
  // The estimate is optimistic (work spread evenly within chunks): when
  // even it keeps most of the loss, no schedule will do much better.
  double best =
      std::isnan(a.estGuided) ? a.estDyn : std::min(a.estDyn, a.estGuided);
  if (best > 0.5 * a.estNow)
    s += ": no schedule of these iterations avoids most of it, the time "
         "is in iterations too long to share; split their work (tasks or "
         "a nested loop inside them)";
  return s;
}

/// What to try when threads reach the loop late: a late join (the
/// thread's implicit task began late, before it ran any of the region's
/// code) is the fork's or the machine's; otherwise the time is in what the
/// threads ran before the loop.
static std::string lateAdvice(const Acc &a, double tpn) {
  if (a.lateJoin >= 0.5 * a.lateStart)
    return fmt("a thread joined the team late (thread %d up to %s after the "
               "first; its implicit task began that late, before any of the "
               "region's code ran on it): thread start and fork cost, or a "
               "machine busy or oversubscribed (more threads than free "
               "cores) that deschedules the thread; check with threads bound "
               "to cores (OMP_PROC_BIND=close, OMP_PLACES=cores), fewer "
               "threads, or a quieter machine",
               a.latestThread, ms(a.latest, tpn).c_str());
  return fmt("its threads reach it at different times (thread %d up to %s "
             "after the first): the time is lost before the loop, in what the "
             "threads ran before it (uneven work in the region before it, a "
             "nowait loop or a single that one thread ran); balance that, or "
             "give the early threads the loop's work with "
             "schedule(dynamic,N)",
             a.latestThread, ms(a.latest, tpn).c_str());
}

/// Each cause's share of a loop's loss, as a clause for its suggestion
/// ("" when one cause holds it all, or no multi-thread instance).
static std::string lossShares(const Acc &a, double tpn) {
  double total = a.lost + a.singleCreation;
  if (!a.multi || !(total > 0))
    return "";
  std::vector<std::pair<double, const char *>> causes = {
      {a.lateStart + a.endWaitLate, "late starts and the waits for them"},
      {a.endWait - a.endWaitLate, "uneven work"},
      {a.between + a.singleCreation, "making the chunks and the schedule"},
      {a.idle, "threads that ran no chunk"}};
  std::stable_sort(causes.begin(), causes.end(),
                   [](auto &x, auto &y) { return x.first > y.first; });
  std::string s;
  int n = 0;
  for (auto &[v, what] : causes)
    if (v > 0) {
      s += fmt("%s%s %.1f%%", n ? ", " : "", what, 100 * v / total);
      n++;
    }
  if (n < 2)
    return "";
  return fmt(" (of the %s lost: ", ms(total, tpn).c_str()) + s + ")";
}

static void explainLoop(const Acc &a, double tpn, Problem &p) {
  std::vector<std::string> why;
  if (a.multi) {
    // Where the thread time went, the parts that matter (1% of it or more).
    std::vector<std::string> parts;
    auto part = [&](double v, const std::string &what) {
      if (v > 0 && v >= 0.01 * a.lost)
        parts.push_back(ms(v, tpn) + " " + what);
    };
    part(a.lateStart,
         a.latestThread >= 0
             ? fmt("before the threads' first chunks (thread %d started "
                   "%s after the first)",
                   a.latestThread, ms(a.latest, tpn).c_str())
             : std::string("before the threads' first chunks"));
    part(a.endWaitLate, "waiting after their last chunks for the threads "
                        "that started late");
    part(a.endWait - a.endWaitLate,
         fmt("waiting after their last chunks for the slowest (uneven work: "
             "imbalance %.2f)",
             p.imbalance));
    part(a.between, "between their chunks (making them, the schedule)");
    part(a.idle, "in threads of the team that ran no chunk");
    std::string s = fmt("its threads lost %s in %u multi-thread instance(s)",
                        ms(a.lost, tpn).c_str(), a.multi);
    for (size_t i = 0; i < parts.size(); i++)
      s += (i ? ", " : ": ") + parts[i];
    if (a.unknownInst)
      s += fmt(" (%u instance(s) without their chunks' times: their uneven "
               "work alone)",
               a.unknownInst);
    why.push_back(s);
  }
  if (a.creation > 0)
    why.push_back(fmt("making the chunks cost %s (%s per chunk for %s of "
                      "work)",
                      ms(a.creation, tpn).c_str(),
                      us(a.creation / double(a.creationMeasured), tpn).c_str(),
                      us(a.work / double(a.chunks), tpn).c_str()));
  if (a.single)
    why.push_back(fmt("%u of %u instance(s) ran in one-thread teams (%s of "
                      "work on one thread, no imbalance counted)",
                      a.single, a.single + a.multi,
                      ms(a.singleWork, tpn).c_str()));
  if (!a.outliers.empty())
    why.push_back(fmt("%zu outlier chunk(s), up to x%.1f their instance's "
                      "median",
                      a.outliers.size(), a.outliers.front().first));
  for (size_t i = 0; i < why.size(); i++)
    p.why += (i ? "; " : "") + why[i];
  std::string shares = lossShares(a, tpn);
  bool worth = a.lost + a.singleCreation > 0.05 * a.work;
  // Late starts, and the waits for the late threads, hold most of the loss:
  // that is what to change first, whatever the chunks cost.
  double late = a.lateStart + a.endWaitLate;
  double uneven = a.endWait - a.endWaitLate + a.idle;
  double making = a.between + a.singleCreation;
  std::string lead;
  if (a.multi && worth && late > 0.25 * (a.lost + a.singleCreation) &&
      late >= uneven && late >= making)
    lead = lateAdvice(a, tpn);
  // Its chunks make tasks: its work is in them, and running it on one
  // thread or in larger chunks would serialize their making.
  if (a.madeInChunks) {
    p.why += fmt("; its chunks made %lld task(s): their work is theirs "
                 "(see their site)",
                 (long long)a.madeInChunks);
    p.suggestion =
        (lead.empty() ? "" : lead + "; ") +
        fmt("it makes the tasks (%lld): what it loses is how their making is "
            "spread over the threads; keep it parallel (not on one thread, "
            "not in larger chunks: that serializes their making), and look "
            "at the task sites it feeds",
            (long long)a.madeInChunks) +
        shares;
    return;
  }
  if (!lead.empty()) {
    p.suggestion = lead + shares;
    return;
  }
  // Mostly one-thread teams, and the loss is not their multi-thread
  // instances' imbalance.
  if (a.single > a.multi && !(a.imbLost > 0.5 * (a.imbLost + a.creation))) {
    if (2 * a.singleTop >= a.single)
      p.suggestion = fmt(
          "its region ran on one thread in %u of %u instance(s), not nested "
          "in another (an if() clause that was false, num_threads(1), or one "
          "thread available): no imbalance there, only the making of its "
          "chunks (%s)%s",
          a.single, a.single + a.multi, ms(a.singleCreation, tpn).c_str(),
          a.maxCount > 1 ? "; if that is meant, a schedule without a chunk "
                           "size makes one chunk per thread"
                         : "");
    else
      p.suggestion =
          "runs serialized (nested region without nested parallelism, "
          "if(false) or num_threads(1)): parallelise the enclosing loop "
          "instead, or allow nesting (OMP_MAX_ACTIVE_LEVELS)";
    return;
  }
  // Chunks too small: making them costs more than a tenth of their work,
  // and more than the imbalance loses.
  double perChunk =
      a.creationMeasured ? a.creation / double(a.creationMeasured) : 0;
  double workPerChunk = a.chunks ? a.work / double(a.chunks) : 0;
  if (a.creation > a.imbLost && perChunk > 0.1 * workPerChunk &&
      a.iterations > 0 && a.maxCount <= 1) {
    // One chunk per thread already: no larger chunk to make.
    p.suggestion = fmt(
        "the loop is too small for its team: each thread runs one chunk "
        "(%.0f iterations, %s of work) and making it costs %s: run it on "
        "one thread (an if() clause on its parallel region, or a size "
        "threshold), or fuse it with a neighbouring loop",
        a.iterations / double(a.chunks),
        us(a.work / double(a.chunks), tpn).c_str(), us(perChunk, tpn).c_str());
  } else if (a.creation > a.imbLost && perChunk > 0.1 * workPerChunk &&
             a.iterations > 0) {
    double perIter = a.work / a.iterations;
    double n1 = perIter > 0 ? std::ceil(perChunk / perIter) : NAN;
    double n10 = perIter > 0 ? std::ceil(10 * perChunk / perIter) : NAN;
    double iters = a.iterations / double(a.chunks);
    if (n1 > iters)
      p.suggestion =
          fmt("chunks are small (%.0f iterations, %s of work each, "
              "creation %s): use a larger chunk; parallel benefit "
              "(work/creation) passes 1 at about %.0f iterations per chunk, "
              "and at %.0f creation is a tenth of the work",
              iters, us(a.work / double(a.chunks), tpn).c_str(),
              us(perChunk, tpn).c_str(), n1, n10);
    else
      p.suggestion =
          fmt("chunks are small (%.0f iterations, %s of work each, creation "
              "%s, %.0f%% of it): use a larger chunk; at about %.0f iterations "
              "per chunk creation is a tenth of the work",
              iters, us(a.work / double(a.chunks), tpn).c_str(),
              us(perChunk, tpn).c_str(),
              workPerChunk > 0 ? 100 * perChunk / workPerChunk : 0.0, n10);
  } else if (!(a.lost + a.singleCreation > 0.05 * a.work)) {
    p.suggestion =
        fmt("little to gain: it loses %.1f%% of its work",
            a.work > 0 ? 100 * (a.lost + a.singleCreation) / a.work : 0.0);
  } else if (a.lateStart > a.imbLost && a.lateStart > 0.25 * a.lost) {
    p.suggestion = lateAdvice(a, tpn);
  } else if (a.multi == 1 && a.outliers.empty() && p.imbalance < 1.2) {
    p.suggestion = fmt(
        "one instance, imbalance %.2f: too little to tell a split that is "
        "uneven from a thread that was slowed (other processes, interrupts); "
        "run it again, or more instances of it, before changing its "
        "schedule",
        p.imbalance);
  } else if (a.multi && !a.outliers.empty()) {
    p.suggestion = "a few chunks take much longer than the others (the "
                   "outlier chunks): smaller chunks or schedule(dynamic,N) "
                   "let the other threads take over the rest of the work" +
                   estimateText(a, tpn);
  } else if (a.multi > 1 && p.imbalance < 1.05) {
    // Each instance has a slowest thread, but over the instances the
    // threads' work is even: not the split of the iterations.
    p.suggestion =
        fmt("the slowest thread changes from instance to instance (over "
            "the %u instances the threads' work is even, imbalance %.2f): "
            "the time is lost to variation between runs of the loop (other "
            "processes, interrupts, memory) rather than to how its "
            "iterations are split; schedule(dynamic,N) absorbs it, and a "
            "run on an idle machine tells how much is the machine's",
            a.multi, p.imbalance) +
        estimateText(a, tpn);
  } else if (a.multi) {
    std::string per =
        a.minCount == a.maxCount
            ? fmt("%lld chunk(s) per thread", (long long)a.maxCount)
            : fmt("%lld to %lld chunks per thread", (long long)a.minCount,
                  (long long)a.maxCount);
    p.suggestion =
        fmt("work is spread unevenly over the threads although no chunk "
            "stands out (%s; or work that grows with the iteration): "
            "schedule(dynamic,N) or schedule(guided) balances it, a smaller "
            "static chunk interleaves it",
            per.c_str()) +
        estimateText(a, tpn);
  }
  if (!p.suggestion.empty())
    p.suggestion += shares;
}

/// Whether loop instance lp was run by a dynamic or guided schedule, as
/// the loop-begin event said (grainchunk's extension event, or
/// OpenMP 6's ompt_work_loop_dynamic/guided).
static bool dispatchedLoop(const Analysis &an, const Loop &lp) {
  uint32_t sched = an.codeOf(lp).sched;
  uint32_t ext = sched >> 8, ws = sched & 0xff;
  return ext == GC_EXT_SCHED_DYNAMIC || ext == GC_EXT_SCHED_GUIDED ||
         ws == GC_WORK_LOOP_DYNAMIC || ws == GC_WORK_LOOP_GUIDED;
}

/// Per loop instance its problem's place in accs (UINT32_MAX: none, an
/// instance without chunks): its site's, found when asked (no table per
/// instance; asked once siteAcc is complete, the last answer kept).
namespace {
struct LoopAccs {
  const Analysis &an;
  std::vector<size_t> siteAcc; // per loop site (SIZE_MAX: none yet)
  uint32_t operator[](size_t li) {
    if (li == lastLi) // consecutive chunks of one instance: found once
      return lastAcc;
    auto site = size_t(an.loopSite[li]);
    uint32_t k = site >= siteAcc.size() || siteAcc[site] == SIZE_MAX ||
                         !an.nChunks(an.loops[li])
                     ? UINT32_MAX
                     : uint32_t(siteAcc[site]);
    lastLi = li, lastAcc = k;
    return k;
  }
  size_t lastLi = SIZE_MAX;
  uint32_t lastAcc = UINT32_MAX;
};
} // namespace

/// For the loops that lose most to imbalance, what a dynamic and a guided
/// schedule would lose on the same instances (simulateSchedule on each
/// instance's measured chunk work), into their Acc's est* fields. The
/// dynamic chunk size is the best of the instances' median iterations
/// over 1, 2, 4, ..., 64 chunks per thread; simulation stops at a budget
/// of chunks per loop and says over how many instances it ran.
static void estimateSchedules(const Analysis &an, std::vector<Acc> &accs,
                              LoopAccs &loopAcc) {
  constexpr size_t MaxLoops = 32, MaxInstanceChunks = size_t(1) << 22;
  constexpr double ChunkBudget = 2e7;
  std::vector<size_t> cand;
  for (size_t k = 0; k < accs.size(); k++) {
    const Acc &a = accs[k];
    if (a.isLoop && a.multi && a.single <= a.multi && a.imbLost > a.creation &&
        a.imbLost > 0.05 * a.work)
      cand.push_back(k);
  }
  std::stable_sort(cand.begin(), cand.end(), [&](size_t x, size_t y) {
    return accs[x].imbLost > accs[y].imbLost;
  });
  if (cand.size() > MaxLoops)
    cand.resize(MaxLoops);
  if (cand.empty())
    return;
  std::vector<uint8_t> want(accs.size(), 0);
  for (size_t k : cand)
    want[k] = 1;
  // The multi-thread instances of those loops with every chunk's time
  // known, and their chunks, grouped by instance.
  const Chunks &ch = an.chunks;
  size_t nl = an.loops.size();
  std::vector<uint8_t> inst(nl, 0);
  for (const Loop &lp : an.loops) {
    size_t k = loopAcc[an.indexOf(lp)];
    if (k == UINT32_MAX || !want[k] || teamOf(an, an.indexOf(lp)) <= 1 ||
        dispatchedLoop(an, lp))
      continue;
    bool known = true;
    for (const Share &s : an.shares(lp))
      known = known && !s.unknown;
    inst[an.indexOf(lp)] = known;
  }
  std::vector<size_t> off(nl + 1, 0);
  for (size_t i = 0; i < ch.size(); i++)
    if (inst[ch.loop[i]])
      off[ch.loop[i] + 1]++;
  for (size_t l = 0; l < nl; l++)
    off[l + 1] += off[l];
  std::vector<uint64_t> idx(off[nl]);
  {
    std::vector<size_t> pos(off.begin(), off.end() - 1);
    for (size_t i = 0; i < ch.size(); i++)
      if (inst[ch.loop[i]])
        idx[pos[ch.loop[i]]++] = i;
  }
  std::vector<std::vector<int>> byAcc(accs.size());
  for (size_t l = 0; l < nl; l++)
    if (inst[l] && off[l + 1] > off[l] &&
        off[l + 1] - off[l] <= MaxInstanceChunks)
      byAcc[loopAcc[l]].push_back(int(l));
  std::vector<std::array<uint64_t, 3>> pieces;
  WorkCurve w;
  for (size_t k : cand) {
    Acc &a = accs[k];
    if (byAcc[k].empty())
      continue;
    double perChunk =
        a.creationMeasured ? a.creation / double(a.creationMeasured) : 0;
    // The candidate chunk sizes, from the median instance.
    std::vector<double> iters;
    size_t team = 0;
    for (int l : byAcc[k]) {
      double n = 0;
      for (size_t j = off[l]; j < off[l + 1]; j++)
        n += double(ch.upper[idx[j]] - ch.lower[idx[j]] + 1);
      iters.push_back(n);
      team = std::max(team, teamOf(an, l));
    }
    std::nth_element(iters.begin(), iters.begin() + iters.size() / 2,
                     iters.end());
    double med = iters[iters.size() / 2];
    std::vector<uint64_t> sizes;
    for (int m = 1; m <= 64; m *= 2) {
      uint64_t c = uint64_t(
          std::min(std::max(1.0, std::floor(med / double(team * m))), 0x1p63));
      if (sizes.empty() || sizes.back() != c)
        sizes.push_back(c);
    }
    std::vector<double> dyn(sizes.size(), 0);
    std::vector<uint8_t> dynOk(sizes.size(), 1);
    double now = 0, guided = 0, spent = 0;
    bool guidedOk = true;
    unsigned done = 0;
    for (int l : byAcc[k]) {
      if (spent > ChunkBudget)
        break;
      size_t t = teamOf(an, l);
      pieces.clear();
      std::map<int, double> perThread;
      double created = 0;
      for (size_t j = off[l]; j < off[l + 1]; j++) {
        size_t i = idx[j];
        uint64_t wk = ch.span(i);
        pieces.push_back({ch.lower[i], ch.upper[i], wk});
        perThread[ch.thread[i]] += double(wk);
        if (!std::isnan(ch.creation[i]))
          created += ch.creation[i];
      }
      if (!w.build(pieces))
        continue;
      double mx = 0;
      for (auto &kv : perThread)
        mx = std::max(mx, kv.second);
      now += double(t) * mx - w.total() + created;
      for (size_t c = 0; c < sizes.size(); c++) {
        double v = simulateSchedule(w, t, sizes[c], perChunk);
        if (std::isnan(v))
          dynOk[c] = 0;
        else
          dyn[c] += v;
        spent += std::min(w.iterations() / double(sizes[c]), 1e9);
      }
      double g = simulateSchedule(w, t, 0, perChunk);
      guidedOk = guidedOk && !std::isnan(g);
      guided += std::isnan(g) ? 0 : g;
      spent += 2 * double(t) * std::log(std::max(2.0, w.iterations()));
      done++;
    }
    if (!done)
      continue;
    // The best dynamic chunk size; ties to the larger (fewer dispatches).
    int best = -1;
    for (size_t c = 0; c < sizes.size(); c++)
      if (dynOk[c] && (best < 0 || dyn[c] < dyn[size_t(best)]))
        best = int(c);
    if (best < 0)
      continue;
    a.estInstances = done;
    a.estNow = now;
    a.estDyn = dyn[size_t(best)];
    a.estChunk = sizes[size_t(best)];
    a.estGuided = guidedOk ? guided : NAN;
  }
}

static void explainSite(const Acc &a, double tpn, Problem &p) {
  p.why = fmt("%lld task(s): creating them cost %s, their parents waited %s "
              "at their joins, for %s of work (%s per task)",
              (long long)a.tasks, ms(a.creation, tpn).c_str(),
              ms(a.sync, tpn).c_str(), ms(a.work, tpn).c_str(),
              us(a.work / double(a.tasks), tpn).c_str());
  double perTask = a.tasks ? a.work / double(a.tasks) : 0;
  bool small =
      2 * a.tiny > a.tasks || (a.tasks > 1 && perTask < TaskFloorNs * tpn);
  // Making them costs little against their work, and they are not small:
  // the parents' waits are not theirs to shrink (parallel_benefit counts
  // those waits).
  bool cheap = !small && a.creation < 0.1 * a.work && a.work > 0;
  if (a.pbBelow)
    p.why += fmt("; parallel_benefit < 1 for %lld (the prototype's: work "
                 "over creation plus an equal share of the parent's waits at "
                 "the join)%s",
                 (long long)a.pbBelow,
                 cheap ? fmt(": from their parents' waits, not their making, "
                             "which costs %.2f%% of their work",
                             100 * a.creation / a.work)
                             .c_str()
                       : "");
  if (a.taskOutliers)
    p.why += fmt("; %lld outlier task(s), far above their siblings' or "
                 "their site's median (grains.csv: problems has outlier)",
                 (long long)a.taskOutliers);
  // The parents wait at the joins mostly for a few outlier tasks (their
  // work could fill at least half the waits): their waits make every
  // sibling's parallel_benefit (the prototype's, with an equal share of
  // the waits) look small; the outliers are the problem.
  if (a.taskOutliers && a.sync > a.creation && a.sync > 0.1 * a.work &&
      a.outlierWork >= 0.5 * a.sync) {
    p.suggestion =
        "the parents wait at the joins for a few tasks that take much "
        "longer than their siblings (the outlier tasks): split those tasks' "
        "work into more tasks, or give the parents other work before the "
        "taskwait";
    return;
  }
  // Most tasks do less work than making them costs: they are too small,
  // whatever dominates the cost. (Not parallel_benefit: it counts the
  // parents' waits, which for a task that makes others are waits for
  // its whole subtree.)
  // Or their own work per task is below TaskFloorNs, whether or not this
  // run measured their making: a task that small costs more to make,
  // schedule and join than it runs, and its parents' waits are for
  // subtrees of such tasks.
  if (small && !(2 * a.tiny > a.tasks))
    p.why += fmt("; %s of own work per task, below %g us",
                 us(perTask, tpn).c_str(), TaskFloorNs / 1000);
  // The join, named as it is.
  bool atLoop = a.joinKnown && 2 * a.joinedAtLoop > a.joinKnown;
  std::string join = atLoop ? "the barrier ending the loop whose chunks "
                              "made them"
                            : "their joins (taskwait, taskgroup or barrier)";
  if (cheap && !a.children && a.sync > 0.1 * a.work)
    p.suggestion = fmt(
        "the tasks are not too small (making them costs %.2f%% of their "
        "work): their parents wait %s at %s while other threads run them, "
        "so the team has too few of them ready there to keep every thread "
        "busy (see the critical path), or a busy machine slowed the threads "
        "that ran them; more tasks ready before that join%s keep the threads "
        "busy",
        100 * a.creation / a.work, ms(a.sync, tpn).c_str(), join.c_str(),
        atLoop ? ", or (where the next loop does not need them) a nowait loop "
                 "and one join later,"
               : ", or fewer joins,");
  else if (small || a.creation + a.sync > 0.1 * a.work)
    p.suggestion =
        small || a.creation >= a.sync
            ? "tasks too small for what making and joining them costs: "
              "make fewer, "
              "larger tasks (a cut-off: an if() or final() clause, or a "
              "size below which the work runs in the parent)"
        : a.children
            ? fmt("the parents wait at the joins for these tasks and the "
                  "%lld task(s) they made below them, not for their "
                  "creation: the threads run out of ready work there (see "
                  "the critical path); make work ready sooner (more, "
                  "smaller tasks below them) or give the parents other "
                  "work before the join",
                  (long long)a.children)
            : "the parents wait for their children at " + join +
                  ": give them other work before the join, or fewer joins "
                  "(a taskgroup around more tasks)";
  else
    p.suggestion = fmt("little to gain: it loses %.1f%% of its work",
                       a.work > 0 ? 100 * (a.creation + a.sync) / a.work : 0.0);
}

std::vector<Problem>
rankProblems(const Analysis &an, InstanceLosses &losses, int process,
             const std::function<void(const InstanceLoss &)> &seen,
             size_t maxOutliers) {
  double tpn = an.clockNs();
  std::vector<Acc> accs;
  // A problem per site: a loop's or a task's code (Analysis::loopSite,
  // taskSite), never per name.
  std::map<std::pair<bool, uint64_t>, size_t> bySite;
  auto acc = [&](bool isLoop, uint64_t site, const std::string &nm) -> Acc & {
    auto it = bySite.find({isLoop, site});
    if (it == bySite.end()) {
      it = bySite.emplace(std::make_pair(isLoop, site), accs.size()).first;
      accs.emplace_back();
      accs.back().isLoop = isLoop;
      accs.back().where = nm;
    }
    return accs[it->second];
  };
  // The reach of the loops' measured losses: their instances' first and
  // last ticks and their largest team.
  uint64_t lossFrom = UINT64_MAX, lossTo = 0;
  size_t lossTeam = 0;
  // Loops: per instance, from the threads' shares.
  // Per instance its problem's place in accs (UINT32_MAX: none).
  LoopAccs loopAcc{an, {}};
  std::vector<size_t> &siteAcc = loopAcc.siteAcc;
  for (const Loop &lp : an.loops) {
    if (!an.nChunks(lp))
      continue;
    // Its site's problem, found once per site.
    size_t site = size_t(an.loopSite[an.indexOf(lp)]);
    if (siteAcc.size() <= site)
      siteAcc.resize(site + 1, SIZE_MAX);
    if (siteAcc[site] == SIZE_MAX) {
      Acc &made = acc(true, uint64_t(site), an.loopName(an.indexOf(lp)));
      siteAcc[site] = size_t(&made - accs.data());
    }
    Acc &a = accs[siteAcc[site]];
    if (size_t(&a - accs.data()) >= UINT32_MAX)
      throw Error("more than 2^32 - 1 problems: not analysed");
    if (lp.hasBegin)
      a.first = std::min(a.first, double(lp.begin));
    size_t team = teamOf(an, an.indexOf(lp));
    double sum = 0, mx = 0;
    for (const Share &s : an.shares(lp)) {
      sum += double(an.workOf(s));
      mx = std::max(mx, double(an.workOf(s)));
    }
    a.work += sum;
    if (team <= 1) {
      if (seen)
        seen(losses(an.indexOf(lp)));
      a.single++;
      a.singleWork += sum;
      a.singleTop += !nestedInstance(an, lp);
      continue;
    }
    a.multi++;
    a.team = std::max(a.team, team);
    lossTeam = std::max(lossTeam, team);
    a.imbLost += double(team) * mx - sum;
    InstanceLoss loss = losses(an.indexOf(lp));
    if (seen)
      seen(loss);
    const InstanceLoss *x = &loss;
    if (x->known) {
      lossFrom = std::min(lossFrom, x->first);
      lossTo = std::max(lossTo, x->last);
      lossTeam = std::max<size_t>(lossTeam, x->team);
      a.lost += x->lost;
      a.lateStart += x->lateStart;
      a.between += x->between;
      a.endWait += x->endWait;
      a.endWaitLate += x->endWaitLate;
      a.lateJoin += x->lateJoin;
      a.idle += x->idle;
      if (x->latest > a.latest) {
        a.latest = x->latest;
        a.latestThread = x->latestThread;
      }
    } else {
      a.lost += double(team) * mx - sum;
      a.endWait += double(team) * mx - sum;
      a.unknownInst++;
    }
    for (const Share &s : an.shares(lp)) {
      a.perThread[s.th] += double(an.workOf(s));
      a.minCount = std::min(a.minCount, int64_t(s.count));
      a.maxCount = std::max(a.maxCount, int64_t(s.count));
    }
    if (an.shares(lp).size() < team)
      a.minCount = 0;
  }
  // Loops: per chunk (creation, iterations, outliers).
  const Chunks &ch = an.chunks;
  // The instances with outliers (hasOut: a bit per instance; outAt: by
  // instance, its place in outl) and their outlier chunks, in chunk order.
  std::vector<bool> hasOut(an.loops.size(), false);
  std::unordered_map<int32_t, int32_t> outAt;
  std::vector<std::vector<int64_t>> outl;
  for (size_t i = 0; i < ch.size(); i++) {
    size_t k = loopAcc[ch.loop[i]];
    if (k == UINT32_MAX)
      continue;
    Acc &a = accs[k];
    a.chunks++;
    a.iterations += double(ch.upper[i] - ch.lower[i] + 1);
    if (!std::isnan(ch.creation[i])) {
      a.creation += ch.creation[i];
      a.creationMeasured++;
      if (teamOf(an, ch.loop[i]) <= 1)
        a.singleCreation += ch.creation[i];
    }
    if (i < an.outliers.size() && an.outliers[i]) {
      auto [it, fresh] = outAt.try_emplace(ch.loop[i], int32_t(outl.size()));
      if (fresh) {
        hasOut[size_t(ch.loop[i])] = true;
        outl.emplace_back();
      }
      outl[size_t(it->second)].push_back(int64_t(i));
    }
  }
  // The medians of the instances with outliers, for the excess ratio (one
  // pass over the chunks).
  std::vector<std::vector<int64_t>> works(outl.size());
  for (size_t i = 0; i < ch.size(); i++)
    if (hasOut[size_t(ch.loop[i])] && !an.chunkUnknown(i))
      works[size_t(outAt.find(ch.loop[i])->second)].push_back(
          int64_t(ch.span(i)));
  std::vector<std::pair<int32_t, int32_t>> byInstance(outAt.begin(),
                                                      outAt.end());
  std::sort(byInstance.begin(), byInstance.end());
  for (auto [li, oi] : byInstance) {
    auto o = size_t(oi);
    double med = works[o].empty() ? 0 : medianOf(works[o]);
    std::vector<int64_t>().swap(works[o]);
    Acc &a = accs[loopAcc[li]];
    for (int64_t i : outl[o])
      a.outliers.push_back(
          {med > 0 ? double(ch.span(i)) / med : INFINITY, uint64_t(i)});
  }
  estimateSchedules(an, accs, loopAcc);
  // Task sites.
  const Tasks &T = an.tasks;
  // A parent's waits at its joins are for the work its children still had
  // to do: each child's site takes a share in proportion to the child's
  // work, not an equal share (sync_cycles_per_child): sixteen empty tasks
  // do not make their parent wait for the two long ones made beside them.
  std::vector<double> waitShare(T.size(), NAN);
  for (size_t p = 0; p + 1 < T.kidOff.size(); p++) {
    int64_t lo = T.kidOff[p], hi = T.kidOff[p + 1];
    double wait = 0, work = 0;
    for (int64_t j = lo; j < hi; j++) {
      uint32_t k = T.kids[j];
      if (!std::isnan(T.sync(k)))
        wait += T.sync(k);
      work += std::max(0.0, an.taskOwnWork(k));
    }
    for (int64_t j = lo; j < hi; j++) {
      uint32_t k = T.kids[j];
      if (std::isnan(T.sync(k)))
        continue;
      waitShare[k] = work > 0 ? wait * std::max(0.0, an.taskOwnWork(k)) / work
                              : wait / double(hi - lo);
    }
  }
  std::unordered_map<uint64_t, size_t> codeAcc;
  for (size_t k = 0; k < T.size(); k++) {
    if (T.ctx[k] >= 0 && size_t(T.ctx[k]) < ch.size() &&
        loopAcc[ch.loop[size_t(T.ctx[k])]] != UINT32_MAX)
      accs[loopAcc[ch.loop[size_t(T.ctx[k])]]].madeInChunks++;
    // Its creation code's problem, found once per code.
    auto [at, fresh] = codeAcc.try_emplace(T.codeptr[k], 0);
    if (fresh) {
      Acc &made = acc(false, uint64_t(an.taskSite(k)), an.taskGrainName(k));
      at->second = size_t(&made - accs.data());
    }
    Acc &a = accs[at->second];
    a.first = std::min(a.first, double(T.create[k]));
    a.tasks++;
    if (!std::isnan(T.creation[k]))
      a.creation += T.creation[k];
    if (!std::isnan(waitShare[k]))
      a.sync += waitShare[k];
    a.work += an.taskOwnWork(k);
    GrainMetrics m = an.taskMetrics(k);
    a.pbBelow += (m.problems >> P_PARALLEL_BENEFIT) & 1;
    a.taskOutliers += m.outlier;
    if (m.outlier)
      a.outlierWork += an.taskOwnWork(k);
    if (!std::isnan(T.creation[k]) && an.taskOwnWork(k) < T.creation[k])
      a.tiny++;
    // Its join: its parent's first wait after its creation; at the loop's
    // barrier when that wait begins where its maker's thread left the loop
    // whose chunk made it, or later.
    if (int64_t pw = T.pslot[k];
        pw >= 0 && T.waitOff[pw] + T.joinsAt[k] < T.waitOff[pw + 1]) {
      a.joinKnown++;
      uint64_t wb = T.wBegin[T.waitOff[pw] + T.joinsAt[k]];
      if (T.ctx[k] >= 0 && size_t(T.ctx[k]) < ch.size()) {
        const Loop &lp = an.loops[ch.loop[size_t(T.ctx[k])]];
        int th = ch.thread[size_t(T.ctx[k])];
        for (const Share &sh : an.shares(lp))
          if (sh.th == th && sh.hasEnd && wb >= an.threadEnd(sh))
            a.joinedAtLoop++;
      }
    }
    a.children += T.kidOff[k + 1] - T.kidOff[k];
  }
  // A problem's share: of the process's thread time, its threads x its
  // recorded span (first to last record, as the breakdown's), widened to
  // every thread and every tick a loss counts (a loop instance's threads
  // from the making of their first chunks; a team larger than the threads
  // seen), so that no share passes 100% (before: the threads x the span of
  // the grains alone, which a loop's making of its first chunks, or a
  // forked child's short loop, passed: 100.2%).
  uint64_t from = an.firstRecord, to = an.lastRecord;
  if (from > to)
    from = an.firstInstant(), to = an.lastInstant();
  from = std::min({from, an.firstInstant(), lossFrom});
  to = std::max({to, an.lastInstant(), lossTo});
  size_t threads = std::max<size_t>({1, an.threads.size(), lossTeam});
  double threadTime = double(to - from) * double(threads);
  std::vector<Problem> out;
  std::vector<double> firsts;
  for (Acc &a : accs) {
    Problem p;
    p.kind = a.isLoop ? "loop" : "task-site";
    p.where = a.where;
    p.process = process;
    // A loop: its multi-thread instances' thread time lost, and the
    // making of its one-thread instances' chunks.
    double lost = a.isLoop ? a.lost + a.singleCreation : a.creation + a.sync;
    if (!(lost > 0))
      continue;
    p.lostMs = lost / tpn / 1e6;
    p.workMs = a.work / tpn / 1e6;
    p.share = threadTime > 0 ? lost / threadTime : NAN;
    if (a.isLoop) {
      p.instancesMulti = a.multi;
      p.instancesSingle = a.single;
      double s = 0, mx = 0;
      for (auto &[th, v] : a.perThread)
        s += v, mx = std::max(mx, v);
      p.imbalance =
          a.perThread.empty() || !(s > 0)
              ? NAN
              : mx / (s / double(std::max(a.perThread.size(), a.team)));
      std::stable_sort(a.outliers.begin(), a.outliers.end(),
                       [](auto &x, auto &y) { return x.first > y.first; });
      for (size_t i = 0; i < a.outliers.size() && i < maxOutliers; i++)
        p.outlierGrains.push_back(a.outliers[i].second);
      if (a.estInstances) {
        p.estInstances = a.estInstances;
        p.nowLostMs = a.estNow / tpn / 1e6;
        p.dynLostMs = a.estDyn / tpn / 1e6;
        p.dynChunk = a.estChunk;
        p.guidedLostMs = a.estGuided / tpn / 1e6;
      }
      explainLoop(a, tpn, p);
    } else {
      p.instancesMulti = unsigned(a.tasks);
      p.imbalance = NAN;
      explainSite(a, tpn, p);
    }
    out.push_back(std::move(p));
    firsts.push_back(a.first);
  }
  // Explicit barriers whose waits hold 1% of the thread time or more (the
  // waits at loops' and regions' ends are their loops', taskwaits their
  // task sites'): named by the barrier's code, its source line.
  double base = threadTime;
  for (const auto &[code, tw] : an.barrierWaits) {
    if (!(base > 0) || tw.first < 0.01 * base)
      continue;
    Problem p;
    p.kind = "barrier";
    auto [fn, loc] = an.maps.get(code);
    p.where = "barrier " + (Maps::hasLine(loc) ? loc : an.maps.where(code)) +
              " (" + fn + ")";
    p.process = process;
    p.lostMs = tw.first / tpn / 1e6;
    p.share = tw.first / base;
    p.imbalance = NAN;
    p.instancesMulti = unsigned(tw.second);
    p.why = fmt("the threads waited %s at this explicit barrier in %llu "
                "wait(s) (%.1f%% of the threads' time): they reach it at "
                "different times",
                ms(tw.first, tpn).c_str(), (unsigned long long)tw.second,
                100 * tw.first / base);
    p.suggestion =
        "look at what the threads run before this barrier: work one thread "
        "does alone (a master or single section, I/O, communication) or "
        "work split unevenly makes the others wait here; split that work "
        "over the threads (a worksharing loop or tasks), or let the others "
        "go on (nowait, or no barrier where nothing after it needs the "
        "work before it)";
    out.push_back(std::move(p));
    firsts.push_back(INFINITY);
  }
  std::vector<size_t> order(out.size());
  for (size_t i = 0; i < order.size(); i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t x, size_t y) {
    if (out[x].lostMs != out[y].lostMs)
      return out[x].lostMs > out[y].lostMs;
    return firsts[x] < firsts[y];
  });
  std::vector<Problem> ranked;
  for (size_t i : order)
    ranked.push_back(std::move(out[i]));
  return ranked;
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Summary.cpp - the per-loop summary and run.json --------------------===//
//
// The summary (summary.txt, also printed on stderr): how the run was
// recorded, then per loop (by name, in the order the loops first ran) its
// instances, chunks, work per thread and imbalance, and the flagged grains;
// the tasks; the critical path and, per problem type, the grains it flags
// and how many of them are on it (ProblemViews.h). With several processes,
// first the job's problems over all processes ranked by time lost, then a
// section per process (its own first problems only) and the loops run by
// several processes. run.json: the run's metadata (clock, processes and
// their critical paths, what was written, what was left out).
//
//===----------------------------------------------------------------------===//
#include "Digest.h"
#include "GrainDag.h"
#include "Outliers.h"
#include "ProblemViews.h"
#include "Problems.h"
#include "Writers.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <map>

namespace gcg {

std::string fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char b[512];
  int n = std::vsnprintf(b, sizeof b, f, ap);
  va_end(ap);
  if (n < 0)
    return std::string();
  if (size_t(n) < sizeof b)
    return std::string(b, size_t(n));
  // Longer (a long loop or file name): format again into a string that fits.
  std::string s(size_t(n), '\0');
  va_start(ap, f);
  std::vsnprintf(&s[0], s.size() + 1, f, ap);
  va_end(ap);
  return s;
}

static std::string flaggedText(const Counter &c, bool skipZero) {
  std::string s;
  for (auto &[p, n] : c.items) {
    if (skipZero && !n)
      continue;
    if (!s.empty())
      s += ", ";
    if (p == P_OUTLIER)
      s += fmt("%lld outlier grains (%s)", (long long)n, outlierRule().c_str());
    else
      s += fmt("%lld grains %s %c %g", (long long)n, Thresholds[p].name,
               Thresholds[p].op, Thresholds[p].value);
  }
  return s.empty() ? "none" : s;
}

/// Per loop, the problems its instances' chunks have (parallel_benefit,
/// outlier: Analysis::flaggedChunks(); work_deviation: loopDeviations), in
/// the order merging the instances' counters (Counter::update(), each
/// instance's in that order) in ascending order gives: per problem its
/// count and the first instance that has it.
struct LoopFlags {
  int64_t n[P_COUNT] = {};
  int first[P_COUNT];
  LoopFlags() { std::fill(first, first + P_COUNT, INT_MAX); }
  void add(int p, int li, int64_t k = 1) {
    n[p] += k;
    first[p] = std::min(first[p], li);
  }
  Counter counter() const {
    static const int order[] = {P_PARALLEL_BENEFIT, P_OUTLIER,
                                P_WORK_DEVIATION};
    std::vector<std::pair<int, int>> at; // (first instance, rank)
    for (int r = 0; r < 3; r++)
      if (n[order[r]])
        at.push_back({first[order[r]], r});
    std::sort(at.begin(), at.end());
    Counter c;
    for (auto [f, r] : at)
      c[order[r]] = n[order[r]];
    return c;
  }
};

/// The critical path: span, work and parallelism (work / span) of the
/// grain graph (GrainDag.h).
std::vector<std::string> breakdownLines(const Analysis &an,
                                        const Breakdown &b) {
  std::vector<std::string> out;
  if (!(b.threadTime > 0))
    return out;
  double ms = an.clockNs() * 1e6;
  auto pc = [&](double v) { return 100 * v / b.threadTime; };
  out.push_back(fmt("thread time: %zu thread(s) x %.3f ms recorded = %.3f ms "
                    "(each part below is thread time a change could win "
                    "back, as a share of it)",
                    b.threads, b.span / ms, b.threadTime / ms));
  out.push_back(
      fmt("  serial, outside parallel regions: %.3f ms elapsed "
          "(%.1f%%), the other threads idle %.3f ms (%.1f%%)%s",
          b.serial / ms, pc(b.serial), b.serialIdle / ms, pc(b.serialIdle),
          b.notInTeam > 0 ? fmt("; threads in no team of a running region idle "
                                "%.3f ms (%.1f%%)",
                                b.notInTeam / ms, pc(b.notInTeam))
                                .c_str()
                          : ""));
  double waits = b.waits();
  std::string byKind;
  auto kind = [&](double v, const char *what) {
    if (v > 0)
      byKind += fmt("%s%s %.3f", byKind.empty() ? "" : ", ", what, v / ms);
  };
  kind(b.waitLoop, "loop ends");
  kind(b.waitRegion, "region ends");
  kind(b.waitBarrier, "barriers");
  kind(b.waitTaskwait, "taskwait");
  kind(b.waitTaskgroup, "taskgroup");
  kind(b.waitOther, "other");
  out.push_back(fmt(
      "  in parallel regions: %.3f ms; the grains' work %.3f ms "
      "(chunks %.3f, tasks %.3f: %s of the regions' time)",
      b.inRegions / ms, (b.chunkWork + b.taskWork) / ms, b.chunkWork / ms,
      b.taskWork / ms,
      std::isnan(b.coverage) ? "NA" : fmt("%.1f%%", 100 * b.coverage).c_str()));
  out.push_back(fmt("  waits %.3f ms (%.1f%%)%s", waits / ms, pc(waits),
                    byKind.empty() ? "" : (" (ms: " + byKind + ")").c_str()));
  out.push_back(fmt("  fork and join %.3f ms (%.1f%%); the implicit tasks' own "
                    "code outside loops and tasks, and the making of grains, "
                    "%.3f ms (%.1f%%)%s",
                    b.forkJoin / ms, pc(b.forkJoin), b.outside / ms,
                    pc(b.outside),
                    b.regionsKnown ? ""
                                   : "; some regions were not seen to end: "
                                     "counted to the recording's end"));
  // How noisy the run was: the spread of the durations of the most
  // repeated loop's multi-thread instances (each from its begin to its end
  // over its threads), the same code run again and again: were they even,
  // the slowest tenth would hold about a tenth of their time.
  // Counted per site first (the most repeated: the lowest site of the
  // most), then only its durations gathered.
  auto timed = [&](const Loop &lp) {
    return lp.hasBegin && lp.hasEnd && an.loopEnd(lp) > lp.begin &&
           size_t(an.indexOf(lp)) < an.loopSite.size() &&
           teamOf(an, an.indexOf(lp)) > 1;
  };
  std::vector<size_t> perSite;
  for (const Loop &lp : an.loops)
    if (timed(lp)) {
      size_t site = size_t(an.loopSite[an.indexOf(lp)]);
      if (perSite.size() <= site)
        perSite.resize(site + 1, 0);
      perSite[site]++;
    }
  size_t mostSite = 0, mostN = 0;
  for (size_t site = 0; site < perSite.size(); site++)
    if (perSite[site] > mostN)
      mostSite = site, mostN = perSite[site];
  int mostLoop = -1;
  for (const Loop &lp : an.loops)
    if (mostN && size_t(an.indexOf(lp)) < an.loopSite.size() &&
        size_t(an.loopSite[an.indexOf(lp)]) == mostSite) {
      mostLoop = an.indexOf(lp);
      break;
    }
  if (mostN >= 10 && mostLoop >= 0) {
    // The median, the slowest tenth and the largest by selection, not a
    // sort: the durations are whole ticks, their sums exact in any order.
    std::vector<double> d;
    d.reserve(mostN);
    for (const Loop &lp : an.loops) {
      size_t li = size_t(an.indexOf(lp));
      if (size_t(an.loopSite[li]) == mostSite && timed(lp))
        d.push_back(double(an.loopEnd(lp) - lp.begin));
    }
    size_t n = d.size(), tenth = n - n / 10;
    std::nth_element(d.begin(), d.begin() + long(tenth), d.end());
    std::nth_element(d.begin(), d.begin() + long(n / 2),
                     d.begin() + long(tenth));
    double med = d[n / 2], all = 0, slow = 0;
    double longest = *std::max_element(d.begin() + long(tenth), d.end());
    for (size_t i = 0; i < n; i++) {
      all += d[i];
      if (i >= tenth)
        slow += d[i];
    }
    double share = all > 0 ? slow / all : 0;
    out.push_back(fmt(
        "  noise: the %zu multi-thread instances of loop %s (the most "
        "repeated) took %.4g ms median, %.4g ms at most, %.4g ms in all; the "
        "slowest tenth of them %.0f%% of that%s",
        n, an.loopName(mostLoop).c_str(), med / ms, longest / ms, all / ms,
        100 * share,
        share > 0.5 ? ": the same code took far longer now and then, a busy "
                      "machine or descheduled threads; compare with a run "
                      "on a quiet machine before acting on what is lost"
                    : ""));
  }
  return out;
}

std::string critPathFigures(const Analysis &an, const CritPath &c) {
  if (!c.acyclic)
    return "none (the grain graph has a cycle: a recording whose tasks or "
           "regions name each other as parents)";
  double ms = an.clockNs() * 1e6;
  std::string s = fmt("span %.6g ms, work %.6g ms, parallelism %s", c.span / ms,
                      c.work / ms,
                      c.span > 0 ? fmt("%.3g", c.work / c.span).c_str() : "NA");
  // One grain on the path that holds most of the span: the span and the
  // parallelism rest on it (a preempted task makes a run's critical path).
  double top = 0;
  std::string what;
  bool outlier = false;
  for (uint64_t k : c.tasks)
    if (k < an.tasks.size() && an.taskOwnWork(k) > top) {
      top = an.taskOwnWork(k);
      what = an.taskGrainName(k);
      outlier = k < an.taskOutliers.size() && an.taskOutliers[k];
    }
  for (uint64_t i : c.chunks)
    if (i < an.chunks.size() && double(an.chunks.span(i)) > top) {
      top = double(an.chunks.span(i));
      what = "a chunk of loop " + an.loopName(an.chunks.loop[i]);
      outlier = i < an.outliers.size() && an.outliers[i];
    }
  if (c.span > 0 && top > 0.5 * c.span)
    s += fmt("; one grain holds %.0f%% of the span (%s, %.6g ms of work%s): "
             "the span and the parallelism rest on it",
             100 * top / c.span, what.c_str(), top / ms,
             outlier ? ", an outlier of its kind: a descheduled or "
                       "preempted grain makes it, not the program"
                     : "");
  return s;
}

std::string critPathText(const Analysis &an, const CritPath &c) {
  return "critical path: " + critPathFigures(an, c);
}

/// The problems ranked by time lost (Problems.h), the first `shown`: 5 for
/// one process; 3 per process of several, whose job's first 10 over all
/// processes lead the summary (jobProblemsText) and say the rest.
static std::string problemsText(const Analysis &an,
                                const std::vector<Problem> &ps,
                                const std::string &idPrefix, size_t shown) {
  if (ps.empty())
    return "problems, ranked by time lost: none (no thread waited for "
           "another in a loop, no creation or join time measured)";
  std::string s =
      fmt("problems, ranked by time lost (%zu of %zu; lost: thread time not "
          "overlapped with work, as a share of the threads' time):",
          std::min(ps.size(), shown), ps.size());
  for (size_t i = 0; i < ps.size() && i < shown; i++) {
    const Problem &p = ps[i];
    s +=
        // A task site's name already says "task ...".
        fmt("\n  %zu. %s%s: lost %.3f ms (%.1f%%), work %.3f ms", i + 1,
            p.kind == "loop" ? "loop " : "", p.where.c_str(), p.lostMs,
            p.share * 100, p.workMs);
    if (p.kind == "loop")
      s += fmt(", instances %u multi-thread, %u one-thread", p.instancesMulti,
               p.instancesSingle) +
           (std::isnan(p.imbalance) ? std::string()
                                    : fmt(", imbalance %.2f", p.imbalance));
    s += "\n     why: " + p.why;
    if (!p.outlierGrains.empty()) {
      s += "\n     outlier chunks:";
      for (size_t k = 0; k < p.outlierGrains.size() && k < 5; k++) {
        size_t c = p.outlierGrains[k];
        s += fmt(" %sc%d.%zu", idPrefix.c_str(), an.chunks.thread[c], c);
      }
      if (p.outlierGrains.size() > 5)
        s += fmt(" (and %zu more; grains.csv: problems has outlier)",
                 p.outlierGrains.size() - 5);
    }
    if (!p.suggestion.empty())
      s += "\n     try: " + p.suggestion;
  }
  return s;
}

namespace {
/// Sums by thread number, met in any order, given in ascending order: a
/// number below Small in a column (no map lookup per instance and thread),
/// others in a map.
class ThreadSums {
public:
  void add(int th, int64_t v) {
    if (th >= 0 && th < Small) {
      if (size_t(th) >= sum.size())
        sum.resize(size_t(th) + 1, 0), met.resize(size_t(th) + 1, 0);
      n += !met[size_t(th)];
      met[size_t(th)] = 1;
      sum[size_t(th)] += v;
      return;
    }
    auto [it, fresh] = other.try_emplace(th, 0);
    n += fresh;
    it->second += v;
  }
  size_t size() const { return n; }
  template <class F> void forEach(F &&f) const {
    auto it = other.begin();
    for (; it != other.end() && it->first < 0; ++it)
      f(it->first, it->second);
    for (size_t t = 0; t < sum.size(); t++)
      if (met[t])
        f(int(t), sum[t]);
    for (; it != other.end(); ++it)
      f(it->first, it->second);
  }

private:
  static constexpr int Small = 4096;
  std::vector<int64_t> sum;
  std::vector<uint8_t> met;
  std::map<int, int64_t> other;
  size_t n = 0;
};
} // namespace

std::string summaryOf(const Results &R, size_t p) {
  const Analysis &an = *R.run.procs[p];
  const ProcessResults &pr = R.procs[p];
  std::string idPrefix = R.run.prefix(p);
  double tpn = an.clockNs();
  std::vector<std::string> out;
  const Meta &meta = an.proc.meta;
  bool gc = meta.get("grainchunk_runtime") == "1";
  bool anyExt = an.extToolTime || an.extLoop || an.extChunk || an.extTaskCreate;
  out.push_back(fmt("grainchunk-graph: %zu chunks, %zu tasks, %zu threads",
                    an.chunks.size(), an.tasks.size(), an.threads.size()));
  if (!gc && !anyExt)
    out.push_back(
        "  stock build: a tool sees only the chunks libomp reports itself (the "
        "first "
        "chunk per thread of a static loop, none in one-thread teams; dynamic "
        "chunks "
        "all). For every chunk, build with grainchunk: clang -fopenmp "
        "$(grainchunk-config --cflags) ... $(grainchunk-config --ldflags)");
  std::string answer = meta.get("answer_dispatch", "0");
  if (!an.extChunk && answer != "3" && answer != "4" && answer != "5")
    out.push_back(
        "  the runtime answered " + answer +
        " to ompt_callback_dispatch: no chunk events at all (libomp 14 "
        "without grainchunk)");
  std::string events;
  if (anyExt) {
    std::vector<std::string> ev;
    if (an.extLoop)
      ev.push_back("81 loop");
    if (an.extChunk)
      ev.push_back("82 chunk");
    if (an.extToolTime)
      ev.push_back("83 time");
    if (an.extTaskCreate)
      ev.push_back("84 task create");
    events = "extension events ";
    for (size_t i = 0; i < ev.size(); i++)
      events += (i ? ", " : "") + ev[i];
  } else {
    events = "standard OMPT events only";
  }
  out.push_back("  recorded with " + events);
  if (!an.extToolTime || !(an.extChunk || an.extTaskCreate)) {
    out.push_back(
        "  creation times: unmeasured (NA) - they need grainchunk's extension "
        "events 82/84 with a time function (83); parallel_benefit is NA "
        "where they are");
  } else {
    size_t na = 0;
    for (size_t k = 0; k < an.tasks.creation.size(); k++)
      na += std::isnan(an.tasks.creation[k]);
    for (size_t i = 0; i < an.chunks.size(); i++)
      na += std::isnan(an.chunks.creation[i]);
    if (na)
      out.push_back(
          fmt("  creation times: unmeasured (NA) for %zu of %zu grains "
              "(the runtime reported 0: static chunks of code compiled "
              "without the plugin, after a thread's first)",
              na, an.nGrains()));
  }
  if (an.leftOut)
    out.push_back(fmt("  %lld chunks left out: reported ahead (a loop compiled "
                      "without the plugin) in loops their thread left early "
                      "(cancel); which of them ran is unknown, the thread's "
                      "share goes to its first chunk",
                      (long long)an.leftOut));
  if (meta.get("dropped", "0") != "0" || meta.get("lost_threads", "0") != "0")
    // stopped: why the recording tool stopped a thread's recording.
    out.push_back(
        "  WARNING: " + meta.get("dropped", "None") + " records dropped (" +
        (meta.has("stopped") ? "the recording stopped: " + meta.get("stopped")
                             : std::string("disk full?")) +
        "), " + meta.get("lost_threads", "None") + " threads unrecorded");
  if (!an.proc.complete)
    out.push_back(
        // A program that ended without finishing its recording leaves it
        // inconsistent too (a thread killed before its first record): that
        // is said first; a contradiction only where meta.txt says complete.
        std::string(an.proc.contradicts && an.proc.meta.get("complete") == "1"
                        ? "  INCOMPLETE: the recording contradicts itself "
                          "(the notes below say where)"
                        : "  INCOMPLETE: the program ended without finishing "
                          "the recording (crash, kill or _exit)") +
        "; its grains up to the end are analysed; the recording ends " +
        Run::endsAt(an));
  for (const std::string &n : an.readNotes)
    out.push_back("  note: " + n + " (ignored)");
  for (const std::string &n : an.nameNotes)
    out.push_back("  names: " + n);
  const Baseline *b = an.baseline;
  double thr = Thresholds[P_WORK_DEVIATION].value;
  if (b) {
    std::vector<double> d(an.deviations);
    std::sort(d.begin(), d.end());
    std::string s =
        fmt("  work_deviation: against a run on %zu thread(s) (%zu grains): "
            "%zu of %zu grains matched by lineage",
            b->threads, b->grains, d.size(), an.nGrains());
    if (!d.empty()) {
      s += fmt(", median %.2f, max %.2f", d[d.size() / 2], d.back());
      s += fmt("; %zu above %g",
               size_t(std::count_if(d.begin(), d.end(),
                                    [&](double v) { return v > thr; })),
               thr);
    }
    out.push_back(s);
    // Which grains have a twin, and why the others have none.
    const Analysis::Matches &m = an.matches;
    s = fmt("  matched: chunks %zu of %zu", m.chunks, an.chunks.size());
    std::vector<std::string> why;
    if (m.chunkNoTwin)
      why.push_back(fmt("%zu without a twin: the one-thread run split their "
                        "iterations otherwise (schedule(static) without a "
                        "chunk size, dynamic, guided)",
                        m.chunkNoTwin));
    if (m.chunkUnknown)
      why.push_back(fmt("%zu with unknown times", m.chunkUnknown));
    if (m.chunkNoLineage)
      why.push_back(fmt("%zu with no lineage", m.chunkNoLineage));
    // The reasons, in parentheses, "; "-separated.
    auto because = [&]() {
      for (size_t i = 0; i < why.size(); i++)
        s += (i ? "; " : " (") + why[i] + (i + 1 == why.size() ? ")" : "");
    };
    because();
    s += fmt(", tasks %zu of %zu", m.tasks, an.tasks.size());
    why.clear();
    if (m.taskNoTwin)
      why.push_back(fmt("%zu without a twin", m.taskNoTwin));
    if (m.taskNoLineage)
      why.push_back(fmt("%zu with no lineage", m.taskNoLineage));
    if (m.taskNoWork)
      why.push_back(fmt("%zu with unknown work", m.taskNoWork));
    because();
    out.push_back(s);
    if (b->threads != 1)
      out.push_back(
          "  WARNING: the baseline recording ran on more than one thread");
  }
  // Loops by name, in the order the loops first ran.
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> byName;
  // A name (unique per site) looked up once per site, not per instance;
  // per name, its earliest instance (begin, then index), found in the same
  // pass.
  std::map<std::string, std::pair<double, int>> firstOf;
  std::map<std::string, LoopFlags> flagsOf;
  struct Site {
    std::vector<int> *loops = nullptr;
    std::pair<double, int> *first = nullptr;
    LoopFlags *flags = nullptr;
  };
  std::vector<Site> siteLoops;
  for (const Loop &lp : an.loops)
    if (an.nChunks(lp)) {
      int li = an.indexOf(lp);
      size_t site = size_t(an.loopSite[li]);
      if (siteLoops.size() <= site)
        siteLoops.resize(site + 1);
      Site &v = siteLoops[site];
      if (!v.loops) {
        std::string nm = an.loopName(li);
        v.loops = &byName[nm];
        v.first =
            &firstOf.emplace(nm, std::pair<double, int>{INFINITY, 1 << 30})
                 .first->second;
        v.flags = &flagsOf[nm];
        if (v.loops->empty())
          order.push_back(nm);
      }
      v.loops->push_back(li);
      *v.first =
          std::min(*v.first, {lp.hasBegin ? double(lp.begin) : INFINITY, li});
    }
  std::stable_sort(order.begin(), order.end(),
                   [&](const std::string &x, const std::string &y) {
                     return firstOf[x] < firstOf[y];
                   });
  an.flaggedChunks([&](size_t i, int p) {
    int li = an.chunks.loop[i];
    siteLoops[size_t(an.loopSite[li])].flags->add(p, li);
  });
  for (const std::string &nm : order) {
    const std::vector<int> &lps = byName[nm];
    LoopFlags &fl = flagsOf[nm];
    // The imbalance counts the instances of multi-thread teams only: an
    // instance run by a one-thread team (nested, serialized) has none.
    // By thread number (those met: of small numbers, in a column; the
    // others, in a map), in ascending order.
    ThreadSums perThread, perThreadMulti;
    int64_t chunks = 0, unknown = 0, single = 0, cwbOver = 0, cpuOver = 0;
    size_t team = 0; // the largest team of a multi-thread instance
    for (int li : lps) {
      const Loop &lp = an.loops[li];
      ConstShareSpan shares = an.shares(lp);
      bool one = std::max<size_t>(shares.size(), an.teamSize[li]) <= 1;
      single += one;
      if (!one)
        team = std::max({team, shares.size(), size_t(an.teamSize[li])});
      for (const Share &s : shares) {
        if (s.hasWork) {
          perThread.add(s.th, an.workOf(s));
          if (!one)
            perThreadMulti.add(s.th, an.workOf(s));
        }
        if (s.unknown)
          unknown += s.count;
      }
      if (size_t(li) < an.loopDeviations.size() && an.loopDeviations[li])
        fl.add(P_WORK_DEVIATION, li, an.loopDeviations[li]);
      int64_t n;
      double cwb, cpu;
      an.balance(lp, n, cwb, cpu);
      chunks += n;
      cwbOver += cwb > Thresholds[P_CHUNK_WORK_BALANCE].value;
      cpuOver += cpu > Thresholds[P_CHUNK_WORK_CPU_BALANCE].value;
    }
    double sum = 0, mx = 0;
    perThreadMulti.forEach([&](int, int64_t v) {
      sum += double(v);
      mx = std::max(mx, double(v));
    });
    double imb =
        perThreadMulti.size() && sum
            ? mx / (sum / double(std::max(perThreadMulti.size(), team)))
            : NAN;
    std::string work;
    perThread.forEach([&](int th, int64_t v) {
      work +=
          fmt("%st%d=%.3f", work.empty() ? "" : " ", th, double(v) / tpn / 1e6);
    });
    out.push_back(
        fmt("loop %s: %zu instance(s), %lld chunks; work per thread (ms) ",
            nm.c_str(), lps.size(), (long long)chunks) +
        work +
        (std::isnan(imb) ? std::string("; imbalance (max/mean) NA")
                         : fmt("; imbalance (max/mean) %.2f", imb)) +
        (single ? fmt("; %lld of %zu instance(s) in one-thread teams (no "
                      "imbalance counted)",
                      (long long)single, lps.size())
                : std::string()));
    if (b) {
      int64_t here = 0, there = 0, matched = 0;
      for (int li : lps) {
        auto il = an.instanceLineage(li);
        if (!il)
          continue;
        auto it = b->instanceWork.find(*il);
        if (it == b->instanceWork.end() || !it->second)
          continue;
        for (const Share &s : an.shares(size_t(li)))
          here += an.workOf(s);
        there += it->second;
        matched++;
      }
      out.push_back("  work against the one-thread run: " +
                    (matched ? fmt("x%.2f (%lld of %zu instances matched)",
                                   double(here) / double(there),
                                   (long long)matched, lps.size())
                             : std::string("no instance matched")));
    }
    if (unknown)
      out.push_back(
          fmt("  %lld chunks' own times unknown: the loop was compiled "
              "without the grainchunk plugin, so each thread's chunks were "
              "all reported before any ran (their work per thread is "
              "right); build it with the plugin, or use --no-ext",
              (long long)unknown));
    out.push_back("  flagged: " + flaggedText(fl.counter(), true) +
                  fmt("; prototype's instance rules: chunk_work_balance > 2 "
                      "in %lld, chunk_work_cpu_balance > 2 in %lld of %zu "
                      "instance(s)",
                      (long long)cwbOver, (long long)cpuOver, lps.size()));
  }
  if (an.tasks.size())
    out.push_back(fmt("tasks: %zu; flagged: ", an.tasks.size()) +
                  flaggedText(an.taskFlagged, false) +
                  (an.taskPbNa ? fmt("; parallel_benefit NA for %lld",
                                     (long long)an.taskPbNa)
                               : std::string()));
  for (const std::string &l : breakdownLines(an, pr.time))
    out.push_back(l);
  out.push_back(critPathText(an, pr.crit));
  // Per problem type, the grains it flags and those on the critical path
  // (the prototype's diagnosis .info; report.html's views).
  for (const ProblemCount &c : pr.counts)
    if (c.grains)
      out.push_back("  " + problemCountLine(c));
  out.push_back(problemsText(an, pr.problems, idPrefix, R.run.multi() ? 3 : 5));
  std::string s;
  for (const std::string &l : out)
    s += l + "\n";
  return s;
}

/// The loops run by several processes (RunDigest::across): their work per
/// process, the imbalance between processes and within the worst one, and
/// the time lost across them beside the time lost within them.
/// For the terminal (brief): the loops that lost the most across processes
/// first, at most AcrossShown of them, each with its least and most work
/// per process instead of every process's.
static const size_t AcrossShown = 5;
static std::string acrossText(const std::vector<AcrossLoop> &across,
                              bool brief = false) {
  std::vector<size_t> order(across.size());
  for (size_t i = 0; i < order.size(); i++)
    order[i] = i;
  if (brief)
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return across[a].lostAcrossMs > across[b].lostAcrossMs;
    });
  std::string s;
  for (size_t k = 0; k < order.size(); k++) {
    const AcrossLoop &x = across[order[k]];
    if (brief && k == AcrossShown) {
      s += fmt("  and %zu more loops\n", order.size() - k);
      break;
    }
    std::string work;
    if (brief && !x.who.empty()) {
      size_t lo = 0, hi = 0;
      for (size_t i = 1; i < x.who.size(); i++) {
        lo = x.workMs[i] < x.workMs[lo] ? i : lo;
        hi = x.workMs[i] > x.workMs[hi] ? i : hi;
      }
      work = fmt("%.3f (%s) to %.3f (%s)", x.workMs[lo], x.who[lo].c_str(),
                 x.workMs[hi], x.who[hi].c_str());
    }
    for (size_t i = 0; !brief && i < x.who.size(); i++)
      work += fmt("%s%s=%.3f", i ? " " : "", x.who[i].c_str(), x.workMs[i]);
    if (s.empty())
      s = brief ? "across processes, most lost across them first (r: MPI "
                  "rank, p: pid when there is no rank):\n"
                : "across processes (r: MPI rank, p: pid when there is no "
                  "rank):\n";
    s += fmt("  loop %s: %zu processes; work per process (ms) %s; process "
             "imbalance (max/mean) %.2f; worst thread imbalance in a process "
             "%.2f; lost across processes %.3f ms (their wait for the "
             "slowest, if they synchronize after it), within them %.3f ms\n",
             x.name.c_str(), x.who.size(), work.c_str(), x.processImbalance,
             x.worstThreadImbalance, x.lostAcrossMs, x.lostWithinMs);
  }
  return s;
}

/// The job's problems over all processes, most thread time lost first (the
/// first JobProblemsShown; equal losses in process order): each names its
/// process (r<rank>, or p<pid> without a rank), its share of the job's
/// thread time (every process's threads x span) and of its process's; a
/// loop several processes ran adds its across-processes figures (at its
/// first entry; the later ones refer to it).
static const size_t JobProblemsShown = 10;
static std::string jobProblemsText(const RunDigest &D, size_t advice = 0) {
  double jobMs = 0;
  std::vector<std::pair<size_t, size_t>> all; // (process, its problem)
  for (size_t p = 0; p < D.procs.size(); p++) {
    const ProcessDigest &d = D.procs[p];
    if (d.ticksPerNs > 0)
      jobMs += d.time.threadTime / d.ticksPerNs / 1e6;
    for (size_t i = 0; i < d.problems.size(); i++)
      all.push_back({p, i});
  }
  if (all.empty())
    return "job's problems, ranked by time lost over all processes: none\n";
  auto lost = [&](const std::pair<size_t, size_t> &x) {
    return D.procs[x.first].problems[x.second].lostMs;
  };
  std::stable_sort(
      all.begin(), all.end(),
      [&](const std::pair<size_t, size_t> &a,
          const std::pair<size_t, size_t> &b) { return lost(a) > lost(b); });
  std::map<std::string, const AcrossLoop *> across;
  for (const AcrossLoop &x : D.across)
    across[x.name] = &x;
  std::map<std::string, size_t> firstAt; // a loop's first entry (from 1)
  size_t n = std::min(all.size(), JobProblemsShown);
  std::string s = fmt(
      "job's problems, ranked by time lost over all processes (%zu of %zu; "
      "r: MPI rank, p: pid when there is no rank; share of the job's thread "
      "time, %.3f ms, and of the process's):\n",
      n, all.size(), jobMs);
  for (size_t i = 0; i < n; i++) {
    const ProcessDigest &d = D.procs[all[i].first];
    const Problem &q = d.problems[all[i].second];
    std::string who = d.rank >= 0 ? "r" + std::to_string(d.rank)
                                  : "p" + std::to_string(d.pid);
    s +=
        fmt("  %zu. %s %s%s: lost %.3f ms (%.1f%% of the job, %.1f%% of "
            "%s)",
            i + 1, who.c_str(), q.kind == "loop" ? "loop " : "",
            q.where.c_str(), q.lostMs, jobMs > 0 ? 100 * q.lostMs / jobMs : NAN,
            100 * q.share, who.c_str());
    auto it = q.kind == "loop" ? across.find(q.where) : across.end();
    auto first = it == across.end() ? firstAt.end() : firstAt.find(q.where);
    if (first != firstAt.end())
      s += fmt("\n     across processes: as in %zu.", first->second);
    else if (it != across.end())
      s += fmt("\n     across %zu processes: process imbalance (max/mean) "
               "%.2f; lost across processes %.3f ms, within them %.3f ms",
               it->second->who.size(), it->second->processImbalance,
               it->second->lostAcrossMs, it->second->lostWithinMs);
    if (it != across.end() && first == firstAt.end())
      firstAt[q.where] = i + 1;
    if (i < advice) {
      s += "\n     why: " + q.why;
      if (!q.suggestion.empty())
        s += "\n     try: " + q.suggestion;
    }
    s += "\n";
  }
  return s;
}

/// A run of several processes: its first line and the job's problems.
static std::string jobText(const RunDigest &D, size_t advice = 0) {
  uint64_t chunks = 0, tasks = 0;
  bool complete = true;
  for (const ProcessDigest &d : D.procs)
    chunks += d.chunks, tasks += d.tasks, complete = complete && d.complete;
  return fmt("grainchunk-graph: %zu processes, %llu chunks, %llu "
             "tasks%s\n",
             D.procs.size(), (unsigned long long)chunks,
             (unsigned long long)tasks,
             complete ? "" : " (INCOMPLETE: see the processes below)") +
         jobProblemsText(D, advice);
}

std::string summaryText(const RunDigest &D) {
  if (!D.multi)
    return D.procs.empty() ? std::string() : D.procs[0].summary;
  std::string s = jobText(D);
  for (const ProcessDigest &d : D.procs) {
    s += fmt(
        "process %lld (parent %lld, rank %s, host %s)%s:\n", (long long)d.pid,
        (long long)d.ppid, d.rank >= 0 ? std::to_string(d.rank).c_str() : "NA",
        d.host.empty() ? "?" : d.host.c_str(), d.complete ? "" : " INCOMPLETE");
    const std::string &part = d.summary;
    size_t b = 0;
    while (b < part.size()) {
      size_t e = part.find('\n', b);
      if (e == std::string::npos)
        e = part.size();
      s += "  " + part.substr(b, e - b) + "\n";
      b = e + 1;
    }
  }
  return s + acrossText(D.across);
}

/// A process's line in the terminal's view of a run of several: who, its
/// grains and threads, where its thread time went (the shares its
/// section's thread time lines give) and its critical path's parallelism.
static std::string processLine(const ProcessDigest &d) {
  std::string who =
      d.rank >= 0 ? "r" + std::to_string(d.rank) : "p" + std::to_string(d.pid);
  std::string s =
      fmt("  %s: pid %lld%s%s, %llu chunks, %llu tasks, %llu "
          "thread(s)",
          who.c_str(), (long long)d.pid, d.host.empty() ? "" : " on ",
          d.host.c_str(), (unsigned long long)d.chunks,
          (unsigned long long)d.tasks, (unsigned long long)d.threads);
  const Breakdown &b = d.time;
  if (b.threadTime > 0 && d.ticksPerNs > 0) {
    auto pc = [&](double v) { return 100 * v / b.threadTime; };
    double waits = b.waits();
    s += fmt("; thread time %.3f ms: serial %.1f%%, waits %.1f%%, fork and "
             "join %.1f%%, own code %.1f%%, the grains' work %.1f%%",
             b.threadTime / d.ticksPerNs / 1e6,
             pc(b.serial + b.serialIdle + b.notInTeam), pc(waits),
             pc(b.forkJoin), pc(b.outside), pc(b.chunkWork + b.taskWork));
  }
  if (d.critAcyclic && d.critSpan > 0)
    s += fmt("; parallelism %.2f", d.critWork / d.critSpan);
  if (!d.complete)
    s += "; INCOMPLETE: its recording ends at " + d.endsAt;
  return s + "\n";
}

std::string terminalText(const RunDigest &D, const std::string &full) {
  if (!D.multi)
    return summaryText(D);
  // The job's lines, then a line per process instead of its section (the
  // first 16 and every incomplete one), then the loops across processes.
  std::string s = jobText(D, 3);
  const size_t shown = 16;
  s += fmt("processes (%s has each one's summary):\n", full.c_str());
  size_t left = 0;
  for (size_t i = 0; i < D.procs.size(); i++)
    if (i < shown || !D.procs[i].complete)
      s += processLine(D.procs[i]);
    else
      left++;
  if (left)
    s += fmt("  and %zu more\n", left);
  return s + acrossText(D.across, true);
}

std::string summary(const Results &R) {
  return summaryText(runDigest(digestsOf(R), R.run.multi()));
}

std::string leftOutText(const std::vector<LeftOut> &leftOut) {
  std::string s;
  for (const LeftOut &l : leftOut)
    s += "left out: " + l.file + ": " + l.what + " (" + l.option + ")\n";
  return s;
}

void writeRunJson(const Results &R, const std::string &path,
                  const std::vector<std::string> &outputs,
                  const std::string &version,
                  const std::vector<LeftOut> &leftOut) {
  writeRunJson(runDigest(digestsOf(R), R.run.multi()), path, outputs, version,
               leftOut);
}

void writeRunJson(const RunDigest &D, const std::string &path,
                  const std::vector<std::string> &outputs,
                  const std::string &version,
                  const std::vector<LeftOut> &leftOut) {
  OutFile o(path);
  const ProcessDigest &a0 = D.procs.at(0);
  o << "{\n  \"tool\": \"grainchunk-graph\",\n  \"version\": "
    << jsonString(version)
    << ",\n  \"clock\": " << (a0.hasClock ? jsonString(a0.clock) : "null")
    << ",\n  \"ticks_per_ns\": ";
  o.jnum(a0.ticksPerNs);
  bool measured = true, complete = true;
  for (const ProcessDigest &d : D.procs)
    measured &= d.toolTime, complete &= d.complete;
  o << ",\n  \"creation_cycles\": "
    << (measured ? "\"measured\"" : "\"NA (unmeasured)\"")
    << ",\n  \"complete\": " << (complete ? "true" : "false")
    << ",\n  \"processes\": [";
  for (size_t i = 0; i < D.procs.size(); i++) {
    const ProcessDigest &p = D.procs[i];
    auto opt = [](int64_t v) {
      return v >= 0 ? std::to_string(v) : std::string("null");
    };
    o << (i ? ",\n" : "\n") << "    {\"pid\": " << opt(p.pid)
      << ", \"ppid\": " << opt(p.ppid) << ", \"rank\": " << opt(p.rank)
      << ", \"host\": "
      << (p.host.empty() ? std::string("null") : jsonString(p.host))
      << ", \"exe\": "
      << (p.exe.empty() ? std::string("null") : jsonString(p.exe))
      << ", \"record_version\": " << std::to_string(p.recordVersion)
      << ", \"threads\": " << std::to_string(p.threads)
      << ", \"chunks\": " << std::to_string(p.chunks)
      << ", \"tasks\": " << std::to_string(p.tasks) << ", \"ticks_per_ns\": ";
    o.jnum(p.ticksPerNs);
    if (p.critAcyclic) {
      o << ", \"critical_path\": {\"span_cycles\": ";
      o.jnum(p.critSpan) << ", \"work_cycles\": ";
      o.jnum(p.critWork) << ", \"parallelism\": ";
      if (p.critSpan > 0)
        o.jnum(p.critWork / p.critSpan);
      else
        o << "null";
      o << "}";
    } else {
      o << ", \"critical_path\": null";
    }
    const Breakdown &b = p.time;
    o << ", \"thread_time_cycles\": {\"threads\": " << std::to_string(b.threads)
      << ", \"span\": ";
    o.jnum(b.span) << ", \"serial_idle\": ";
    o.jnum(b.serialIdle) << ", \"not_in_team\": ";
    o.jnum(b.notInTeam) << ", \"in_regions\": ";
    o.jnum(b.inRegions) << ", \"fork_join\": ";
    o.jnum(b.forkJoin) << ", \"chunk_work\": ";
    o.jnum(b.chunkWork) << ", \"task_work\": ";
    o.jnum(b.taskWork) << ", \"wait_loop_end\": ";
    o.jnum(b.waitLoop) << ", \"wait_region_end\": ";
    o.jnum(b.waitRegion) << ", \"wait_barrier\": ";
    o.jnum(b.waitBarrier) << ", \"wait_taskwait\": ";
    o.jnum(b.waitTaskwait) << ", \"wait_taskgroup\": ";
    o.jnum(b.waitTaskgroup) << ", \"wait_other\": ";
    o.jnum(b.waitOther) << ", \"outside_grains\": ";
    o.jnum(b.outside) << "}";
    o << ", \"complete\": " << (p.complete ? "true" : "false")
      << ", \"ends_at\": "
      << (p.complete ? std::string("null") : jsonString(p.endsAt)) << "}";
  }
  o << "\n  ],\n  \"outputs\": [";
  for (size_t i = 0; i < outputs.size(); i++)
    o << (i ? ", " : "") << jsonString(outputs[i]);
  o << "],\n  \"left_out\": [";
  for (size_t i = 0; i < leftOut.size(); i++)
    o << (i ? ",\n" : "\n") << "    {\"file\": " << jsonString(leftOut[i].file)
      << ", \"what\": " << jsonString(leftOut[i].what)
      << ", \"how_to_get_it\": " << jsonString(leftOut[i].option) << "}";
  o << (leftOut.empty() ? "]\n}\n" : "\n  ]\n}\n");
  o.close();
}

} // namespace gcg

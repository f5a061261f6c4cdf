// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ReportWriter.cpp - report.html: one self-contained page of the run -===//
//
// Builds the page's data as one JSON object and puts it, with the page's
// script and style (ReportPage.inc, made by CMake from tools/graph/report/),
// into one HTML file. The JSON is inside a <script type="application/json">
// element: every '<', '>' and '&' in it is written \u003c, \u003e, \u0026
// (they only occur inside strings), so no name from the program (a file
// named "</script>...") can end the element; the script reads the names
// with JSON.parse and puts them on the page as text, never as markup.
//
// The data: the run's facts; the loops and task sites with their colours
// (Palette.h: the colours every output gives them); timeline rows (process,
// thread); per grain (start, duration, loop or site, instance, iterations,
// critical path) up to Caps::report grains, above it per loop instance and
// thread and per task site and thread; the grain graph per process: the
// engine's coarse graph (CoarseGraph.h, as the aggregated grains.graphml has
// it) at the coarseness that keeps it within MaxGraphNodes, its critical path
// as one path (coarsePath), each group's grains listed where it can be
// expanded; the problems (problemsForReport); the problem views
// (ProblemViews.h): per problem type that flags a grain (and the outliers) its
// count line, per bar and graph member its problem flags, per aggregated bar
// and group the number of its grains each type flags.
//
//===----------------------------------------------------------------------===//
#include "ReportWriter.h"
#include "CoarseGraph.h"
#include "Palette.h"
#include "ProblemViews.h"
#include "Problems.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace gcg {

/// a - b as the release build has always computed it (two's complement),
/// without signed overflow: iteration numbers span all 64 bits.
static int64_t wrapSub(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) - uint64_t(b));
}

namespace {
#include "ReportPage.inc"

/// Graph nodes drawn at most, over all processes (the page lays them out
/// itself): coarser groups above it.
constexpr uint64_t MaxGraphNodes = 1000;
/// A group of at most this many grains can be expanded on the page.
constexpr int64_t MaxExpand = 64;
/// A loop problem's steps go through at most this many of its instances,
/// most thread time lost first.
constexpr size_t InstanceSteps = 200;

std::string num(double v, int digits = 3) {
  if (!std::isfinite(v))
    return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  std::string s = b;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.')
      s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string str(const std::string &s) { return jsonString(s); }

/// Indexes of distinct names, in the order met.
struct Names {
  std::unordered_map<std::string, int> index;
  std::vector<std::string> list;
  int operator()(const std::string &s) {
    auto it = index.find(s);
    if (it != index.end())
      return it->second;
    index.emplace(s, int(list.size()));
    list.push_back(s);
    return int(list.size() - 1);
  }
};

/// A growing JSON array of integers.
struct IntArray {
  std::string s = "[";
  bool first = true;
  void add(int64_t v) {
    if (!first)
      s += ',';
    first = false;
    s += std::to_string(v);
  }
  std::string done() const { return s + "]"; }
};

} // namespace

std::vector<ReportProblem> problemsForReport(const Results &R) {
  const Run &run = R.run;
  // The summary's ranking (Problems.h), every process's, largest first.
  std::vector<Problem> ps = R.problems;
  std::stable_sort(
      ps.begin(), ps.end(),
      [](const Problem &x, const Problem &y) { return x.lostMs > y.lostMs; });
  std::vector<ReportProblem> out;
  for (const Problem &q : ps) {
    ReportProblem p;
    p.loop = q.kind == "loop" ? q.where : std::string();
    p.site = q.kind == "loop" ? std::string() : q.where;
    p.lostNs = q.lostMs * 1e6;
    const ProcessDir &pd = run.procs[size_t(q.process)]->proc;
    std::string who;
    if (run.procs.size() > 1)
      who = pd.rank >= 0 ? "rank " + std::to_string(pd.rank) + ": "
                         : "pid " + std::to_string(pd.pid) + ": ";
    // The summary's formats (Summary.cpp): "11.390 ms", "(0.0%".
    p.title = who + q.where + ": " + fmt("%.3f ms", q.lostMs) +
              " of thread time lost";
    if (std::isfinite(q.share))
      p.title += fmt(" (%.1f%% of the threads' time)", q.share * 100);
    p.detail = q.why;
    p.suggest = q.suggestion;
    for (uint64_t i : q.outlierGrains)
      p.outliers.push_back(chunkId(run, size_t(q.process), size_t(i)));
    out.push_back(std::move(p));
  }
  return out;
}

namespace {

/// The timeline rows and the per-grain or aggregated bars.
struct Timeline {
  std::string rows = "[";
  std::map<std::pair<size_t, int>, int> rowOf;
  int row(size_t p, int th) {
    auto it = rowOf.find({p, th});
    if (it != rowOf.end())
      return it->second;
    int r = int(rowOf.size());
    rowOf.emplace(std::make_pair(p, th), r);
    return r;
  }
};

struct Graph {
  std::string groups = "[", members = "[", gedges = "[";
  size_t nGroups = 0, nMembers = 0;
  // How the processes drawn coarser are: per level's text, the processes.
  std::map<std::string, std::vector<std::string>> coarser;
};

/// Process p's coarse graph (CoarseGraph.h, as the aggregated
/// grains.graphml draws it) at the coarseness that fits the page's budget:
/// its groups, the members of those that expand (every grain known, at most
/// MaxExpand), its edges with the critical path as one path (coarsePath);
/// chunkCrit and taskCrit get the critical path's grains for the bars.
void graphOf(const Results &R, size_t p, const Analysis &an, bool every,
             Names &loops, Names &sites, Graph &G,
             std::vector<uint8_t> &chunkCrit, std::vector<uint8_t> &taskCrit,
             const ProblemMasks &masks) {
  const Run &run = R.run;
  const CritPath &cp = R.procs[p].crit;
  double tpn = an.clockNs();
  CoarseLevel level = coarseLevelFor(
      an, std::max<uint64_t>(MaxGraphNodes / run.procs.size(), 200));
  level.members = true;
  if (level.block != 1 || level.bySite || level.bare) {
    const ProcessDir &pd = an.proc;
    G.coarser[coarseLevelText(level, grainKinds(an))].push_back(
        pd.rank >= 0 ? "rank " + std::to_string(pd.rank)
                     : "pid " + std::to_string(pd.pid));
  }
  CoarseGraph cg = coarseGraph(an, cp, level, run.prefix(p));
  std::vector<uint32_t> path = coarsePath(cg);
  std::vector<uint8_t> onPath(cg.nodes.size(), 0);
  for (uint32_t v : path)
    onPath[v] = 1;
  for (uint64_t i : cp.chunks)
    chunkCrit[i] = every;
  for (uint64_t k : cp.tasks)
    taskCrit[k] = 1;
  // Per group: its grains (every grain known), the grains each problem type
  // flags, its critical-path grains.
  size_t nv = cg.nodes.size();
  std::vector<std::vector<std::pair<bool, uint64_t>>> grains(nv);
  std::vector<std::array<uint32_t, P_COUNT>> flagged(nv);
  auto addFlags = [&](uint32_t v, uint8_t m) {
    for (int f = 0; m && f < P_COUNT; f++)
      flagged[v][f] += (m >> f) & 1;
  };
  for (size_t i = 0; i < cg.chunkNode.size(); i++)
    if (uint32_t v = cg.chunkNode[i]; v != UINT32_MAX) {
      addFlags(v, masks.chunks[i]);
      if (every && grains[v].size() <= size_t(MaxExpand))
        grains[v].push_back({true, i});
    }
  for (size_t k = 0; k < cg.taskNode.size(); k++)
    if (uint32_t v = cg.taskNode[k]; v != UINT32_MAX) {
      addFlags(v, masks.tasks[k]);
      if (every && grains[v].size() <= size_t(MaxExpand))
        grains[v].push_back({false, k});
    }
  auto idOf = [&](bool chunk, uint64_t r) {
    return chunk ? chunkId(run, p, r) : taskId(run, p, r);
  };
  std::vector<std::vector<std::string>> critIds(nv);
  if (every) {
    for (uint64_t i : cp.chunks)
      if (uint32_t v = cg.chunkNode[i]; v != UINT32_MAX)
        critIds[v].push_back(idOf(true, i));
    for (uint64_t k : cp.tasks)
      if (uint32_t v = cg.taskNode[k]; v != UINT32_MAX)
        critIds[v].push_back(idOf(false, k));
  }
  std::vector<uint8_t> critChunk(an.chunks.size(), 0),
      critTask(an.tasks.size(), 0);
  for (uint64_t i : cp.chunks)
    critChunk[i] = 1;
  for (uint64_t k : cp.tasks)
    critTask[k] = 1;
  size_t base = G.nGroups;
  for (uint32_t v = 0; v < nv; v++) {
    const CoarseGraph::Node &n = cg.nodes[v];
    bool chunks = n.kind == CoarseGraph::Chunks,
         tasks = n.kind == CoarseGraph::Tasks;
    static const char *const Type[] = {"start", "end",   "fork",
                                       "join",  "chunk", "task"};
    int colour = chunks ? loops(n.name) : tasks ? sites(n.name) : -1;
    bool expandable = (chunks || tasks) && every && n.grains > 1 &&
                      n.grains <= MaxExpand &&
                      grains[v].size() == size_t(n.grains);
    size_t gid = G.nGroups++;
    G.groups += (gid ? ",\n" : "\n");
    G.groups +=
        "{\"p\":" + std::to_string(p) + ",\"t\":\"" + Type[n.kind] +
        "\",\"n\":" + std::to_string(n.grains) +
        ",\"w\":" + num(n.work / tpn, 0) + ",\"c\":" + (n.onPath ? "1" : "0") +
        (onPath[v] ? ",\"cp\":1" : "") + ",\"k\":" + std::to_string(colour) +
        ",\"x\":" + (expandable ? "1" : "0") + ",\"l\":" + str(n.label);
    // The problem types' counts: [flag, grains, flag, grains, ...].
    std::string pf;
    for (int f = 0; f < P_COUNT; f++)
      if (flagged[v][f])
        pf += (pf.empty() ? "" : ",") + std::to_string(f) + "," +
              std::to_string(flagged[v][f]);
    if (!pf.empty())
      G.groups += ",\"pf\":[" + pf + "]";
    if (every && n.grains == 1 && grains[v].size() == 1)
      G.groups +=
          ",\"id\":" + str(idOf(grains[v][0].first, grains[v][0].second));
    else if (!expandable && !critIds[v].empty()) {
      // The critical path's grains in a group that does not expand.
      G.groups += ",\"ci\":[";
      for (size_t j = 0; j < critIds[v].size(); j++)
        G.groups += (j ? "," : "") + str(critIds[v][j]);
      G.groups += "]";
    }
    G.groups += "}";
    if (!expandable)
      continue;
    for (auto [chunk, r] : grains[v]) {
      std::string label = chunk
                              ? "chunk " + std::to_string(an.chunks.lower[r]) +
                                    ".." + std::to_string(an.chunks.upper[r]) +
                                    " of " + an.loopName(an.chunks.loop[r])
                              : an.taskGrainName(r);
      GrainMetrics m = chunk ? an.chunkMetrics(r) : an.taskMetrics(r);
      G.members += (G.nMembers++ ? ",\n" : "\n");
      G.members +=
          "{\"g\":" + std::to_string(gid) + ",\"w\":" + num(m.work / tpn, 0) +
          ",\"c\":" + ((chunk ? critChunk[r] : critTask[r]) ? "1" : "0") +
          ",\"pm\":" +
          std::to_string(chunk ? masks.chunks[r] : masks.tasks[r]) +
          ",\"id\":" + str(idOf(chunk, r)) + ",\"l\":" + str(label) + "}";
    }
  }
  // Edges as [from, to, on the drawn critical path].
  std::set<std::pair<uint32_t, uint32_t>> pathEdges;
  for (size_t j = 1; j < path.size(); j++)
    pathEdges.insert({path[j - 1], path[j]});
  bool first = G.gedges.size() == 1;
  for (const CoarseGraph::Edge &e : cg.edges) {
    G.gedges += first ? "" : ",";
    first = false;
    G.gedges += "[" + std::to_string(base + e.src) + "," +
                std::to_string(base + e.dst) + "," +
                (pathEdges.count({e.src, e.dst}) ? "1" : "0") + "]";
  }
}

/// Every '<', '>' and '&' as a JSON escape (they occur only in strings),
/// and U+2028/U+2029 too: the text cannot end its script element.
std::string pageSafe(const std::string &json) {
  std::string o;
  o.reserve(json.size() + json.size() / 50);
  for (size_t i = 0; i < json.size(); i++) {
    char c = json[i];
    if (c == '<')
      o += "\\u003c";
    else if (c == '>')
      o += "\\u003e";
    else if (c == '&')
      o += "\\u0026";
    else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
             (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      o += json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029";
      i += 2;
    } else
      o += c;
  }
  return o;
}

/// The page with every grain's bar, or (!every) a bar per loop span of
/// `block` instances (CoarseGraph.h) and per task site and thread.
/// The graph (and the critical path's grains) of the last page made: the
/// same for every block of the bars.
struct GraphCache {
  int every = -1; // the page's `every` it was made for, -1: none
  Graph G;
  std::vector<std::vector<uint8_t>> chunkCrit, taskCrit;
};

std::string reportPage(const Results &R, const Caps &caps,
                       const std::string &version,
                       std::vector<LeftOut> &leftOut, bool every,
                       uint64_t block, GraphCache &cache, bool graph = true) {
  const Run &run = R.run;
  uint64_t grains = run.grains();
  // What the aggregated bars merge: the loops' chunks, the tasks, or both.
  GrainKinds kinds;
  for (auto &an : run.procs)
    kinds |= grainKinds(*an);
  std::string bars;
  if (kinds.loops)
    bars = "a bar per " +
           (block == 1 ? std::string("loop instance")
            : block    ? "loop over each " + std::to_string(block) +
                          " consecutive instances of it"
                    : std::string("loop over the whole run")) +
           " and thread";
  if (kinds.tasks)
    bars += (bars.empty() ? "a bar" : " and") +
            std::string(" per task creation site and thread");
  if (!every)
    leftOut.push_back(
        {"report.html",
         "aggregated: " + std::to_string(grains) +
             " grains, above the cap of " +
             (grains > caps.report
                  ? std::to_string(caps.report)
                  : std::to_string(caps.reportBudget(grains)) + " bytes") +
             "; the timeline has " + bars + ", the graph a node per group",
         "--max-report-grains " + std::to_string(grains) +
             (grains > caps.report ? "" : " --max-report-bytes 1000G") +
             " draws every grain"});
  // The loops and sites in the order of their colours (Palette.h).
  const RunColours &colours = R.colours;
  Names loops, sites;
  for (const std::string &n : colours.loops)
    loops(n);
  for (const std::string &n : colours.sites)
    sites(n);
  Timeline tl;
  bool fresh = graph && cache.every != int(every);
  if (fresh) {
    cache.G = Graph();
    cache.chunkCrit.assign(run.procs.size(), {});
    cache.taskCrit.assign(run.procs.size(), {});
  }
  Graph none;
  const Graph &G = graph ? cache.G : none;
  uint64_t t0 = run.firstInstant();
  IntArray gRow, gS, gD, gK, gI, gLo, gHi, gC, gN, gCount, gPm;
  // Aggregated bars: [bar, flag, grains it flags, ...].
  IntArray gPc;
  int64_t nBars = 0;
  int64_t prevS = 0, prevI = 0, prevLo = 0, prevN = 0;
  double endNs = 0;
  std::string procs = "[";
  int64_t nChunks = 0, nTasks = 0;
  // Per loop (its legend index): its instances' thread time lost (the
  // Results' InstanceLoss), for the problem's steps: (lost, start, end,
  // instance) in ns.
  std::vector<std::vector<std::array<int64_t, 4>>> instLost;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    double tpn = an.clockNs();
    auto ns = [&](uint64_t t) {
      return int64_t(std::llround(double(int64_t(t - t0)) / tpn));
    };
    for (const InstanceLoss &x : R.procs[p].losses) {
      if (!x.threads)
        continue;
      size_t k = size_t(loops(an.loopName(x.loop)));
      if (instLost.size() <= k)
        instLost.resize(k + 1);
      instLost[k].push_back({int64_t(std::llround(x.lost / tpn)), ns(x.first),
                             ns(x.last), int64_t(x.loop)});
    }
    for (int th : an.threads)
      tl.row(p, th);
    std::vector<uint8_t> chunkCrit(an.chunks.size(), 0),
        taskCrit(an.tasks.size(), 0);
    if (graph && !fresh)
      chunkCrit = cache.chunkCrit[p], taskCrit = cache.taskCrit[p];
    const ProblemMasks &masks = R.procs[p].masks;
    if (fresh) {
      graphOf(R, p, an, every, loops, sites, cache.G, chunkCrit, taskCrit,
              masks);
      cache.chunkCrit[p] = chunkCrit, cache.taskCrit[p] = taskCrit;
    }
    const Chunks &ch = an.chunks;
    const Tasks &T = an.tasks;
    nChunks += int64_t(ch.size());
    nTasks += int64_t(T.size());
    // pm: the problem types flagging the bar's grains (bit per flag);
    // aggregated, fc: how many grains each flags.
    auto bar = [&](int row, int64_t s, int64_t d, int k, int64_t inst,
                   int64_t lo, int64_t hi, int c, int64_t n, int64_t count,
                   unsigned pm, const uint32_t *fc) {
      // Start, first iteration, instance and number as differences from
      // the bar before (small numbers: fewer bytes); the last iteration
      // as the count less one; the count only when aggregated.
      gRow.add(row);
      gS.add(wrapSub(s, prevS));
      prevS = s;
      gD.add(d);
      gK.add(k);
      gI.add(wrapSub(inst, prevI));
      prevI = inst;
      gLo.add(wrapSub(lo, prevLo));
      prevLo = lo;
      gHi.add(wrapSub(hi, lo));
      gC.add(c);
      gN.add(wrapSub(n, prevN));
      prevN = n;
      if (!every)
        gCount.add(count);
      gPm.add(pm);
      for (int f = 0; fc && f < P_COUNT; f++)
        if (fc[f]) {
          gPc.add(nBars);
          gPc.add(f);
          gPc.add(fc[f]);
        }
      nBars++;
      endNs = std::max(endNs, double(s + d));
    };
    if (every) {
      for (size_t i = 0; i < ch.size(); i++) {
        int k = loops(an.loopName(ch.loop[i]));
        int64_t s = ns(ch.start[i]), e = ns(ch.end[i]);
        bar(tl.row(p, ch.thread[i]), s, std::max<int64_t>(e - s, 0), k,
            ch.loop[i], int64_t(ch.lower[i]), int64_t(ch.upper[i]),
            chunkCrit[i] | (an.chunkUnknown(i) ? 2 : 0), int64_t(i), 1,
            masks.chunks[i], nullptr);
      }
      for (uint32_t k : T.order) {
        int site = sites(an.taskGrainName(k));
        for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
          int64_t s = ns(T.segStart[j]), e = ns(T.segEnd[j]);
          bar(tl.row(p, T.segThread[j]), s, std::max<int64_t>(e - s, 0),
              -1 - site, -1, -1, -1, taskCrit[k], int64_t(T.id[k]), 1,
              masks.tasks[k], nullptr);
        }
      }
    } else {
      // Per loop instance and thread, the chunks each problem type flags.
      // (Over a block of instances: per its first instance and thread.)
      std::vector<LoopThread> spans;
      std::vector<int> firstOf;
      if (block == 1) {
        spans = R.procs[p].loopRows;
      } else {
        for (const LoopSpan &x : loopSpans(an, block, &firstOf)) {
          LoopThread r;
          r.loop = x.loop, r.th = x.th, r.chunks = x.chunks;
          r.hasWork = x.hasWork, r.work = x.work;
          r.first = x.first, r.last = x.last;
          spans.push_back(r);
        }
      }
      std::map<std::pair<int, int>, std::array<uint32_t, P_COUNT>> lflag;
      for (size_t i = 0; i < ch.size(); i++)
        for (int f = 0; masks.chunks[i] && f < P_COUNT; f++)
          if (masks.chunks[i] >> f & 1)
            lflag[{block == 1 ? ch.loop[i] : firstOf[ch.loop[i]], ch.thread[i]}]
                 [f]++;
      auto maskOf = [](const std::array<uint32_t, P_COUNT> &fc) {
        unsigned m = 0;
        for (int f = 0; f < P_COUNT; f++)
          m |= fc[f] ? 1u << f : 0;
        return m;
      };
      for (const LoopThread &r : spans) {
        if (!r.chunks)
          continue;
        int k = loops(an.loopName(r.loop));
        auto fl = lflag.find({r.loop, r.th});
        std::array<uint32_t, P_COUNT> fc{};
        if (fl != lflag.end())
          fc = fl->second;
        int64_t s = ns(r.first), e = ns(r.last);
        bar(tl.row(p, r.th), s, std::max<int64_t>(e - s, 0), k, r.loop, -1, -1,
            r.hasWork ? 0 : 2,
            r.hasWork ? int64_t(std::llround(double(r.work) / tpn)) : -1,
            r.chunks, maskOf(fc), fc.data());
      }
      // Tasks: per creation site and thread, a bar over the segments that
      // follow each other closely, a new one after a gap (the thread idle
      // or running something else there): busy and idle as they were. The
      // gap is the process's span over 2000 (about a pixel of the page),
      // larger where sites x threads would give more than 20,000 bars; n:
      // the running time (ns). A task's problems count in the bar of its
      // first segment.
      struct Seg {
        int site, th;
        int64_t s, e, exec;
        int64_t first; // the task whose first segment it is, or -1
      };
      std::vector<Seg> segs;
      std::map<std::pair<int, int>, int> pairs;
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (uint32_t k : T.order) {
        int site = sites(an.taskGrainName(k));
        for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
          Seg g{site,
                T.segThread[j],
                ns(T.segStart[j]),
                ns(T.segEnd[j]),
                int64_t(T.segEnd[j] - T.segStart[j]),
                j == T.segOff[k] ? int64_t(k) : -1};
          lo = std::min(lo, g.s), hi = std::max(hi, g.e);
          pairs[{g.site, g.th}] = 1;
          segs.push_back(g);
        }
      }
      std::sort(segs.begin(), segs.end(), [](const Seg &x, const Seg &y) {
        return std::tie(x.site, x.th, x.s) < std::tie(y.site, y.th, y.s);
      });
      double span = hi > lo ? double(hi - lo) : 0;
      int64_t gap =
          int64_t(std::max(span / 2000, span * double(pairs.size()) / 20000.0));
      struct Agg {
        int site = -1, th = -1;
        int64_t s = 0, e = 0, exec = 0, count = 0;
        std::array<uint32_t, P_COUNT> fc{};
      };
      Agg a;
      auto flush = [&] {
        if (a.site < 0)
          return;
        bar(tl.row(p, a.th), a.s, std::max<int64_t>(a.e - a.s, 0), -1 - a.site,
            -1, -1, -1, 0, int64_t(std::llround(double(a.exec) / tpn)), a.count,
            maskOf(a.fc), a.fc.data());
      };
      for (const Seg &g : segs) {
        if (g.site != a.site || g.th != a.th || g.s > a.e + gap) {
          flush();
          a = Agg();
          a.site = g.site, a.th = g.th, a.s = g.s, a.e = g.e;
        }
        a.e = std::max(a.e, g.e);
        a.exec += g.exec;
        if (g.first >= 0) {
          a.count++;
          for (int f = 0; f < P_COUNT; f++)
            a.fc[f] += masks.tasks[size_t(g.first)] >> f & 1;
        }
      }
      flush();
    }
    const CritPath &cp = R.procs[p].crit;
    procs += (p ? "," : "");
    procs += "{\"pid\":" + std::to_string(an.proc.pid) +
             ",\"rank\":" + std::to_string(an.proc.rank) +
             ",\"host\":" + str(an.proc.host) + ",\"exe\":" + str(an.proc.exe) +
             ",\"threads\":" + std::to_string(an.threads.size()) +
             ",\"chunks\":" + std::to_string(ch.size()) +
             ",\"tasks\":" + std::to_string(T.size()) +
             ",\"complete\":" + (an.proc.complete ? "true" : "false") +
             ",\"acyclic\":" + (cp.acyclic ? "true" : "false") +
             ",\"span\":" + num(cp.span / tpn, 0) +
             ",\"work\":" + num(cp.work / tpn, 0) +
             ",\"cp\":" + str(critPathFigures(an, cp)) + ",\"parallelism\":" +
             num(cp.acyclic && cp.span > 0 ? cp.work / cp.span : NAN, 2) +
             ",\"time\":[";
    std::vector<std::string> tl = breakdownLines(an, R.procs[p].time);
    for (size_t j = 0; j < tl.size(); j++)
      procs += (j ? "," : "") + str(tl[j]);
    procs += "]}";
  }
  procs += "]";
  if (fresh)
    cache.every = int(every);
  if (!graph)
    leftOut.push_back({"report.html",
                       "graph: not drawn (the page would pass its cap of " +
                           std::to_string(caps.reportBudget(grains)) +
                           " bytes)",
                       "grains.graphml has the graph"});
  for (const auto &[how, who] : G.coarser) {
    std::string procs;
    for (size_t j = 0; run.procs.size() > 1 && j < who.size(); j++)
      procs += (j ? ", " : " (") + who[j] + (j + 1 == who.size() ? ")" : "");
    leftOut.push_back({"report.html",
                       "graph" + procs + ": " + how + " (more than " +
                           std::to_string(MaxGraphNodes) + " nodes at " +
                           coarseLevelText(CoarseLevel(), kinds) + ")",
                       "grains.graphml has the whole graph"});
  }
  // Rows: [process, thread].
  std::vector<std::pair<int, std::pair<size_t, int>>> rows;
  for (auto &kv : tl.rowOf)
    rows.push_back({kv.second, kv.first});
  std::sort(rows.begin(), rows.end());
  std::string rowJson = "[";
  for (size_t r = 0; r < rows.size(); r++) {
    size_t p = rows[r].second.first;
    rowJson += (r ? "," : "");
    rowJson += "[" + std::to_string(p) + "," +
               std::to_string(rows[r].second.second) + "," +
               str(run.prefix(p)) + "]";
  }
  rowJson += "]";
  std::string loopJson = "[", siteJson = "[", colourJson = "{\"loops\":[";
  for (size_t i = 0; i < loops.list.size(); i++) {
    loopJson += (i ? "," : "") + str(loops.list[i]);
    colourJson += (i ? "," : "") + str(colours.loop(loops.list[i]));
  }
  colourJson += "],\"sites\":[";
  for (size_t i = 0; i < sites.list.size(); i++) {
    siteJson += (i ? "," : "") + str(sites.list[i]);
    colourJson += (i ? "," : "") + str(colours.site(sites.list[i]));
  }
  colourJson += "]}";
  // The problem views: the types that flag a grain, and the outliers.
  std::string viewJson = "[";
  bool firstView = true;
  for (const ProblemCount &c : R.counts) {
    if (!c.grains && c.flag != P_OUTLIER)
      continue;
    viewJson += firstView ? "" : ",";
    firstView = false;
    viewJson += "{\"f\":" + std::to_string(c.flag) +
                ",\"name\":" + str(problemName(c.flag)) +
                ",\"n\":" + std::to_string(c.grains) +
                ",\"m\":" + (c.pathKnown ? std::to_string(c.onPath) : "null") +
                ",\"line\":" + str(problemCountLine(c)) + "}";
  }
  std::string probJson = "[";
  std::vector<ReportProblem> probs = problemsForReport(R);
  for (size_t i = 0; i < probs.size(); i++) {
    const ReportProblem &q = probs[i];
    probJson += (i ? ",\n" : "\n");
    probJson += "{\"loop\":" + str(q.loop) + ",\"site\":" + str(q.site) +
                ",\"title\":" + str(q.title) + ",\"detail\":" + str(q.detail) +
                ",\"suggest\":" + str(q.suggest) +
                ",\"lost\":" + num(q.lostNs, 0) + ",\"outliers\":[";
    for (size_t j = 0; j < q.outliers.size(); j++)
      probJson += (j ? "," : "") + str(q.outliers[j]);
    probJson += "]}";
  }
  std::string leftJson = "[";
  for (size_t i = 0; i < leftOut.size(); i++)
    leftJson += std::string(i ? "," : "") +
                "{\"file\":" + str(leftOut[i].file) +
                ",\"what\":" + str(leftOut[i].what) +
                ",\"how\":" + str(leftOut[i].option) + "}";
  // Each loop's instances, most lost first, the first InstanceSteps.
  std::string instJson = "[";
  for (size_t k = 0; k < instLost.size(); k++) {
    auto &v = instLost[k];
    std::stable_sort(v.begin(), v.end(), [](const auto &x, const auto &y) {
      return x[0] > y[0] || (x[0] == y[0] && x[1] < y[1]);
    });
    instJson += std::string(k ? "," : "") +
                "{\"n\":" + std::to_string(v.size()) + ",\"top\":[";
    for (size_t j = 0; j < v.size() && j < InstanceSteps; j++)
      instJson += std::string(j ? "," : "") + "[" + std::to_string(v[j][3]) +
                  "," + std::to_string(v[j][1]) + "," +
                  std::to_string(v[j][2]) + "," + std::to_string(v[j][0]) + "]";
    instJson += "]}";
  }
  // Loops across processes (Results::across), most lost across first.
  std::vector<const AcrossLoop *> across;
  for (const AcrossLoop &x : R.across)
    across.push_back(&x);
  std::stable_sort(across.begin(), across.end(), [](auto *x, auto *y) {
    return x->lostAcrossMs > y->lostAcrossMs;
  });
  std::string acrossJson = "[";
  for (size_t i = 0; i < across.size(); i++) {
    const AcrossLoop &x = *across[i];
    acrossJson +=
        std::string(i ? "," : "") + "{\"loop\":" + str(x.name) + ",\"who\":[";
    for (size_t j = 0; j < x.who.size(); j++)
      acrossJson += std::string(j ? "," : "") + str(x.who[j]);
    acrossJson += "],\"work\":[";
    for (size_t j = 0; j < x.workMs.size(); j++)
      acrossJson += std::string(j ? "," : "") + num(x.workMs[j], 3);
    acrossJson += "],\"imb\":" + num(x.processImbalance, 2) +
                  ",\"worst\":" + num(x.worstThreadImbalance, 2) +
                  ",\"across\":" + num(x.lostAcrossMs, 3) +
                  ",\"within\":" + num(x.lostWithinMs, 3) + "}";
  }
  const Analysis &first = *run.procs[0];
  std::string data =
      "{\"version\":" + str(version) + ",\"program\":" + str(first.proc.exe) +
      ",\"aggregated\":" + (every ? "false" : "true") +
      ",\"block\":" + std::to_string(every ? 1 : block) +
      ",\"cap\":" + std::to_string(caps.report) +
      ",\"grains\":" + std::to_string(grains) +
      ",\"chunks\":" + std::to_string(nChunks) +
      ",\"tasks\":" + std::to_string(nTasks) + ",\"end\":" + num(endNs, 0) +
      ",\"procs\":" + procs + ",\"rows\":" + rowJson +
      ",\"loops\":" + loopJson + "],\"sites\":" + siteJson +
      "],\"colours\":" + colourJson + ",\"views\":" + viewJson +
      "],\"instances\":" + instJson + "],\"across\":" + acrossJson +
      "],\"bars\":{\"row\":" + gRow.done() + ",\"s\":" + gS.done() +
      ",\"d\":" + gD.done() + ",\"k\":" + gK.done() + ",\"inst\":" + gI.done() +
      ",\"lo\":" + gLo.done() + ",\"hi\":" + gHi.done() +
      ",\"c\":" + gC.done() + ",\"n\":" + gN.done() +
      ",\"count\":" + gCount.done() + ",\"pm\":" + gPm.done() +
      ",\"pc\":" + gPc.done() + "},\n\"graph\":{\"groups\":" + G.groups +
      "],\"members\":" + G.members + "],\"gedges\":" + G.gedges +
      "]},\n\"problems\":" + probJson + "],\"leftOut\":" + leftJson + "]}";
  std::string page = ReportHtml;
  auto put = [&](const std::string &mark, const std::string &text) {
    size_t at = page.find(mark);
    if (at == std::string::npos)
      throw Error("report page template lacks " + mark);
    page.replace(at, mark.size(), text);
  };
  // The data last: it may hold the other marks' text.
  put("/*@CSS@*/", ReportCss);
  put("/*@JS@*/", ReportJs);
  put("@DATA@", pageSafe(data));
  return page;
}

} // namespace

void writeReport(const Results &R, const std::string &path, const Caps &caps,
                 const std::string &version, std::vector<LeftOut> &leftOut) {
  const Run &run = R.run;
  // Every grain up to the grain cap; then, while the page is above the
  // byte cap, bars over ever larger blocks of a loop's instances (as many
  // times more as the page is over), up to one per loop and thread.
  bool every = run.grains() <= caps.report;
  uint64_t block = 1, most = 0, cap = caps.reportBudget(run.grains());
  for (auto &an : run.procs)
    most = std::max(most, mostInstances(*an));
  std::string page;
  std::vector<LeftOut> left;
  GraphCache cache;
  for (;;) {
    left = leftOut;
    page = reportPage(R, caps, version, left, every, block, cache);
    if (page.size() <= cap)
      break;
    if (!every && block == 0) {
      // The coarsest bars and still too large: without the graph (what
      // is left is the page's script, a bar per loop and thread and per
      // task site and thread, and the problems).
      left = leftOut;
      page = reportPage(R, caps, version, left, every, block, cache, false);
      break;
    }
    if (every) {
      every = false;
      continue;
    }
    // Only the bars shrink: the rest of the page stays.
    block = coarserBlock(block, double(page.size()) / double(cap) * 1.25, most);
  }
  leftOut = left;
  OutFile o(path);
  o << page;
  o.close();
}

} // namespace gcg

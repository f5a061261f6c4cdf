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
// thread and per task site and thread; the grain graph per process (GrainDag.h)
// collapsed into groups (the chunks of a loop instance on one thread, sibling
// tasks of one site, their forks), each group's members listed where it can be
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

#include "GrainDag.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
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

/// Groups drawn in the graph at most (the page lays them out itself).
constexpr size_t MaxGraphGroups = 3000;
/// A group of at most this many grains can be expanded on the page.
constexpr int64_t MaxExpand = 64;
/// A chain (consecutive instances of one loop) of at most this many groups
/// can be expanded on the page.
constexpr size_t MaxChainExpand = 200;
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
  std::string groups = "[", members = "[", gedges = "[", medges = "[";
  size_t nGroups = 0, nMembers = 0, dropped = 0;
};

void graphOf(const Results &R, size_t p, const Analysis &an, bool every,
             Names &loops, Names &sites, Graph &G,
             std::vector<uint8_t> &chunkCrit, std::vector<uint8_t> &taskCrit,
             const ProblemMasks &masks) {
  const Run &run = R.run;
  const Analysis &man = *run.procs[p];
  GrainDag dag(an, every, true);
  double tpn = an.clockNs();
  size_t nv = dag.kind.size();
  const Tasks &T = an.tasks;
  // Group keys: (type, a, b, c). Chunks: (loop instance, thread); tasks and
  // their forks: (site, parent slot, join point), sibling tasks; others:
  // the node. Where that makes more groups than are drawn, tasks, their
  // forks and joins by generation (and site) instead, as the aggregated
  // GraphML does.
  using Key = std::tuple<int, uint64_t, uint64_t, uint64_t>;
  struct KeyHash {
    size_t operator()(const Key &k) const {
      return std::hash<uint64_t>()(std::get<1>(k) * 1000003u ^
                                   std::get<2>(k) * 7919u ^ std::get<3>(k) ^
                                   uint64_t(std::get<0>(k)) << 59);
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> byKey;
  struct Grp {
    uint8_t kind = 0;
    bool crit = false;
    int th = -1, loop = -1; // chunk groups
    uint32_t first = 0;     // its first node
    uint64_t ref = 0;
    int64_t count = 0;
    double work = 0;
  };
  std::vector<Grp> grp;
  std::vector<uint32_t> groupOf(nv);
  std::vector<uint32_t> loopFork(an.loops.size(), UINT32_MAX),
      loopJoin(an.loops.size(), UINT32_MAX);
  std::vector<std::pair<uint32_t, uint32_t>> extra; // group edges
  size_t nt = T.size();
  std::vector<uint32_t> depth;
  auto depthOf = [&](int64_t slot) -> uint64_t {
    return slot >= 0 && size_t(slot) < nt ? depth[slot] + 1 : 1;
  };
  auto group = [&](bool coarse) {
    byKey.clear();
    grp.clear();
    if (coarse && depth.empty()) {
      depth.assign(nt, 1);
      for (uint32_t k : T.order)
        depth[k] = uint32_t(depthOf(T.pslot[k]));
    }
    for (uint32_t v = 0; v < nv; v++) {
      uint8_t k = dag.kind[v];
      uint64_t r = dag.ref[v];
      Key key;
      if (k == GrainDag::Chunk)
        key = Key{k, uint64_t(an.chunks.loop[r]), uint64_t(an.chunks.thread[r]),
                  0};
      else if ((k == GrainDag::Task || k == GrainDag::TaskFork) && coarse)
        key = Key{k, T.codeptr[r], depth[r], 0};
      else if (k == GrainDag::Task || k == GrainDag::TaskFork)
        key = Key{k, T.codeptr[r], uint64_t(T.pslot[r]), T.joinsAt[r]};
      else if (k == GrainDag::TaskJoin && coarse)
        key = Key{k, depthOf(dag.joins[r].first), 0, 0};
      else
        key = Key{k, r, v, 0};
      auto ins = byKey.emplace(key, uint32_t(grp.size()));
      uint32_t g = ins.first->second;
      if (ins.second) {
        grp.emplace_back();
        grp.back().kind = k;
        grp.back().ref = r;
        grp.back().first = v;
      }
      groupOf[v] = g;
      if (k == GrainDag::LoopFork)
        loopFork[r] = g;
      if (k == GrainDag::LoopJoin)
        loopJoin[r] = g;
      Grp &G1 = grp[g];
      if (k == GrainDag::Chunk) {
        G1.th = an.chunks.thread[r];
        G1.loop = an.chunks.loop[r];
      }
      if (k == GrainDag::Chunk || k == GrainDag::Task)
        G1.count++;
      G1.work += dag.weight(v);
      if (dag.acyclic && dag.onPath[v])
        G1.crit = true;
    }
  };
  group(false);
  if (grp.size() > MaxGraphGroups && nt)
    group(true);
  std::vector<uint32_t> pathNodes; // the grains on the critical path
  if (dag.acyclic)
    for (uint32_t v = 0; v < nv; v++)
      if (dag.onPath[v]) {
        if (dag.kind[v] == GrainDag::Chunk || dag.kind[v] == GrainDag::Task)
          pathNodes.push_back(v);
        if (dag.kind[v] == GrainDag::Chunk && every)
          chunkCrit[dag.ref[v]] = 1;
        if (dag.kind[v] == GrainDag::Task)
          taskCrit[dag.ref[v]] = 1;
      }
  // Without every grain, a loop instance's chunk node stands for all of
  // them: the counts and work from the per-thread table.
  if (!every) {
    for (const LoopThread &r : R.procs[p].loopRows) {
      auto ins = byKey.emplace(
          Key{GrainDag::Chunk, uint64_t(r.loop), uint64_t(r.th), 0},
          uint32_t(grp.size()));
      if (ins.second) {
        uint32_t g = uint32_t(grp.size());
        grp.emplace_back();
        grp.back().kind = GrainDag::Chunk;
        grp.back().first = UINT32_MAX;
        // Its chunks are between the instance's fork and join.
        extra.push_back({loopFork[r.loop], g});
        extra.push_back({g, loopJoin[r.loop]});
      }
      Grp &g = grp[ins.first->second];
      g.count = r.chunks;
      g.work = r.hasWork ? double(r.work) : 0;
      g.th = r.th;
      g.loop = r.loop;
    }
  }
  // Per group, the grains each problem type flags: chunks from the chunks
  // table (without every grain their groups stand for all of them), tasks
  // from their nodes.
  std::vector<std::array<uint32_t, P_COUNT>> flagged(grp.size());
  auto addFlags = [&](uint32_t g, uint8_t m) {
    for (int f = 0; m && f < P_COUNT; f++)
      flagged[g][f] += (m >> f) & 1;
  };
  for (size_t i = 0; i < an.chunks.size(); i++)
    if (masks.chunks[i]) {
      auto it = byKey.find(Key{GrainDag::Chunk, uint64_t(an.chunks.loop[i]),
                               uint64_t(an.chunks.thread[i]), 0});
      if (it != byKey.end())
        addFlags(it->second, masks.chunks[i]);
    }
  for (uint32_t v = 0; v < nv; v++)
    if (dag.kind[v] == GrainDag::Task)
      addFlags(groupOf[v], masks.tasks[dag.ref[v]]);
  // Chains: consecutive instances of one loop collapse into one node. A
  // loop instance's fork, chunk groups and join take the loop's key; a
  // region's fork (join) the key all its successors (predecessors) share,
  // so a region around instances of one loop joins them (a region's fork
  // and join linked straight do not count); groups linked by
  // an edge with the same key are one chain. Chains of two instances or
  // more are drawn as one node (expandable up to MaxChainExpand groups).
  std::vector<int> ckey(grp.size(), -1);
  {
    Names loopKeys;
    for (uint32_t g = 0; g < grp.size(); g++) {
      uint8_t k = grp[g].kind;
      if (k == GrainDag::Chunk)
        ckey[g] = loopKeys(an.loopName(grp[g].loop));
      else if (k == GrainDag::LoopFork || k == GrainDag::LoopJoin)
        ckey[g] = loopKeys(an.loopName(int(grp[g].ref)));
    }
  }
  std::vector<std::vector<uint32_t>> gsucc(grp.size()), gpred(grp.size());
  auto link = [&](uint32_t a, uint32_t b) {
    if (a == b || a == UINT32_MAX || b == UINT32_MAX)
      return;
    gsucc[a].push_back(b);
    gpred[b].push_back(a);
  };
  for (size_t e = 0; e < dag.src.size(); e++)
    link(groupOf[dag.src[e]], groupOf[dag.dst[e]]);
  for (auto &x : extra)
    link(x.first, x.second);
  // The key the neighbours share (region forks and joins without one yet
  // aside: a fork's edge straight to its join), or -1.
  auto shared = [&](const std::vector<uint32_t> &ns) {
    int k = -1;
    for (uint32_t n : ns) {
      if (ckey[n] < 0 && (grp[n].kind == GrainDag::RegionFork ||
                          grp[n].kind == GrainDag::RegionJoin))
        continue;
      if (ckey[n] < 0 || (k >= 0 && ckey[n] != k))
        return -1;
      k = ckey[n];
    }
    return k;
  };
  for (int pass = 0; pass < 3; pass++)
    for (uint32_t g = 0; g < grp.size(); g++)
      if (ckey[g] < 0 && grp[g].kind == GrainDag::RegionFork)
        ckey[g] = shared(gsucc[g]);
      else if (ckey[g] < 0 && grp[g].kind == GrainDag::RegionJoin)
        ckey[g] = shared(gpred[g]);
  std::vector<uint32_t> uf(grp.size());
  for (uint32_t g = 0; g < grp.size(); g++)
    uf[g] = g;
  auto findRoot = [&](uint32_t g) {
    while (uf[g] != g)
      g = uf[g] = uf[uf[g]];
    return g;
  };
  for (uint32_t g = 0; g < grp.size(); g++)
    for (uint32_t t : gsucc[g])
      if (ckey[g] >= 0 && ckey[g] == ckey[t])
        uf[findRoot(t)] = findRoot(g);
  struct Chain {
    int64_t instances = 0, chunks = 0;
    double work = 0;
    bool crit = false;
    int loop = -1;
    std::vector<uint32_t> groups;
    std::array<uint32_t, P_COUNT> flagged{};
  };
  std::vector<int64_t> chainOf(grp.size(), -1);
  std::vector<Chain> chains;
  auto collect = [&] {
    chains.clear();
    std::fill(chainOf.begin(), chainOf.end(), -1);
    // Instances: the distinct loop instances of a set's chunk groups.
    std::vector<int64_t> instances(grp.size(), 0);
    std::vector<std::pair<uint32_t, int>> rootInst;
    for (uint32_t g = 0; g < grp.size(); g++)
      if (grp[g].kind == GrainDag::Chunk)
        rootInst.push_back({findRoot(g), grp[g].loop});
    std::sort(rootInst.begin(), rootInst.end());
    rootInst.erase(std::unique(rootInst.begin(), rootInst.end()),
                   rootInst.end());
    for (auto &ri : rootInst)
      instances[ri.first]++;
    std::vector<int64_t> index(grp.size(), -1);
    for (uint32_t g = 0; g < grp.size(); g++) {
      uint32_t r = findRoot(g);
      if (ckey[g] < 0 || instances[r] < 2)
        continue;
      if (index[r] < 0) {
        index[r] = int64_t(chains.size());
        chains.emplace_back();
        chains.back().instances = instances[r];
      }
      Chain &c = chains[size_t(index[r])];
      chainOf[g] = index[r];
      c.groups.push_back(g);
      c.work += grp[g].work;
      c.crit = c.crit || grp[g].crit;
      if (grp[g].kind == GrainDag::Chunk) {
        c.chunks += grp[g].count;
        c.loop = grp[g].loop;
      }
      for (int f = 0; f < P_COUNT; f++)
        c.flagged[f] += flagged[g][f];
    }
  };
  collect();
  auto units = [&] {
    size_t n = chains.size();
    for (uint32_t g = 0; g < grp.size(); g++)
      n += chainOf[g] < 0;
    return n;
  };
  // Still more than are drawn (HPGMG: loops that alternate): every
  // instance of a loop in one node, consecutive or not.
  bool wholeLoops = units() > MaxGraphGroups;
  if (wholeLoops) {
    std::vector<uint32_t> firstOfKey;
    for (uint32_t g = 0; g < grp.size(); g++) {
      if (ckey[g] < 0)
        continue;
      if (size_t(ckey[g]) >= firstOfKey.size())
        firstOfKey.resize(size_t(ckey[g]) + 1, UINT32_MAX);
      uint32_t &f = firstOfKey[size_t(ckey[g])];
      if (f == UINT32_MAX)
        f = g;
      else
        uf[findRoot(g)] = findRoot(f);
    }
    collect();
  }
  // Which are drawn (units: chains and the groups in none): all up to
  // MaxGraphGroups, else the start and end, the critical path's and the
  // most work.
  size_t nUnits = units();
  std::vector<uint8_t> keep(grp.size(), 1), keepChain(chains.size(), 1);
  if (nUnits > MaxGraphGroups) {
    // Units: g < grp.size() a group, else a chain.
    std::vector<uint32_t> idx;
    std::fill(keep.begin(), keep.end(), 0);
    std::fill(keepChain.begin(), keepChain.end(), 0);
    size_t kept = 0;
    auto unitWork = [&](uint32_t u) {
      return u < grp.size() ? grp[u].work : chains[u - grp.size()].work;
    };
    for (uint32_t g = 0; g < grp.size(); g++) {
      if (chainOf[g] >= 0)
        continue;
      if (grp[g].crit || grp[g].kind == GrainDag::Start ||
          grp[g].kind == GrainDag::End) {
        keep[g] = 1;
        kept++;
      } else {
        idx.push_back(g);
      }
    }
    for (size_t c = 0; c < chains.size(); c++)
      if (chains[c].crit) {
        keepChain[c] = 1;
        kept++;
      } else {
        idx.push_back(uint32_t(grp.size() + c));
      }
    std::sort(idx.begin(), idx.end(), [&](uint32_t a, uint32_t b) {
      return unitWork(a) > unitWork(b);
    });
    for (uint32_t u : idx)
      if (kept < MaxGraphGroups) {
        if (u < grp.size())
          keep[u] = 1;
        else
          keepChain[u - grp.size()] = 1;
        kept++;
      }
    G.dropped += nUnits - kept;
  }
  std::vector<int64_t> chainGid(chains.size(), -1);
  std::vector<uint8_t> chainOpen(chains.size(), 0);
  for (size_t c = 0; c < chains.size(); c++) {
    chainOpen[c] = keepChain[c] && chains[c].groups.size() <= MaxChainExpand;
    for (uint32_t g : chains[c].groups)
      keep[g] = chainOpen[c];
  }
  std::vector<int64_t> gid(grp.size(), -1);
  std::vector<uint8_t> expandable(grp.size(), 0);
  auto kindName = [](uint8_t k) -> const char * {
    switch (k) {
    case GrainDag::Start:
      return "start";
    case GrainDag::End:
      return "end";
    case GrainDag::RegionFork:
    case GrainDag::LoopFork:
    case GrainDag::TaskFork:
      return "fork";
    case GrainDag::RegionJoin:
    case GrainDag::LoopJoin:
    case GrainDag::TaskJoin:
      return "join";
    case GrainDag::Chunk:
      return "chunk";
    default:
      return "task";
    }
  };
  std::string pre = run.prefix(p);
  for (size_t c = 0; c < chains.size(); c++) {
    if (!keepChain[c])
      continue;
    const Chain &x = chains[c];
    chainGid[c] = int64_t(G.nGroups++);
    // Groups in a chain that is not expanded on the page are drawn as it.
    if (!chainOpen[c])
      for (uint32_t g : x.groups)
        gid[g] = chainGid[c];
    std::string name = an.loopName(x.loop);
    std::string label =
        name + ": " + std::to_string(x.instances) +
        (wholeLoops ? " instances (all of the loop's: the run has too many "
                      "groups to draw each run of consecutive ones), "
                    : " consecutive instances, ") +
        std::to_string(x.chunks) + " chunks" +
        (chainOpen[c] ? "" : " (too many groups to expand)");
    G.groups += (chainGid[c] ? ",\n" : "\n");
    G.groups += "{\"p\":" + std::to_string(p) +
                ",\"t\":\"chain\",\"n\":" + std::to_string(x.instances) +
                ",\"w\":" + num(x.work / tpn, 0) +
                ",\"c\":" + (x.crit ? "1" : "0") +
                ",\"k\":" + std::to_string(loops(name)) +
                ",\"x\":" + (chainOpen[c] ? "1" : "0") + ",\"l\":" + str(label);
    std::string pf;
    for (int f = 0; f < P_COUNT; f++)
      if (x.flagged[f])
        pf += (pf.empty() ? "" : ",") + std::to_string(f) + "," +
              std::to_string(x.flagged[f]);
    if (!pf.empty())
      G.groups += ",\"pf\":[" + pf + "]";
    G.groups += "}";
  }
  for (uint32_t g = 0; g < grp.size(); g++) {
    if (!keep[g])
      continue;
    Grp &x = grp[g];
    gid[g] = int64_t(G.nGroups++);
    std::string label;
    int colour = -1;
    if (x.kind == GrainDag::Chunk) {
      int li = x.loop;
      std::string th = std::to_string(x.th);
      colour = loops(an.loopName(li));
      label = x.count == 1
                  ? "chunk of " + an.loopName(li) + " (L" + std::to_string(li) +
                        ") on thread " + th
                  : std::to_string(x.count) + " chunks of " + an.loopName(li) +
                        " (L" + std::to_string(li) + ") on thread " + th;
    } else if (x.kind == GrainDag::Task) {
      std::string site = man.taskGrainName(x.ref);
      colour = sites(site);
      label = x.count == 1 ? site
                           : std::to_string(x.count) + " sibling tasks " + site;
    } else if (x.kind == GrainDag::TaskFork) {
      label = "fork of " + man.taskGrainName(x.ref);
    } else if (x.kind == GrainDag::LoopFork || x.kind == GrainDag::LoopJoin) {
      label = std::string(kindName(x.kind)) + " of " + an.loopName(int(x.ref)) +
              " (L" + std::to_string(x.ref) + ")";
    } else if (x.kind == GrainDag::RegionFork ||
               x.kind == GrainDag::RegionJoin) {
      label = std::string(kindName(x.kind)) + " of a parallel region";
    } else if (x.kind == GrainDag::TaskJoin) {
      label = "join of tasks (taskwait, taskgroup or barrier)";
    } else {
      label = kindName(x.kind);
    }
    bool grain = x.kind == GrainDag::Chunk || x.kind == GrainDag::Task;
    expandable[g] = every && grain && x.count > 1 && x.count <= MaxExpand;
    G.groups += (gid[g] ? ",\n" : "\n");
    G.groups +=
        "{\"p\":" + std::to_string(p) +
        (chainOf[g] >= 0 ? ",\"h\":" + std::to_string(chainGid[chainOf[g]])
                         : std::string()) +
        ",\"t\":\"" + kindName(x.kind) + "\",\"n\":" + std::to_string(x.count) +
        ",\"w\":" + num(x.work / tpn, 0) + ",\"c\":" + (x.crit ? "1" : "0") +
        ",\"k\":" + std::to_string(colour) +
        ",\"x\":" + (expandable[g] ? "1" : "0") + ",\"l\":" + str(label);
    // The problem types' counts: [flag, grains, flag, grains, ...].
    std::string pf;
    for (int f = 0; f < P_COUNT; f++)
      if (flagged[g][f])
        pf += (pf.empty() ? "" : ",") + std::to_string(f) + "," +
              std::to_string(flagged[g][f]);
    if (!pf.empty())
      G.groups += ",\"pf\":[" + pf + "]";
    if (grain && x.count == 1 && every) {
      uint64_t r = dag.ref[x.first];
      G.groups +=
          ",\"id\":" + str(x.kind == GrainDag::Chunk ? chunkId(run, p, r)
                                                     : taskId(run, p, r));
    }
    // The grains of a group that cannot be expanded on the critical path.
    if (every && grain && x.count > 1 && !expandable[g] && x.crit) {
      G.groups += ",\"ci\":[";
      bool firstId = true;
      for (uint32_t v : pathNodes)
        if (groupOf[v] == g) {
          uint64_t r = dag.ref[v];
          G.groups += (firstId ? "" : ",") + str(dag.kind[v] == GrainDag::Chunk
                                                     ? chunkId(run, p, r)
                                                     : taskId(run, p, r));
          firstId = false;
        }
      G.groups += "]";
    }
    G.groups += "}";
  }
  // Members of expandable groups.
  std::vector<int32_t> mid(nv, -1);
  for (uint32_t v = 0; v < nv; v++) {
    uint32_t g = groupOf[v];
    if (!expandable[g] || !keep[g])
      continue;
    {
      mid[v] = int64_t(G.nMembers++);
      uint64_t r = dag.ref[v];
      bool chunk = dag.kind[v] == GrainDag::Chunk;
      std::string label = chunk
                              ? "chunk " + std::to_string(an.chunks.lower[r]) +
                                    ".." + std::to_string(an.chunks.upper[r]) +
                                    " of " + an.loopName(an.chunks.loop[r])
                              : man.taskGrainName(r);
      G.members += (mid[v] ? ",\n" : "\n");
      G.members +=
          "{\"g\":" + std::to_string(gid[g]) +
          ",\"w\":" + num(dag.weight(v) / tpn, 0) +
          ",\"c\":" + (dag.acyclic && dag.onPath[v] ? "1" : "0") + ",\"pm\":" +
          std::to_string(chunk ? masks.chunks[r] : masks.tasks[r]) +
          ",\"id\":" + str(chunk ? chunkId(run, p, r) : taskId(run, p, r)) +
          ",\"l\":" + str(label) + "}";
    }
  }
  // Edges: between members where either end is a member, else between
  // groups (once each, no self-loops).
  std::map<std::pair<int64_t, int64_t>, int> gseen, mseen;
  bool gfirst = G.gedges.size() == 1, mfirst = G.medges.size() == 1;
  for (size_t e = 0; e < dag.src.size(); e++) {
    uint32_t s = dag.src[e], t = dag.dst[e];
    uint32_t gs = groupOf[s], gt = groupOf[t];
    if (gid[gs] < 0 || gid[gt] < 0)
      continue;
    bool crit = dag.acyclic && dag.onPath[s] && dag.onPath[t];
    if (mid[s] >= 0 || mid[t] >= 0) {
      int64_t a = mid[s] >= 0 ? -1 - mid[s] : gid[gs];
      int64_t b = mid[t] >= 0 ? -1 - mid[t] : gid[gt];
      auto ins = mseen.emplace(std::make_pair(a, b), int(crit));
      if (!ins.second) {
        ins.first->second |= int(crit);
        continue;
      }
    } else {
      if (gid[gs] == gid[gt])
        continue;
      auto ins = gseen.emplace(std::make_pair(gid[gs], gid[gt]), int(crit));
      if (!ins.second)
        ins.first->second |= int(crit);
    }
  }
  for (auto &x : extra)
    if (x.first != UINT32_MAX && x.second != UINT32_MAX && gid[x.first] >= 0 &&
        gid[x.second] >= 0 && gid[x.first] != gid[x.second])
      gseen.emplace(std::make_pair(gid[x.first], gid[x.second]), 0);
  // Each edge as [from, to, on the critical path].
  auto edges = [](const auto &seen, std::string &out, bool &first) {
    for (auto &kv : seen) {
      out += first ? "" : ",";
      first = false;
      out += "[" + std::to_string(kv.first.first) + "," +
             std::to_string(kv.first.second) + "," + std::to_string(kv.second) +
             "]";
    }
  };
  edges(gseen, G.gedges, gfirst);
  edges(mseen, G.medges, mfirst);
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
  if (!every)
    leftOut.push_back(
        {"report.html",
         "aggregated: " + std::to_string(grains) +
             " grains, above the cap of " +
             (grains > caps.report
                  ? std::to_string(caps.report)
                  : std::to_string(caps.reportBudget(grains)) + " bytes") +
             "; the timeline has a bar per " +
             (block == 1 ? std::string("loop instance")
              : block    ? "loop over each " + std::to_string(block) +
                            " consecutive instances of it"
                      : std::string("loop over the whole run")) +
             " and thread and per task creation site and thread, the graph "
             "a node per group",
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
  if (G.dropped)
    leftOut.push_back(
        {"report.html",
         "graph: " + std::to_string(G.dropped) +
             " groups not drawn (more than " + std::to_string(MaxGraphGroups) +
             " per process): the critical path's and those with the most "
             "work are",
         "grains.graphml has the whole graph"});
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
      "],\"medges\":" + G.medges + "]},\n\"problems\":" + probJson +
      "],\"leftOut\":" + leftJson + "]}";
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

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GraphmlWriter.cpp - grains.graphml: the grain graph ----------------===//
//
// Every grain (below the cap): the process's DAG of GrainDag.h, its
// nodes then its edges, with the prototype's type and ours (grain_type,
// edge_type), the critical path (on_crit_path, weight_cycles) and the
// grains' metrics. The graph is held while written (below the cap: at most
// 25,000 grains by default). Above the caps (Writers.h: Caps), aggregated:
// the process's coarse graph (CoarseGraph.h) at the finest level whose
// estimated size (elements times their least bytes) fits the byte cap,
// coarser while the file written does not.
//
// A problem view (problems/<type>.graphml, ProblemViews.h): the same graph
// with the grains one problem type flags red and problematic 1 (group
// nodes: the number of their grains it flags), every other colour dimmed
// as the prototype's diagnosis dims them (alpha 0.2), here blended with
// white so that the colour stays #rrggbb, which every GraphML reader
// parses.
//
//===----------------------------------------------------------------------===//
#include "GrainDag.h"
#include "GraphAttrs.h"
#include "Palette.h"
#include "ProblemViews.h"
#include "Writers.h"

#include <algorithm>
#include <map>
#include <set>
#include <sys/stat.h>
#include <tuple>

namespace gcg {

namespace {
/// A colour as the prototype's diagnosis dims it: alpha 0.2, over white.
std::string dim(const std::string &c) {
  if (c.size() != 7 || c[0] != '#')
    return c;
  char b[8];
  int v[3];
  for (int k = 0; k < 3; k++)
    v[k] = std::stoi(c.substr(1 + 2 * k, 2), nullptr, 16);
  std::snprintf(b, sizeof b, "#%02x%02x%02x", (v[0] * 2 + 255 * 8 + 5) / 10,
                (v[1] * 2 + 255 * 8 + 5) / 10, (v[2] * 2 + 255 * 8 + 5) / 10);
  return b;
}

struct Writer {
  OutFile &o;
  int view = -1; // a problem view's flag, or -1
  uint64_t edges = 0;
  /// A colour as written: dimmed in a problem view.
  std::string look(const std::string &c) const { return view < 0 ? c : dim(c); }
  /// A problem view's problematic attribute: the number of grains flagged.
  void problematic(int64_t n) {
    if (view < 0)
      return;
    o << "<data key=\"problematic\">";
    o.i(n) << "</data>";
  }
  /// An edge of the aggregated graph; kind is ours (creation,
  /// synchronization, continuation), its type the prototype's.
  void edge(const std::string &s, const std::string &t, const char *kind) {
    const char *type = kind[0] == 'c' && kind[1] == 'r'   ? "create"
                       : kind[0] == 's' && kind[1] == 'y' ? "sync"
                                                          : "continue";
    o << "    <edge id=\"e";
    o.u(edges++) << "\" source=\"" << htmlEscape(s) << "\" target=\""
                 << htmlEscape(t) << "\"><data key=\"edge_type\">" << kind
                 << "</data><data key=\"etype\">" << type << "</data>";
    if (view >= 0)
      o << "<data key=\"ecolor\">" << look("#000000") << "</data>";
    o << "</edge>\n";
  }
  /// A fork or join node of the aggregated graph, drawn as the
  /// prototype draws them.
  void simpleNode(const std::string &id, const char *type,
                  const std::string &label) {
    o << "    <node id=\"" << htmlEscape(id) << "\"><data key=\"grain_type\">"
      << type << "</data><data key=\"type\">" << type
      << "</data><data key=\"label\">" << htmlEscape(label)
      << "</data><data key=\"shape\">circle</data><data "
         "key=\"width\">10</data><data key=\"height\">10</data><data "
         "key=\"color\">"
      << look(type[0] == 'f' ? "#2E8B57" : "#FF7F50")
      << "</data><data key=\"border-color\">#000000</data>";
    problematic(0);
    o << "</node>\n";
  }
  /// A group node's visual attributes: height by its work among the
  /// process's groups of its kind (lo..hi), colour by its loop or site;
  /// in a problem view red when it holds flagged grains (flagged of them).
  void groupLook(const char *shape, double work, double lo, double hi,
                 const std::string &colour, int64_t flagged, bool onPath) {
    o << "<data key=\"type\">task</data><data key=\"on_crit_path\">"
      << (onPath ? "true" : "false") << "</data><data key=\"shape\">" << shape
      << "</data><data key=\"width\">30</data><data key=\"height\">";
    o.num(stepSize(work, lo, hi))
        << "</data><data key=\"color\">"
        << (view >= 0 && flagged ? std::string("#FF0000") : look(colour))
        << "</data><data key=\"border-color\">"
        << (onPath ? "#FF0000" : "#000000") << "</data>";
    problematic(flagged);
  }
  void data(const char *k, double v) {
    if (std::isnan(v))
      return;
    o << "<data key=\"" << k << "\">";
    o.num(v) << "</data>";
  }
  void grainNode(const std::string &id, const char *kind, bool hasExec,
                 int64_t execc, int64_t cpu, const std::string &label,
                 double creation, const GrainMetrics &m) {
    o << "    <node id=\"" << htmlEscape(id) << "\"><data key=\"grain_type\">"
      << kind << "</data>";
    if (hasExec) {
      o << "<data key=\"exec_cycles\">";
      o.i(execc) << "</data>";
    }
    o << "<data key=\"cpu_id\">";
    o.i(cpu) << "</data><data key=\"label\">" << htmlEscape(label)
             << "</data><data key=\"problems\">" << problemsText(m.problems)
             << "</data><data key=\"problem\">"
             << (m.problems ? "true" : "false") << "</data>";
    data("creation_cycles", creation);
    data("work_cycles", m.work);
    data("parallel_benefit", m.pb);
    data("sibling_work_balance", m.swb);
    data("chunk_work_balance", m.cwb);
    data("chunk_work_cpu_balance", m.cpu);
    data("work_deviation", m.dev);
  }
};
} // namespace

static const char *const Keys[][2] = {{"grain_type", "string"},
                                      {"problems", "string"},
                                      {"exec_cycles", "double"},
                                      {"creation_cycles", "double"},
                                      {"work_cycles", "double"},
                                      {"parallel_benefit", "double"},
                                      {"sibling_work_balance", "double"},
                                      {"chunk_work_balance", "double"},
                                      {"chunk_work_cpu_balance", "double"},
                                      {"work_deviation", "double"},
                                      {"cpu_id", "int"},
                                      {"source_location", "string"},
                                      {"first_iteration", "long"},
                                      {"last_iteration", "long"},
                                      {"label", "string"},
                                      {"problem", "boolean"},
                                      {"type", "string"},
                                      {"weight_cycles", "double"},
                                      {"on_crit_path", "boolean"},
                                      {"num_siblings", "int"},
                                      {"sibling_scatter", "int"},
                                      {"inst_par_min", "double"},
                                      {"inst_par_median", "double"},
                                      {"inst_par_max", "double"},
                                      {"shape", "string"},
                                      {"width", "double"},
                                      {"height", "double"},
                                      {"color", "string"},
                                      {"border-color", "string"},
                                      {"last_to_finish", "boolean"},
                                      {"outlier", "boolean"}};

static void header(OutFile &o, bool aggregated, int view) {
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" "
       "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
       "xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns "
       "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n";
  for (auto &k : Keys)
    o << "  <key id=\"" << k[0] << "\" for=\"node\" attr.name=\"" << k[0]
      << "\" attr.type=\"" << k[1] << "\"/>\n";
  if (aggregated)
    o << "  <key id=\"grains\" for=\"node\" attr.name=\"grains\" "
         "attr.type=\"long\"/>\n";
  if (view >= 0)
    o << "  <key id=\"problematic\" for=\"node\" attr.name=\"problematic\" "
         "attr.type=\"long\"/>\n";
  o << "  <key id=\"edge_type\" for=\"edge\" attr.name=\"edge_type\" "
       "attr.type=\"string\"/>\n"
       "  <key id=\"etype\" for=\"edge\" attr.name=\"type\" "
       "attr.type=\"string\"/>\n"
       "  <key id=\"ecolor\" for=\"edge\" attr.name=\"color\" "
       "attr.type=\"string\"/>\n";
  o << "  <graph id=\"grain-graph\" edgedefault=\"directed\">\n";
}

void writeGraphml(const Results &R, const std::string &path, int view) {
  const Run &run = R.run;
  OutFile o(path);
  Writer w{o, view};
  header(o, false, view);
  static const char *const EdgeTypes[][2] = {{"create", "creation"},
                                             {"sync", "synchronization"},
                                             {"continue", "continuation"},
                                             {"scope", "scope"}};
  // The prototype's edge colours (configs/edge-properties.cfg), red on the
  // critical path.
  static const char *const EdgeColours[] = {"#2E8B57", "#FF7F50", "#000000",
                                            "#000000"};
  // Grain colours: one palette colour per loop or task site (Palette.h).
  const RunColours &colours = R.colours;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    std::string pre = run.prefix(p);
    GrainDag g(an);
    const Chunks &ch = an.chunks;
    const Tasks &T = an.tasks;
    size_t n = T.size();
    // The prototype's relational attributes (GraphAttrs.h) over the
    // process's grains: chunks 0..nc-1, then tasks. A chunk's siblings are
    // its loop instance's chunks, a task's the tasks of its parent that
    // join at the same point.
    size_t nc = ch.size();
    std::vector<int64_t> cpu(nc + n);
    std::vector<uint64_t> ends(nc + n, 0), group(nc + n);
    std::map<std::pair<int64_t, uint32_t>, uint64_t> groupIds;
    for (size_t i = 0; i < nc; i++)
      cpu[i] = ch.thread[i], ends[i] = ch.end[i], group[i] = ch.loop[i];
    for (size_t k = 0; k < n; k++) {
      cpu[nc + k] = T.thread[k];
      if (T.segOff[k + 1] > T.segOff[k])
        ends[nc + k] = T.segEnd[T.segOff[k + 1] - 1];
      group[nc + k] = an.loops.size() +
                      groupIds
                          .emplace(std::make_pair(T.pslot[k], T.joinsAt[k]),
                                   groupIds.size())
                          .first->second;
    }
    std::vector<uint8_t> last = lastToFinish(cpu, ends);
    std::vector<uint32_t> nsib;
    std::vector<int64_t> scatter;
    siblings(group, cpu, nsib, scatter);
    std::vector<int64_t>().swap(cpu);
    std::vector<uint64_t>().swap(ends);
    std::vector<uint64_t>().swap(group);
    // Instantaneous parallelism and heights, over the grain nodes.
    std::vector<uint32_t> grainNode;
    std::vector<double> est, len;
    double wlo = INFINITY, whi = -INFINITY;
    for (uint32_t v = 0; v < g.kind.size(); v++)
      if (g.kind[v] == GrainDag::Chunk || g.kind[v] == GrainDag::Task) {
        grainNode.push_back(v);
        est.push_back(g.earliest.empty() ? 0 : g.earliest[v]);
        len.push_back(g.weight(v));
        wlo = std::min(wlo, g.weight(v));
        whi = std::max(whi, g.weight(v));
      }
    std::vector<double> ipMin, ipMed, ipMax;
    if (g.acyclic)
      instantaneousParallelism(est, len, ipMin, ipMed, ipMax);
    std::vector<double>().swap(est);
    std::vector<double>().swap(len);
    size_t gi = 0; // the next grain node's index in grainNode
    auto slotName = [&](int64_t ps) {
      return (size_t(ps) < n ? "t" : "i") + std::to_string(T.slotId[ps]);
    };
    // A node's id (ids are computed twice: nothing per node is kept).
    auto id = [&](uint32_t v) -> std::string {
      uint64_t r = g.ref[v];
      switch (g.kind[v]) {
      case GrainDag::Start:
        return pre + "start";
      case GrainDag::End:
        return pre + "end";
      case GrainDag::RegionFork:
        return pre + "f.P" + std::to_string(r);
      case GrainDag::RegionJoin:
        return pre + "j.P" + std::to_string(r);
      case GrainDag::LoopFork:
        return pre + "f.L" + std::to_string(r);
      case GrainDag::LoopJoin:
        return pre + "j.L" + std::to_string(r);
      case GrainDag::Chunk:
        return chunkId(run, p, r);
      case GrainDag::Task:
        return taskId(run, p, r);
      case GrainDag::TaskFork:
        return pre + "f." + slotName(T.pslot[r]) + "." +
               std::to_string(T.childNumber[r]);
      default:
        return pre + "j." + slotName(g.joins[r].first) + "." +
               std::to_string(g.joins[r].second);
      }
    };
    std::vector<std::string> locs;
    for (const Loop &lp : an.loops)
      locs.push_back(htmlEscape(lp.loc));
    // A grain's relational and visual attributes (x: its index among the
    // process's grains, chunks first).
    auto grainAttrs = [&](uint32_t v, size_t x, const std::string &colour,
                          const char *shape, unsigned problems) {
      o << "<data key=\"last_to_finish\">" << (last[x] ? "true" : "false")
        << "</data><data key=\"num_siblings\">";
      o.u(nsib[x]) << "</data>";
      if (scatter[x] >= 0) {
        o << "<data key=\"sibling_scatter\">";
        o.i(scatter[x]) << "</data>";
      }
      if (gi < grainNode.size() && grainNode[gi] == v && !ipMin.empty()) {
        w.data("inst_par_min", ipMin[gi]);
        w.data("inst_par_median", ipMed[gi]);
        w.data("inst_par_max", ipMax[gi]);
      }
      gi++;
      o << "<data key=\"shape\">" << shape
        << "</data><data key=\"width\">30</data><data key=\"height\">";
      o.num(stepSize(g.weight(v), wlo, whi))
          << "</data><data key=\"color\">"
          << (view >= 0 && (problems >> view & 1) ? std::string("#FF0000")
                                                  : w.look(colour))
          << "</data>";
      w.problematic(view >= 0 ? problems >> view & 1 : 0);
    };
    for (uint32_t v = 0; v < g.kind.size(); v++) {
      uint64_t r = g.ref[v];
      uint8_t k = g.kind[v];
      const char *crit = g.onPath[v] ? "true" : "false";
      if (k == GrainDag::Chunk) {
        int li = ch.loop[r];
        GrainMetrics m = an.chunkMetrics(r);
        w.grainNode(id(v), "chunk", m.hasWork, int64_t(ch.end[r] - ch.start[r]),
                    ch.thread[r], an.loopName(li), ch.creation[r], m);
        o << "<data key=\"first_iteration\">";
        o.u(ch.lower[r]) << "</data><data key=\"last_iteration\">";
        o.u(ch.upper[r]) << "</data><data key=\"source_location\">" << locs[li]
                         << "</data>";
        o << "<data key=\"outlier\">" << (m.outlier ? "true" : "false")
          << "</data>";
        grainAttrs(v, r, colours.loop(an.loopName(li)), "rectangle",
                   m.problems);
      } else if (k == GrainDag::Task) {
        GrainMetrics m = an.taskMetrics(r);
        std::string name = an.taskGrainName(r);
        w.grainNode(id(v), "task", true, T.execc[r], T.thread[r], name,
                    T.creation[r], m);
        o << "<data key=\"source_location\">"
          << htmlEscape(an.maps.get(T.codeptr[r]).second) << "</data>";
        o << "<data key=\"outlier\">" << (m.outlier ? "true" : "false")
          << "</data>";
        grainAttrs(v, nc + r, colours.site(name), "roundrectangle", m.problems);
      } else {
        const char *type =
            k == GrainDag::Start ? "start"
            : k == GrainDag::End ? "end"
            : (k == GrainDag::RegionFork || k == GrainDag::LoopFork ||
               k == GrainDag::TaskFork)
                ? "fork"
                : "join";
        std::string label;
        if (k == GrainDag::Start || k == GrainDag::End)
          label = type;
        else if (k == GrainDag::RegionFork || k == GrainDag::RegionJoin)
          label = std::string(type) + " parallel " +
                  an.maps.get(an.regionList[r].codeptr).second;
        else if (k == GrainDag::LoopFork || k == GrainDag::LoopJoin)
          label = std::string(type) + " " + an.loopName(int(r));
        else
          label =
              std::string(type) + " " +
              slotName(k == GrainDag::TaskFork ? T.pslot[r] : g.joins[r].first);
        o << "    <node id=\"" << htmlEscape(id(v))
          << "\"><data key=\"grain_type\">" << type
          << "</data><data key=\"label\">" << htmlEscape(label) << "</data>";
        // The prototype's constants (configs/grain-properties.cfg).
        bool ends = k == GrainDag::Start || k == GrainDag::End;
        bool isFork = type[0] == 'f';
        o << "<data key=\"shape\">" << (ends ? "rectangle" : "circle")
          << "</data><data key=\"width\">" << (ends ? "15" : "10")
          << "</data><data key=\"height\">" << (ends ? "15" : "10")
          << "</data><data key=\"color\">"
          << w.look(ends     ? "#DEB887"
                    : isFork ? "#2E8B57"
                             : "#FF7F50")
          << "</data>";
        w.problematic(0);
      }
      o << "<data key=\"border-color\">"
        << (g.onPath[v] ? "#FF0000" : "#000000") << "</data>";
      bool fork = k == GrainDag::RegionFork || k == GrainDag::LoopFork ||
                  k == GrainDag::TaskFork;
      const char *ptype = k == GrainDag::Start ? "start"
                          : k == GrainDag::End ? "end"
                          : k == GrainDag::Chunk || k == GrainDag::Task ? "task"
                          : fork                                        ? "fork"
                                 : "join";
      o << "<data key=\"type\">" << ptype
        << "</data><data key=\"weight_cycles\">";
      o.num(g.weight(v)) << "</data><data key=\"on_crit_path\">" << crit
                         << "</data></node>\n";
    }
    for (size_t e = 0; e < g.src.size(); e++) {
      o << "    <edge id=\"e";
      o.u(w.edges++) << "\" source=\"" << htmlEscape(id(g.src[e]))
                     << "\" target=\"" << htmlEscape(id(g.dst[e]))
                     << "\"><data key=\"edge_type\">"
                     << EdgeTypes[g.ekind[e]][1]
                     << "</data><data key=\"etype\">"
                     << EdgeTypes[g.ekind[e]][0]
                     << "</data><data key=\"ecolor\">"
                     << w.look(g.onPath[g.src[e]] && g.onPath[g.dst[e]]
                                   ? "#FF0000"
                                   : EdgeColours[g.ekind[e]])
                     << "</data></edge>\n";
    }
  }
  o << "  </graph>\n</graphml>\n";
  o.close();
}

uint64_t writeGraphmlAggregated(const Results &R, const std::string &path,
                                const CoarseLevel &level, int view) {
  const Run &run = R.run;
  OutFile o(path);
  Writer w{o, view};
  header(o, true, view);
  const char *const Tail = "  </graph>\n</graphml>\n";
  auto sums = [&](int64_t grains, bool hasExec, int64_t exec, double work) {
    o << "<data key=\"grains\">";
    o.i(grains) << "</data>";
    if (hasExec) {
      o << "<data key=\"exec_cycles\">";
      o.i(exec) << "</data>";
    }
    w.data("work_cycles", work);
  };
  static const char *const Kinds[] = {"creation", "synchronization",
                                      "continuation"};
  const RunColours &colours = R.colours;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    CoarseGraph g = coarseGraph(an, R.procs[p].loopTable, R.procs[p].crit,
                                level, run.prefix(p), view);
    // Heights by work among the process's groups of each kind.
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
    for (const CoarseGraph::Node &n : g.nodes)
      if ((n.kind == CoarseGraph::Chunks || n.kind == CoarseGraph::Tasks) &&
          !std::isnan(n.work)) {
        int t = n.kind == CoarseGraph::Tasks;
        lo[t] = std::min(lo[t], n.work), hi[t] = std::max(hi[t], n.work);
      }
    for (const CoarseGraph::Node &n : g.nodes) {
      if (n.kind == CoarseGraph::Fork || n.kind == CoarseGraph::Join) {
        w.simpleNode(n.id, n.kind == CoarseGraph::Fork ? "fork" : "join",
                     n.label);
        continue;
      }
      if (n.kind == CoarseGraph::Start || n.kind == CoarseGraph::End) {
        // As the full graph draws them (the prototype's constants).
        const char *type = n.kind == CoarseGraph::Start ? "start" : "end";
        o << "    <node id=\"" << htmlEscape(n.id)
          << "\"><data key=\"grain_type\">" << type
          << "</data><data key=\"type\">" << type
          << "</data><data key=\"label\">" << type
          << "</data><data key=\"shape\">rectangle</data><data "
             "key=\"width\">15</data><data key=\"height\">15</data><data "
             "key=\"color\">"
          << w.look("#DEB887")
          << "</data><data key=\"border-color\">#000000</data>";
        w.problematic(0);
        o << "</node>\n";
        continue;
      }
      bool tasks = n.kind == CoarseGraph::Tasks;
      o << "    <node id=\"" << htmlEscape(n.id)
        << "\"><data key=\"grain_type\">" << (tasks ? "tasks" : "chunks")
        << "</data>";
      sums(n.grains, n.hasExec, n.exec, n.work);
      o << "<data key=\"cpu_id\">";
      o.i(n.thread) << "</data><data key=\"label\">" << htmlEscape(n.label)
                    << "</data><data key=\"source_location\">"
                    << htmlEscape(n.loc) << "</data>";
      w.groupLook(tasks ? "roundrectangle" : "rectangle", n.work, lo[tasks],
                  hi[tasks],
                  tasks ? colours.site(n.name) : colours.loop(n.name),
                  n.flagged, n.onPath);
      o << "</node>\n";
    }
    for (const CoarseGraph::Edge &e : g.edges)
      w.edge(g.nodes[e.src].id, g.nodes[e.dst].id, Kinds[e.kind]);
  }
  o << Tail;
  o.close();
  return o.size();
}

namespace {
/// Bytes an aggregated GraphML element takes at least (measured: a group
/// node about 750, a fork or join 420, an edge 210, with short names).
constexpr uint64_t GroupNodeBytes = 600, EdgeBytes = 180;
} // namespace

CapResult writeGraphmlCapped(const Results &R, const std::string &path,
                             const Caps &caps, int view) {
  const Run &run = R.run;
  uint64_t grains = run.grains();
  CapResult r;
  if (grains <= caps.graph &&
      grains * GraphmlFullGrainBytes <= caps.graphBytes) {
    writeGraphml(R, path, view);
    struct stat st;
    if (stat(path.c_str(), &st) == 0 && uint64_t(st.st_size) <= caps.graphBytes)
      return r;
  }
  r.every = false;
  uint64_t cap = caps.graphBudget(grains);
  uint64_t most = 0; // block 0 from it on
  for (const ProcessResults &pr : R.procs)
    most = std::max(most, pr.loopTable.most);
  CoarseLevel level;
  for (;;) {
    bool coarsest = level.bare;
    uint64_t nodes = 0, edges = 0;
    for (size_t p = 0; p < run.procs.size(); p++) {
      uint64_t n = 0, e = 0;
      coarseGraphSize(*run.procs[p], R.procs[p].loopTable, level, n, e);
      nodes += n, edges += e;
    }
    uint64_t est = nodes * GroupNodeBytes + edges * EdgeBytes;
    if (est <= cap || coarsest) {
      uint64_t got = writeGraphmlAggregated(R, path, level, view);
      if (got <= cap || coarsest)
        break; // (the bare graph above the cap: a cap below ~3 KB)
      est = got;
    }
    // Coarser: as many times more instances per block as the estimate is
    // over the cap, then one block per loop, then tasks per site, then
    // nothing but start and end.
    if (level.bySite)
      level.bare = true;
    else if (level.block == 0)
      level.bySite = true;
    else
      level.block = coarserBlock(level.block, double(est) / double(cap), most);
  }
  GrainKinds kinds;
  for (auto &an : run.procs)
    kinds |= grainKinds(*an);
  r.how = coarseLevelText(level, kinds);
  if (level.bare)
    r.how += " (the coarsest groups would pass the cap)";
  r.how += "; one DAG per process from start to end";
  releaseFreed(); // the levels' graphs, not kept beside the next output
  return r;
}

} // namespace gcg

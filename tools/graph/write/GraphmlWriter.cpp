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
// coarser while the file does not (its bytes counted by writing each
// class's first member alone, then its edge ids as numbered in the file);
// processes of the same shape at that level (CoarseGraph.h: shapeLevelFor)
// are one DAG, their class's: its first member's structure and ids, every
// member's grains, exec, work, instances and flags summed (in run order),
// the least and largest member's work per node, the members on its start
// and end, labels from the sums. A class of one process is drawn as the
// process always was. An MPI rank writes per process its class and node
// values, and the structure of the classes it is the first member of
// (writeGraphmlShapes); rank 0 sums and draws them (mergeGraphmlShapes)
// through the same code, so both give the same bytes.
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
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
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

static void header(OutFile &o, bool aggregated, int view,
                   bool classes = false) {
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
  if (classes) // a DAG of several alike processes
    o << "  <key id=\"processes\" for=\"node\" attr.name=\"processes\" "
         "attr.type=\"long\"/>\n"
         "  <key id=\"ranks\" for=\"node\" attr.name=\"ranks\" "
         "attr.type=\"string\"/>\n"
         "  <key id=\"pids\" for=\"node\" attr.name=\"pids\" "
         "attr.type=\"string\"/>\n"
         "  <key id=\"work_min\" for=\"node\" attr.name=\"work_min\" "
         "attr.type=\"double\"/>\n"
         "  <key id=\"work_max\" for=\"node\" attr.name=\"work_max\" "
         "attr.type=\"double\"/>\n";
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
      cpu[nc + k] = T.threadOf(k);
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
      return (size_t(ps) < n ? "t" : "i") + std::to_string(T.slotId(ps));
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
    std::vector<std::string> locs; // by loop code (Loop::code)
    for (const LoopCode &lc : an.loopCodes)
      locs.push_back(htmlEscape(lc.loc));
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
        w.grainNode(id(v), "chunk", m.hasWork, int64_t(ch.span(r)),
                    ch.thread[r], an.loopName(li), ch.creation[r], m);
        o << "<data key=\"first_iteration\">";
        o.u(ch.lower[r]) << "</data><data key=\"last_iteration\">";
        o.u(ch.upper[r]) << "</data><data key=\"source_location\">"
                         << locs[an.loops[li].code] << "</data>";
        o << "<data key=\"outlier\">" << (m.outlier ? "true" : "false")
          << "</data>";
        grainAttrs(v, r, colours.loop(an.loopName(li)), "rectangle",
                   m.problems);
      } else if (k == GrainDag::Task) {
        GrainMetrics m = an.taskMetrics(r);
        std::string name = an.taskGrainName(r);
        w.grainNode(id(v), "task", true, T.execc(r), T.threadOf(r), name,
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
                  an.maps.get(an.codeptrOf(an.regionList[r])).second;
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

namespace {
/// A class's DAG (CoarseGraph.h: shapeLevelFor): its first member's
/// coarse graph (ids, labels, structure) with every member's values added
/// in run order, per node its colour and the least and largest work of a
/// member, and the members' ranks and pids.
struct ClassDag {
  CoarseGraph g;
  std::vector<std::string> colour;
  std::vector<double> workMin, workMax;
  std::vector<int64_t> ranks, pids;
  size_t members() const { return pids.size(); }
  /// Adds a member (m: its graph, of the class's shape; the first's
  /// structure is kept, colour gives its group nodes' colours).
  template <typename Colour>
  void add(CoarseGraph &&m, int64_t rank, int64_t pid, Colour colourOf) {
    if (pids.empty()) {
      g = std::move(m);
      for (const CoarseGraph::Node &n : g.nodes) {
        colour.push_back(colourOf(n));
        workMin.push_back(n.work);
        workMax.push_back(n.work);
      }
    } else {
      for (size_t v = 0; v < g.nodes.size() && v < m.nodes.size(); v++) {
        CoarseGraph::Node &n = g.nodes[v];
        const CoarseGraph::Node &x = m.nodes[v];
        n.grains += x.grains;
        n.hasExec = n.hasExec && x.hasExec;
        n.exec += x.exec;
        n.work += x.work;
        n.instances += x.instances;
        n.flagged += x.flagged;
        n.onPath = n.onPath || x.onPath;
        workMin[v] = std::fmin(workMin[v], x.work);
        workMax[v] = std::fmax(workMax[v], x.work);
      }
    }
    ranks.push_back(rank);
    pids.push_back(pid);
  }
};

/// A class's start and end label: "start", or "start (<k> processes)".
std::string endLabel(const char *type, size_t k) {
  return k > 1 ? std::string(type) + " (" + std::to_string(k) + " processes)"
               : type;
}
/// A class's members, on its start and end nodes (k > 1).
std::string classData(const std::vector<int64_t> &ranks,
                      const std::vector<int64_t> &pids) {
  std::string r, p;
  for (size_t i = 0; i < pids.size(); i++) {
    r += (i ? " " : "") + (ranks[i] >= 0 ? std::to_string(ranks[i]) : "NA");
    p += (i ? " " : "") + std::to_string(pids[i]);
  }
  return "<data key=\"processes\">" + std::to_string(pids.size()) +
         "</data><data key=\"ranks\">" + r + "</data><data key=\"pids\">" + p +
         "</data>";
}
std::string processesData(size_t k) {
  return "<data key=\"processes\">" + std::to_string(k) + "</data>";
}

const char *const Tail = "  </graph>\n</graphml>\n";

/// A class's DAG, its nodes then its edges. A class of one process: that
/// process's coarse graph as it always was.
void writeDag(Writer &w, const ClassDag &c) {
  OutFile &o = w.o;
  const CoarseGraph &g = c.g;
  size_t k = c.members();
  static const char *const Kinds[] = {"creation", "synchronization",
                                      "continuation"};
  // Heights by work among the class's groups of each kind.
  double lo[2] = {INFINITY, INFINITY}, hi[2] = {-INFINITY, -INFINITY};
  for (const CoarseGraph::Node &n : g.nodes)
    if ((n.kind == CoarseGraph::Chunks || n.kind == CoarseGraph::Tasks) &&
        !std::isnan(n.work)) {
      int t = n.kind == CoarseGraph::Tasks;
      lo[t] = std::min(lo[t], n.work), hi[t] = std::max(hi[t], n.work);
    }
  std::string members = k > 1 ? classData(c.ranks, c.pids) : "";
  for (size_t v = 0; v < g.nodes.size(); v++) {
    const CoarseGraph::Node &n = g.nodes[v];
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
        << "</data><data key=\"type\">" << type << "</data><data key=\"label\">"
        << endLabel(type, k)
        << "</data><data key=\"shape\">rectangle</data><data "
           "key=\"width\">15</data><data key=\"height\">15</data><data "
           "key=\"color\">"
        << w.look("#DEB887")
        << "</data><data key=\"border-color\">#000000</data>";
      w.problematic(0);
      o << members << "</node>\n";
      continue;
    }
    bool tasks = n.kind == CoarseGraph::Tasks;
    o << "    <node id=\"" << htmlEscape(n.id) << "\"><data key=\"grain_type\">"
      << (tasks ? "tasks" : "chunks") << "</data><data key=\"grains\">";
    o.i(n.grains) << "</data>";
    if (n.hasExec) {
      o << "<data key=\"exec_cycles\">";
      o.i(n.exec) << "</data>";
    }
    w.data("work_cycles", n.work);
    if (k > 1) {
      w.data("work_min", c.workMin[v]);
      w.data("work_max", c.workMax[v]);
      o << processesData(k);
    }
    o << "<data key=\"cpu_id\">";
    o.i(n.thread) << "</data><data key=\"label\">"
                  << htmlEscape(groupLabel(n, k))
                  << "</data><data key=\"source_location\">"
                  << htmlEscape(n.loc) << "</data>";
    w.groupLook(tasks ? "roundrectangle" : "rectangle", n.work, lo[tasks],
                hi[tasks], c.colour[v], n.flagged, n.onPath);
    o << "</node>\n";
  }
  for (const CoarseGraph::Edge &e : g.edges)
    w.edge(g.nodes[e.src].id, g.nodes[e.dst].id, Kinds[e.kind]);
}

/// Bytes a group node of a class of several takes at most beyond its
/// first member's alone (the values' digits: grains, exec, work, the
/// label's two counts and " in <n> instances", the height, problematic;
/// work_min and work_max), its label's " over <k> processes" and its
/// processes attribute aside.
constexpr uint64_t ClassGroupBytes = 19 + 20 + 17 + 19 + 33 + 1 + 19 + 2 * 45;

/// Process p of R as a class of one (its colours the run's).
ClassDag processDag(const Results &R, size_t p, const CoarseLevel &level,
                    int view) {
  const Run &run = R.run;
  const Analysis &an = *run.procs[p];
  ClassDag c;
  c.add(coarseGraph(an, R.procs[p].loopTable, R.procs[p].crit, level,
                    run.prefix(p), view),
        an.proc.rank, an.proc.pid, [&](const CoarseGraph::Node &n) {
          return n.kind == CoarseGraph::Tasks    ? R.colours.site(n.name)
                 : n.kind == CoarseGraph::Chunks ? R.colours.loop(n.name)
                                                 : std::string();
        });
  return c;
}

/// The digits of the numbers from..from+n-1.
uint64_t digitsOf(uint64_t from, uint64_t n) {
  uint64_t d = 0, lo = 0, hi = 10;
  for (int w = 1; n && w < 20; w++, lo = hi, hi *= 10) {
    uint64_t a = std::max(from, lo), b = std::min(from + n, hi);
    if (a < b)
      d += uint64_t(w) * (b - a);
  }
  return d;
}

uint64_t headerBytes(bool aggregated, bool classes, int view) {
  OutFile o("/dev/null");
  header(o, aggregated, view, classes);
  return o.size();
}

/// Class sizes: per class its members.
std::vector<size_t> classSizes(const ShapeLevel &s) {
  std::vector<size_t> k(s.first.size(), 0);
  for (uint32_t c : s.classOf)
    k[c]++;
  return k;
}
/// graphmlProcessFigures, the DAG it made moved into keep when given.
void processFigures(const Results &R, size_t p, const CoarseLevel &level,
                    int view, ProcessShape &f, bool shape, bool bytes,
                    ClassDag *keep);

bool sameLevel(const CoarseLevel &a, const CoarseLevel &b) {
  return a.block == b.block && a.bySite == b.bySite && a.bare == b.bare &&
         a.members == b.members;
}
} // namespace

void graphmlProcessFigures(const Results &R, size_t p, const CoarseLevel &level,
                           int view, ProcessShape &f, bool shape, bool bytes) {
  processFigures(R, p, level, view, f, shape, bytes, nullptr);
}

namespace {
void processFigures(const Results &R, size_t p, const CoarseLevel &level,
                    int view, ProcessShape &f, bool shape, bool bytes,
                    ClassDag *keep) {
  if (!shape && !bytes)
    return;
  ClassDag c = processDag(R, p, level, view);
  if (shape) {
    f.shaped = true;
    f.shape = shapeOf(c.g);
  }
  if (bytes) {
    OutFile o("/dev/null");
    Writer w{o, view};
    writeDag(w, c);
    f.sized = true;
    f.bytes = o.size();
    f.edgesOut = c.g.edges.size();
    f.groups = 0;
    for (const CoarseGraph::Node &n : c.g.nodes)
      f.groups += n.kind == CoarseGraph::Chunks || n.kind == CoarseGraph::Tasks;
  }
  if (keep)
    *keep = std::move(c);
}
} // namespace

uint64_t GraphmlFigures::fileBytes(const ShapeLevel &s,
                                   const std::vector<ProcessShape> &f) {
  std::vector<size_t> k = classSizes(s);
  bool classes =
      std::any_of(k.begin(), k.end(), [](size_t n) { return n > 1; });
  uint64_t total = headerBytes(true, classes, view) + std::strlen(Tail), e = 0;
  std::vector<std::vector<int64_t>> ranksOf(k.size()), pidsOf(k.size());
  for (size_t p = 0; p < s.classOf.size(); p++) {
    ranksOf[s.classOf[p]].push_back(ranks[p]);
    pidsOf[s.classOf[p]].push_back(pids[p]);
  }
  for (size_t c = 0; c < k.size(); c++) {
    const ProcessShape &x = f[s.first[c]];
    if (!x.sized)
      throw Error("grains.graphml: a class's first process was not sized");
    // Its edges are numbered on from the classes' before it.
    total += x.bytes + digitsOf(e, x.edgesOut) - digitsOf(0, x.edgesOut);
    e += x.edgesOut;
    if (k[c] > 1)
      total +=
          2 * (classData(ranksOf[c], pidsOf[c]).size() +
               endLabel("start", k[c]).size() - 5) +
          x.groups * (ClassGroupBytes + processesData(k[c]).size() +
                      (" over " + std::to_string(k[c]) + " processes").size());
  }
  return total;
}

namespace {
/// The figures of the processes of R (one command).
class LocalFigures : public GraphmlFigures {
public:
  LocalFigures(const Results &R, int v) : R(R) {
    view = v;
    for (const auto &an : R.run.procs) {
      ranks.push_back(an->proc.rank);
      pids.push_back(an->proc.pid);
      kinds |= grainKinds(*an);
    }
  }
  std::vector<ProcessShape> sizes(const CoarseLevel &level) override {
    kept.reset(); // a level passed over: its DAG not held through the next
    std::vector<ProcessShape> f(R.run.procs.size());
    for (size_t p = 0; p < f.size(); p++)
      coarseGraphSize(*R.run.procs[p], R.procs[p].loopTable, level, f[p].nodes,
                      f[p].edges);
    return f;
  }
  void shapes(const CoarseLevel &level, std::vector<ProcessShape> &f,
              const std::vector<uint8_t> &need, bool) override {
    for (size_t p = 0; p < f.size(); p++)
      graphmlProcessFigures(R, p, level, view, f[p], need[p], false);
  }
  void bytes(const CoarseLevel &level, std::vector<ProcessShape> &f,
             const std::vector<uint32_t> &first) override {
    // A run of one process: the DAG measured is kept for the file, made
    // once at the level chosen (the last measured).
    bool one = R.run.procs.size() == 1;
    for (uint32_t p : first) {
      if (one && !f[p].sized) {
        kept = std::make_unique<ClassDag>();
        keptAt = level;
      }
      processFigures(R, p, level, view, f[p], false, !f[p].sized,
                     one && !f[p].sized ? kept.get() : nullptr);
    }
  }
  /// The one process's DAG made at keptAt, if any.
  std::unique_ptr<ClassDag> kept;
  CoarseLevel keptAt;

private:
  const Results &R;
};
} // namespace

std::string graphmlHow(const ShapeLevel &s, GrainKinds kinds) {
  std::string how = coarseLevelText(s.level, kinds);
  if (s.level.bare)
    how += " (the coarsest groups would pass the cap)";
  if (s.first.size() == s.classOf.size())
    return how + "; one DAG per process from start to end";
  return how + "; one DAG per class of processes of the same shape (" +
         std::to_string(s.first.size()) + " for " +
         std::to_string(s.classOf.size()) +
         " processes), their values summed, from start to end";
}

namespace {
/// writeGraphmlClasses, process 0's DAG taken from made when given.
uint64_t writeClasses(const Results &R, const std::string &path,
                      const ShapeLevel &s, int view, ClassDag *made) {
  const Run &run = R.run;
  OutFile o(path);
  Writer w{o, view};
  std::vector<size_t> k = classSizes(s);
  header(o, true, view,
         std::any_of(k.begin(), k.end(), [](size_t n) { return n > 1; }));
  // A class is written once its last member is in (and those before it).
  std::vector<size_t> last(k.size(), 0);
  for (size_t p = 0; p < s.classOf.size(); p++)
    last[s.classOf[p]] = p;
  std::vector<ClassDag> dags(k.size());
  size_t next = 0;
  for (size_t p = 0; p < run.procs.size(); p++) {
    ClassDag one =
        p == 0 && made ? std::move(*made) : processDag(R, p, s.level, view);
    ClassDag &c = dags[s.classOf[p]];
    if (c.pids.empty())
      c = std::move(one);
    else
      c.add(std::move(one.g), one.ranks[0], one.pids[0],
            [](const CoarseGraph::Node &) { return std::string(); });
    for (; next < dags.size() && last[next] <= p; next++) {
      writeDag(w, dags[next]);
      dags[next] = ClassDag();
    }
  }
  o << Tail;
  o.close();
  return o.size();
}
} // namespace

uint64_t writeGraphmlClasses(const Results &R, const std::string &path,
                             const ShapeLevel &s, int view) {
  return writeClasses(R, path, s, view, nullptr);
}

uint64_t writeGraphmlAggregated(const Results &R, const std::string &path,
                                const CoarseLevel &level, int view) {
  LocalFigures F(R, view);
  std::vector<ProcessShape> f = F.sizes(level);
  F.shapes(level, f, std::vector<uint8_t>(f.size(), 1), false);
  ShapeLevel s;
  s.level = level;
  classesOf(f, s);
  return writeGraphmlClasses(R, path, s, view);
}

void graphmlBody(const std::string &path, uint64_t &bytes, uint64_t &edges) {
  static const std::string
      Open = "  <graph id=\"grain-graph\" edgedefault=\"directed\">",
      Edge = "    <edge id=\"e";
  std::ifstream in(path, std::ios::binary);
  std::string line;
  uint64_t head = 0, all = 0;
  bool open = false;
  bytes = edges = 0;
  while (std::getline(in, line)) {
    all += line.size() + 1;
    if (!open) {
      head = all;
      open = line == Open;
    } else {
      edges += line.compare(0, Edge.size(), Edge) == 0;
    }
  }
  if (!open || all < head + std::strlen(Tail))
    throw Error(path + " is not a grains.graphml fragment");
  bytes = all - head - std::strlen(Tail);
}

uint64_t
graphmlMergedBytes(const std::vector<std::pair<uint64_t, uint64_t>> &bodies) {
  uint64_t total = headerBytes(false, false, -1) + std::strlen(Tail), e = 0;
  for (auto [bytes, edges] : bodies) {
    total += bytes + digitsOf(e, edges) - digitsOf(0, edges);
    e += edges;
  }
  return total;
}

static const char *const ShapesHead = "grainchunk-graph graphml shapes 1";

void writeGraphmlShapes(const Results &R, const std::string &path,
                        const ShapeLevel &s, size_t base) {
  OutFile o(path);
  o << ShapesHead << "\n";
  for (size_t p = 0; p < R.run.procs.size(); p++) {
    size_t job = base + p;
    uint32_t c = s.classOf.at(job);
    bool first = s.first.at(c) == job;
    ClassDag d = processDag(R, p, s.level, -1);
    const CoarseGraph &g = d.g;
    o << "process ";
    o.u(job) << " ";
    o.u(c) << " " << (first ? "1 " : "0 ");
    o.i(d.ranks[0]) << " ";
    o.i(d.pids[0]) << " ";
    o.u(g.nodes.size()) << "\n";
    if (first) {
      for (size_t v = 0; v < g.nodes.size(); v++) {
        const CoarseGraph::Node &n = g.nodes[v];
        o << "n ";
        o.u(n.kind) << " ";
        o.i(n.thread) << " ";
        for (const std::string *t : {&n.id, &n.label, &n.name, &n.loc})
          o.u(t->size()) << " ";
        o.u(d.colour[v].size())
            << "\n"
            << n.id << n.label << n.name << n.loc << d.colour[v] << "\n";
      }
      o << "edges ";
      o.u(g.edges.size()) << "\n";
      for (const CoarseGraph::Edge &e : g.edges) {
        o.u(e.src) << " ";
        o.u(e.dst) << " ";
        o.u(e.kind) << "\n";
      }
    }
    for (const CoarseGraph::Node &n : g.nodes)
      o.f("v %lld %d %lld %a %lld %lld %d\n", (long long)n.grains,
          int(n.hasExec), (long long)n.exec, n.work, (long long)n.instances,
          (long long)n.flagged, int(n.onPath));
  }
  o << "end\n";
  o.close();
}

void mergeGraphmlShapes(const std::vector<std::string> &files,
                        const std::vector<std::string> &who,
                        const std::string &path) {
  std::vector<ClassDag> dags;
  size_t job = 0;
  for (size_t i = 0; i < files.size(); i++) {
    std::ifstream in(files[i], std::ios::binary);
    std::string line;
    auto bad = [&](const char *what) {
      return Error(who[i] + ": " + files[i] + " is not what a rank writes (" +
                   what + ")");
    };
    if (!std::getline(in, line) || line != ShapesHead)
      throw bad("its first line");
    for (;;) {
      if (!std::getline(in, line))
        throw bad("cut short");
      if (line == "end")
        break;
      unsigned long long at = 0, c = 0, nodes = 0;
      long long rank = 0, pid = 0;
      int first = 0;
      if (std::sscanf(line.c_str(), "process %llu %llu %d %lld %lld %llu", &at,
                      &c, &first, &rank, &pid, &nodes) != 6 ||
          at != job++ || nodes > (1ull << 32) ||
          (first ? c != dags.size() : c >= dags.size()))
        throw bad("a process line");
      CoarseGraph g;
      std::vector<std::string> colour;
      if (first) {
        for (unsigned long long v = 0; v < nodes; v++) {
          unsigned kind = 0;
          int thread = 0;
          unsigned long long len[5];
          if (!std::getline(in, line) ||
              std::sscanf(line.c_str(), "n %u %d %llu %llu %llu %llu %llu",
                          &kind, &thread, &len[0], &len[1], &len[2], &len[3],
                          &len[4]) != 7 ||
              kind > CoarseGraph::Tasks)
            throw bad("a node line");
          CoarseGraph::Node n;
          n.kind = CoarseGraph::Kind(kind);
          n.thread = thread;
          std::string col;
          for (int k = 0; k < 5; k++) {
            std::string *t = k == 0   ? &n.id
                             : k == 1 ? &n.label
                             : k == 2 ? &n.name
                             : k == 3 ? &n.loc
                                      : &col;
            if (len[k] > (1ull << 24))
              throw bad("a node's text");
            t->resize(len[k]);
            if (len[k] && !in.read(&(*t)[0], std::streamsize(len[k])))
              throw bad("a node's text");
          }
          if (in.get() != '\n')
            throw bad("a node's text");
          g.nodes.push_back(std::move(n));
          colour.push_back(std::move(col));
        }
        unsigned long long ne = 0;
        if (!std::getline(in, line) ||
            std::sscanf(line.c_str(), "edges %llu", &ne) != 1)
          throw bad("its edges");
        for (unsigned long long e = 0; e < ne; e++) {
          unsigned a = 0, b = 0, k = 0;
          if (!std::getline(in, line) ||
              std::sscanf(line.c_str(), "%u %u %u", &a, &b, &k) != 3 ||
              a >= nodes || b >= nodes || k > CoarseGraph::Continuation)
            throw bad("an edge line");
          g.edges.push_back({a, b, CoarseGraph::EdgeKind(k)});
        }
      } else {
        if (nodes != dags[c].g.nodes.size())
          throw bad("a member of another shape than its class's");
        g.nodes.resize(nodes);
      }
      for (CoarseGraph::Node &n : g.nodes) {
        long long grains = 0, exec = 0, inst = 0, flagged = 0;
        int hasExec = 0, onPath = 0;
        if (!std::getline(in, line) ||
            std::sscanf(line.c_str(), "v %lld %d %lld %la %lld %lld %d",
                        &grains, &hasExec, &exec, &n.work, &inst, &flagged,
                        &onPath) != 7)
          throw bad("a node's values");
        n.grains = grains, n.hasExec = hasExec, n.exec = exec;
        n.instances = inst, n.flagged = flagged, n.onPath = onPath;
      }
      if (first)
        dags.emplace_back();
      size_t v = 0;
      dags[c].add(std::move(g), rank, pid,
                  [&](const CoarseGraph::Node &) { return colour[v++]; });
    }
  }
  OutFile o(path);
  Writer w{o, -1};
  header(o, true, -1,
         std::any_of(dags.begin(), dags.end(),
                     [](const ClassDag &d) { return d.members() > 1; }));
  for (const ClassDag &d : dags)
    writeDag(w, d);
  o << Tail;
  o.close();
}

namespace {
/// Bytes an aggregated GraphML element takes at least (measured: a group
/// node about 750, a fork or join 420, an edge 210, with short names).
constexpr uint64_t GroupNodeBytes = 600, EdgeBytes = 180;
} // namespace

uint64_t graphmlMost(const Results &R) {
  uint64_t most = 0; // block 0 from it on
  for (const ProcessResults &pr : R.procs)
    most = std::max(most, pr.loopTable.most);
  return most;
}

ShapeLevel graphmlShapeLevel(GraphmlFigures &F, uint64_t cap, uint64_t most) {
  return shapeLevelFor(F, cap, most, GroupNodeBytes, EdgeBytes);
}

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
  LocalFigures F(R, view);
  ShapeLevel s = graphmlShapeLevel(F, caps.graphBudget(grains), graphmlMost(R));
  writeClasses(R, path, s, view,
               F.kept && sameLevel(F.keptAt, s.level) ? F.kept.get() : nullptr);
  F.kept.reset();
  r.how = graphmlHow(s, F.kinds);
  releaseFreed(); // the levels' graphs, not kept beside the next output
  return r;
}

} // namespace gcg

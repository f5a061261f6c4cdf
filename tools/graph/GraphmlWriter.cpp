// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- GraphmlWriter.cpp - grains.graphml: the grain graph ----------------===//
//
// Nodes: grains, fork and join nodes (per loop instance: one fork, one
// join; per task with children: a fork per child and a join per join
// point). Edges: creation (fork->grain), synchronization (grain->join),
// continuation (fork/join->next fork/join of the same parent), scope
// (fork->join of the same loop instance). Written as it goes (GraphML lets
// nodes and edges alternate; every node comes before its edges).
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace gcg {

namespace {
struct Writer {
  OutFile &o;
  uint64_t edges = 0;
  void edge(const std::string &s, const std::string &t, const char *kind) {
    o << "    <edge id=\"e";
    o.u(edges++) << "\" source=\"" << htmlEscape(s) << "\" target=\""
                 << htmlEscape(t) << "\"><data key=\"edge_type\">" << kind
                 << "</data></edge>\n";
  }
  void simpleNode(const std::string &id, const char *type,
                  const std::string &label) {
    o << "    <node id=\"" << htmlEscape(id) << "\"><data key=\"grain_type\">"
      << type << "</data><data key=\"label\">" << htmlEscape(label)
      << "</data></node>\n";
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

static const char *const Keys[][2] = {
    {"grain_type", "string"},        {"problems", "string"},
    {"exec_cycles", "double"},       {"creation_cycles", "double"},
    {"work_cycles", "double"},       {"parallel_benefit", "double"},
    {"sibling_work_balance", "double"}, {"chunk_work_balance", "double"},
    {"chunk_work_cpu_balance", "double"}, {"work_deviation", "double"},
    {"cpu_id", "int"},               {"source_location", "string"},
    {"first_iteration", "long"},     {"last_iteration", "long"},
    {"label", "string"},             {"problem", "boolean"}};

void writeGraphml(Run &run, const std::string &path) {
  OutFile o(path);
  Writer w{o};
  o << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
       "<graphml xmlns=\"http://graphml.graphdrawing.org/xmlns\" "
       "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
       "xsi:schemaLocation=\"http://graphml.graphdrawing.org/xmlns "
       "http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd\">\n";
  for (auto &k : Keys)
    o << "  <key id=\"" << k[0] << "\" for=\"node\" attr.name=\"" << k[0]
      << "\" attr.type=\"" << k[1] << "\"/>\n";
  o << "  <key id=\"edge_type\" for=\"edge\" attr.name=\"edge_type\" "
       "attr.type=\"string\"/>\n";
  o << "  <graph id=\"grain-graph\" edgedefault=\"directed\">\n";
  for (size_t p = 0; p < run.procs.size(); p++) {
    Analysis &an = *run.procs[p];
    std::string pre = run.prefix(p);
    // Loops: a fork and a join per instance, chained in the order of the
    // instances of each parallel region; then each chunk between them.
    std::map<std::tuple<int, uint64_t, uint64_t>, size_t> groupOf;
    std::vector<std::vector<int>> groups;
    for (const Loop &lp : an.loops) {
      auto key = std::make_tuple(lp.keyKind, lp.k0, lp.keyKind == 2 ? lp.k1 : 0);
      auto it = groupOf.find(key);
      if (it == groupOf.end()) {
        it = groupOf.emplace(key, groups.size()).first;
        groups.emplace_back();
      }
      groups[it->second].push_back(lp.index);
    }
    for (auto &g : groups) {
      std::stable_sort(g.begin(), g.end(), [&](int x, int y) {
        return an.loops[x].lastKey() < an.loops[y].lastKey();
      });
      std::string prev;
      for (int li : g) {
        std::string f = pre + "f.L" + std::to_string(li),
                    j = pre + "j.L" + std::to_string(li);
        w.simpleNode(f, "fork", "fork " + an.loopName(li));
        w.simpleNode(j, "join", "join " + an.loopName(li));
        w.edge(f, j, "scope");
        if (!prev.empty())
          w.edge(prev, f, "continuation");
        prev = j;
      }
    }
    const Chunks &ch = an.chunks;
    std::vector<std::string> locs;
    for (const Loop &lp : an.loops)
      locs.push_back(htmlEscape(lp.loc));
    for (size_t i = 0; i < ch.size(); i++) {
      int li = ch.loop[i];
      GrainMetrics m = an.chunkMetrics(i);
      std::string c = chunkId(run, p, i);
      w.grainNode(c, "chunk", m.hasWork, int64_t(ch.end[i] - ch.start[i]),
                  ch.thread[i], an.loopName(li), ch.creation[i], m);
      o << "<data key=\"first_iteration\">";
      o.u(ch.lower[i]) << "</data><data key=\"last_iteration\">";
      o.u(ch.upper[i]) << "</data><data key=\"source_location\">" << locs[li]
                       << "</data></node>\n";
      w.edge(pre + "f.L" + std::to_string(li), c, "creation");
      w.edge(c, pre + "j.L" + std::to_string(li), "synchronization");
    }
    // Tasks: children grouped by their parent and join point. A task is
    // also its children's parent node, so all task-side nodes go first,
    // then the edges: the same walk twice, nothing kept.
    Tasks &T = an.tasks;
    size_t n = T.size();
    for (int nodes = 1; nodes >= 0; nodes--) {
      for (uint32_t k0 : T.order) { // parents in the order their first child was made
        if (T.childNumber[k0])
          continue;
        int64_t ps = T.pslot[k0];
        std::string pname = (size_t(ps) < n ? "t" : "i") + std::to_string(T.slotId[ps]);
        std::string prev = size_t(ps) < n ? pre + pname : "";
        // The children by join point (creation order within each).
        std::map<uint32_t, std::vector<uint32_t>> byJoin;
        for (int64_t j = T.kidOff[ps]; j < T.kidOff[ps + 1]; j++)
          byJoin[T.joinsAt[T.kids[j]]].push_back(T.kids[j]);
        for (auto &[jn, group] : byJoin) {
          for (uint32_t k : group) {
            std::string f = pre + "f." + pname + "." + std::to_string(T.childNumber[k]);
            std::string t = taskId(run, p, k);
            if (nodes) {
              o << "    <node id=\"" << htmlEscape(f)
                << "\"><data key=\"grain_type\">fork</data><data "
                   "key=\"label\">fork "
                << htmlEscape(pname) << "</data></node>\n";
              GrainMetrics m = an.taskMetrics(k);
              w.grainNode(t, "task", true, T.execc[k], T.thread[k],
                          an.taskGrainName(k), T.creation[k], m);
              o << "<data key=\"source_location\">"
                << htmlEscape(an.maps.get(T.codeptr[k]).second)
                << "</data></node>\n";
            } else {
              if (!prev.empty())
                w.edge(prev, f, "continuation");
              w.edge(f, t, "creation");
            }
            prev = f;
          }
          std::string j = pre + "j." + pname + "." + std::to_string(jn);
          if (nodes) {
            o << "    <node id=\"" << htmlEscape(j)
              << "\"><data key=\"grain_type\">join</data><data "
                 "key=\"label\">join "
              << htmlEscape(pname) << "</data></node>\n";
          } else {
            w.edge(prev, j, "continuation");
            for (uint32_t k : group)
              w.edge(taskId(run, p, k), j, "synchronization");
          }
          prev = j;
        }
      }
    }
  }
  o << "  </graph>\n</graphml>\n";
  o.close();
}

} // namespace gcg

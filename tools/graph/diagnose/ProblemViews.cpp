// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ProblemViews.cpp - the grains each problem flags, per problem type -===//
//
// Per grain its problem flags (one byte), per flag the grains it flags and
// those of them on the critical path, and the line that says so
// (ProblemViews.h).
//
//===----------------------------------------------------------------------===//
#include "ProblemViews.h"
#include "GrainDag.h"
#include "Outliers.h"
#include "Problems.h"
#include "Run.h"

namespace gcg {

ProblemMasks problemMasks(const Analysis &an) {
  ProblemMasks m;
  m.chunks.resize(an.chunks.size());
  for (size_t i = 0; i < an.chunks.size(); i++)
    m.chunks[i] = uint8_t(an.chunkMetrics(i).problems);
  m.tasks.resize(an.tasks.size());
  for (size_t k = 0; k < an.tasks.size(); k++)
    m.tasks[k] = uint8_t(an.taskMetrics(k).problems);
  return m;
}

std::vector<ProblemCount> problemCounts(const ProblemMasks &m,
                                        const CritPath &cp) {
  std::vector<ProblemCount> c(P_COUNT);
  for (int p = 0; p < P_COUNT; p++)
    c[p].flag = p;
  auto add = [&](const std::vector<uint8_t> &masks) {
    for (uint8_t x : masks)
      for (int p = 0; x && p < P_COUNT; p++)
        c[p].grains += (x >> p) & 1;
  };
  add(m.chunks);
  add(m.tasks);
  for (int p = 0; p < P_COUNT; p++) {
    c[p].pathKnown = cp.acyclic;
    for (uint64_t i : cp.chunks)
      c[p].onPath += (m.chunks[i] >> p) & 1;
    for (uint64_t k : cp.tasks)
      c[p].onPath += (m.tasks[k] >> p) & 1;
  }
  return c;
}

std::string outlierRule() {
  return fmt(
      "work above its loop instance's, sibling tasks' or site's median by "
      "more than %g MADs, %g%% of a thread's share and %g us",
      OutlierMads, OutlierShare * 100, OutlierMinNs / 1000);
}

std::string problemCondition(int flag) {
  if (flag == P_OUTLIER)
    return "outlier (" + outlierRule() + ")";
  return fmt("%s (%c %g)", Thresholds[flag].name, Thresholds[flag].op,
             Thresholds[flag].value);
}

std::string problemGraphName(int flag) {
  return std::string("problems/") + problemName(flag) + ".graphml";
}

std::string problemCountLine(const ProblemCount &c) {
  std::string s = fmt("%llu grain%s %s %s, ", (unsigned long long)c.grains,
                      c.grains == 1 ? "" : "s", c.grains == 1 ? "has" : "have",
                      problemCondition(c.flag).c_str());
  if (!c.pathKnown)
    return s + "critical path unknown (the grain graph has a cycle)";
  return s +
         fmt("%llu of them on the critical path", (unsigned long long)c.onPath);
}

} // namespace gcg

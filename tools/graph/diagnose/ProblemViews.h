// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ProblemViews.h - the grains each problem flags, per problem type ---===//
//
// The prototype's per-problem views (grain-graphs'
// diagnose-performance-problems): for each problem type (a threshold of
// Analysis.h's Thresholds, or an outlier chunk of Problems.h) the grains it
// flags and how many of them are on the critical path, the prototype's
// ".info" line "N grains have <condition>, M of them on the critical path".
// The summary prints the lines, report.html's "view" selector highlights
// the grains, and the problem-graphs output writes a copy of the grain
// graph per type with them red (GraphmlWriter.cpp). The flags are the
// analysis' (GrainMetrics::problems), computed once per grain here.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_PROBLEMVIEWS_H
#define GRAINCHUNK_GRAPH_PROBLEMVIEWS_H

#include "GrainDag.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gcg {

struct Run;

/// Per grain of one process, its problems (bit p: flag P_p).
struct ProblemMasks {
  std::vector<uint8_t> chunks, tasks; // by chunk, by task index
};
ProblemMasks problemMasks(const Analysis &an);

/// One problem type's count: the grains it flags and, of them, those on
/// the critical path (pathKnown false: some process's graph had a cycle).
struct ProblemCount {
  int flag = 0;
  uint64_t grains = 0, onPath = 0;
  bool pathKnown = true;
};
/// Per flag 0 .. P_COUNT-1, one process's counts, of its masks and its
/// critical path.
std::vector<ProblemCount> problemCounts(const ProblemMasks &m,
                                        const CritPath &cp);

/// A flag's condition: "parallel_benefit (< 1)", "outlier (" outlierRule()
/// ")".
std::string problemCondition(int flag);
/// The outlier rule in words (Problems.h), as the summary and the views
/// give it.
std::string outlierRule();
/// The file name problem-graphs gives a flag's graph: problems/<name>.graphml.
std::string problemGraphName(int flag);
/// "N grains have <condition>, M of them on the critical path".
std::string problemCountLine(const ProblemCount &c);

} // namespace gcg

#endif

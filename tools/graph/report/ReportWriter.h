// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ReportWriter.h - report.html: one self-contained page of the run ---===//
//
// out/report.html, the page a user opens first: the run's facts, a timeline
// per process and thread, the grain graph (aggregated, expandable) with its
// critical path, and the problems ranked by time lost, each linking to its
// grains. One file: the page's script and style (tools/graph/report/,
// embedded at build time) and the run's data as JSON, inline; no network.
// Every grain up to Caps::report grains, above it one bar per loop instance
// and thread and per task creation site and thread. An MPI job's page is
// assembled by rank 0 from its ranks' fragments (writeReportPart,
// mergeReport), the same bytes as the job's recording analysed whole.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_REPORTWRITER_H
#define GRAINCHUNK_GRAPH_REPORTWRITER_H

#include "Writers.h"

#include <string>
#include <vector>

namespace gcg {

/// One problem the report's panel lists: a loop or task creation site, the
/// thread time it lost, and what to do about it.
struct ReportProblem {
  std::string loop;    // a loop's name (the legend's), selects its grains;
                       // empty for a task creation site
  std::string site;    // a task creation site's name (the legend's), selects
                       // its tasks; empty for a loop
  std::string title;   // one line
  std::string detail;  // the figures behind it
  std::string suggest; // what to try
  double lostNs = 0;   // thread time lost (ns): the rank
  std::vector<std::string> outliers; // its outlier chunks' ids (chunkId)
};

/// The problems the report lists, most time lost first: the summary's
/// ranking (Problems.h, rankProblems) over every process.
std::vector<ReportProblem> problemsForReport(const Results &R);

/// Writes report.html; leftOut is what the other files left out (listed
/// on the page), and gets the report's own entry when it aggregates.
void writeReport(const Results &R, const std::string &path, const Caps &caps,
                 const std::string &version, std::vector<LeftOut> &leftOut);

/// An MPI rank's fragment of the job's page (its processes' part of a job
/// of jobGrains grains and jobProcs processes): what its processes give the
/// page at every level it may take (every grain when the job is within
/// caps.report; the loops' bars at any block; the graph).
void writeReportPart(const Results &R, const std::string &path,
                     const Caps &caps, uint64_t jobGrains, size_t jobProcs);

struct RunDigest;
/// Rank 0: the job's report.html from the ranks' fragments (rank, path;
/// in rank order) and their digests, as writeReport of the whole job
/// writes it. Throws an Error naming the rank of a damaged fragment.
void mergeReport(const RunDigest &D,
                 const std::vector<std::pair<int, std::string>> &frags,
                 const std::string &path, const Caps &caps,
                 const std::string &version, std::vector<LeftOut> &leftOut);

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ReportPage.h - report.html's page model, inside report/ --*- C++ -*-===//
//
// What the two halves of report/ share: ReportWriter.cpp (the page from one
// command's Results, and its assembly, reportPage and writePage) and
// ReportPart.cpp (an MPI rank's fragment of the page, written and read back,
// and rank 0's merge). The page is assembled from a PageSource: per process
// its pieces (PageProc, ProcGraph, the bars through a BarFn, the loop bars
// from a LoopSource) and the run's (PageRun). Declarations only, but for the
// small types; not installed and not included outside report/:
// ReportWriter.h is the interface.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_REPORTPAGE_H
#define GRAINCHUNK_GRAPH_REPORTPAGE_H

#include "LoopTable.h"
#include "ReportWriter.h"

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gcg {

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

/// The names, indexed in their order (the legend's: the colours' order).
Names seeded(const std::vector<std::string> &names);

//===-- What the page needs of each process -------------------------------===//
//
// The page is assembled (reportPage) from a PageSource: per process its
// facts, timeline rows, instance steps, graph (at `every` or aggregated) and
// bars (every grain, or per loop span of `block` instances and per task
// site). One command's source is its Results (ResultsSource); an MPI job's
// is its ranks' fragments (PartSource): each rank writes what its processes
// give at every level the page may take (writeReportPart), so rank 0 chooses
// the level as one command does, with the same code, and gets the same page.

/// A bar: (thread, start, duration, legend k, instance, first and last
/// iteration, crit/unknown, number, grains, problem mask, per problem type
/// the grains it flags or null).
using BarFn = std::function<void(
    int th, int64_t s, int64_t d, int k, int64_t inst, int64_t lo, int64_t hi,
    int c, int64_t n, int64_t count, unsigned pm, const uint32_t *fc)>;

/// A process's graph as the page draws it: each group's JSON after its
/// process index ("{\"p\":<p>"), each member's after its group, the edges
/// between its groups (from, to, on the drawn critical path), and the
/// level's text when coarser than a node per loop instance and thread.
struct ProcGraph {
  std::vector<std::string> groups;
  std::vector<std::pair<uint32_t, std::string>> members;
  std::vector<std::array<uint32_t, 3>> edges;
  std::string coarser;
};

/// A process's level-independent pieces.
struct PageProc {
  std::string json, prefix, who; // its "procs" entry; id prefix; rank/pid
  std::vector<int> threads;
  uint64_t chunks = 0, tasks = 0;
  /// Per legend index: its instances with thread time lost, and the first
  /// InstanceSteps of them most lost first (lost, start, end, instance).
  std::vector<int64_t> instN;
  std::vector<std::vector<std::array<int64_t, 4>>> instTop;
};

/// Per (instance, thread), or (span's first instance, thread), with a
/// flagged chunk: the chunks each problem type flags; by key, one each.
using FlagCounts =
    std::vector<std::pair<std::pair<int, int>, std::array<uint32_t, P_COUNT>>>;

/// f sorted by key, the entries of one key made one: their counts added
/// (add), or the last of them kept.
void byKey(FlagCounts &f, bool add);

/// What the loop bars of a process need at any block: its loop table, per
/// instance its loop's id and legend index, per (instance, thread) the
/// chunks each problem type flags, and its clock. The flags: read from a
/// part, by key (flags); of one command's Results, per row of its loop
/// table a byte: the mask of its one flagged chunk, or that it has more,
/// whose counts are held apart (a byte per row, no sort).
struct LoopSource {
  LoopRows own; // a part's
  const LoopRows *rows = &own;
  /// Results': the loop table (rows, loop ids and start order: keys then
  /// empty); a part's: its keys (per instance its loop's id).
  const LoopTable *table = nullptr;
  /// A part's keys and per instance its legend index; the Results': per
  /// loop site its legend index (siteLegend), by the instances' sites.
  std::vector<int> keys, legend, siteLegend;
  const std::vector<int32_t> *site = nullptr;
  /// Loop instance li's legend index.
  int legendOf(size_t li) const {
    return site ? siteLegend[size_t((*site)[li])] : legend[li];
  }
  const std::vector<int> &loopIds() const {
    return table ? table->loopOf : keys;
  }
  FlagCounts flags;
  /// Results' (else empty): per row, 0 (no flagged chunk), Single | the
  /// mask of its one flagged chunk, or Multi: its counts are in multi (by
  /// row, ascending).
  enum : uint8_t { Single = 0x40, Multi = 0x80 };
  std::vector<uint8_t> rowMask;
  std::vector<std::pair<uint32_t, std::array<uint32_t, P_COUNT>>> multi;
  /// Results' masks (null: a part's flags, by key).
  const std::vector<uint8_t> *chunkMasks = nullptr;
  uint64_t t0 = 0;
  double tpn = 1;
  /// The chunks of row r each problem type flags (x: row r's values, if
  /// at hand).
  std::array<uint32_t, P_COUNT> rowFlags(size_t r,
                                         const LoopThread *x = nullptr) const;
  /// The flags by key, as a part carries them.
  FlagCounts keyedFlags() const;
};

/// The loop bars: per loop instance and thread (block 1) or loop span of
/// `block` instances (CoarseGraph.h) and thread, the chunks each problem
/// type flags (over a span: per its first instance and thread).
void loopBars(const LoopSource &L, uint64_t block, const BarFn &bar);

class PageSource {
public:
  virtual ~PageSource() = default;
  virtual size_t size() const = 0;
  virtual const PageProc &proc(size_t p) = 0;
  virtual const ProcGraph &graph(size_t p, bool every) = 0;
  /// Every grain's bars, or the loop bars at `block` then the task bars.
  virtual void bars(size_t p, bool every, uint64_t block, const BarFn &f) = 0;
};

/// The run-level pieces of the page.
struct PageRun {
  std::string program;
  uint64_t grains = 0, most = 0;
  /// The loops and sites in the order of their colours, and their colours.
  std::vector<std::string> loops, sites;
  std::unordered_map<std::string, std::string> loopColour, siteColour;
  std::string views, problems, across; // JSON arrays, without their "]"
};

/// The colour of name in m (a colour of PageRun), grey when it has none.
std::string colourOf(const std::unordered_map<std::string, std::string> &m,
                     const std::string &name);

/// The JSON arrays of PageRun (without their "]"): the problem views'
/// count lines, the problems listed, the loops across processes.
std::string viewsJson(const std::vector<ProblemCount> &counts);
std::string problemsJson(const std::vector<ReportProblem> &probs);

/// Loops across processes (Results::across), most lost across first.
std::string acrossJson(const std::vector<AcrossLoop> &all);

/// A problem as the report lists it: "rank 1: " before its title when the
/// run has several processes.
ReportProblem reportProblem(const Problem &q, int64_t rank, int64_t pid,
                            bool multi, std::vector<std::string> outliers);

/// Most time lost first (stable: process by process, each its ranking),
/// by the problems' own figure (ms).
std::vector<ReportProblem>
rankForReport(std::vector<std::pair<double, ReportProblem>> ps);

/// One command's run-level pieces of the page.
PageRun pageRunOf(const Results &R);

/// Every grain's bar: each chunk's, each task segment's.
void everyBars(const Results &R, size_t p, Names &loops, Names &sites,
               const BarFn &bar);

/// Tasks aggregated: per creation site and thread, a bar over the segments
/// that follow each other closely, a new one after a gap (the thread idle
/// or running something else there): busy and idle as they were. The gap
/// is the process's span over 2000 (about a pixel of the page), larger
/// where sites x threads would give more than 20,000 bars; n: the running
/// time (ns). A task's problems count in the bar of its first segment.
void taskBars(const Results &R, size_t p, Names &sites, const BarFn &bar);

/// The loop bars' source of process p: its loop table (not copied).
LoopSource loopSourceOf(const Results &R, size_t p, Names &loops);

/// One command's source: its Results.
class ResultsSource : public PageSource {
public:
  ResultsSource(const Results &R, size_t procs, Names &loops, Names &sites)
      : R(R), procs(procs), loops(loops), sites(sites),
        pieces(R.run.procs.size()), graphs(R.run.procs.size()) {}
  size_t size() const override { return R.run.procs.size(); }
  const PageProc &proc(size_t p) override;
  const ProcGraph &graph(size_t p, bool every) override;
  void bars(size_t p, bool every, uint64_t block, const BarFn &f) override;

private:
  struct Bar {
    int th;
    int64_t s, d;
    int k;
    int64_t inst, lo, hi;
    int c;
    int64_t n, count;
    unsigned pm;
    std::array<uint32_t, P_COUNT> fc;
  };
  const Results &R;
  size_t procs;
  Names &loops, &sites;
  std::vector<std::unique_ptr<PageProc>> pieces;
  std::vector<std::array<std::unique_ptr<ProcGraph>, 2>> graphs;
  std::vector<std::unique_ptr<std::vector<Bar>>> tasks;
  std::vector<std::unique_ptr<LoopSource>> sources;
};

/// Every grain up to the grain cap; then, while the page is above the
/// byte cap, bars over ever larger blocks of a loop's instances (as many
/// times more as the page is over), up to one per loop and thread.
void writePage(const PageRun &run, PageSource &src, Names &loops, Names &sites,
               const std::string &path, const Caps &caps,
               const std::string &version, std::vector<LeftOut> &leftOut);

} // namespace gcg

#endif

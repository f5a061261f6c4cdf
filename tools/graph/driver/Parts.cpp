// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Parts.cpp - an MPI job analysed where it ran -----------------------===//
//
// mpirun -np N grainchunk-graph -o D --outputs csv,trace,graphml -- ./app:
// each rank records into its own D/raw/.rank-<r>.rec, says its program
// ended, and at once analyses its own processes (in a process of its own,
// runApart) into its part D/raw/.rank-<r>.part: the grain-free digest of
// its processes (Digest.h), its rows of loops.csv and grains.csv, its
// events of trace.json (timed from the job's first grain), its
// processes' graphs of grains.graphml (coloured by the job's colours;
// aggregated, at the level and in the classes of alike processes the ranks
// choose together, writeGraphPart: its processes' node values and the
// structure of the classes they are first of) and
// its fragment of report.html (ReportWriter.h): the ranks tell each other
// what these need through head marks (JobHead).
// Its recording is then removed (or, with --keep-raw, moved into D/raw, as a
// recording of the whole job). Rank 0, after its own part, waits for every
// rank's and merges them: the rows and events in rank order under one header,
// summary.txt and run.json from the digests. It reads no rank's recording.
//
// The outputs merged so: grains.csv, trace.json, grains.graphml,
// timeline.svg (each rank's lanes drawn in the job's frame, rank 0 the
// picture's head, axis and legend), trace.otf2 (each rank's OTF2 event
// files with the job's ids and a fragment of the definitions,
// Otf2Output.cpp), report.html (each rank's fragment of the page at every
// level the page may take, ReportWriter.cpp), loops.csv, summary.txt,
// run.json: every output by default. Asked for problem graphs
// (--outputs problem-graphs), the job is analysed as before: every rank
// records into D/raw and rank 0 analyses every rank's grains.
//
//===----------------------------------------------------------------------===//
#include "Parts.h"
#include "Digest.h"
#include "Palette.h"
#include "ReportWriter.h"
#include "Writers.h"

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <sys/stat.h>

namespace gcg {

/// Whether rank 0 can merge every output o asks for from the ranks' parts.
bool mergeable(const Options &o) {
  for (const std::string &w : o.outputs)
    if (w != "csv" && w != "trace" && w != "graphml" && w != "svg" &&
        w != "otf2" && w != "report")
      return false;
  return true;
}

static bool asked(const Options &o, const char *w) {
  return std::find(o.outputs.begin(), o.outputs.end(), w) != o.outputs.end();
}

std::string rankDir(const std::string &raw, int k, const char *what) {
  return raw + "/.rank-" + std::to_string(k) + "." + what;
}

/// What a rank's fragments need of the whole job before they are written:
/// the job's grains, its first grain's start (the time origin of the
/// trace), the work of every process's loops and task sites (the run's
/// colours, Palette.h) and each rank's named figures (figuresOf: what a
/// fragment's numbering or scale needs of the ranks before it or of the
/// whole job). Each rank publishes its own (mark .rank-<r>.head: a first
/// line "<grains> <has a first> <first>", a line "figure <name> <value>"
/// per figure, then per process "process <loops> <sites>" and a line
/// "<work, %a> <name's length>" and the name's line per loop and site) and
/// reads every rank's, waiting 120 s at most for those not there yet (a
/// barrier through D, as the other marks).
struct RankHead {
  int rank = 0;
  uint64_t grains = 0, first = 0;
  bool any = false;
  std::map<std::string, uint64_t> figures;
  /// Figure Name, 0 when the rank did not give it.
  uint64_t figure(const std::string &Name) const {
    auto it = figures.find(Name);
    return it == figures.end() ? 0 : it->second;
  }
};
struct JobHead {
  uint64_t grains = 0, first = 0, last = 0;
  bool any = false;
  std::vector<ColourWork> work; // every process's, in rank order
  std::vector<RankHead> ranks;  // the ranks that published theirs, in order
};

/// The outputs whose fragments need the job's head.
bool needsHead(const Options &o) {
  return asked(o, "trace") || asked(o, "graphml") || asked(o, "svg") ||
         asked(o, "otf2") || asked(o, "report") ||
         (asked(o, "csv") && !csvWritten(o, UINT64_MAX)); // by the job's grains
}

/// trace.otf2's figures of a rank: its locations and its distinct regions
/// (the ranks after it number theirs after these).
static void otf2Figures(const Results &R,
                        std::vector<std::pair<std::string, uint64_t>> &f) {
  Otf2Counts c = otf2Counts(R);
  f.emplace_back("otf2-locations", c.locations);
  f.emplace_back("otf2-regions", c.regions);
}

/// The figures a rank's head gives of its processes (RankHead): "last",
/// its last grain's end. Each needs only the rank's own analysis.
static std::vector<std::pair<std::string, uint64_t>>
figuresOf(const Results &R) {
  const Run &run = R.run;
  std::vector<std::pair<std::string, uint64_t>> f;
  uint64_t last = 0;
  for (const auto &a : run.procs)
    if (a->nGrains())
      last = std::max(last, a->lastInstant());
  f.emplace_back("last", last);
  SvgCount svg = svgCount(run); // timeline.svg's lanes and its exact or not
  f.emplace_back("svg-lanes", svg.lanes);
  f.emplace_back("svg-spans", svg.spans);
  otf2Figures(R, f);
  f.emplace_back("graph-most", graphmlMost(R)); // the level search's
  return f;
}

static std::string headText(const Results *R) {
  const Run *run = R ? &R->run : nullptr;
  uint64_t n = run ? run->grains() : 0;
  std::string t = std::to_string(n) + " " + (n ? "1 " : "0 ") +
                  std::to_string(n ? run->firstInstant() : 0) + "\n";
  if (!run)
    return t;
  for (const auto &f : figuresOf(*R))
    t += "figure " + f.first + " " + std::to_string(f.second) + "\n";
  char b[64];
  auto item = [&](const std::pair<std::string, double> &x) {
    std::snprintf(b, sizeof b, "%a ", x.second);
    t += b + std::to_string(x.first.size()) + "\n" + x.first + "\n";
  };
  for (const ColourWork &cw : colourWorkOf(*run)) {
    t += "process " + std::to_string(cw.loops.size()) + " " +
         std::to_string(cw.sites.size()) + "\n";
    std::for_each(cw.loops.begin(), cw.loops.end(), item);
    std::for_each(cw.sites.begin(), cw.sites.end(), item);
  }
  return t;
}

/// The figures and the processes' work in rank k's head mark (after its
/// first line); throws on anything a rank does not write.
static std::vector<ColourWork>
headWork(std::istream &in, int k, std::map<std::string, uint64_t> &figures) {
  std::vector<ColourWork> out;
  std::string line;
  auto bad = [&]() {
    return Error("rank " + std::to_string(k) +
                 "'s head mark is not what a rank writes");
  };
  while (std::getline(in, line)) {
    unsigned long nl = 0, ns = 0;
    char name[64];
    unsigned long long v = 0;
    if (out.empty() &&
        std::sscanf(line.c_str(), "figure %63s %llu", name, &v) == 2) {
      figures[name] = v;
      continue;
    }
    if (std::sscanf(line.c_str(), "process %lu %lu", &nl, &ns) != 2)
      throw bad();
    ColourWork cw;
    for (unsigned long i = 0; i < nl + ns; i++) {
      double w = 0;
      unsigned long len = 0;
      std::string name;
      if (!std::getline(in, line) ||
          std::sscanf(line.c_str(), "%la %lu", &w, &len) != 2 ||
          len > (1ul << 24))
        throw bad();
      name.resize(len); // any bytes, a newline too
      if (!in.read(&name[0], std::streamsize(len)) || in.get() != '\n')
        throw bad();
      (i < nl ? cw.loops : cw.sites).emplace_back(std::move(name), w);
    }
    out.push_back(std::move(cw));
  }
  return out;
}

static JobHead jobHead(const RankInfo &rk, const std::string &raw,
                       const Results *R) {
  JobHead h;
  std::string err, text;
  if (!mpiRankMark(rk, raw, "head", headText(R), err))
    throw Error(err);
  std::vector<int> all, missing;
  for (int k = 0; k < rk.Size; k++)
    all.push_back(k);
  mpiWaitMarks(all, raw, "head", 120, missing);
  for (int k : all) {
    unsigned long long g = 0, f = 0;
    int any = 0;
    if (!mpiReadMark(k, raw, "head", text) ||
        std::sscanf(text.c_str(), "%llu %d %llu", &g, &any, &f) != 3)
      continue; // missing: left out of the merge too
    RankHead r;
    r.rank = k;
    r.grains = g;
    r.first = f;
    r.any = any;
    h.grains += g;
    if (any && (!h.any || f < h.first))
      h.first = f;
    h.any = h.any || any;
    std::ifstream in(rankDir(raw, k, "head"));
    std::getline(in, text);
    std::vector<ColourWork> w = headWork(in, k, r.figures);
    h.work.insert(h.work.end(), std::make_move_iterator(w.begin()),
                  std::make_move_iterator(w.end()));
    if (any)
      h.last = std::max(h.last, r.figure("last"));
    h.ranks.push_back(std::move(r));
  }
  return h;
}

/// A part's <name>.how: what its capped fragment holds (CapResult), one
/// line "every", or "aggregated" and how on the next.
static void writeHow(const std::string &path, const CapResult &r) {
  OutFile how(path);
  how << (r.every ? std::string("every\n") : "aggregated\n" + r.how + "\n");
  how.close();
}
static CapResult readHow(const std::string &path, const std::string &bad) {
  std::ifstream in(path);
  std::string first;
  CapResult r;
  if (!std::getline(in, first) ||
      (first != "every" && (first != "aggregated" || !std::getline(in, r.how))))
    throw Error(bad + path.substr(path.rfind('/')) +
                " is not what a rank writes");
  r.every = first == "every";
  return r;
}

/// The trace.json part of a rank: every grain when the job's trace has
/// (the run's grain cap, as one command decides), else aggregated within
/// the rank's share of the job's byte caps (its grains' share), its
/// grains timed from the job's first grain. trace.how says which.
/// Every rank's mark Name, in the order of the head's ranks: the ranks
/// exchanging figures (a barrier through D, as the head).
static std::vector<std::string>
exchange(const RankInfo &rk, const std::string &raw, const JobHead &h,
         const std::string &name, const std::string &mine) {
  std::string err;
  if (!mpiRankMark(rk, raw, name, mine, err))
    throw Error(err);
  std::vector<int> all, missing;
  for (const RankHead &r : h.ranks)
    all.push_back(r.rank);
  mpiWaitMarks(all, raw, name, 120, missing);
  std::vector<std::string> out;
  for (int k : all) {
    std::string text;
    if (!mpiReadMark(k, raw, name, text))
      throw Error("rank " + std::to_string(k) + " gave no " + name +
                  " mark (the ranks choose grains.graphml's level together)");
    out.push_back(text);
  }
  return out;
}

namespace {
/// trace.json's choices made by the ranks together (TraceJob): each gives
/// its figure in a mark trace-<n> and reads every rank's, so every rank
/// makes one command's choices for the whole job; the job's file is the
/// head line, the parts' events joined by ",\n" in rank order (the ranks
/// with processes) and the first such part's tail (mergeTrace).
class RankTrace : public TraceJob {
public:
  RankTrace(const RankInfo &rk, const std::string &raw, const JobHead &h)
      : rk(rk), raw(raw), h(h) {}
  uint64_t figure(const std::string &name, uint64_t mine, bool add) override {
    uint64_t v = 0;
    for (const std::string &t : marks(std::to_string(mine))) {
      uint64_t x = number(t, name);
      v = add ? v + x : std::max(v, x);
    }
    return v;
  }
  uint64_t fileBytes(const TraceWritten *mine) override {
    uint64_t bytes = TraceHead.size(), parts = 0;
    for (const auto &[events, tail] : partsOf(mine, false)) {
      bytes += events + (parts ? 2 : 0) + (parts ? 0 : tail);
      parts++;
    }
    return bytes;
  }
  uint64_t before(const TraceWritten *mine) override {
    uint64_t b = 0;
    for (const auto &part : partsOf(mine, true))
      b += part.first + 2;
    return b;
  }

private:
  std::vector<std::string> marks(const std::string &mine) {
    return exchange(rk, raw, h, "trace-" + std::to_string(round++), mine);
  }
  uint64_t number(const std::string &t, const std::string &what) {
    char *e = nullptr;
    unsigned long long v = std::strtoull(t.c_str(), &e, 10);
    if (t.empty() || (*e && *e != ' '))
      throw Error("a rank's trace.json figure (" + what +
                  ") is not what a rank writes: " + printable(t));
    return v;
  }
  /// Per rank with processes (its part has a file), in rank order: its
  /// events' and its tail's bytes; earlier: only the ranks before this one.
  std::vector<std::pair<uint64_t, uint64_t>> partsOf(const TraceWritten *mine,
                                                     bool earlier) {
    std::string m =
        mine ? std::to_string(mine->events) + " " + std::to_string(mine->tail)
             : "-";
    std::vector<std::string> all = marks(m);
    std::vector<std::pair<uint64_t, uint64_t>> out;
    for (size_t i = 0; i < all.size(); i++) {
      if (earlier && h.ranks[i].rank == rk.Rank)
        break;
      if (all[i] == "-")
        continue;
      size_t sp = all[i].find(' ');
      if (sp == std::string::npos)
        throw Error("a rank's trace.json figure is not what a rank writes: " +
                    printable(all[i]));
      out.push_back({number(all[i].substr(0, sp), "events"),
                     number(all[i].substr(sp + 1), "tail")});
    }
    return out;
  }
  const RankInfo &rk;
  const std::string &raw;
  const JobHead &h;
  int round = 0;
};
} // namespace

/// The trace.json part of a rank (R: null for a rank without processes,
/// which still takes part in the ranks' choices), at the level one command
/// chooses for the whole job (RankTrace); trace.how says which.
static void writeTracePart(const Options &o, const RankInfo &rk,
                           const std::string &raw, const Results *R,
                           const JobHead &h, const std::string &part) {
  RankTrace job(rk, raw, h);
  CapResult r = writeTraceCapped(R, part + "/trace.json", o.caps, &job);
  if (R)
    writeHow(part + "/trace.how", r);
}

namespace {
/// The level search's figures of an MPI job (CoarseGraph.h: ShapeSearch):
/// each rank gives its own processes' in marks graph-<n>a (per process
/// its nodes, edges, grain kinds, rank and pid) and graph-<n>b (the
/// shapes asked for, and at a level that may fit, every process's bytes
/// written alone), and reads every rank's: every rank runs the same search
/// on the same figures, as one command runs it on the whole job.
class RankFigures : public GraphmlFigures {
public:
  RankFigures(const RankInfo &rk, const std::string &raw, const JobHead &h,
              const Results *R)
      : rk(rk), raw(raw), h(h), R(R) {}
  size_t base = 0; // the job's index of this rank's first process
  std::vector<ProcessShape> sizes(const CoarseLevel &level) override {
    std::string mine;
    size_t n = R ? R->run.procs.size() : 0;
    for (size_t p = 0; p < n; p++) {
      uint64_t nodes = 0, edges = 0;
      const Analysis &an = *R->run.procs[p];
      coarseGraphSize(an, R->procs[p].loopTable, level, nodes, edges);
      GrainKinds k = grainKinds(an);
      mine += std::to_string(nodes) + " " + std::to_string(edges) + " " +
              std::to_string(int(k.loops)) + " " +
              std::to_string(int(k.tasks)) + " " +
              std::to_string(an.proc.rank) + " " + std::to_string(an.proc.pid) +
              "\n";
    }
    std::vector<std::string> all = exchange(
        rk, raw, h, "graph-" + std::to_string(sizeRound++) + "a", mine);
    std::vector<ProcessShape> f;
    bool first = ranks.empty();
    counts.clear();
    for (size_t i = 0; i < all.size(); i++) {
      if (h.ranks[i].rank == rk.Rank)
        base = f.size();
      std::istringstream in(all[i]);
      std::string line;
      size_t c = 0;
      while (std::getline(in, line)) {
        ProcessShape x;
        int loops = 0, tasks = 0;
        long long rank = 0, pid = 0;
        if (std::sscanf(line.c_str(), "%" SCNu64 " %" SCNu64 " %d %d %lld %lld",
                        &x.nodes, &x.edges, &loops, &tasks, &rank, &pid) != 6)
          throw Error("rank " + std::to_string(h.ranks[i].rank) +
                      "'s graph figures are not what a rank writes");
        if (first) {
          ranks.push_back(rank);
          pids.push_back(pid);
          kinds.loops |= loops != 0;
          kinds.tasks |= tasks != 0;
        }
        f.push_back(x);
        c++;
      }
      counts.push_back(c);
    }
    return f;
  }
  void shapes(const CoarseLevel &level, std::vector<ProcessShape> &f,
              const std::vector<uint8_t> &need, bool bytesLikely) override {
    std::string mine;
    size_t n = R ? R->run.procs.size() : 0;
    char b[160];
    for (size_t p = 0; p < n; p++) {
      ProcessShape x;
      graphmlProcessFigures(*R, p, level, -1, x, need.at(base + p),
                            bytesLikely);
      std::snprintf(b, sizeof b,
                    "%d %" PRIu64 " %" PRIu64 " %d %" PRIu64 " %" PRIu64
                    " %" PRIu64 "\n",
                    int(x.shaped), x.shape.a, x.shape.b, int(x.sized), x.bytes,
                    x.edgesOut, x.groups);
      mine += b;
    }
    std::vector<std::string> all =
        exchange(rk, raw, h, "graph-" + std::to_string(round++) + "b", mine);
    size_t at = 0;
    for (size_t i = 0; i < all.size(); i++) {
      std::istringstream in(all[i]);
      std::string line;
      size_t c = 0;
      while (std::getline(in, line)) {
        int shaped = 0, sized = 0;
        ProcessShape &x = f.at(at);
        if (std::sscanf(line.c_str(),
                        "%d %" SCNu64 " %" SCNu64 " %d %" SCNu64 " %" SCNu64
                        " %" SCNu64,
                        &shaped, &x.shape.a, &x.shape.b, &sized, &x.bytes,
                        &x.edgesOut, &x.groups) != 7)
          throw Error("rank " + std::to_string(h.ranks[i].rank) +
                      "'s graph figures are not what a rank writes");
        x.shaped = shaped, x.sized = sized;
        at++, c++;
      }
      if (c != counts[i])
        throw Error("rank " + std::to_string(h.ranks[i].rank) +
                    "'s graph figures are not what a rank writes");
    }
  }
  void bytes(const CoarseLevel &, std::vector<ProcessShape> &f,
             const std::vector<uint32_t> &first) override {
    for (uint32_t p : first) // given with the shapes where they may fit
      if (!f[p].sized)
        throw Error("grains.graphml: a rank did not size its graph");
  }

private:
  const RankInfo &rk;
  const std::string &raw;
  const JobHead &h;
  const Results *R;
  int round = 0, sizeRound = 0; // the marks' numbers: each round its own
  std::vector<size_t> counts;   // per rank its processes
};
} // namespace

/// The grains.graphml part of a rank (R: null for a rank without
/// processes, which still takes part in the ranks' choices), as one
/// command decides for the whole job: every grain when the job is within
/// the grain cap and the merged file (each rank's nodes and edges: mark
/// graph-full) within the byte cap, else the classes' DAGs at the level
/// the ranks choose together (RankFigures), this rank's processes' values
/// and, for the classes they are the first of, their structure
/// (graph.shapes). graph.how says which.
static void writeGraphPart(const Options &o, const RankInfo &rk,
                           const std::string &raw, const Results *R,
                           const JobHead &h, const std::string &part) {
  const Caps &caps = o.caps;
  if (h.grains <= caps.graph &&
      h.grains * GraphmlFullGrainBytes <= caps.graphBytes) {
    uint64_t bytes = 0, edges = 0;
    if (R) {
      writeGraphml(*R, part + "/grains.graphml");
      graphmlBody(part + "/grains.graphml", bytes, edges);
    }
    std::vector<std::pair<uint64_t, uint64_t>> bodies;
    for (const std::string &t : exchange(
             rk, raw, h, "graph-full",
             R ? std::to_string(bytes) + " " + std::to_string(edges) : "")) {
      unsigned long long b = 0, e = 0;
      if (std::sscanf(t.c_str(), "%llu %llu", &b, &e) == 2)
        bodies.emplace_back(b, e);
    }
    if (graphmlMergedBytes(bodies) <= caps.graphBytes) {
      if (R)
        writeHow(part + "/graph.how", CapResult());
      return;
    }
    if (R)
      std::remove((part + "/grains.graphml").c_str());
  }
  uint64_t most = 0;
  for (const RankHead &r : h.ranks)
    most = std::max(most, r.figure("graph-most"));
  RankFigures F(rk, raw, h, R);
  ShapeLevel s = graphmlShapeLevel(F, caps.graphBudget(h.grains), most);
  if (!R)
    return;
  writeGraphmlShapes(*R, part + "/graph.shapes", s, F.base);
  CapResult r;
  r.every = false;
  r.how = graphmlHow(s, F.kinds);
  writeHow(part + "/graph.how", r);
}

/// The timeline.svg pieces of rank rk (SvgWriter.cpp) in the job's frame:
/// from the job's first grain to its last, every span a rectangle or busy
/// time per pixel as the job's spans decide (the ranks' "svg-spans"), its
/// lanes after those of the ranks before it ("svg-lanes").
static void writeSvgPiece(const RankInfo &rk, const Results &R,
                          const JobHead &h, const std::string &part) {
  SvgJob j;
  j.grains = h.grains;
  j.first = h.first;
  j.last = h.last;
  j.any = h.any;
  for (const RankHead &r : h.ranks) {
    if (r.rank < rk.Rank)
      j.laneOffset += r.figure("svg-lanes");
    j.lanes += r.figure("svg-lanes");
    j.spans += r.figure("svg-spans");
  }
  writeSvgPart(R, j, part);
}

/// The trace.otf2 part of a rank: its locations' event files numbered
/// after the locations of the ranks before it, its regions after theirs
/// (their regions fragments, written before their heads), and its
/// definitions fragment (Otf2Output.cpp).
static void writeOtf2PartOf(const Results &R, const JobHead &h,
                            const RankInfo &rk, const std::string &raw,
                            const std::string &part) {
  uint64_t base = 0;
  std::vector<std::string> earlier;
  for (const RankHead &r : h.ranks)
    if (r.rank < rk.Rank) {
      base += r.figure("otf2-locations");
      if (r.figure("otf2-regions"))
        earlier.push_back(rankDir(raw, r.rank, "part") + "/otf2.regions");
    }
  writeOtf2Part(R, part, base, earlier, h.last);
}

/// The entries of a directory (not . and ..).
std::vector<std::string> entriesOf(const std::string &d) {
  std::vector<std::string> out;
  if (DIR *dp = opendir(d.c_str())) {
    while (dirent *e = readdir(dp))
      if (std::strcmp(e->d_name, ".") && std::strcmp(e->d_name, ".."))
        out.push_back(e->d_name);
    closedir(dp);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A rank's part: its processes analysed (as processes of a larger run:
/// their grain ids prefixed p<pid>.), the digest and its rows of the
/// outputs rank 0 merges.
void writePart(const Options &o, const RankInfo &rk, const std::string &raw,
               const std::string &rec, const std::string &part) {
  if (mkdir(part.c_str(), 0777) != 0)
    throw Error("cannot create " + part + ": " + std::strerror(errno));
  if (entriesOf(rec).empty()) { // no process of the rank started OpenMP
    if (needsHead(o)) {
      JobHead h = jobHead(rk, raw, nullptr);
      if (asked(o, "trace")) // the ranks choose its level together
        writeTracePart(o, rk, raw, nullptr, h, part);
      if (asked(o, "graphml")) // the ranks choose its level together
        writeGraphPart(o, rk, raw, nullptr, h, part);
    }
    writeDigestFile({}, part + "/digest");
    return;
  }
  std::unique_ptr<Run> run = analyseRun({rec}, {});
  run->partOfMany = true;
  std::unique_ptr<Results> R = computeResults(*run);
  // grains.csv: asked for by --outputs, or within --max-csv-grains counted
  // over the job's grains (the head's), as one command counts them.
  bool csvByJob = asked(o, "csv") && !csvWritten(o, UINT64_MAX);
  if (asked(o, "csv") && !csvByJob)
    writeCsv(*R, part + "/grains.csv");
  if (asked(o, "otf2")) // before the head: the ranks after it read it
    writeOtf2Regions(*R, part + "/otf2.regions");
  if (needsHead(o)) {
    JobHead h = jobHead(rk, raw, R.get());
    if (csvByJob && csvWritten(o, h.grains))
      writeCsv(*R, part + "/grains.csv");
    run->hasOrigin = h.any;
    run->origin = h.first;
    R->colours = coloursOf(h.work); // the job's, as one command's
    if (asked(o, "trace"))
      writeTracePart(o, rk, raw, R.get(), h, part);
    if (asked(o, "graphml"))
      writeGraphPart(o, rk, raw, R.get(), h, part);
    if (asked(o, "svg"))
      writeSvgPiece(rk, *R, h, part);
    if (asked(o, "otf2"))
      writeOtf2PartOf(*R, h, rk, raw, part);
    if (asked(o, "report"))
      writeReportPart(*R, part + "/report.part", o.caps, h.grains,
                      h.work.size());
  }
  writeLoopsCsv(*R, part + "/loops.csv");
  // Last: a part with its digest is whole.
  writeDigestFile(digestsOf(*R), part + "/digest");
}

/// Appends rank k's rows of an output (its fragment less its header line,
/// which must be Header; the first fragment's header is written first).
static void appendRows(OutFile &out, std::string &header,
                       const std::string &frag, int k) {
  std::ifstream in(frag, std::ios::binary);
  std::string line;
  if (!in || !std::getline(in, line))
    throw Error("rank " + std::to_string(k) + "'s part: no " + frag);
  if (header.empty()) {
    header = line;
    out << header << '\n';
  } else if (line != header) {
    throw Error("rank " + std::to_string(k) + "'s part: " + frag +
                " has other columns than rank 0's (every rank must run the "
                "same grainchunk-graph)");
  }
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount())
    out.put(buf, size_t(in.gcount()));
}

/// trace.json from the ranks' fragments: each rank's events (its file less
/// its first line and its tail, from the last "\n], \"displayTimeUnit\"")
/// joined as one command writes them, rank 0's tail, or the first
/// aggregated rank's when any rank aggregated (its how in the left-out
/// line).
static void mergeTrace(const std::string &raw, const std::vector<int> &ranks,
                       const std::vector<size_t> &procs, OutputDir &dir,
                       const Options &o, const RunDigest &D, Written &w) {
  static const std::string &Head = TraceHead, Tail = "\n], \"displayTimeUnit\"";
  std::string err, tail, how;
  bool every = true;
  if (!dir.claim("trace.json", err))
    throw Error(err);
  OutFile out(dir.path("trace.json"));
  out << Head;
  bool first = true;
  for (size_t i = 0; i < ranks.size(); i++) {
    if (!procs[i])
      continue;
    std::string part = rankDir(raw, ranks[i], "part");
    std::string bad = "rank " + std::to_string(ranks[i]) + "'s part: " + part;
    CapResult rc = readHow(part + "/trace.how", bad);
    std::ifstream in(part + "/trace.json", std::ios::binary);
    in.seekg(0, std::ios::end);
    std::streamoff size = in ? std::streamoff(in.tellg()) : -1;
    std::string back(size_t(std::min<std::streamoff>(
                         std::max<std::streamoff>(size, 0), 4096)),
                     '\0');
    in.seekg(size - std::streamoff(back.size()));
    in.read(&back[0], std::streamsize(back.size()));
    size_t at = in ? back.rfind(Tail) : std::string::npos;
    std::string head(Head.size(), '\0');
    in.seekg(0);
    in.read(&head[0], std::streamsize(head.size()));
    if (!in || head != Head || at == std::string::npos)
      throw Error(bad + "/trace.json is not a trace.json fragment");
    std::streamoff end = size - std::streamoff(back.size() - at);
    if (!rc.every && every) {
      every = false;
      how = rc.how;
      tail = back.substr(at);
    } else if (tail.empty()) {
      tail = back.substr(at);
    }
    if (!first)
      out << ",\n";
    first = false;
    char buf[1 << 16];
    for (std::streamoff left = end - std::streamoff(Head.size()); left > 0;) {
      in.read(buf, std::streamsize(std::min<std::streamoff>(left, sizeof buf)));
      if (in.gcount() <= 0)
        throw Error(bad + "/trace.json: cannot read it");
      out.put(buf, size_t(in.gcount()));
      left -= in.gcount();
    }
  }
  out << tail;
  out.close();
  w.files.push_back("trace.json");
  if (!every) {
    uint64_t grains = 0;
    for (const ProcessDigest &d : D.procs)
      grains += d.chunks + d.tasks;
    w.leftOut.push_back(traceLeftOut(o, grains, how, asked(o, "otf2")));
  }
}

/// grains.graphml from the ranks' fragments: with every grain, the first
/// rank's header, each rank's nodes and edges (a DAG per process from
/// start to end) in rank order, the edges numbered on through the job as
/// one command numbers them, and the tail; aggregated (every rank's
/// graph.how says so: the ranks decide it together), the classes' DAGs
/// from the ranks' graph.shapes (mergeGraphmlShapes). Left out as one
/// command says it.
static void mergeGraph(const std::string &raw, const std::vector<int> &ranks,
                       const std::vector<size_t> &procs, OutputDir &dir,
                       const Options &o, const RunDigest &D, Written &w) {
  static const std::string Open =
      "  <graph id=\"grain-graph\" edgedefault=\"directed\">";
  static const std::string Close = "  </graph>", Edge = "    <edge id=\"e";
  std::string err, header, how;
  std::vector<std::string> frags, shapes, who;
  for (size_t i = 0; i < ranks.size(); i++) {
    if (!procs[i])
      continue;
    std::string part = rankDir(raw, ranks[i], "part"), line;
    std::string bad = "rank " + std::to_string(ranks[i]) + "'s part: " + part;
    CapResult rc = readHow(part + "/graph.how", bad);
    if (!rc.every) { // the classes' DAGs (writeGraphPart)
      how = rc.how;
      shapes.push_back(part + "/graph.shapes");
      who.push_back("rank " + std::to_string(ranks[i]) + "'s part");
      continue;
    }
    std::ifstream in(part + "/grains.graphml", std::ios::binary);
    std::string head;
    while (std::getline(in, line) && line != Open)
      head += line + "\n";
    if (!in)
      throw Error(bad + "/grains.graphml is not a grains.graphml fragment");
    if (header.empty())
      header = head + Open + "\n";
    frags.push_back(part + "/grains.graphml");
  }
  if (!shapes.empty() && !frags.empty())
    throw Error("the ranks' parts disagree on whether grains.graphml is "
                "aggregated (every rank must run the same grainchunk-graph)");
  if (!dir.claim("grains.graphml", err))
    throw Error(err);
  if (!shapes.empty()) {
    mergeGraphmlShapes(shapes, who, dir.path("grains.graphml"));
    w.files.push_back("grains.graphml");
    uint64_t grains = 0;
    for (const ProcessDigest &d : D.procs)
      grains += d.chunks + d.tasks;
    w.leftOut.push_back(graphLeftOut(o, grains, how));
    return;
  }
  OutFile out(dir.path("grains.graphml"));
  out << header;
  uint64_t edges = 0;
  for (const std::string &f : frags) {
    std::ifstream in(f, std::ios::binary);
    std::string line;
    while (std::getline(in, line) && line != Open)
      ;
    bool closed = false;
    while (std::getline(in, line)) {
      if (line == Close) {
        closed = true;
        break;
      }
      size_t q = line.compare(0, Edge.size(), Edge) == 0
                     ? line.find('"', Edge.size())
                     : std::string::npos;
      if (q != std::string::npos) {
        out << Edge;
        out.u(edges++) << line.substr(q) << "\n";
      } else {
        out << line << "\n";
      }
    }
    if (!closed)
      throw Error(f + " is cut short (no end of its graph)");
  }
  out << Close << "\n</graphml>\n";
  out.close();
  w.files.push_back("grains.graphml");
}

/// timeline.svg from the ranks' pieces (SvgWriter.cpp): its head and foot
/// from the job's figures the pieces carry and the digests (the first
/// process's clock, whether any process ran tasks), the pieces in rank
/// order.
static void mergeSvgPieces(const std::string &raw,
                           const std::vector<int> &ranks,
                           const std::vector<size_t> &procs, OutputDir &dir,
                           const RunDigest &D, Written &w) {
  std::vector<SvgPart> parts;
  for (size_t i = 0; i < ranks.size(); i++)
    if (procs[i])
      parts.push_back({rankDir(raw, ranks[i], "part"),
                       "rank " + std::to_string(ranks[i]) + "'s part"});
  bool tasks = false;
  for (const ProcessDigest &d : D.procs)
    tasks = tasks || d.tasks > 0;
  std::string err;
  if (!dir.claim("timeline.svg", err))
    throw Error(err);
  mergeSvg(parts, D.procs[0].ticksPerNs, tasks, dir.path("timeline.svg"));
  w.files.push_back("timeline.svg");
}

/// trace.otf2 from the ranks' parts: the job's definitions from their
/// fragments and their event files moved into the archive (Otf2Output.cpp).
static void mergeOtf2Of(const std::string &raw, const std::vector<int> &ranks,
                        const std::vector<size_t> &procs, OutputDir &dir,
                        Written &w) {
  std::string err;
  for (const char *n : {"trace.otf2", "trace.def", "trace"})
    if (!dir.claim(n, err))
      throw Error(err);
  std::vector<std::pair<int, std::string>> parts;
  for (size_t i = 0; i < ranks.size(); i++)
    if (procs[i])
      parts.emplace_back(ranks[i], rankDir(raw, ranks[i], "part"));
  mergeOtf2(parts, dir.dir(), "trace");
  w.files.push_back("trace.otf2");
}

/// report.html from the ranks' fragments (report.part of each rank with
/// processes) and the digests, last (it lists what the others left out).
static void mergeReportParts(const std::string &raw,
                             const std::vector<int> &ranks,
                             const std::vector<size_t> &procs, OutputDir &dir,
                             const Options &o, const RunDigest &D, Written &w) {
  std::vector<std::pair<int, std::string>> frags;
  for (size_t i = 0; i < ranks.size(); i++)
    if (procs[i])
      frags.push_back(
          {ranks[i], rankDir(raw, ranks[i], "part") + "/report.part"});
  std::string err;
  if (!dir.claim("report.html", err))
    throw Error(err);
  mergeReport(D, frags, dir.path("report.html"), o.caps, Version, w.leftOut);
  w.files.push_back("report.html");
}

/// Rank 0: the outputs of the job from the parts of Ranks (in rank order).
void mergeParts(const Options &o, const std::string &raw,
                const std::vector<int> &ranks, OutputDir &dir) {
  std::vector<ProcessDigest> all;
  std::vector<size_t> procs; // per rank, its processes
  for (int k : ranks) {
    std::string why;
    if (!mpiReadMark(k, raw, "done", why) || why != "ok")
      throw Error("rank " + std::to_string(k) +
                  " could not analyse its processes (its error is on its "
                  "stderr): no output written");
    std::vector<ProcessDigest> ds;
    try {
      ds = readDigestFile(rankDir(raw, k, "part") + "/digest");
    } catch (const Error &e) {
      throw Error("rank " + std::to_string(k) + "'s part refused: " + e.what());
    }
    for (ProcessDigest &d : ds)
      if (d.rank != k)
        throw Error("rank " + std::to_string(k) +
                    "'s part refused: it holds a process of rank " +
                    std::to_string(d.rank));
    procs.push_back(ds.size());
    all.insert(all.end(), std::make_move_iterator(ds.begin()),
               std::make_move_iterator(ds.end()));
  }
  if (all.empty())
    throw Error("no rank recorded a process (no process of the program "
                "started OpenMP with the recording tool)");
  RunDigest D = runDigest(std::move(all), true);
  Written w;
  std::string err;
  auto merge = [&](const std::string &file) {
    if (!dir.claim(file, err))
      throw Error(err);
    OutFile out(dir.path(file));
    std::string header;
    for (size_t i = 0; i < ranks.size(); i++)
      if (procs[i])
        appendRows(out, header, rankDir(raw, ranks[i], "part") + "/" + file,
                   ranks[i]);
    out.close();
    w.files.push_back(file);
  };
  for (const std::string &out : o.outputs) // --outputs' order, as one command
    if (out == "csv") {
      uint64_t grains = 0;
      for (const ProcessDigest &d : D.procs)
        grains += d.chunks + d.tasks;
      if (csvWritten(o, grains))
        merge("grains.csv");
      else
        w.leftOut.push_back(csvLeftOut(o, grains));
    } else if (out == "trace")
      mergeTrace(raw, ranks, procs, dir, o, D, w);
    else if (out == "graphml")
      mergeGraph(raw, ranks, procs, dir, o, D, w);
    else if (out == "svg")
      mergeSvgPieces(raw, ranks, procs, dir, D, w);
    else if (out == "otf2")
      mergeOtf2Of(raw, ranks, procs, dir, w);
  merge("loops.csv");
  if (asked(o, "report"))
    mergeReportParts(raw, ranks, procs, dir, o, D, w);
  std::cerr << "grainchunk-graph: merged the parts of " << ranks.size()
            << " ranks (" << D.procs.size()
            << " processes; their digests and rows: no rank's recording "
               "read here)\n";
  writeSummaryOf(D, dir, w);
}

} // namespace gcg

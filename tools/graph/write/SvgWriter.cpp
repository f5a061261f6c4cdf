// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SvgWriter.cpp - timeline.svg: one lane per thread ------------------===//
//
// Chunks coloured by loop (the run's palette, Palette.h), tasks grey. Up to
// 4000 spans every grain is a rectangle with a title; above, per lane and pixel
// column the busy time per colour, drawn as the dominant colour with the busy
// share as opacity (a bounded picture whatever the grain count). Several
// processes: a lane per process and thread.
//
// The picture is four pieces: the head (size, title), the lanes (a
// background and a label each), the spans (rectangles, lane by lane within
// a process) and the foot (axis, legend). Only the head and the foot depend
// on the whole run; a lane's rows on its process and the run's time frame
// alone. So an MPI job's rank writes its lanes and spans (writeSvgPart),
// drawn in the job's frame at its lanes' offset, and rank 0 writes the head
// and the foot around the ranks' pieces (mergeSvg): the same bytes as one
// command drawing the whole job.
//
//===----------------------------------------------------------------------===//
#include "Palette.h"
#include "Writers.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <deque>
#include <fstream>
#include <map>
#include <set>

namespace gcg {

static const char *const TaskColor = "#555555";
static const int Width = 1200, ExactLimit = 4000, Left = 90, Top = 40,
                 LaneH = 28, Gap = 6, PlotW = Width - Left - 20;

static double niceStep(double raw) {
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (int m : {1, 2, 5, 10})
    if (m * mag >= raw)
      return m * mag;
  return 10 * mag;
}

static std::string pyFloat(double v) { // Python's str() of a float
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  // The shortest repr that reads back.
  for (int prec = 1; prec <= 17; prec++) {
    std::snprintf(b, sizeof b, "%.*g", prec, v);
    if (std::strtod(b, nullptr) == v)
      break;
  }
  std::string s = b;
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

namespace {
/// A run's lanes, (process, thread) in order, and its spans (chunks and
/// task segments).
struct LaneSet {
  std::vector<std::pair<size_t, int>> lanes;
  std::map<std::pair<size_t, int>, int> index;
  size_t spans = 0;
};

/// The loops' colours (the run's palette, by loop name): the names in the
/// order of the processes' loops, and per process and loop site its colour
/// (one pointer per name; a site's instances share its name).
struct LoopColours {
  std::deque<std::string> store; // what the pointers below point to
  std::map<std::string, const char *> byName;
  std::vector<std::string> names;
  std::vector<std::vector<const char *>> bySite;
  std::vector<const std::vector<int32_t> *> site; // per process: loopSite
  /// Process p's loop instance li's colour.
  const char *of(size_t p, int li) const {
    return bySite[p][size_t((*site[p])[size_t(li)])];
  }
};

/// The time frame the spans are drawn in (ticks) and the first lane's
/// place.
struct Frame {
  uint64_t t0 = 0, t1 = 1;
  size_t laneOffset = 0;
  bool dense = false;
};
} // namespace

static LaneSet lanesOf(const Run &run) {
  std::set<std::pair<size_t, int>> laneSet;
  LaneSet out;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    for (int th : an.threads)
      laneSet.insert({p, th});
    for (size_t j = 0; j < an.tasks.segThread.size(); j++)
      laneSet.insert({p, int(an.tasks.segThread[j])});
    out.spans += an.chunks.size() + an.tasks.segStart.size();
  }
  out.lanes.assign(laneSet.begin(), laneSet.end());
  for (size_t i = 0; i < out.lanes.size(); i++)
    out.index[out.lanes[i]] = int(i);
  return out;
}

static void loopColoursOf(const Run &run, const RunColours &palette,
                          LoopColours &c) {
  c.bySite.resize(run.procs.size());
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    c.site.push_back(&an.loopSite);
    // A name (unique per site) looked up once per site, not per instance.
    std::vector<const char *> &siteColour = c.bySite[p];
    for (const Loop &lp : an.loops) {
      size_t site = size_t(an.loopSite[an.indexOf(lp)]);
      if (siteColour.size() <= site)
        siteColour.resize(site + 1, nullptr);
      const char *&colour = siteColour[site];
      if (!colour) {
        const std::string &nm = an.loopName(an.indexOf(lp));
        if (!c.byName.count(nm)) {
          c.store.push_back(palette.loop(nm));
          c.byName[nm] = c.store.back().c_str();
          c.names.push_back(nm);
        }
        colour = c.byName[nm];
      }
    }
  }
}

/// The frame of grains from first to last (any: there is a grain).
static Frame frameOf(bool any, uint64_t first, uint64_t last) {
  Frame f;
  f.t0 = any ? first : 0;
  f.t1 = any ? last : 0;
  if (int64_t(f.t1 - f.t0) < 1)
    f.t1 = f.t0 + 1;
  return f;
}

static double spanOf(const Frame &f) { return double(int64_t(f.t1 - f.t0)); }

static void writeHead(OutFile &o, size_t lanes, size_t legendRows,
                      uint64_t grains, double totalMs, bool dense) {
  int height = Top + int(lanes) * (LaneH + Gap) + 50 + 18 * int(legendRows);
  o.f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
      Width, height, Width, height);
  o.f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", Width, height);
  o.f("<text x=\"%d\" y=\"20\" font-size=\"14\">grain timeline: %zu grains, "
      "%zu "
      "threads, %.3f ms%s</text>\n",
      Left, size_t(grains), lanes, totalMs,
      dense ? " (aggregated per pixel: busy share as opacity)" : "");
}

/// Each lane's background and label, from lane Offset on.
static void writeLanes(OutFile &o, const Run &run, const LaneSet &L,
                       size_t offset) {
  for (size_t li = 0; li < L.lanes.size(); li++) {
    int y = Top + int(offset + li) * (LaneH + Gap);
    o.f("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
        "fill=\"#eeeeee\"/>\n",
        Left, y, PlotW, LaneH);
    std::string label = "thread " + std::to_string(L.lanes[li].second);
    if (run.multi()) {
      const ProcessDir &pd = run.procs[L.lanes[li].first]->proc;
      label = "p" + std::to_string(pd.pid) + " t" +
              std::to_string(L.lanes[li].second);
    }
    o.f("<text x=\"%d\" y=\"%d.0\" text-anchor=\"end\">%s</text>\n", Left - 8,
        y + LaneH / 2 + 4, htmlEscape(label).c_str());
  }
}

/// The spans of the lanes, in the frame F.
static void writeSpans(OutFile &o, const Run &run, const LaneSet &L,
                       const LoopColours &C, const Frame &F) {
  double span = spanOf(F);
  uint64_t t0 = F.t0;
  auto x = [&](uint64_t c) {
    return Left + double(int64_t(c - t0)) / span * PlotW;
  };
  auto laneY = [&](size_t p, int th) {
    return Top +
           int(F.laneOffset + size_t(L.index.at({p, th}))) * (LaneH + Gap);
  };
  if (!F.dense) {
    auto rect = [&](double xs, double w, int y, const char *color,
                    const std::string &title) {
      o.f("<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
          "stroke=\"white\" stroke-width=\"0.3\"><title>%s</title></rect>\n",
          xs, y + 2, w, LaneH - 4, color, htmlEscape(title).c_str());
    };
    for (size_t p = 0; p < run.procs.size(); p++) {
      const Analysis &an = *run.procs[p];
      double ptpn = an.clockNs();
      const Chunks &ch = an.chunks;
      for (size_t i = 0; i < ch.size(); i++) {
        uint64_t s = ch.start[i], e = ch.end[i];
        double w = std::max(x(e) - x(s), 1.0); // every grain at least a pixel
        char took[64];
        std::snprintf(took, sizeof took, "%.1f us",
                      double(int64_t(e - s)) / ptpn / 1000);
        std::string title =
            an.loopName(ch.loop[i]) + " iterations " +
            std::to_string(ch.lower[i]) + ".." + std::to_string(ch.upper[i]) +
            " " +
            (an.chunkUnknown(i) ? std::string("time ") + UnknownTime
                                : std::string(took));
        rect(x(s), w, laneY(p, ch.thread[i]), C.of(p, ch.loop[i]), title);
      }
      const Tasks &T = an.tasks;
      for (uint32_t k : T.order) {
        std::string name = an.taskGrainName(k);
        for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
          uint64_t s = T.segStart[j], e = T.segEnd[j];
          double w = std::max(x(e) - x(s), 1.0);
          char took[64];
          std::snprintf(took, sizeof took, "%.1f us",
                        double(int64_t(e - s)) / ptpn / 1000);
          rect(x(s), w, laneY(p, T.segThread[j]), TaskColor, name + " " + took);
        }
      }
    }
    return;
  }
  // Per lane and pixel column: busy time per colour; draw the dominant
  // colour with the column's busy share as opacity, runs merged.
  double per = span / PlotW;
  struct Cell {
    std::vector<std::pair<const char *, double>> by; // in the order met
  };
  std::vector<std::vector<Cell>> busy(L.lanes.size(), std::vector<Cell>(PlotW));
  auto add = [&](uint64_t s, uint64_t e, int lane, const char *c) {
    double ds = double(int64_t(s - t0)), de = double(int64_t(e - t0));
    long p0 = long(std::trunc(ds / per)), p1 = long(std::trunc(de / per));
    for (long px = std::max(p0, 0L); px <= std::min(p1, long(PlotW - 1));
         px++) {
      double lo = px * per, hi = (px + 1) * per;
      double v = std::min(de, hi) - std::max(ds, lo);
      auto &by = busy[lane][px].by;
      auto it = std::find_if(by.begin(), by.end(),
                             [&](auto &q) { return q.first == c; });
      if (it == by.end())
        by.push_back({c, v});
      else
        it->second += v;
    }
  };
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    const Chunks &ch = an.chunks;
    int lastTh = -1, lane = 0;
    for (size_t i = 0; i < ch.size(); i++) {
      if (ch.thread[i] != lastTh) {
        lastTh = ch.thread[i];
        lane = L.index.at({p, lastTh});
      }
      add(ch.start[i], ch.end[i], lane, C.of(p, ch.loop[i]));
    }
    const Tasks &T = an.tasks;
    for (size_t j = 0; j < T.segStart.size(); j++)
      add(T.segStart[j], T.segEnd[j], L.index.at({p, T.segThread[j]}),
          TaskColor);
  }
  for (size_t li = 0; li < L.lanes.size(); li++) {
    int y = Top + int(F.laneOffset + li) * (LaneH + Gap);
    bool inRun = false;
    int runStart = 0;
    const char *runC = nullptr;
    double runO = 0;
    for (int px = 0; px <= PlotW; px++) {
      bool cell = false;
      const char *c = nullptr;
      double op = 0;
      if (px < PlotW && !busy[li][px].by.empty()) {
        auto &by = busy[li][px].by;
        double sum = 0, best = -1;
        for (auto &q : by) {
          sum += q.second;
          if (q.second > best)
            best = q.second, c = q.first;
        }
        double share = std::min(sum / per, 1.0);
        op = std::nearbyint(share * 4) / 4;
        if (op == 0)
          op = 0.25;
        cell = true;
      }
      if (inRun && cell && c == runC && op == runO)
        continue;
      if (inRun)
        o.f("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" "
            "fill-opacity=\"%s\"/>\n",
            Left + runStart, y + 2, px - runStart, LaneH - 4, runC,
            pyFloat(runO).c_str());
      inRun = cell;
      if (cell)
        runStart = px, runC = c, runO = op;
    }
    busy[li] = std::vector<Cell>(); // this lane drawn
  }
}

/// The axis and the legend (name, colour; "explicit tasks" last when
/// any), and the end.
static void
writeFoot(OutFile &o, size_t lanes, double totalMs,
          const std::vector<std::pair<std::string, std::string>> &legend) {
  int ya = Top + int(lanes) * (LaneH + Gap) + 4;
  o.f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
      Left, ya, Left + PlotW, ya);
  double step = totalMs > 0 ? niceStep(totalMs / 8) : 1;
  for (int k = 0; k * step <= totalMs * 1.0001; k++) {
    double xx = totalMs ? Left + k * step / totalMs * PlotW : Left;
    o.f("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
        "stroke=\"black\"/>\n",
        xx, ya, xx, ya + 5);
    o.f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", xx,
        ya + 18, k * step);
  }
  o.f("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">time (ms)</text>\n",
      Left + PlotW, ya + 32);
  int yl = ya + 44;
  for (const auto &[nm, c] : legend) {
    o.f("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
        Left, yl - 10, c.c_str());
    o << "<text x=\"" << std::to_string(Left + 18) << "\" y=\""
      << std::to_string(yl) << "\">" << htmlEscape(nm) << "</text>\n";
    yl += 18;
  }
  o << "</svg>\n";
}

static std::vector<std::pair<std::string, std::string>>
legendOf(const LoopColours &C) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const std::string &nm : C.names)
    out.emplace_back(nm, C.byName.at(nm));
  return out;
}

bool writeSvg(const Results &R, const std::string &path) {
  const Run &run = R.run;
  LaneSet L = lanesOf(run);
  LoopColours C;
  loopColoursOf(run, R.colours, C);
  bool any = false, anyTasks = false;
  uint64_t last = 0;
  for (auto &a : run.procs) {
    anyTasks |= a->tasks.size() > 0;
    if (a->nGrains()) {
      uint64_t l = a->lastInstant();
      last = any ? std::max(last, l) : l;
      any = true;
    }
  }
  Frame F = frameOf(any, run.firstInstant(), last);
  F.dense = L.spans > size_t(ExactLimit);
  double totalMs = spanOf(F) / run.procs[0]->clockNs() / 1e6;
  std::vector<std::pair<std::string, std::string>> legend = legendOf(C);
  if (anyTasks)
    legend.emplace_back("explicit tasks", TaskColor);
  OutFile o(path);
  writeHead(o, L.lanes.size(), legend.size(), run.grains(), totalMs, F.dense);
  writeLanes(o, run, L, 0);
  writeSpans(o, run, L, C, F);
  writeFoot(o, L.lanes.size(), totalMs, legend);
  o.close();
  return F.dense;
}

SvgCount svgCount(const Run &run) {
  LaneSet L = lanesOf(run);
  return {L.lanes.size(), L.spans};
}

//===-- An MPI job's fragments --------------------------------------------===//
//
// A rank's part holds timeline.lanes and timeline.spans (its pieces, as in
// the job's file) and, last, timeline.head:
//   grainchunk-svg-part 1
//   job <grains> <lanes> <first> <last> <any> <dense>   (the same in every
//                                                        rank)
//   lanes <offset> <count>
//   bytes <timeline.lanes' size> <timeline.spans' size>
//   legend <entries>
//   then per entry "<colour> <name's length>" and the name's line
//   end

static const char *const PartMagic = "grainchunk-svg-part 1";

bool writeSvgPart(const Results &R, const SvgJob &job, const std::string &dir) {
  const Run &run = R.run;
  LaneSet L = lanesOf(run);
  LoopColours C;
  loopColoursOf(run, R.colours, C);
  Frame F = frameOf(job.any, job.first, job.last);
  F.laneOffset = job.laneOffset;
  F.dense = job.spans > uint64_t(ExactLimit);
  OutFile lanes(dir + "/timeline.lanes");
  writeLanes(lanes, run, L, F.laneOffset);
  uint64_t laneBytes = lanes.size();
  lanes.close();
  OutFile spans(dir + "/timeline.spans");
  writeSpans(spans, run, L, C, F);
  uint64_t spanBytes = spans.size();
  spans.close();
  OutFile head(dir + "/timeline.head");
  head.f("%s\njob %llu %llu %llu %llu %d %d\nlanes %llu %llu\nbytes %llu "
         "%llu\nlegend %zu\n",
         PartMagic, (unsigned long long)job.grains,
         (unsigned long long)job.lanes, (unsigned long long)job.first,
         (unsigned long long)job.last, int(job.any), int(F.dense),
         (unsigned long long)job.laneOffset, (unsigned long long)L.lanes.size(),
         (unsigned long long)laneBytes, (unsigned long long)spanBytes,
         C.names.size());
  for (const auto &[nm, c] : legendOf(C))
    head << c << " " << std::to_string(nm.size()) << "\n" << nm << "\n";
  head << "end\n";
  head.close();
  return F.dense;
}

namespace {
/// A part's timeline.head, read back.
struct PartHead {
  std::string job; // its job line, as written
  unsigned long long grains = 0, lanes = 0, first = 0, last = 0, offset = 0,
                     count = 0, laneBytes = 0, spanBytes = 0;
  int any = 0, dense = 0;
  std::vector<std::pair<std::string, std::string>> legend;
};
} // namespace

static PartHead readPartHead(const SvgPart &part) {
  std::string path = part.dir + "/timeline.head", line;
  auto bad = [&](const char *why) {
    return Error(part.who + ": " + path + " " + why +
                 " (not what a rank writes: a damaged or foreign part)");
  };
  std::ifstream in(path, std::ios::binary);
  PartHead h;
  unsigned long long n = 0;
  char extra = 0;
  if (!std::getline(in, line) || line != PartMagic)
    throw bad("is missing or of another version");
  if (!std::getline(in, h.job) ||
      std::sscanf(h.job.c_str(), "job %llu %llu %llu %llu %d %d%c", &h.grains,
                  &h.lanes, &h.first, &h.last, &h.any, &h.dense, &extra) != 6 ||
      !std::getline(in, line) ||
      std::sscanf(line.c_str(), "lanes %llu %llu%c", &h.offset, &h.count,
                  &extra) != 2 ||
      !std::getline(in, line) ||
      std::sscanf(line.c_str(), "bytes %llu %llu%c", &h.laneBytes, &h.spanBytes,
                  &extra) != 2 ||
      !std::getline(in, line) ||
      std::sscanf(line.c_str(), "legend %llu%c", &n, &extra) != 1 ||
      n > (1ull << 24))
    throw bad("has a damaged line");
  for (unsigned long long i = 0; i < n; i++) {
    char colour[16];
    unsigned long long len = 0;
    std::string name;
    if (!std::getline(in, line) ||
        std::sscanf(line.c_str(), "%15s %llu%c", colour, &len, &extra) != 2 ||
        len > (1ull << 24))
      throw bad("has a damaged legend entry");
    name.resize(len); // any bytes, a newline too
    if (!in.read(&name[0], std::streamsize(len)) || in.get() != '\n')
      throw bad("is cut short");
    h.legend.emplace_back(std::move(name), colour);
  }
  if (!std::getline(in, line) || line != "end" || in.peek() != EOF)
    throw bad("is cut short");
  return h;
}

/// Checks that a piece is of the size its timeline.head says.
static void checkSize(const SvgPart &part, const char *name, uint64_t bytes) {
  std::string path = part.dir + "/" + name;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in || uint64_t(std::streamoff(in.tellg())) != bytes)
    throw Error(part.who + ": " + path +
                " is not the size its timeline.head says (a damaged part)");
}

/// Copies a piece of Bytes bytes to o.
static void copyFragment(OutFile &o, const SvgPart &part, const char *name,
                         uint64_t bytes) {
  std::string path = part.dir + "/" + name;
  std::ifstream in(path, std::ios::binary);
  char buf[1 << 16];
  for (uint64_t left = bytes; left > 0;) {
    in.read(buf, std::streamsize(std::min<uint64_t>(left, sizeof buf)));
    if (in.gcount() <= 0)
      throw Error(part.who + ": cannot read " + path);
    o.put(buf, size_t(in.gcount()));
    left -= uint64_t(in.gcount());
  }
}

bool mergeSvg(const std::vector<SvgPart> &parts, double ticksPerNs,
              bool anyTasks, const std::string &path) {
  std::vector<PartHead> heads;
  std::vector<std::pair<std::string, std::string>> legend;
  std::set<std::string> named;
  unsigned long long lanes = 0;
  for (const SvgPart &p : parts) {
    heads.push_back(readPartHead(p));
    const PartHead &h = heads.back();
    if (h.job != heads[0].job || h.offset != lanes)
      throw Error(p.who + ": " + p.dir +
                  "/timeline.head draws another job than the first rank's "
                  "(every rank must run the same grainchunk-graph)");
    lanes += h.count;
    checkSize(p, "timeline.lanes", h.laneBytes);
    checkSize(p, "timeline.spans", h.spanBytes);
    for (const auto &e : h.legend)
      if (named.insert(e.first).second)
        legend.push_back(e);
  }
  if (heads.empty() || lanes != heads[0].lanes)
    throw Error("the ranks' pieces of timeline.svg do not draw every lane of "
                "the job (a rank's part missing)");
  const PartHead &J = heads[0];
  Frame F = frameOf(J.any, J.first, J.last);
  double totalMs = spanOf(F) / ticksPerNs / 1e6;
  if (anyTasks)
    legend.emplace_back("explicit tasks", TaskColor);
  OutFile o(path);
  writeHead(o, size_t(lanes), legend.size(), J.grains, totalMs, J.dense);
  for (size_t i = 0; i < parts.size(); i++)
    copyFragment(o, parts[i], "timeline.lanes", heads[i].laneBytes);
  for (size_t i = 0; i < parts.size(); i++)
    copyFragment(o, parts[i], "timeline.spans", heads[i].spanBytes);
  writeFoot(o, size_t(lanes), totalMs, legend);
  o.close();
  return J.dense;
}

} // namespace gcg

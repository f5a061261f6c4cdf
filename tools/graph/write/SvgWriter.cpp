// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- SvgWriter.cpp - timeline.svg: one lane per thread ------------------===//
//
// Chunks coloured by loop (the run's palette, Palette.h), tasks grey. Up to
// 4000 spans every grain is a rectangle with a title; above, per lane and pixel
// column the busy time per colour, drawn as the dominant colour with the busy
// share as opacity (a bounded picture whatever the grain count). Several
// processes: a lane per process and thread.
//
//===----------------------------------------------------------------------===//
#include "Palette.h"
#include "Writers.h"

#include <deque>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace gcg {

static const char *const TaskColor = "#555555";

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

bool writeSvg(const Results &R, const std::string &path) {
  const Run &run = R.run;
  const int width = 1200, exactLimit = 4000;
  // Lanes: (process, thread).
  std::set<std::pair<size_t, int>> laneSet;
  size_t nSpans = 0, nGrains = 0;
  bool anyTasks = false;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    for (int th : an.threads)
      laneSet.insert({p, th});
    for (int th : an.tasks.segThread)
      laneSet.insert({p, th});
    nSpans += an.chunks.size() + an.tasks.segStart.size();
    nGrains += an.nGrains();
    anyTasks |= an.tasks.size() > 0;
  }
  std::vector<std::pair<size_t, int>> lanes(laneSet.begin(), laneSet.end());
  std::map<std::pair<size_t, int>, int> laneIdx;
  for (size_t i = 0; i < lanes.size(); i++)
    laneIdx[lanes[i]] = int(i);
  const Analysis &a0 = *run.procs[0];
  double tpn = a0.clockNs();
  uint64_t t0 = run.firstInstant(), t1 = t0;
  bool any = false;
  for (auto &a : run.procs)
    if (a->nGrains()) {
      uint64_t l = a->lastInstant();
      t1 = any ? std::max(t1, l) : l;
      any = true;
    }
  if (!any)
    t0 = 0, t1 = 0;
  if (int64_t(t1 - t0) < 1)
    t1 = t0 + 1;
  // Colours: by loop name, the run's (Palette.h), legend in loop order.
  const RunColours &palette = R.colours;
  std::deque<std::string> store; // what the pointers below point to
  std::map<std::string, const char *> colors;
  std::vector<std::string> names;
  std::vector<std::vector<const char *>> loopColor(run.procs.size());
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    for (const Loop &lp : an.loops) {
      const std::string &nm = an.loopName(lp.index);
      if (!colors.count(nm)) {
        store.push_back(palette.loop(nm));
        colors[nm] = store.back().c_str();
        names.push_back(nm);
      }
      loopColor[p].push_back(colors[nm]);
    }
  }
  const int left = 90, top = 40, laneH = 28, gap = 6;
  const int plotW = width - left - 20;
  int legendRows = int(names.size()) + (anyTasks ? 1 : 0);
  int height = top + int(lanes.size()) * (laneH + gap) + 50 + 18 * legendRows;
  double span = double(int64_t(t1 - t0));
  auto x = [&](uint64_t c) {
    return left + double(int64_t(c - t0)) / span * plotW;
  };
  OutFile o(path);
  o.f("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
      "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n",
      width, height, width, height);
  o.f("<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", width, height);
  bool dense = nSpans > size_t(exactLimit);
  double totalMs = span / tpn / 1e6;
  o.f("<text x=\"%d\" y=\"20\" font-size=\"14\">grain timeline: %zu grains, "
      "%zu "
      "threads, %.3f ms%s</text>\n",
      left, nGrains, lanes.size(), totalMs,
      dense ? " (aggregated per pixel: busy share as opacity)" : "");
  for (size_t li = 0; li < lanes.size(); li++) {
    int y = top + int(li) * (laneH + gap);
    o.f("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
        "fill=\"#eeeeee\"/>\n",
        left, y, plotW, laneH);
    std::string label = "thread " + std::to_string(lanes[li].second);
    if (run.multi()) {
      const ProcessDir &pd = run.procs[lanes[li].first]->proc;
      label = "p" + std::to_string(pd.pid) + " t" +
              std::to_string(lanes[li].second);
    }
    o.f("<text x=\"%d\" y=\"%d.0\" text-anchor=\"end\">%s</text>\n", left - 8,
        y + laneH / 2 + 4, htmlEscape(label).c_str());
  }
  auto laneY = [&](size_t p, int th) {
    return top + laneIdx[{p, th}] * (laneH + gap);
  };
  if (!dense) {
    auto rect = [&](double xs, double w, int y, const char *color,
                    const std::string &title) {
      o.f("<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"%s\" "
          "stroke=\"white\" stroke-width=\"0.3\"><title>%s</title></rect>\n",
          xs, y + 2, w, laneH - 4, color, htmlEscape(title).c_str());
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
        rect(x(s), w, laneY(p, ch.thread[i]), loopColor[p][ch.loop[i]], title);
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
  } else {
    // Per lane and pixel column: busy time per colour; draw the dominant
    // colour with the column's busy share as opacity, runs merged.
    double per = span / plotW;
    struct Cell {
      std::vector<std::pair<const char *, double>> by; // in the order met
    };
    std::vector<std::vector<Cell>> busy(lanes.size(), std::vector<Cell>(plotW));
    auto add = [&](uint64_t s, uint64_t e, int lane, const char *c) {
      double ds = double(int64_t(s - t0)), de = double(int64_t(e - t0));
      long p0 = long(std::trunc(ds / per)), p1 = long(std::trunc(de / per));
      for (long px = std::max(p0, 0L); px <= std::min(p1, long(plotW - 1));
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
          lane = laneIdx[{p, lastTh}];
        }
        add(ch.start[i], ch.end[i], lane, loopColor[p][ch.loop[i]]);
      }
      const Tasks &T = an.tasks;
      for (size_t j = 0; j < T.segStart.size(); j++)
        add(T.segStart[j], T.segEnd[j], laneIdx[{p, T.segThread[j]}],
            TaskColor);
    }
    for (size_t li = 0; li < lanes.size(); li++) {
      int y = top + int(li) * (laneH + gap);
      bool inRun = false;
      int runStart = 0;
      const char *runC = nullptr;
      double runO = 0;
      for (int px = 0; px <= plotW; px++) {
        bool cell = false;
        const char *c = nullptr;
        double op = 0;
        if (px < plotW && !busy[li][px].by.empty()) {
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
              left + runStart, y + 2, px - runStart, laneH - 4, runC,
              pyFloat(runO).c_str());
        inRun = cell;
        if (cell)
          runStart = px, runC = c, runO = op;
      }
    }
  }
  // Axis.
  int ya = top + int(lanes.size()) * (laneH + gap) + 4;
  o.f("<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"black\"/>\n",
      left, ya, left + plotW, ya);
  double step = totalMs > 0 ? niceStep(totalMs / 8) : 1;
  for (int k = 0; k * step <= totalMs * 1.0001; k++) {
    double xx = totalMs ? left + k * step / totalMs * plotW : left;
    o.f("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
        "stroke=\"black\"/>\n",
        xx, ya, xx, ya + 5);
    o.f("<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n", xx,
        ya + 18, k * step);
  }
  o.f("<text x=\"%d\" y=\"%d\" text-anchor=\"end\">time (ms)</text>\n",
      left + plotW, ya + 32);
  // Legend.
  int yl = ya + 44;
  if (anyTasks)
    names.push_back("explicit tasks");
  for (const std::string &nm : names) {
    auto it = colors.find(nm);
    const char *c = it != colors.end() ? it->second : TaskColor;
    o.f("<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>\n",
        left, yl - 10, c);
    o << "<text x=\"" << std::to_string(left + 18) << "\" y=\""
      << std::to_string(yl) << "\">" << htmlEscape(nm) << "</text>\n";
    yl += 18;
  }
  o << "</svg>\n";
  o.close();
  return dense;
}

} // namespace gcg

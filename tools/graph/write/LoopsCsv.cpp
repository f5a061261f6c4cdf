// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopsCsv.cpp - loops.csv: a row per loop instance and thread ------===//
//
// The loop table (analyse/LoopTable.h) as loops.csv, medians included.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <algorithm>
#include <cmath>

namespace gcg {

void writeLoopsCsv(const Results &R, const std::string &path) {
  const Run &run = R.run;
  OutFile o(path);
  o << "process,rank,loop,loop_instance,source_location,thread,chunks,"
       "work_cycles,min_chunk_work_cycles,median_chunk_work_cycles,"
       "max_chunk_work_cycles,wait_cycles,first_start_instant,"
       "last_end_instant\n";
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    const ProcessDir &pd = an.proc;
    std::string head =
        (pd.pid >= 0 ? std::to_string(pd.pid) : std::string("NA")) + "," +
        Run::rankText(pd) + ",";
    // A row's loop columns: its name and its location, each quoted once
    // per loop site and code (not per instance), then its instance.
    std::vector<std::string> nameOf, locOf; // by site, by code; "": not yet
    locOf.resize(an.loopCodes.size());
    const LoopTable &lt = R.procs[p].loopTable;
    // A loop instance's rows (consecutive) share their first columns: made
    // once per instance.
    std::string pre;
    int preLoop = -1;
    lt.rows.forEach([&](size_t row, const LoopThread &r) {
      if (!r.chunks)
        return;
      if (r.loop != preLoop) {
        const Loop &lp = an.loops[r.loop];
        int li = an.indexOf(lp);
        size_t site = size_t(an.loopSite[li]);
        if (site >= nameOf.size())
          nameOf.resize(site + 1);
        std::string &name = nameOf[site];
        if (name.empty())
          name = head + csvField(an.loopName(li)) + ",L";
        std::string &loc = locOf[lp.code];
        if (loc.empty())
          loc = "," + csvField(an.codeOf(lp).loc.str()) + ",";
        char b[24];
        pre = name;
        pre.append(b, size_t(OutFile::decI(b, li) - b));
        pre += loc;
        preLoop = r.loop;
      }
      // The row formatted in place (its names put as they are): at most
      // 11 numbers of 40 bytes and their commas.
      o << pre;
      char *at = o.room(11 * 41);
      at = OutFile::decI(at, r.th);
      *at++ = ',';
      at = OutFile::decI(at, r.chunks);
      *at++ = ',';
      if (r.hasWork) {
        at = OutFile::decI(at, r.work);
        *at++ = ',';
        at = OutFile::decI(at, r.minWork);
        *at++ = ',';
        // Exact: an integer or the mean of two (.5, as "%.1f" has it).
        double median = lt.median(row, r);
        if (median == std::floor(median)) {
          at = OutFile::decI(at, int64_t(median));
        } else if (2 * median == std::floor(2 * median) &&
                   std::fabs(median) < 1e15) {
          if (median < 0)
            *at++ = '-';
          at = OutFile::decU(at, uint64_t(std::fabs(median)));
          *at++ = '.';
          *at++ = '5';
        } else {
          o.done(at);
          o.f("%.1f", median);
          at = o.room(11 * 41);
        }
        *at++ = ',';
        at = OutFile::decI(at, r.maxWork);
        *at++ = ',';
      } else {
        at = std::copy_n("NA,NA,NA,NA,", 12, at);
      }
      // The wait rounded: an integer (as numAt has it) but for NA.
      double wait = std::round(shareWait(an, lt.rows.share(row)));
      if (std::fabs(wait) <= 1e15)
        at = OutFile::decI(at, int64_t(wait));
      else
        at = OutFile::numAt(at, wait);
      *at++ = ',';
      at = OutFile::decU(at, r.first);
      *at++ = ',';
      at = OutFile::decU(at, r.last);
      *at++ = '\n';
      o.done(at);
    });
  }
  o.close();
}

} // namespace gcg

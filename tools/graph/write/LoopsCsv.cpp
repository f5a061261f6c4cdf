// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- LoopsCsv.cpp - loops.csv: a row per loop instance and thread ------===//
//
// The loop table (analyse/LoopTable.h) as loops.csv, medians included.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

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
    // A row's loop columns: its name and its location each quoted when it
    // changes from the row before (not once per instance), its instance
    // written as it goes.
    const std::string *nameOf = nullptr, *locOf = nullptr;
    std::string name, loc;
    const LoopTable &lt = R.procs[p].loopTable;
    for (auto it = lt.rows.begin(); it != lt.rows.end(); ++it) {
      LoopThread r = *it;
      size_t row = it.row();
      if (!r.chunks)
        continue;
      const Loop &lp = an.loops[r.loop];
      if (&an.loopName(an.indexOf(lp)) != nameOf) {
        nameOf = &an.loopName(an.indexOf(lp));
        name = head + csvField(*nameOf) + ",L";
      }
      if (&an.codeOf(lp).loc.str() != locOf) {
        locOf = &an.codeOf(lp).loc.str();
        loc = "," + csvField(*locOf) + ",";
      }
      o << name;
      o.i(an.indexOf(lp)) << loc;
      o.i(r.th) << ',';
      o.i(r.chunks) << ',';
      if (r.hasWork) {
        o.i(r.work) << ',';
        o.i(r.minWork) << ',';
        // Exact: an integer or the mean of two (.5).
        double median = lt.median(row, r);
        if (median == std::floor(median))
          o.i(int64_t(median)) << ',';
        else
          o.f("%.1f,", median);
        o.i(r.maxWork) << ',';
      } else {
        o << "NA,NA,NA,NA,";
      }
      o.num(std::round(shareWait(
          an.loops[r.loop].shares[row - lt.rows.rowBegin(size_t(r.loop))])))
          << ',';
      o.u(r.first) << ',';
      o.u(r.last) << '\n';
    }
  }
  o.close();
}

} // namespace gcg

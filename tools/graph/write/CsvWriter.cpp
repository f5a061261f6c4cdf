// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- CsvWriter.cpp - grains.csv: one row per grain ----------------------===//
//
// Plain RFC 4180 (the header line first; fields quoted when they hold a
// comma, a quote, CR or LF), the grain-graphs prototype's column names and
// metrics, after the process and rank columns. The chunks, in recording
// order (thread by thread), then the tasks by creation time; per process.
// Run metadata (the clock) is in run.json.
//
// A task's parent is the grain that made it, as in the prototype: the
// creating task's id (a number), or for a task its implicit task made
// inside a loop chunk that chunk's grain id (c<thread>.<n>, as in the task
// column; Analysis::madeInChunk), the grain its creation edge in
// grains.graphml starts at. Its joins_at and child_number stay those of
// the implicit task that ran the chunk: a chunk has no waits of its own,
// its tasks join where that implicit task waits.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

namespace gcg {

static const char *const Columns =
    "process,rank,task,grain_type,parent,joins_at,cpu_id,child_number,"
    "num_children,exec_cycles,creation_cycles,overhead_cycles,create_instant,"
    "exec_start_instant,exec_end_instant,outline_function,source_location,"
    "loop,loop_instance,first_iteration,last_iteration,last_chunk,thread_num,"
    "work_cycles,sync_cycles_per_child,parallel_benefit,sibling_work_balance,"
    "chunk_work_balance,chunk_work_cpu_balance,work_deviation,problems,"
    "lineage\n";

static void metricCols(OutFile &o, const GrainMetrics &m) {
  o.num(m.sync) << ',';
  o.num(m.pb) << ',';
  o.num(m.swb) << ',';
  o.num(m.cwb) << ',';
  o.num(m.cpu) << ',';
  o.num(m.dev) << ',';
  o << problemsText(m.problems) << ',';
}

void writeCsv(const Results &R, const std::string &path) {
  const Run &run = R.run;
  OutFile o(path);
  o << Columns;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    const ProcessDir &pd = an.proc;
    Analysis::LineageMemo memo;
    std::string head =
        (pd.pid >= 0 ? std::to_string(pd.pid) : std::string("NA")) + "," +
        Run::rankText(pd) + ",";
    std::string pre = run.prefix(p);
    // Per loop: its columns that do not change from chunk to chunk.
    std::vector<std::string> loopCols;
    std::vector<std::string> ilin;
    std::vector<uint8_t> ilinQuote, ilinHas;
    for (const Loop &lp : an.loops) {
      const LoopCode &lc = an.codeOf(lp);
      loopCols.push_back(csvField(lc.fn) + "," + csvField(lc.loc) + "," +
                         csvField(an.loopName(an.indexOf(lp))) + ",L" +
                         std::to_string(an.indexOf(lp)) + ",");
      auto il = an.instanceLineage(an.indexOf(lp));
      ilinHas.push_back(il.has_value());
      ilin.push_back(il ? *il : "");
      ilinQuote.push_back(il && csvField(*il + ":") != *il + ":");
    }
    const Chunks &ch = an.chunks;
    std::vector<uint32_t> number = an.chunkNumbers();
    for (size_t i = 0; i < ch.size(); i++) {
      int li = ch.loop[i];
      GrainMetrics m = an.chunkMetrics(i);
      o << head << pre << 'c';
      o.i(ch.thread[i]) << '.';
      o.u(i) << ",chunk,";
      o.u(ch.parentOf(i)) << ',';
      o.i(li) << ',';
      o.i(ch.thread[i]) << ',';
      o.u(number[i]) << ",0,";
      if (m.hasWork)
        o.i(int64_t(ch.span(i)));
      else
        o << "NA";
      o << ',';
      o.num(ch.creation[i]) << ",0,";
      o.u(ch.start[i]) << ',';
      o.u(ch.start[i]) << ',';
      o.u(ch.end[i]) << ',';
      o << loopCols[li];
      o.u(ch.lower[i]) << ',';
      o.u(ch.upper[i]) << ',';
      uint8_t fl = ch.flags[i];
      o << ((fl & CH_LAST_ITER_KNOWN) ? ((fl & CH_LAST_ITER) ? "1" : "0")
                                      : "NA")
        << ',';
      int64_t tn = an.threadNum(i);
      if (tn >= 0)
        o.i(tn);
      else
        o << "NA";
      o << ',';
      o.num(m.work) << ',';
      metricCols(o, m);
      if (!ilinHas[li]) {
        o << "NA\n";
      } else if (!ilinQuote[li]) {
        o << ilin[li] << ':';
        o.u(ch.lower[i]) << '-';
        o.u(ch.upper[i]) << '\n';
      } else {
        o << csvField(*an.chunkLineage(i)) << '\n';
      }
    }
    const Tasks &T = an.tasks;
    for (uint32_t k : T.order) {
      GrainMetrics m = an.taskMetrics(k);
      o << head << pre << 't';
      o.u(T.id[k]) << ",task,";
      int64_t maker = an.madeInChunk(k);
      if (maker >= 0)
        o << chunkId(run, p, size_t(maker)) << ',';
      else
        o.u(T.parentOf(k)) << ',';
      o.u(T.joinsAt[k]) << ',';
      o.i(T.threadOf(k)) << ',';
      o.u(T.childNumber[k]) << ',';
      o.i(T.kidOff[k + 1] - T.kidOff[k]) << ',';
      o.i(T.execc(k)) << ',';
      o.num(T.creation[k]) << ',';
      o.num(T.overhead[k]) << ',';
      o.u(T.create[k]) << ',';
      int64_t lo = T.segOff[k], hi = T.segOff[k + 1];
      if (hi > lo) {
        o.u(T.segStart[lo]) << ',';
        o.u(T.segEnd[hi - 1]) << ',';
      } else {
        o << "NA,NA,";
      }
      auto [fn, loc] = an.taskName(k);
      o << csvField(fn) << ',' << csvField(loc) << ",,,NA,NA,NA,NA,";
      o.num(m.work) << ',';
      metricCols(o, m);
      auto lin = an.taskLineage(k, memo);
      o << (lin ? csvField(*lin) : std::string("NA")) << '\n';
    }
  }
  o.close();
}

} // namespace gcg

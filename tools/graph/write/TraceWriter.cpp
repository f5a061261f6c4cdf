// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- TraceWriter.cpp - trace.json: Chrome trace events ------------------===//
//
// The Chrome trace-event format (Perfetto, chrome://tracing): a track per
// thread, a complete event per chunk and per run segment of a task, the
// grain's metrics as its args. One trace pid per process (1 when there is
// one process). Written event by event (memory does not grow). Above the
// trace cap (Writers.h: Caps) the aggregated trace instead: an event per
// loop instance and thread, and per task creation site and thread.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace gcg {

static void metricArgs(OutFile &o, const GrainMetrics &m) {
  const std::pair<const char *, double> ms[] = {{"parallel_benefit", m.pb},
                                                {"chunk_work_balance", m.cwb},
                                                {"sibling_work_balance", m.swb},
                                                {"work_deviation", m.dev}};
  for (auto &x : ms)
    if (!std::isnan(x.second)) {
      o << ", \"" << x.first << "\": ";
      o.jnumRound(x.second, 4);
    }
  if (m.problems) {
    o << ", \"problems\": [";
    bool first = true;
    for (int p = 0; p < P_COUNT; p++)
      if (m.problems & (1u << p)) {
        o << (first ? "\"" : ", \"") << problemName(p) << '"';
        first = false;
      }
    o << ']';
  }
}

/// Process p's metadata event (its name: the command's, or its pid and
/// rank when the run has several processes); returns its trace pid.
static int64_t processHeader(OutFile &o, const Run &run, size_t p, const char *single,
                             bool &firstEv) {
  const ProcessDir &pd = run.procs[p]->proc;
  int64_t pid = run.multi() ? (pd.pid >= 0 ? pd.pid : int64_t(p + 1)) : 1;
  std::string pname = single;
  if (run.multi())
    pname = "process " + std::to_string(pd.pid) +
            (pd.rank >= 0 ? " rank " + std::to_string(pd.rank) : "");
  o << (firstEv ? "" : ",\n")
    << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ";
  firstEv = false;
  o.i(pid) << ", \"args\": {\"name\": " << jsonString(pname) << "}}";
  return pid;
}

void writeTrace(const Results &R, const std::string &path) {
  const Run &run = R.run;
  OutFile o(path);
  o << "{\"traceEvents\": [\n";
  uint64_t t0 = run.firstInstant();
  bool firstEv = true;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    double tpn = an.clockNs();
    int64_t pid = processHeader(o, run, p, "grainchunk-graph", firstEv);
    for (int th : an.threads) {
      o << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(th) << ", \"args\": {\"name\": \"thread ";
      o.i(th) << "\"}}";
    }
    auto us = [&](uint64_t c) {
      return double(int64_t(c - t0)) / tpn / 1000.0;
    };
    std::vector<std::string> names;
    for (const Loop &lp : an.loops)
      names.push_back(jsonString(an.loopName(lp.index)));
    const Chunks &ch = an.chunks;
    std::string pre = run.prefix(p);
    for (size_t i = 0; i < ch.size(); i++) {
      int li = ch.loop[i];
      GrainMetrics m = an.chunkMetrics(i);
      uint64_t s = ch.start[i], e = ch.end[i];
      o << ",\n{\"ph\": \"X\", \"name\": " << names[li]
        << ", \"cat\": \"chunk\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(ch.thread[i]) << ", \"ts\": ";
      o.jnumRound(us(s), 3) << ", \"dur\": ";
      o.jnumRound(double(int64_t(e - s)) / tpn / 1000.0, 3)
          << ", \"args\": {\"grain\": \"" << pre << 'c';
      o.i(ch.thread[i]) << '.';
      o.u(i) << "\", \"exec_cycles\": ";
      if (m.hasWork)
        o.i(int64_t(e - s));
      else
        o << jsonString(UnknownTime);
      o << ", \"creation_cycles\": ";
      if (std::isnan(ch.creation[i]))
        o << "\"NA (unmeasured)\"";
      else
        o.jnum(ch.creation[i]);
      o << ", \"loop\": " << names[li] << ", \"loop_instance\": \"L";
      o.i(li) << "\", \"iterations\": \"";
      o.u(ch.lower[i]) << "..";
      o.u(ch.upper[i]) << '"';
      metricArgs(o, m);
      o << "}}";
    }
    const Tasks &T = an.tasks;
    for (uint32_t k : T.order) {
      GrainMetrics m = an.taskMetrics(k);
      std::string name = jsonString(an.taskGrainName(k));
      for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
        uint64_t s = T.segStart[j], e = T.segEnd[j];
        o << ",\n{\"ph\": \"X\", \"name\": " << name
          << ", \"cat\": \"task\", \"pid\": ";
        o.i(pid) << ", \"tid\": ";
        o.i(T.segThread[j]) << ", \"ts\": ";
        o.jnumRound(us(s), 3) << ", \"dur\": ";
        o.jnumRound(double(int64_t(e - s)) / tpn / 1000.0, 3)
            << ", \"args\": {\"grain\": \"" << taskId(run, p, k)
            << "\", \"exec_cycles\": ";
        o.i(T.execc[k]) << ", \"creation_cycles\": ";
        if (std::isnan(T.creation[k]))
          o << "\"NA (unmeasured)\"";
        else
          o.jnum(T.creation[k]);
        metricArgs(o, m);
        o << "}}";
      }
    }
  }
  const Analysis &first = *run.procs[0];
  o << "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"clock\": ";
  if (first.proc.meta.has("clock"))
    o << jsonString(first.proc.meta.get("clock"));
  else
    o << "null";
  o << ", \"ticks_per_ns\": ";
  o.jnum(first.clockNs()) << "}}\n";
  o.close();
}

void writeTraceAggregated(const Results &R, const std::string &path) {
  const Run &run = R.run;
  OutFile o(path);
  o << "{\"traceEvents\": [\n";
  uint64_t t0 = run.firstInstant();
  bool firstEv = true;
  for (size_t p = 0; p < run.procs.size(); p++) {
    const Analysis &an = *run.procs[p];
    double tpn = an.clockNs();
    int64_t pid =
        processHeader(o, run, p, "grainchunk-graph (aggregated)", firstEv);
    auto track = [&](int64_t tid, const std::string &name) {
      o << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(tid) << ", \"args\": {\"name\": " << jsonString(name) << "}}";
    };
    for (int th : an.threads)
      track(th, "thread " + std::to_string(th));
    auto us = [&](uint64_t c) {
      return double(int64_t(c - t0)) / tpn / 1000.0;
    };
    auto event = [&](const std::string &name, const char *cat, int64_t tid,
                     uint64_t s, uint64_t e) {
      o << ",\n{\"ph\": \"X\", \"name\": " << name << ", \"cat\": \"" << cat
        << "\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(tid) << ", \"ts\": ";
      o.jnumRound(us(s), 3) << ", \"dur\": ";
      o.jnumRound(double(int64_t(e - s)) / tpn / 1000.0, 3) << ", \"args\": {";
    };
    // A loop instance on a thread: from its first chunk's start to its last
    // chunk's end.
    std::vector<std::string> names;
    for (const Loop &lp : an.loops)
      names.push_back(jsonString(an.loopName(lp.index)));
    for (const LoopThread &r : R.procs[p].loopRows) {
      if (!r.chunks)
        continue;
      event(names[r.loop], "loop instance", r.th, r.first, r.last);
      o << "\"loop_instance\": \"L";
      o.i(r.loop) << "\", \"chunks\": ";
      o.i(r.chunks) << ", \"work_cycles\": ";
      if (r.hasWork)
        o.i(r.work);
      else
        o << jsonString(UnknownTime);
      if (r.hasWork) {
        o << ", \"min_chunk_work_cycles\": ";
        o.i(r.minWork) << ", \"max_chunk_work_cycles\": ";
        o.i(r.maxWork);
      }
      o << "}}";
    }
    // Tasks: per creation site and thread, a track of its own (tasks of
    // several sites overlap in time on a thread): from the first run
    // segment's start to the last's end.
    const Tasks &T = an.tasks;
    struct Agg {
      uint64_t first = 0, last = 0;
      int64_t tasks = 0, segments = 0, exec = 0;
    };
    std::map<uint64_t, size_t> siteOf;
    std::vector<size_t> siteTask; // a task of each site, for its name
    std::map<std::pair<size_t, int>, Agg> agg;
    std::vector<int> seen; // the threads a task ran on
    for (uint32_t k : T.order) {
      auto it = siteOf.find(T.codeptr[k]);
      if (it == siteOf.end()) {
        it = siteOf.emplace(T.codeptr[k], siteTask.size()).first;
        siteTask.push_back(k);
      }
      seen.clear();
      for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
        Agg &a = agg[{it->second, T.segThread[j]}];
        uint64_t s = T.segStart[j], e = std::max(T.segEnd[j], s);
        if (!a.segments)
          a.first = s, a.last = e;
        a.first = std::min(a.first, s), a.last = std::max(a.last, e);
        a.segments++;
        a.exec += int64_t(e - s);
        if (std::find(seen.begin(), seen.end(), T.segThread[j]) == seen.end()) {
          a.tasks++;
          seen.push_back(T.segThread[j]);
        }
      }
    }
    for (auto &[key, a] : agg) {
      int64_t tid = int64_t(key.first + 1) * 1000000 + key.second;
      std::string name = an.taskGrainName(siteTask[key.first]);
      track(tid, "thread " + std::to_string(key.second) + ": " + name);
      event(jsonString(name), "tasks", tid, a.first, a.last);
      o << "\"tasks\": ";
      o.i(a.tasks) << ", \"run_segments\": ";
      o.i(a.segments) << ", \"exec_cycles\": ";
      o.i(a.exec) << "}}";
    }
  }
  const Analysis &first = *run.procs[0];
  o << "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"aggregated\": "
       "true, "
       "\"clock\": ";
  if (first.proc.meta.has("clock"))
    o << jsonString(first.proc.meta.get("clock"));
  else
    o << "null";
  o << ", \"ticks_per_ns\": ";
  o.jnum(first.clockNs()) << "}}\n";
  o.close();
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- TraceWriter.cpp - trace.json: Chrome trace events ------------------===//
//
// The Chrome trace-event format (Perfetto, chrome://tracing): a track per
// thread, a complete event per chunk and per run segment of a task, the
// grain's metrics as its args. One trace pid per process (1 when there is
// one process). Written event by event (memory does not grow).
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <cmath>

namespace gcg {

static double round(double v, int digits) {
  double s = std::pow(10.0, digits);
  return std::nearbyint(v * s) / s;
}

static void metricArgs(OutFile &o, const GrainMetrics &m) {
  const std::pair<const char *, double> ms[] = {{"parallel_benefit", m.pb},
                                                {"chunk_work_balance", m.cwb},
                                                {"sibling_work_balance", m.swb},
                                                {"work_deviation", m.dev}};
  for (auto &x : ms)
    if (!std::isnan(x.second)) {
      o << ", \"" << x.first << "\": ";
      o.jnum(round(x.second, 4));
    }
  if (m.problems) {
    o << ", \"problems\": [";
    bool first = true;
    for (int p = 0; p < P_COUNT; p++)
      if (m.problems & (1u << p)) {
        o << (first ? "\"" : ", \"") << Thresholds[p].name << '"';
        first = false;
      }
    o << ']';
  }
}

void writeTrace(Run &run, const std::string &path) {
  OutFile o(path);
  o << "{\"traceEvents\": [\n";
  uint64_t t0 = run.firstInstant();
  bool firstEv = true;
  for (size_t p = 0; p < run.procs.size(); p++) {
    Analysis &an = *run.procs[p];
    const ProcessDir &pd = an.proc;
    double tpn = an.clockNs();
    int64_t pid = run.multi() ? (pd.pid >= 0 ? pd.pid : int64_t(p + 1)) : 1;
    std::string pname = "grainchunk-graph";
    if (run.multi())
      pname = "process " + std::to_string(pd.pid) +
              (pd.rank >= 0 ? " rank " + std::to_string(pd.rank) : "");
    o << (firstEv ? "" : ",\n") << "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ";
    firstEv = false;
    o.i(pid) << ", \"args\": {\"name\": " << jsonString(pname) << "}}";
    for (int th : an.threads) {
      o << ",\n{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(th) << ", \"args\": {\"name\": \"thread ";
      o.i(th) << "\"}}";
    }
    auto us = [&](uint64_t c) { return double(int64_t(c - t0)) / tpn / 1000.0; };
    std::vector<std::string> names;
    for (const Loop &lp : an.loops)
      names.push_back(jsonString(an.loopName(lp.index)));
    const Chunks &ch = an.chunks;
    for (size_t i = 0; i < ch.size(); i++) {
      int li = ch.loop[i];
      GrainMetrics m = an.chunkMetrics(i);
      uint64_t s = ch.start[i], e = ch.end[i];
      o << ",\n{\"ph\": \"X\", \"name\": " << names[li]
        << ", \"cat\": \"chunk\", \"pid\": ";
      o.i(pid) << ", \"tid\": ";
      o.i(ch.thread[i]) << ", \"ts\": ";
      o.jnum(round(us(s), 3)) << ", \"dur\": ";
      o.jnum(round(double(int64_t(e - s)) / tpn / 1000.0, 3))
          << ", \"args\": {\"grain\": \"" << chunkId(run, p, i)
          << "\", \"exec_cycles\": ";
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
        o.jnum(round(us(s), 3)) << ", \"dur\": ";
        o.jnum(round(double(int64_t(e - s)) / tpn / 1000.0, 3))
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

} // namespace gcg

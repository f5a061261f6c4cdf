// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- TraceWriter.cpp - trace.json: Chrome trace events ------------------===//
//
// The Chrome trace-event format (Perfetto, chrome://tracing): a track per
// thread, a complete event per chunk and per run segment of a task, the
// grain's metrics as its args. One trace pid per process (1 when there is
// one process). Written event by event (memory does not grow). Above the
// trace caps (Writers.h: Caps) the aggregated trace instead: an event per
// loop instance and thread, and per task creation site and thread; where
// that is estimated (events times their least bytes) or found above the
// byte cap, per loop, thread and block of consecutive instances
// (CoarseGraph.h: LoopSpan), blocks ever larger until it fits.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sys/stat.h>

namespace gcg {

namespace {
/// Each loop instance's name as JSON text, made once per loop site (the
/// name is its site's), not once per instance.
class LoopNamesJson {
public:
  explicit LoopNamesJson(const Analysis &an) : an(an) {
    for (size_t li = 0; li < an.loops.size(); li++) {
      size_t s = size_t(an.loopSite[li]);
      if (bySite.size() <= s)
        bySite.resize(s + 1);
      if (bySite[s].empty()) // never empty once made: it has its quotes
        bySite[s] = jsonString(an.loopName(int(li)));
    }
  }
  const std::string &operator[](size_t li) const {
    return bySite[size_t(an.loopSite[li])];
  }

private:
  const Analysis &an;
  std::vector<std::string> bySite;
};
} // namespace

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
static int64_t processHeader(OutFile &o, const Run &run, size_t p,
                             const char *single, bool &firstEv) {
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

/// The end of otherData: the clock and its ticks per ns (run.json's),
/// and the end of the file's object.
static void clockData(OutFile &o, const Analysis &first) {
  o << "\"clock\": ";
  if (first.proc.meta.has("clock"))
    o << jsonString(first.proc.meta.get("clock"));
  else
    o << "null";
  o << ", \"ticks_per_ns\": ";
  o.jnum(first.clockNs()) << "}}\n";
}

TraceWritten writeTrace(const Results &R, const std::string &path) {
  const Run &run = R.run;
  OutFile o(path);
  o << TraceHead;
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
    LoopNamesJson names(an);
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
        o.i(T.execc(k)) << ", \"creation_cycles\": ";
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
  TraceWritten t;
  t.events = o.size() - TraceHead.size();
  o << "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {";
  clockData(o, first);
  o.close();
  t.size = o.size();
  t.tail = t.size - TraceHead.size() - t.events;
  return t;
}

TraceWritten writeTraceAggregated(const Results &R, const std::string &path,
                                  uint64_t block, uint64_t limit,
                                  bool truncated) {
  const Run &run = R.run;
  OutFile o(path);
  // Room kept for an event and the tail: past it, no more events.
  bool stopped = false;
  auto full = [&] {
    stopped = stopped || (limit != UINT64_MAX && o.size() + 2048 > limit);
    return stopped;
  };
  o << TraceHead;
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
    LoopNamesJson names(an);
    // The chunks' work (NA when unknown), min and max; the event's end.
    auto workArgs = [&](bool hasWork, int64_t work, int64_t lo, int64_t hi) {
      o << ", \"work_cycles\": ";
      if (hasWork)
        o.i(work);
      else
        o << jsonString(UnknownTime);
      if (hasWork) {
        o << ", \"min_chunk_work_cycles\": ";
        o.i(lo) << ", \"max_chunk_work_cycles\": ";
        o.i(hi);
      }
      o << "}}";
    };
    if (block != 1) {
      // Blocks of consecutive instances of a loop on a thread, on a track
      // per loop and thread (they overlap other loops' in time).
      std::map<std::pair<uint64_t, int>, int64_t> tracks; // (code, thread)
      for (const LoopSpan &r : loopSpans(R.procs[p].loopTable, block)) {
        if (full())
          break;
        const std::string &ln = an.loopName(r.loop);
        auto key = std::make_pair(an.codeOf(an.loops[r.loop]).codeptr, r.th);
        auto it = tracks.find(key);
        if (it == tracks.end()) {
          it = tracks.emplace(key, 500000000 + int64_t(tracks.size()) * 1000)
                   .first;
          track(it->second, "thread " + std::to_string(r.th) + ": " + ln);
        }
        event(names[r.loop], "loop instances", it->second, r.first, r.last);
        o << "\"first_loop_instance\": \"L";
        o.i(r.loop) << "\", \"instances\": ";
        o.i(r.instances) << ", \"thread\": ";
        o.i(r.th) << ", \"chunks\": ";
        o.i(r.chunks);
        workArgs(r.hasWork, r.work, r.minWork, r.maxWork);
      }
    }
    static const LoopRows NoRows;
    for (const LoopThread &r :
         block == 1 ? R.procs[p].loopTable.rows : NoRows) {
      if (!r.chunks)
        continue;
      if (full())
        break;
      event(names[r.loop], "loop instance", r.th, r.first, r.last);
      o << "\"loop_instance\": \"L";
      o.i(r.loop) << "\", \"chunks\": ";
      o.i(r.chunks);
      workArgs(r.hasWork, r.work, r.minWork, r.maxWork);
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
      if (full())
        break;
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
  TraceWritten t;
  t.events = o.size() - TraceHead.size();
  t.stopped = stopped;
  o << "\n], \"displayTimeUnit\": \"ns\", \"otherData\": {\"aggregated\": "
       "true, ";
  if (block != 1) {
    o << "\"instances_per_event\": ";
    if (block)
      o.u(block);
    else
      o << "\"all\"";
    o << ", ";
  }
  if (stopped || truncated)
    o << "\"truncated\": true, ";
  clockData(o, first);
  o.close();
  t.size = o.size();
  t.tail = t.size - TraceHead.size() - t.events;
  return t;
}

namespace {
/// Bytes a trace event takes at least besides its name (measured: a
/// chunk's 330 to 400, a loop instance's 230 to 260, with short names).
constexpr uint64_t GrainEventBytes = 280, SpanEventBytes = 200;
} // namespace

CapResult writeTraceCapped(const Results *R, const std::string &path,
                           const Caps &caps, TraceJob *job) {
  TraceJob own;
  TraceJob &J = job ? *job : own;
  CapResult r;
  // Every grain: an event per chunk and per task run segment.
  uint64_t est = 0, most = 0, nameBytes = 0, grains = R ? R->run.grains() : 0;
  grains = J.figure("grains", grains, true);
  bool fewGrains = grains <= caps.trace;
  if (R) {
    for (auto &an : R->run.procs) {
      for (size_t i = 0; fewGrains && i < an->chunks.size(); i++)
        est += GrainEventBytes + 2 * an->loopName(an->chunks.loop[i]).size();
      est += uint64_t(an->tasks.segOff.empty() ? 0 : an->tasks.segOff.back()) *
             (GrainEventBytes + 40);
      for (const Loop &lp : an->loops)
        nameBytes =
            std::max<uint64_t>(nameBytes, an->loopName(an->indexOf(lp)).size());
    }
    for (const ProcessResults &pr : R->procs)
      most = std::max(most, pr.loopTable.most);
  }
  est = J.figure("every", est, true);
  nameBytes = J.figure("names", nameBytes, false);
  most = J.figure("most", most, false);
  if (fewGrains && est <= caps.traceBytes) {
    TraceWritten t;
    if (R)
      t = writeTrace(*R, path);
    if (J.fileBytes(R ? &t : nullptr) <= caps.traceBytes)
      return r;
  }
  r.every = false;
  uint64_t cap = caps.traceBudget(grains);
  uint64_t block = 1;
  for (;;) {
    uint64_t n = 0;
    for (size_t p = 0; R && p < R->procs.size(); p++)
      n += countLoopSpans(R->procs[p].loopTable, block);
    n = J.figure("spans", n, true);
    uint64_t est = n * (SpanEventBytes + nameBytes);
    if (est <= cap || block == 0) {
      TraceWritten t;
      if (block == 0) {
        // The coarsest: the job's file stops adding events before cap, so
        // this part stops where the job's would, past the parts before it
        // (their events as written whole: past cap, the later parts'
        // events all stop).
        uint64_t b = 0;
        if (job) {
          if (R)
            t = writeTraceAggregated(*R, path, 0);
          b = J.before(R ? &t : nullptr);
        }
        if (R)
          t = writeTraceAggregated(*R, path, 0, cap > b ? cap - b : 0);
        if (J.figure("stopped", t.stopped, false) && R && !t.stopped)
          t = writeTraceAggregated(*R, path, 0, cap > b ? cap - b : 0, true);
        break;
      }
      if (R)
        t = writeTraceAggregated(*R, path, block);
      uint64_t got = J.fileBytes(R ? &t : nullptr);
      if (got <= cap)
        break;
      est = got;
    }
    block = coarserBlock(block, double(est) / double(cap), most);
  }
  // What was merged: the loops' spans, the tasks' sites, or both (over
  // the job).
  GrainKinds kinds;
  for (size_t p = 0; R && p < R->run.procs.size(); p++)
    kinds |= grainKinds(*R->run.procs[p]);
  kinds.loops = J.figure("loops", kinds.loops, false);
  kinds.tasks = J.figure("tasks", kinds.tasks, false);
  std::string loops =
      block == 1 ? "per loop instance and thread"
      : block    ? "per loop and thread over each " + std::to_string(block) +
                    " consecutive instances of the loop"
              : std::string("per loop and thread over the whole run");
  std::string sites = "per task creation site and thread";
  r.how = "an event " + (!kinds.tasks   ? loops
                         : !kinds.loops ? sites
                                        : loops + " and " + sites);
  releaseFreed(); // the levels' spans, not kept beside the next output
  return r;
}

} // namespace gcg

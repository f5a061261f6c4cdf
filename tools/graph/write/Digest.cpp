// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Digest.cpp - a process's results without its grains ---------------===//
//
// digestOf (from Results), the run-level sums of digests, and the digest
// file's writer and reader (Digest.h). The reader takes nothing on trust:
// each field is checked as it is read, against its tag and the bytes left.
//
//===----------------------------------------------------------------------===//
#include "Digest.h"

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

namespace gcg {

static const int DigestVersion = 1;

ProcessDigest digestOf(const Results &R, size_t p) {
  const Analysis &an = *R.run.procs[p];
  const ProcessResults &pr = R.procs[p];
  const ProcessDir &pd = an.proc;
  ProcessDigest d;
  d.pid = pd.pid;
  d.ppid = pd.ppid;
  d.rank = pd.rank;
  d.host = pd.host;
  d.exe = pd.exe;
  d.recordVersion = pd.version;
  d.threads = an.threads.size();
  d.chunks = an.chunks.size();
  d.tasks = an.tasks.size();
  d.ticksPerNs = an.clockNs();
  d.hasClock = pd.meta.has("clock");
  d.clock = pd.meta.get("clock");
  d.toolTime = an.extToolTime;
  d.complete = pd.complete;
  d.endsAt = pd.complete ? std::string() : Run::endsAt(an);
  d.critAcyclic = pr.crit.acyclic;
  d.critSpan = pr.crit.span;
  d.critWork = pr.crit.work;
  d.time = pr.time;
  d.counts = pr.counts;
  for (const Problem &q : pr.problems) {
    d.problems.push_back(q);
    d.problems.back().outlierGrains.clear();
    std::vector<std::string> ids;
    for (uint64_t c : q.outlierGrains)
      ids.push_back(chunkId(R.run, p, size_t(c)));
    d.outlierIds.push_back(std::move(ids));
  }
  d.loopWork = pr.loopWork;
  d.summary = summaryOf(R, p);
  return d;
}

std::vector<ProcessDigest> digestsOf(const Results &R) {
  std::vector<ProcessDigest> ds;
  for (size_t p = 0; p < R.procs.size(); p++)
    ds.push_back(digestOf(R, p));
  return ds;
}

RunDigest runDigest(std::vector<ProcessDigest> procs, bool multi) {
  RunDigest D;
  D.procs = std::move(procs);
  D.multi = multi || D.procs.size() > 1;
  D.counts.resize(P_COUNT);
  std::vector<ProcessLoopWork> lw;
  for (int f = 0; f < P_COUNT; f++)
    D.counts[f].flag = f;
  for (size_t p = 0; p < D.procs.size(); p++) {
    ProcessDigest &d = D.procs[p];
    for (Problem &q : d.problems)
      q.process = int(p);
    for (const ProblemCount &c : d.counts) {
      if (c.flag < 0 || c.flag >= P_COUNT)
        continue;
      ProblemCount &t = D.counts[c.flag];
      t.grains += c.grains;
      t.onPath += c.onPath;
      t.pathKnown = t.pathKnown && c.pathKnown;
    }
    lw.push_back(d.loopWork);
  }
  if (D.multi)
    D.across = acrossProcesses(lw);
  return D;
}

//===-- The file ----------------------------------------------------------===//

namespace {
class DigestOut {
public:
  std::string s;
  void str(const char *tag, const std::string &v) {
    s += tag;
    s += ' ' + std::to_string(v.size()) + '\n';
    s += v;
    s += '\n';
  }
  void i(const char *tag, int64_t v) {
    s += tag;
    s += ' ' + std::to_string(v) + '\n';
  }
  void d(const char *tag, double v) {
    char b[64];
    std::snprintf(b, sizeof b, "%a", v);
    s += tag;
    s += ' ';
    s += b;
    s += '\n';
  }
};

class DigestIn {
public:
  DigestIn(const std::string &text, const std::string &name)
      : t(text), name(name) {}
  [[noreturn]] void fail(const std::string &why) const {
    throw Error(name + ": " + why + " (not a digest grainchunk-graph " +
                "wrote: a damaged or foreign part)");
  }
  /// The value of the next line "<tag> <value>".
  std::string line(const char *tag) {
    size_t e = t.find('\n', at);
    if (e == std::string::npos)
      fail(std::string("cut short before ") + tag);
    std::string l = t.substr(at, e - at);
    size_t n = std::strlen(tag);
    if (l.compare(0, n, tag) != 0 || l.size() < n + 1 || l[n] != ' ')
      fail(std::string("expected ") + tag + " at byte " + std::to_string(at));
    at = e + 1;
    return l.substr(n + 1);
  }
  int64_t i(const char *tag, int64_t lo, int64_t hi) {
    std::string v = line(tag);
    char *end = nullptr;
    errno = 0;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (v.empty() || *end || errno || x < lo || x > hi)
      fail(std::string("bad ") + tag + " " + v.substr(0, 40));
    return x;
  }
  double d(const char *tag) {
    std::string v = line(tag);
    char *end = nullptr;
    double x = std::strtod(v.c_str(), &end);
    if (v.empty() || *end)
      fail(std::string("bad ") + tag + " " + v.substr(0, 40));
    return x;
  }
  bool b(const char *tag) { return i(tag, 0, 1) != 0; }
  std::string str(const char *tag) {
    int64_t n = i(tag, 0, int64_t(t.size() - at));
    if (t.size() - at < size_t(n) + 1 || t[at + size_t(n)] != '\n')
      fail(std::string("cut short in ") + tag);
    std::string v = t.substr(at, size_t(n));
    at += size_t(n) + 1;
    return v;
  }
  /// A count of items of at least `least` bytes each, bounded by the
  /// bytes left.
  size_t count(const char *tag, size_t least) {
    return size_t(i(tag, 0, int64_t((t.size() - at) / least)));
  }
  /// Whether exactly `last` is left.
  bool endsWith(const char *last) const {
    return t.compare(at, std::string::npos, last) == 0;
  }

private:
  const std::string &t;
  std::string name;
  size_t at = 0;
};

void putBreakdown(DigestOut &o, const Breakdown &b) {
  o.i("threads", int64_t(b.threads));
  for (double v :
       {b.span, b.threadTime, b.serial, b.serialIdle, b.inRegions, b.forkJoin,
        b.chunkWork, b.taskWork, b.waitLoop, b.waitRegion, b.waitBarrier,
        b.waitTaskwait, b.waitTaskgroup, b.waitOther, b.outside, b.coverage})
    o.d("t", v);
  o.i("regions_known", b.regionsKnown);
}

Breakdown getBreakdown(DigestIn &in) {
  Breakdown b;
  b.threads = size_t(in.i("threads", 0, INT64_MAX));
  for (double *v : {&b.span, &b.threadTime, &b.serial, &b.serialIdle,
                    &b.inRegions, &b.forkJoin, &b.chunkWork, &b.taskWork,
                    &b.waitLoop, &b.waitRegion, &b.waitBarrier, &b.waitTaskwait,
                    &b.waitTaskgroup, &b.waitOther, &b.outside, &b.coverage})
    *v = in.d("t");
  b.regionsKnown = in.b("regions_known");
  return b;
}
} // namespace

void writeDigestFile(const std::vector<ProcessDigest> &ds,
                     const std::string &path) {
  DigestOut o;
  o.s = "grainchunk-digest " + std::to_string(DigestVersion) + "\n";
  o.i("processes", int64_t(ds.size()));
  for (const ProcessDigest &d : ds) {
    o.i("pid", d.pid);
    o.i("ppid", d.ppid);
    o.i("rank", d.rank);
    o.str("host", d.host);
    o.str("exe", d.exe);
    o.i("record_version", d.recordVersion);
    o.i("threads", int64_t(d.threads));
    o.i("chunks", int64_t(d.chunks));
    o.i("tasks", int64_t(d.tasks));
    o.d("ticks_per_ns", d.ticksPerNs);
    o.i("has_clock", d.hasClock);
    o.str("clock", d.clock);
    o.i("tool_time", d.toolTime);
    o.i("complete", d.complete);
    o.str("ends_at", d.endsAt);
    o.i("crit_acyclic", d.critAcyclic);
    o.d("crit_span", d.critSpan);
    o.d("crit_work", d.critWork);
    putBreakdown(o, d.time);
    o.i("counts", int64_t(d.counts.size()));
    for (const ProblemCount &c : d.counts) {
      o.i("flag", c.flag);
      o.i("grains", int64_t(c.grains));
      o.i("on_path", int64_t(c.onPath));
      o.i("path_known", c.pathKnown);
    }
    o.i("problems", int64_t(d.problems.size()));
    for (size_t k = 0; k < d.problems.size(); k++) {
      const Problem &q = d.problems[k];
      o.str("kind", q.kind);
      o.str("where", q.where);
      o.d("lost_ms", q.lostMs);
      o.d("work_ms", q.workMs);
      o.d("share", q.share);
      o.i("instances_multi", q.instancesMulti);
      o.i("instances_single", q.instancesSingle);
      o.d("imbalance", q.imbalance);
      o.str("why", q.why);
      o.str("suggestion", q.suggestion);
      o.d("now_lost_ms", q.nowLostMs);
      o.d("dyn_lost_ms", q.dynLostMs);
      o.d("guided_lost_ms", q.guidedLostMs);
      o.i("dyn_chunk", int64_t(q.dynChunk));
      o.i("est_instances", q.estInstances);
      const std::vector<std::string> &ids = d.outlierIds[k];
      o.i("outliers", int64_t(ids.size()));
      for (const std::string &id : ids)
        o.str("id", id);
    }
    o.str("who", d.loopWork.who);
    o.d("ticks_per_ms", d.loopWork.ticksPerMs);
    o.i("loops", int64_t(d.loopWork.loops.size()));
    for (const LoopWork &lw : d.loopWork.loops) {
      o.str("name", lw.name);
      o.d("lost_within_ms", lw.lostWithinMs);
      o.i("threads", int64_t(lw.perThread.size()));
      for (auto &[th, w] : lw.perThread) {
        o.i("th", th);
        o.d("work", w);
      }
    }
    o.str("summary", d.summary);
  }
  o.s += "end\n";
  OutFile f(path);
  f << o.s;
  f.close();
}

std::vector<ProcessDigest> readDigestFile(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw Error(path + ": cannot read: " + std::strerror(errno));
  std::stringstream ss;
  ss << f.rdbuf();
  return parseDigest(ss.str(), path);
}

std::vector<ProcessDigest> parseDigest(const std::string &text,
                                       const std::string &path) {
  DigestIn in(text, path);
  std::string head = "grainchunk-digest ";
  if (text.compare(0, head.size(), head) != 0)
    in.fail("no grainchunk-digest header");
  int64_t v = in.i("grainchunk-digest", 0, INT32_MAX);
  if (v != DigestVersion)
    throw Error(path + ": digest version " + std::to_string(v) +
                ", this grainchunk-graph reads version " +
                std::to_string(DigestVersion) +
                " (every rank must run the same grainchunk-graph)");
  std::vector<ProcessDigest> ds(in.count("processes", 64));
  for (ProcessDigest &d : ds) {
    d.pid = in.i("pid", -1, INT64_MAX);
    d.ppid = in.i("ppid", -1, INT64_MAX);
    d.rank = in.i("rank", -1, INT32_MAX);
    d.host = in.str("host");
    d.exe = in.str("exe");
    d.recordVersion = int(in.i("record_version", 0, INT32_MAX));
    d.threads = uint64_t(in.i("threads", 0, INT64_MAX));
    d.chunks = uint64_t(in.i("chunks", 0, INT64_MAX));
    d.tasks = uint64_t(in.i("tasks", 0, INT64_MAX));
    d.ticksPerNs = in.d("ticks_per_ns");
    d.hasClock = in.b("has_clock");
    d.clock = in.str("clock");
    d.toolTime = in.b("tool_time");
    d.complete = in.b("complete");
    d.endsAt = in.str("ends_at");
    d.critAcyclic = in.b("crit_acyclic");
    d.critSpan = in.d("crit_span");
    d.critWork = in.d("crit_work");
    d.time = getBreakdown(in);
    d.counts.resize(in.count("counts", 16));
    for (ProblemCount &c : d.counts) {
      c.flag = int(in.i("flag", 0, P_COUNT - 1));
      c.grains = uint64_t(in.i("grains", 0, INT64_MAX));
      c.onPath = uint64_t(in.i("on_path", 0, INT64_MAX));
      c.pathKnown = in.b("path_known");
    }
    d.problems.resize(in.count("problems", 64));
    d.outlierIds.resize(d.problems.size());
    for (size_t k = 0; k < d.problems.size(); k++) {
      Problem &q = d.problems[k];
      q.kind = in.str("kind");
      q.where = in.str("where");
      q.lostMs = in.d("lost_ms");
      q.workMs = in.d("work_ms");
      q.share = in.d("share");
      q.instancesMulti = unsigned(in.i("instances_multi", 0, UINT32_MAX));
      q.instancesSingle = unsigned(in.i("instances_single", 0, UINT32_MAX));
      q.imbalance = in.d("imbalance");
      q.why = in.str("why");
      q.suggestion = in.str("suggestion");
      q.nowLostMs = in.d("now_lost_ms");
      q.dynLostMs = in.d("dyn_lost_ms");
      q.guidedLostMs = in.d("guided_lost_ms");
      q.dynChunk = uint64_t(in.i("dyn_chunk", 0, INT64_MAX));
      q.estInstances = unsigned(in.i("est_instances", 0, UINT32_MAX));
      d.outlierIds[k].resize(in.count("outliers", 5));
      for (std::string &id : d.outlierIds[k])
        id = in.str("id");
    }
    d.loopWork.who = in.str("who");
    d.loopWork.ticksPerMs = in.d("ticks_per_ms");
    d.loopWork.loops.resize(in.count("loops", 16));
    for (LoopWork &lw : d.loopWork.loops) {
      lw.name = in.str("name");
      lw.lostWithinMs = in.d("lost_within_ms");
      lw.perThread.resize(in.count("threads", 8));
      for (auto &tw : lw.perThread) {
        tw.first = int(in.i("th", INT32_MIN, INT32_MAX));
        tw.second = in.d("work");
      }
    }
    d.summary = in.str("summary");
  }
  if (!in.endsWith("end\n"))
    in.fail("cut short or trailing bytes after the last process");
  return ds;
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ReportPart.cpp - an MPI rank's fragment of report.html -------------===//
//
// An MPI job's page is assembled from its ranks' fragments (report.part,
// writeReportPart), which hold what each rank's processes give at every
// level the page may take: the processes' facts, rows and instance steps
// (each process's own first InstanceSteps: those of the run are among
// them), the graphs, every grain's bars (when the job is within the grain
// cap), the tasks' aggregated bars and the loop table from which the loop
// bars of any block are made. Rank 0 (mergeReport) numbers them through the
// job and chooses the level from the page's size as one command does, with
// the same code: the same bytes.
//
// A rank writes its processes' pieces as one command's page takes them
// (ResultsSource, ReportPage.h); rank 0 reads the fragments back
// (PartReader) as a PageSource (PartSource) and writes the page with
// writePage (ReportWriter.cpp).
//
//===----------------------------------------------------------------------===//
#include "Digest.h"
#include "LoopTable.h"
#include "ReportPage.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <fcntl.h>
#include <functional>
#include <sys/stat.h>
#include <unistd.h>

namespace gcg {

namespace {

//===-- A rank's fragment -------------------------------------------------===//
//
// report.part, text: "grainchunk-report-part 1", "most <n>", the colours
// ("colours <loops> <sites>", then per loop and site a string "<length>"
// line and its bytes, and the same for its colour), "procs <n>", then per
// process: its pieces (strings as above: json, prefix, who; "threads <n>"
// and the threads; "chunks <n> <tasks>"; "inst <K>", per legend index
// "<n> <m>" and m steps "<lost> <start> <end> <instance>"), its graphs
// ("graph <every> <groups> <members> <edges>", the coarser text as a
// string, a string per group, "<group>" and a string per member, an edge
// per line), its bars ("bars <every> <n>": per bar "th s d k inst lo hi c
// n count pm" and, aggregated, the P_COUNT counts), its loop source
// ("loops <instances> <rows> <flags> <t0> <ticks per ns %a>", per instance
// "<id> <legend>", per row "loop th chunks hasWork work first last", per
// flagged (instance, thread) "loop th" and the P_COUNT counts), "end".

void putStr(OutFile &o, const std::string &s) {
  o << std::to_string(s.size()) << "\n" << s << "\n";
}

/// Reads a fragment: words, numbers and length-prefixed strings from a
/// window of the file (pread), without iostreams: rank 0 parses every
/// rank's loop table once per level it measures, and an istream's locale
/// and sentry per number took most of the merge's time. Numbers parse as
/// istream's >> did (skipping whitespace; a sign; an unsigned value may be
/// negative and wraps); any other byte, a number too large, or an early
/// end fails().
class PartReader {
public:
  PartReader(const std::string &path, const std::string &bad)
      : fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC)), bad(bad) {
    struct stat st;
    if (fd < 0 || ::fstat(fd, &st) != 0)
      fail();
    size = uint64_t(st.st_size);
  }
  PartReader(PartReader &&o) noexcept
      : fd(o.fd), bad(std::move(o.bad)), size(o.size), buf(std::move(o.buf)),
        at(o.at), pos(o.pos), len(o.len) {
    o.fd = -1;
  }
  PartReader(const PartReader &) = delete;
  ~PartReader() {
    if (fd >= 0)
      ::close(fd);
  }
  [[noreturn]] void fail() {
    throw Error(bad + " is not a report fragment a rank writes");
  }
  std::string word() {
    skipSpace();
    std::string w;
    for (int c; (c = peek()) >= 0 && !space(c); pos++)
      w += char(c);
    if (w.empty())
      fail();
    return w;
  }
  void expect(const char *w) {
    if (word() != w)
      fail();
  }
  int64_t i() {
    bool neg = false;
    uint64_t v = digits(neg);
    if (neg ? v > uint64_t(INT64_MAX) + 1 : v > uint64_t(INT64_MAX))
      fail();
    return neg ? int64_t(0 - v) : int64_t(v);
  }
  uint64_t u() {
    bool neg = false;
    uint64_t v = digits(neg);
    return neg ? 0 - v : v;
  }
  /// A count: of items that each take a byte of the file at least.
  size_t count(uint64_t most = UINT64_MAX) {
    uint64_t v = u();
    if (v > most || v > size)
      fail();
    return size_t(v);
  }
  double d() {
    std::string w = word();
    char *e = nullptr;
    double v = std::strtod(w.c_str(), &e);
    if (*e)
      fail();
    return v;
  }
  std::string s() {
    size_t n = count();
    if (get() != '\n')
      fail();
    std::string v;
    v.reserve(n);
    while (v.size() < n) {
      if (pos == len && !fill())
        fail();
      size_t k = std::min(n - v.size(), len - pos);
      v.append(&buf[pos], k);
      pos += k;
    }
    if (get() != '\n')
      fail();
    return v;
  }
  uint64_t tell() const { return at + pos; }
  void seek(uint64_t to) {
    if (to >= at && to <= at + len) {
      pos = size_t(to - at);
      return;
    }
    at = to, pos = len = 0;
  }

private:
  static bool space(int c) {
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' ||
           c == '\f';
  }
  /// The next window of the file after the current one; false at its end.
  bool fill() {
    at += len;
    pos = len = 0;
    if (buf.empty())
      buf.resize(size_t(1) << 16);
    ssize_t n;
    do
      n = ::pread(fd, buf.data(), buf.size(), off_t(at));
    while (n < 0 && errno == EINTR);
    if (n < 0)
      fail();
    len = size_t(n);
    return len > 0;
  }
  int peek() {
    if (pos == len && !fill())
      return -1;
    return (unsigned char)buf[pos];
  }
  int get() {
    int c = peek();
    if (c >= 0)
      pos++;
    return c;
  }
  void skipSpace() {
    for (int c; (c = peek()) >= 0 && space(c);)
      pos++;
  }
  /// Whitespace, a sign, then decimal digits up to the next other byte.
  uint64_t digits(bool &neg) {
    skipSpace();
    int c = peek();
    if (c == '-' || c == '+') {
      neg = c == '-';
      pos++;
      c = peek();
    }
    if (c < '0' || c > '9')
      fail();
    uint64_t v = 0;
    for (; c >= '0' && c <= '9'; pos++, c = peek()) {
      if (v > (UINT64_MAX - uint64_t(c - '0')) / 10)
        fail();
      v = v * 10 + uint64_t(c - '0');
    }
    return v;
  }

  int fd;
  std::string bad;

public:
  uint64_t size = 0;

private:
  std::vector<char> buf;
  uint64_t at = 0; // the file offset of buf[0]
  size_t pos = 0, len = 0;
};

/// Reads a bars section (its header read): each bar to f (f null: skipped).
void readBars(PartReader &r, bool every, size_t n, const BarFn *f) {
  for (size_t b = 0; b < n; b++) {
    int th = int(r.i());
    int64_t s = r.i(), d = r.i();
    int k = int(r.i());
    int64_t inst = r.i(), lo = r.i(), hi = r.i();
    int c = int(r.i());
    int64_t nn = r.i(), count = r.i();
    unsigned pm = unsigned(r.u());
    std::array<uint32_t, P_COUNT> fc{};
    if (!every)
      for (int x = 0; x < P_COUNT; x++)
        fc[x] = uint32_t(r.u());
    if (f)
      (*f)(th, s, d, k, inst, lo, hi, c, nn, count, pm,
           every ? nullptr : fc.data());
  }
}

/// Reads a loop source (its "loops" word read).
LoopSource readLoops(PartReader &r) {
  LoopSource L;
  size_t ni = r.count(), nr = r.count(), nf = r.count();
  L.t0 = r.u();
  L.tpn = r.d();
  L.keys.resize(ni), L.legend.resize(ni);
  for (size_t li = 0; li < ni; li++) {
    L.keys[li] = int(r.i());
    L.legend[li] = int(r.i());
    if (L.legend[li] < 0 || L.keys[li] < 0 || size_t(L.keys[li]) >= ni)
      r.fail();
  }
  for (size_t j = 0; j < nr; j++) {
    int64_t loop = r.i(), th = r.i(), chunks = r.i();
    bool hasWork = r.i() != 0;
    int64_t work = r.i();
    uint64_t first = r.u(), last = r.u();
    if (loop < 0 || size_t(loop) >= ni || th < INT_MIN || th > INT_MAX ||
        !L.own.add(int(loop), int(th), chunks, hasWork, work, first, last))
      r.fail();
  }
  if (!L.own.close(ni))
    r.fail();
  for (size_t j = 0; j < nf; j++) {
    int li = int(r.i()), th = int(r.i());
    if (li < 0 || size_t(li) >= ni)
      r.fail();
    L.flags.push_back({{li, th}, {}});
    for (int x = 0; x < P_COUNT; x++)
      L.flags.back().second[x] = uint32_t(r.u());
  }
  // A rank writes them by key, each once (byKey): sorted again only if not.
  if (std::adjacent_find(L.flags.begin(), L.flags.end(),
                         [](const auto &a, const auto &b) {
                           return !(a.first < b.first);
                         }) != L.flags.end())
    byKey(L.flags, false);
  return L;
}

/// An MPI job's source: its ranks' fragments, in rank order. The pieces
/// and graphs are held; the bars are read from the fragments each time.
class PartSource : public PageSource {
public:
  /// Reads the fragments' pieces; colours and most from the first.
  PartSource(const std::vector<std::pair<int, std::string>> &frags,
             const std::vector<size_t> &counts, PageRun &run) {
    bool first = true;
    for (size_t fi = 0; fi < frags.size(); fi++) {
      const auto &[rank, path] = frags[fi];
      std::string bad = "rank " + std::to_string(rank) + "'s part: " + path;
      files.push_back({path, bad});
      PartReader r(path, bad);
      r.expect("grainchunk-report-part");
      if (r.u() != 1)
        r.fail();
      r.expect("most");
      run.most = std::max(run.most, r.u());
      r.expect("colours");
      size_t nl = r.count(), ns = r.count();
      for (size_t j = 0; j < nl + ns; j++) {
        std::string name = r.s(), colour = r.s();
        if (!first)
          continue;
        (j < nl ? run.loops : run.sites).push_back(name);
        (j < nl ? run.loopColour : run.siteColour)[name] = colour;
      }
      if (first)
        loops = seeded(run.loops), sites = seeded(run.sites);
      first = false;
      r.expect("procs");
      size_t np = r.count();
      if (np != counts[fi])
        throw Error(bad + " holds " + std::to_string(np) +
                    " processes, its digest " + std::to_string(counts[fi]));
      for (size_t j = 0; j < np; j++)
        readProc(r);
      r.expect("end");
    }
  }
  Names loops, sites;
  size_t size() const override { return procs.size(); }
  const PageProc &proc(size_t p) override { return procs[p].P; }
  const ProcGraph &graph(size_t p, bool every) override {
    if (!procs[p].hasGraph[every])
      reader(procs[p].file).fail();
    return procs[p].G[every];
  }
  void bars(size_t p, bool every, uint64_t block, const BarFn &f) override {
    Proc &x = procs[p];
    PartReader r = reader(x.file);
    if (every) {
      if (!x.hasEvery)
        r.fail();
      r.seek(x.every);
      readBars(r, true, x.nEvery, &f);
      return;
    }
    r.seek(x.loops);
    loopBars(readLoops(r), block, f);
    r.seek(x.tasks);
    readBars(r, false, x.nTasks, &f);
  }

private:
  struct Proc {
    size_t file = 0;
    PageProc P;
    ProcGraph G[2];
    bool hasGraph[2] = {false, false}, hasEvery = false;
    uint64_t every = 0, tasks = 0, loops = 0;
    size_t nEvery = 0, nTasks = 0;
  };
  std::vector<std::pair<std::string, std::string>> files; // path, bad
  std::vector<Proc> procs;
  /// Fragment i opened again (a file open per rank at most at a time).
  PartReader reader(size_t i) {
    return PartReader(files[i].first, files[i].second);
  }

  void readProc(PartReader &r) {
    Proc x;
    x.file = files.size() - 1;
    r.expect("proc");
    x.P.json = r.s(), x.P.prefix = r.s(), x.P.who = r.s();
    r.expect("threads");
    x.P.threads.resize(r.count());
    for (int &t : x.P.threads)
      t = int(r.i());
    r.expect("chunks");
    x.P.chunks = r.u(), x.P.tasks = r.u();
    r.expect("inst");
    size_t nk = r.count(size_t(1) << 24);
    x.P.instN.resize(nk), x.P.instTop.resize(nk);
    for (size_t k = 0; k < nk; k++) {
      x.P.instN[k] = r.i();
      x.P.instTop[k].resize(r.count(InstanceSteps));
      for (auto &e : x.P.instTop[k])
        for (int64_t &v : e)
          v = r.i();
    }
    for (std::string w = r.word(); w != "endproc"; w = r.word()) {
      if (w == "graph") {
        bool every = r.i() != 0;
        ProcGraph &G = x.G[every];
        x.hasGraph[every] = true;
        G.groups.resize(r.count());
        G.members.resize(r.count());
        G.edges.resize(r.count());
        if (G.groups.empty() && !(G.members.empty() && G.edges.empty()))
          r.fail();
        G.coarser = r.s();
        for (std::string &g : G.groups)
          g = r.s();
        for (auto &m : G.members) {
          m.first = uint32_t(r.count(G.groups.size() - 1));
          m.second = r.s();
        }
        for (auto &e : G.edges)
          for (uint32_t &v : e)
            v = uint32_t(r.count(G.groups.size()));
      } else if (w == "bars") {
        bool every = r.i() != 0;
        size_t n = r.count();
        (every ? x.every : x.tasks) = r.tell();
        (every ? x.nEvery : x.nTasks) = n;
        x.hasEvery = x.hasEvery || every;
        readBars(r, every, n, nullptr);
      } else if (w == "loops") {
        x.loops = r.tell();
        readLoops(r);
      } else {
        r.fail();
      }
    }
    procs.push_back(std::move(x));
  }
};

} // namespace

void writeReportPart(const Results &R, const std::string &path,
                     const Caps &caps, uint64_t jobGrains, size_t jobProcs) {
  PageRun run = pageRunOf(R);
  Names loops = seeded(run.loops), sites = seeded(run.sites);
  ResultsSource src(R, jobProcs, loops, sites);
  bool every = jobGrains <= caps.report;
  OutFile o(path);
  char b[64];
  o << "grainchunk-report-part 1\nmost " << std::to_string(run.most)
    << "\ncolours " << std::to_string(run.loops.size()) << " "
    << std::to_string(run.sites.size()) << "\n";
  for (const std::string &n : run.loops)
    putStr(o, n), putStr(o, colourOf(run.loopColour, n));
  for (const std::string &n : run.sites)
    putStr(o, n), putStr(o, colourOf(run.siteColour, n));
  o << "procs " << std::to_string(src.size()) << "\n";
  // A section of bars: "bars <every> <n>", a line per bar (made once).
  std::string lines;
  size_t nBars = 0;
  BarFn put = [&](int th, int64_t s, int64_t d, int k, int64_t inst, int64_t lo,
                  int64_t hi, int c, int64_t n, int64_t count, unsigned pm,
                  const uint32_t *fc) {
    for (int64_t v : {int64_t(th), s, d, int64_t(k), inst, lo, hi, int64_t(c),
                      n, count, int64_t(pm)})
      lines += std::to_string(v) + " ";
    for (int f = 0; fc && f < P_COUNT; f++)
      lines += std::to_string(fc[f]) + " ";
    lines.back() = '\n';
    nBars++;
  };
  auto section = [&](bool e, const std::function<void(const BarFn &)> &f) {
    lines.clear(), nBars = 0;
    f(put);
    o << "bars " << (e ? "1 " : "0 ") << std::to_string(nBars) << "\n" << lines;
    std::string().swap(lines);
  };
  for (size_t p = 0; p < src.size(); p++) {
    const PageProc &P = src.proc(p);
    o << "proc\n";
    putStr(o, P.json), putStr(o, P.prefix), putStr(o, P.who);
    o << "threads " << std::to_string(P.threads.size());
    for (int t : P.threads)
      o << " " << std::to_string(t);
    o << "\nchunks " << std::to_string(P.chunks) << " "
      << std::to_string(P.tasks) << "\ninst "
      << std::to_string(P.instTop.size()) << "\n";
    for (size_t k = 0; k < P.instTop.size(); k++) {
      o << std::to_string(P.instN[k]) << " "
        << std::to_string(P.instTop[k].size()) << "\n";
      for (const auto &e : P.instTop[k])
        o << std::to_string(e[0]) << " " << std::to_string(e[1]) << " "
          << std::to_string(e[2]) << " " << std::to_string(e[3]) << "\n";
    }
    for (bool e : {false, true}) {
      if (e && !every)
        continue;
      const ProcGraph &G = src.graph(p, e);
      o << "graph " << (e ? "1 " : "0 ") << std::to_string(G.groups.size())
        << " " << std::to_string(G.members.size()) << " "
        << std::to_string(G.edges.size()) << "\n";
      putStr(o, G.coarser);
      for (const std::string &g : G.groups)
        putStr(o, g);
      for (const auto &[g, m] : G.members)
        o << std::to_string(g) << " ", putStr(o, m);
      for (const auto &x : G.edges)
        o << std::to_string(x[0]) << " " << std::to_string(x[1]) << " "
          << std::to_string(x[2]) << "\n";
    }
    // Bars: every grain's (when the job's page may draw every grain), the
    // tasks' aggregated, and the loops' source.
    if (every)
      section(true, [&](const BarFn &f) { everyBars(R, p, loops, sites, f); });
    section(false, [&](const BarFn &f) { taskBars(R, p, sites, f); });
    LoopSource L = loopSourceOf(R, p, loops);
    FlagCounts flags = L.keyedFlags();
    std::snprintf(b, sizeof b, "%a", L.tpn);
    const std::vector<int> &keys = L.loopIds();
    o << "loops " << std::to_string(keys.size()) << " "
      << std::to_string(L.rows->size()) << " " << std::to_string(flags.size())
      << " " << std::to_string(L.t0) << " " << b << "\n";
    for (size_t li = 0; li < keys.size(); li++)
      o << std::to_string(keys[li]) << " " << std::to_string(L.legendOf(li))
        << "\n";
    for (const LoopThread &x : *L.rows)
      o << std::to_string(x.loop) << " " << std::to_string(x.th) << " "
        << std::to_string(x.chunks) << " " << (x.hasWork ? "1 " : "0 ")
        << std::to_string(x.work) << " " << std::to_string(x.first) << " "
        << std::to_string(x.last) << "\n";
    for (const auto &[key, fc] : flags) {
      o << std::to_string(key.first) << " " << std::to_string(key.second);
      for (uint32_t v : fc)
        o << " " << std::to_string(v);
      o << "\n";
    }
    o << "endproc\n";
  }
  o << "end\n";
  o.close();
}

void mergeReport(const RunDigest &D,
                 const std::vector<std::pair<int, std::string>> &frags,
                 const std::string &path, const Caps &caps,
                 const std::string &version, std::vector<LeftOut> &leftOut) {
  PageRun run;
  run.program = D.procs.empty() ? std::string() : D.procs[0].exe;
  std::vector<std::pair<double, ReportProblem>> probs;
  for (const ProcessDigest &d : D.procs) {
    run.grains += d.chunks + d.tasks;
    for (size_t k = 0; k < d.problems.size(); k++)
      probs.push_back(
          {d.problems[k].lostMs,
           reportProblem(d.problems[k], d.rank, d.pid, D.procs.size() > 1,
                         k < d.outlierIds.size()
                             ? d.outlierIds[k]
                             : std::vector<std::string>())});
  }
  run.views = viewsJson(D.counts);
  run.problems = problemsJson(rankForReport(std::move(probs)));
  run.across = acrossJson(D.across);
  std::vector<size_t> counts;
  for (const auto &f : frags)
    counts.push_back(size_t(std::count_if(
        D.procs.begin(), D.procs.end(),
        [&](const ProcessDigest &d) { return d.rank == f.first; })));
  PartSource src(frags, counts, run);
  writePage(run, src, src.loops, src.sites, path, caps, version, leftOut);
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- ReportWriter.cpp - report.html: one self-contained page of the run -===//
//
// Builds the page's data as one JSON object and puts it, with the page's
// script and style (ReportPage.inc, made by CMake from tools/graph/report/),
// into one HTML file. The JSON is inside a <script type="application/json">
// element: every '<', '>' and '&' in it is written \u003c, \u003e, \u0026
// (they only occur inside strings), so no name from the program (a file
// named "</script>...") can end the element; the script reads the names
// with JSON.parse and puts them on the page as text, never as markup.
//
// The data: the run's facts; the loops and task sites with their colours
// (Palette.h: the colours every output gives them); timeline rows (process,
// thread); per grain (start, duration, loop or site, instance, iterations,
// critical path) up to Caps::report grains, above it per loop instance and
// thread and per task site and thread; the grain graph per process: the
// engine's coarse graph (CoarseGraph.h, as the aggregated grains.graphml has
// it) at the coarseness that keeps it within MaxGraphNodes, its critical path
// as one path (coarsePath), each group's grains listed where it can be
// expanded; the problems (problemsForReport); the problem views
// (ProblemViews.h): per problem type that flags a grain (and the outliers) its
// count line, per bar and graph member its problem flags, per aggregated bar
// and group the number of its grains each type flags.
//
// writePage tries levels finest first: the first only measured (its bars
// counted, not held), a level chosen from the size of the one before made
// with its bars' arrays spilled to a temporary file beside the page (up to
// the cap; Spill, SpillFile) and, when it fits, written with each array copied
// into its place (made once, not measured and made again). The bars are never
// held in memory, nor the loop spans (streamLoopSpans); the page of every
// grain is not tried when its bars alone (ten numbers per chunk at least)
// pass the cap. The aggregated task bars are made once per process from
// the segments sorted by start per site and thread (taskBars: counted into
// cells by start, a quarter of the segments' keys, 8 bytes each, held at a
// time).
//
// The page is assembled (reportPage, writePage) from a source of
// per-process pieces (PageSource, ReportPage.h); here the source of one
// command's Results (ResultsSource). An MPI job's is its ranks' fragments
// (ReportPart.cpp), read by rank 0 and assembled with the same code: the
// same bytes.
//
//===----------------------------------------------------------------------===//
#include "ReportWriter.h"
#include "CoarseGraph.h"
#include "LoopTable.h"
#include "Palette.h"
#include "ProblemViews.h"
#include "Problems.h"
#include "ReportPage.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fcntl.h>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string_view>
#include <tuple>
#include <unistd.h>
#include <unordered_map>

namespace gcg {

/// a - b as the release build has always computed it (two's complement),
/// without signed overflow: iteration numbers span all 64 bits.
static int64_t wrapSub(int64_t a, int64_t b) {
  return int64_t(uint64_t(a) - uint64_t(b));
}

namespace {
#include "ReportPage.inc"

/// Graph nodes drawn at most, over all processes (the page lays them out
/// itself): coarser groups above it.
constexpr uint64_t MaxGraphNodes = 1000;
/// A group of at most this many grains can be expanded on the page.
constexpr int64_t MaxExpand = 64;

/// The processes a left-out line names: "rank 3", ranks as runs ("ranks
/// 0-2, 4"), else their names, the first 8 and how many more: a line
/// stays short at any number of ranks.
std::string whoText(const std::vector<std::string> &who) {
  std::vector<long long> ranks;
  for (const std::string &w : who) {
    char *e = nullptr;
    long long r = w.compare(0, 5, "rank ") == 0 && w.size() > 5
                      ? std::strtoll(w.c_str() + 5, &e, 10)
                      : -1;
    if (r < 0 || !e || *e || (!ranks.empty() && r <= ranks.back())) {
      ranks.clear();
      break;
    }
    ranks.push_back(r);
  }
  std::string s;
  if (!ranks.empty()) {
    s = ranks.size() == 1 ? "rank " : "ranks ";
    for (size_t i = 0; i < ranks.size();) {
      size_t j = i;
      while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1)
        j++;
      s += (i ? ", " : "") + std::to_string(ranks[i]) +
           (j > i ? "-" + std::to_string(ranks[j]) : "");
      i = j + 1;
    }
    return s;
  }
  for (size_t j = 0; j < who.size() && j < 8; j++)
    s += (j ? ", " : "") + who[j];
  if (who.size() > 8)
    s += " and " + std::to_string(who.size() - 8) + " more";
  return s;
}

std::string num(double v, int digits = 3) {
  if (!std::isfinite(v))
    return "null";
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  std::string s = b;
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0')
      s.pop_back();
    if (s.back() == '.')
      s.pop_back();
  }
  return s == "-0" ? "0" : s;
}

std::string str(const std::string &s) { return jsonString(s); }

/// 10^0 .. 10^19.
constexpr std::array<uint64_t, 20> Pow10 = [] {
  std::array<uint64_t, 20> p{};
  uint64_t x = 1;
  for (uint64_t &e : p)
    e = x, x *= 10;
  return p;
}();

/// std::llround(x) (halves away from zero), without the library call
/// where x is well within int64_t (x less its integer part is exact).
inline int64_t roundAway(double x) {
  if (!(std::fabs(x) < 0x1p62))
    return int64_t(std::llround(x));
  auto t = int64_t(x); // toward zero
  double f = x - double(t);
  return t + (f >= 0.5) - (f <= -0.5);
}

/// The page's spilled text: one temporary file beside the page (unlinked:
/// gone with the process), its arrays' pieces appended as their buffers
/// fill (one file, not one per array: each costs an inode). Opened at its
/// first byte.
class SpillFile {
public:
  explicit SpillFile(std::string dir) : dir(std::move(dir)) {}
  ~SpillFile() {
    if (fd >= 0)
      ::close(fd);
  }
  SpillFile(const SpillFile &) = delete;
  /// Appends n bytes: where they went.
  uint64_t append(const char *b, size_t n) {
    if (fd < 0)
      open();
    uint64_t at = size;
    for (size_t from = 0; from < n;) {
      ssize_t w = ::pwrite(fd, b + from, n - from, off_t(size));
      if (w < 0 && errno == EINTR)
        continue;
      if (w <= 0)
        fail();
      from += size_t(w), size += uint64_t(w);
    }
    return at;
  }
  /// Reads up to n bytes at at (at least one).
  size_t read(char *b, size_t n, uint64_t at) {
    for (;;) {
      ssize_t r = ::pread(fd, b, n, off_t(at));
      if (r < 0 && errno == EINTR)
        continue;
      if (r <= 0)
        fail();
      return size_t(r);
    }
  }

private:
  [[noreturn]] void fail() {
    throw Error("cannot write a temporary file in " + dir + ": " +
                std::strerror(errno));
  }
  void open() {
#ifdef O_TMPFILE
    fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
#endif
    if (fd < 0) { // no O_TMPFILE there: a named one, unlinked at once
      std::string name = dir + "/.report-bars-XXXXXX";
      fd = ::mkostemp(name.data(), O_CLOEXEC);
      if (fd < 0)
        fail();
      ::unlink(name.c_str());
    }
  }
  std::string dir;
  int fd = -1;
  uint64_t size = 0;
};

/// A bars' array's text, not held: appended to the page's SpillFile
/// through a buffer (its pieces there: extents), then copied into the page
/// in its place.
class Spill {
public:
  explicit Spill(SpillFile &file) : file(file) {}
  Spill(const Spill &) = delete;
  void put(const char *s, size_t n) {
    if (len + n > sizeof buf)
      flush();
    std::memcpy(buf + len, s, n); // n: a number and its comma
    len += n;
  }
  /// Its bytes to out, in order.
  void copyTo(OutFile &out) {
    flush();
    for (const auto &[at, n] : extents)
      for (uint64_t done = 0; done < n;) {
        size_t r = file.read(
            buf, size_t(std::min<uint64_t>(sizeof buf, n - done)), at + done);
        out.put(buf, r);
        done += r;
      }
  }

private:
  void flush() {
    if (!len)
      return;
    uint64_t at = file.append(buf, len);
    if (!extents.empty() && extents.back().first + extents.back().second == at)
      extents.back().second += len;
    else
      extents.emplace_back(at, len);
    len = 0;
  }
  SpillFile &file;
  std::vector<std::pair<uint64_t, uint64_t>> extents; // (where, bytes)
  size_t len = 0;                                     // in buf
  char buf[1 << 14];
};

struct IntArray;

/// The bars' arrays of one page: their text written (spilled) while it
/// stays within limit bytes, beyond that only counted.
struct Held {
  uint64_t bytes = 0, limit = UINT64_MAX;
  std::vector<IntArray *> arrays;
  void drop();
};

/// A JSON array of integers as its numbers come: only counted (its
/// numbers' and commas' bytes), or also written (to).
struct IntArray {
  bool first = true;
  uint64_t bytes = 0; // the numbers and their commas
  Spill *to = nullptr;
  Held *held = nullptr;
  // The count inline (a bar's dozen numbers, each page measured once at
  // least), the text apart.
  void add(int64_t v) {
    if (to)
      return addText(v);
    // Its digits counted, not written: about log10 of its bits' count,
    // one more where it reaches the next power of ten (a | 1 has the
    // digits of a, 0's one included).
    uint64_t a = (v < 0 ? 0 - uint64_t(v) : uint64_t(v)) | 1;
    unsigned t = unsigned(64 - __builtin_clzll(a)) * 1233 >> 12;
    size_t n = (v < 0) + t + 1 - (a < Pow10[t]);
    bytes += (first ? 0 : 1) + n;
    first = false;
  }
  __attribute__((noinline)) void addText(int64_t v) {
    char b[25], *p = b;
    if (!first)
      *p++ = ',';
    p = OutFile::decI(p, v);
    to->put(b, size_t(p - b));
    bytes += size_t(p - b);
    first = false;
    if ((held->bytes += size_t(p - b)) > held->limit)
      held->drop();
  }
};

void Held::drop() {
  for (IntArray *a : arrays)
    a->to = nullptr;
  limit = UINT64_MAX;
}

} // namespace

ReportProblem reportProblem(const Problem &q, int64_t rank, int64_t pid,
                            bool multi, std::vector<std::string> outliers) {
  ReportProblem p;
  p.loop = q.kind == "loop" ? q.where : std::string();
  p.site = q.kind == "loop" ? std::string() : q.where;
  p.lostNs = q.lostMs * 1e6;
  std::string who;
  if (multi)
    who = rank >= 0 ? "rank " + std::to_string(rank) + ": "
                    : "pid " + std::to_string(pid) + ": ";
  // The summary's formats (Summary.cpp): "11.390 ms", "(0.0%".
  p.title =
      who + q.where + ": " + fmt("%.3f ms", q.lostMs) + " of thread time lost";
  if (std::isfinite(q.share))
    p.title += fmt(" (%.1f%% of the threads' time)", q.share * 100);
  p.detail = q.why;
  p.suggest = q.suggestion;
  p.outliers = std::move(outliers);
  return p;
}

std::vector<ReportProblem>
rankForReport(std::vector<std::pair<double, ReportProblem>> ps) {
  std::stable_sort(ps.begin(), ps.end(), [](const auto &x, const auto &y) {
    return x.first > y.first;
  });
  std::vector<ReportProblem> out;
  for (auto &p : ps)
    out.push_back(std::move(p.second));
  return out;
}

std::vector<ReportProblem> problemsForReport(const Results &R) {
  const Run &run = R.run;
  // The summary's ranking (Problems.h), every process's, largest first.
  std::vector<std::pair<double, ReportProblem>> out;
  for (const Problem &q : R.problems) {
    const ProcessDir &pd = run.procs[size_t(q.process)]->proc;
    std::vector<std::string> ids;
    for (uint64_t i : q.outlierGrains)
      ids.push_back(chunkId(run, size_t(q.process), size_t(i)));
    out.push_back({q.lostMs, reportProblem(q, pd.rank, pd.pid,
                                           run.procs.size() > 1, ids)});
  }
  return rankForReport(std::move(out));
}

namespace {

/// The timeline rows and the per-grain or aggregated bars.
struct Timeline {
  std::string rows = "[";
  std::map<std::pair<size_t, int>, int> rowOf;
  int row(size_t p, int th) {
    // A process's bars take turns among its threads (a loop instance's
    // rows): its rows by thread number kept at hand, not looked up.
    if (p != lastP) {
      lastP = p;
      near.clear();
    }
    if (th >= 0 && size_t(th) < near.size() && near[size_t(th)] >= 0)
      return near[size_t(th)];
    auto it = rowOf.find({p, th});
    if (it == rowOf.end())
      it = rowOf.emplace(std::make_pair(p, th), int(rowOf.size())).first;
    if (th >= 0 && th < NearThreads) {
      if (near.size() <= size_t(th))
        near.resize(size_t(th) + 1, -1);
      near[size_t(th)] = it->second;
    }
    return it->second;
  }
  static constexpr int NearThreads = 1024;
  size_t lastP = SIZE_MAX;
  std::vector<int> near; // lastP's rows by thread (-1: not yet)
};

struct Graph {
  std::string groups = "[", members = "[", gedges = "[";
  size_t nGroups = 0, nMembers = 0;
  // How the processes drawn coarser are: per level's text, the processes.
  std::map<std::string, std::vector<std::string>> coarser;
};

/// Every '<', '>' and '&' as a JSON escape (they occur only in strings),
/// and U+2028/U+2029 too: the text cannot end its script element. Given
/// to out(text, length) in runs, so that the page is written (or its size
/// counted) without a copy of it.
template <class Out> void pageSafe(std::string_view json, Out &&out) {
  size_t from = 0;
  auto escape = [&](size_t i, size_t n, const char *e) {
    out(json.data() + from, i - from);
    out(e, 6);
    from = i + n;
  };
  for (size_t i = 0; i < json.size(); i++) {
    char c = json[i];
    if (c != '<' && c != '>' && c != '&' && c != '\xe2')
      continue;
    if (c == '<')
      escape(i, 1, "\\u003c");
    else if (c == '>')
      escape(i, 1, "\\u003e");
    else if (c == '&')
      escape(i, 1, "\\u0026");
    else if (c == '\xe2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
             (json[i + 2] == '\xa8' || json[i + 2] == '\xa9')) {
      escape(i, 3, json[i + 2] == '\xa8' ? "\\u2028" : "\\u2029");
      i += 2;
    }
  }
  out(json.data() + from, json.size() - from);
}

/// The page's template with its style and script in place, split where
/// the data goes (put in last: it may hold the other marks' text).
std::pair<std::string, std::string> pageAround() {
  std::string page = ReportHtml;
  auto put = [&](const std::string &mark, const std::string &text) {
    size_t at = page.find(mark);
    if (at == std::string::npos)
      throw Error("report page template lacks " + mark);
    page.replace(at, mark.size(), text);
  };
  put("/*@CSS@*/", ReportCss);
  put("/*@JS@*/", ReportJs);
  const std::string data = "@DATA@";
  size_t at = page.find(data);
  if (at == std::string::npos)
    throw Error("report page template lacks " + data);
  return {page.substr(0, at), page.substr(at + data.size())};
}

/// A loop's instance steps most lost first (then earliest), the first
/// InstanceSteps: a process's own, or every process's of their own.
void sortSteps(std::vector<std::array<int64_t, 4>> &v) {
  std::stable_sort(v.begin(), v.end(), [](const auto &x, const auto &y) {
    return x[0] > y[0] || (x[0] == y[0] && x[1] < y[1]);
  });
  if (v.size() > InstanceSteps)
    v.resize(InstanceSteps);
}

/// The counts of key in f, or null.
const std::array<uint32_t, P_COUNT> *flagsOf(const FlagCounts &f,
                                             std::pair<int, int> key) {
  auto it = std::lower_bound(
      f.begin(), f.end(), key,
      [](const FlagCounts::value_type &x, const std::pair<int, int> &k) {
        return x.first < k;
      });
  return it != f.end() && it->first == key ? &it->second : nullptr;
}

} // namespace

void byKey(FlagCounts &f, bool add) {
  auto less = [](const auto &x, const auto &y) { return x.first < y.first; };
  if (add) // the order of one key's entries changes no sum: no buffer
    std::sort(f.begin(), f.end(), less);
  else
    std::stable_sort(f.begin(), f.end(), less);
  size_t n = 0;
  for (size_t j = 0; j < f.size(); j++) {
    if (n && f[n - 1].first == f[j].first) {
      for (int x = 0; x < P_COUNT; x++)
        f[n - 1].second[x] =
            add ? f[n - 1].second[x] + f[j].second[x] : f[j].second[x];
      continue;
    }
    f[n++] = f[j];
  }
  f.resize(n);
}

std::array<uint32_t, P_COUNT> LoopSource::rowFlags(size_t r,
                                                   const LoopThread *x) const {
  std::array<uint32_t, P_COUNT> fc{};
  if (!chunkMasks) {
    LoopThread made = x ? LoopThread() : (*rows)[r];
    if (!x)
      x = &made;
    if (const auto *f = flagsOf(flags, {x->loop, x->th}))
      fc = *f;
    return fc;
  }
  uint8_t b = rowMask[r];
  if (b & Multi)
    return std::lower_bound(
               multi.begin(), multi.end(), uint32_t(r),
               [](const auto &x, uint32_t row) { return x.first < row; })
        ->second;
  for (int f = 0; b && f < P_COUNT; f++)
    fc[f] = b >> f & 1;
  return fc;
}

FlagCounts LoopSource::keyedFlags() const {
  if (!chunkMasks)
    return flags;
  FlagCounts f;
  for (auto it = rows->begin(); it != rows->end(); ++it)
    if (rowMask[it.row()]) {
      LoopThread x = *it;
      f.push_back({{x.loop, x.th}, rowFlags(it.row())});
    }
  byKey(f, true);
  return f;
}

namespace {

unsigned maskOf(const std::array<uint32_t, P_COUNT> &fc) {
  unsigned m = 0;
  for (int f = 0; f < P_COUNT; f++)
    m |= fc[f] ? 1u << f : 0;
  return m;
}

} // namespace

void loopBars(const LoopSource &L, uint64_t block, const BarFn &bar) {
  auto ns = [&](uint64_t t) {
    return roundAway(double(int64_t(t - L.t0)) / L.tpn);
  };
  auto emit = [&](int loop, int th, int64_t chunks, bool hasWork, int64_t work,
                  uint64_t first, uint64_t last,
                  const std::array<uint32_t, P_COUNT> &fc) {
    if (!chunks)
      return;
    int k = L.legendOf(size_t(loop));
    int64_t s = ns(first), e = ns(last);
    bar(th, s, std::max<int64_t>(e - s, 0), k, loop, -1, -1, hasWork ? 0 : 2,
        hasWork ? roundAway(double(work) / L.tpn) : -1, chunks, maskOf(fc),
        fc.data());
  };
  if (block == 1) {
    L.rows->forEach([&](size_t row, const LoopThread &r) {
      emit(r.loop, r.th, r.chunks, r.hasWork, r.work, r.first, r.last,
           L.rowFlags(row));
    });
    return;
  }
  // The spans made as the instances come in start order and each given
  // as soon as it and those before it are complete (streamLoopSpans): the
  // spans are not all held, nor per instance its span. Per span, the
  // chunks each problem type flags: its rows' added as they come.
  using Fc = std::array<uint32_t, P_COUNT>;
  auto row = [&](size_t r, const LoopThread &x, Fc &fc) {
    if (L.chunkMasks && !L.rowMask[r])
      return;
    Fc f = L.rowFlags(r, &x);
    for (int i = 0; i < P_COUNT; i++)
      fc[i] += f[i];
  };
  auto done = [&](const LoopSpan &x, const Fc &fc) {
    emit(x.loop, x.th, x.chunks, x.hasWork, x.work, x.first, x.last, fc);
  };
  if (L.table)
    streamLoopSpans<Fc>(L.table->loopOf, L.table->nLoops, L.table->byStart,
                        *L.rows, block, row, done);
  else
    streamLoopSpans<Fc>(L.keys, loopCount(L.keys), instancesByStart(*L.rows),
                        *L.rows, block, row, done);
}

std::string colourOf(const std::unordered_map<std::string, std::string> &m,
                     const std::string &name) {
  auto it = m.find(name);
  return it == m.end() ? "#999999" : it->second;
}

std::string viewsJson(const std::vector<ProblemCount> &counts) {
  std::string viewJson = "[";
  bool firstView = true;
  for (const ProblemCount &c : counts) {
    if (!c.grains && c.flag != P_OUTLIER)
      continue;
    viewJson += firstView ? "" : ",";
    firstView = false;
    viewJson += "{\"f\":" + std::to_string(c.flag) +
                ",\"name\":" + str(problemName(c.flag)) +
                ",\"n\":" + std::to_string(c.grains) +
                ",\"m\":" + (c.pathKnown ? std::to_string(c.onPath) : "null") +
                ",\"line\":" + str(problemCountLine(c)) + "}";
  }
  return viewJson;
}

std::string problemsJson(const std::vector<ReportProblem> &probs) {
  std::string probJson = "[";
  for (size_t i = 0; i < probs.size(); i++) {
    const ReportProblem &q = probs[i];
    probJson += (i ? ",\n" : "\n");
    probJson += "{\"loop\":" + str(q.loop) + ",\"site\":" + str(q.site) +
                ",\"title\":" + str(q.title) + ",\"detail\":" + str(q.detail) +
                ",\"suggest\":" + str(q.suggest) +
                ",\"lost\":" + num(q.lostNs, 0) + ",\"outliers\":[";
    for (size_t j = 0; j < q.outliers.size(); j++)
      probJson += (j ? "," : "") + str(q.outliers[j]);
    probJson += "]}";
  }
  return probJson;
}

std::string acrossJson(const std::vector<AcrossLoop> &all) {
  std::vector<const AcrossLoop *> across;
  for (const AcrossLoop &x : all)
    across.push_back(&x);
  std::stable_sort(across.begin(), across.end(), [](auto *x, auto *y) {
    return x->lostAcrossMs > y->lostAcrossMs;
  });
  std::string acrossJson = "[";
  for (size_t i = 0; i < across.size(); i++) {
    const AcrossLoop &x = *across[i];
    acrossJson +=
        std::string(i ? "," : "") + "{\"loop\":" + str(x.name) + ",\"who\":[";
    for (size_t j = 0; j < x.who.size(); j++)
      acrossJson += std::string(j ? "," : "") + str(x.who[j]);
    acrossJson += "],\"work\":[";
    for (size_t j = 0; j < x.workMs.size(); j++)
      acrossJson += std::string(j ? "," : "") + num(x.workMs[j], 3);
    acrossJson += "],\"imb\":" + num(x.processImbalance, 2) +
                  ",\"worst\":" + num(x.worstThreadImbalance, 2) +
                  ",\"across\":" + num(x.lostAcrossMs, 3) +
                  ",\"within\":" + num(x.lostWithinMs, 3) + "}";
  }
  return acrossJson;
}

PageRun pageRunOf(const Results &R) {
  const Run &run = R.run;
  PageRun pr;
  pr.program = run.procs[0]->proc.exe;
  pr.grains = run.grains();
  for (const ProcessResults &x : R.procs)
    pr.most = std::max(pr.most, x.loopTable.most);
  pr.loops = R.colours.loops;
  pr.sites = R.colours.sites;
  for (const std::string &n : pr.loops)
    pr.loopColour[n] = R.colours.loop(n);
  for (const std::string &n : pr.sites)
    pr.siteColour[n] = R.colours.site(n);
  pr.views = viewsJson(R.counts);
  pr.problems = problemsJson(problemsForReport(R));
  pr.across = acrossJson(R.across);
  return pr;
}

namespace {

/// Process p's coarse graph (CoarseGraph.h, as the aggregated
/// grains.graphml draws it) at the coarseness that fits the page's budget
/// (MaxGraphNodes over the run's procs processes, at least 200 each): its
/// groups, the members of those that expand (every grain known, at most
/// MaxExpand), its edges with the critical path as one path (coarsePath).
ProcGraph graphOf(const Results &R, size_t p, size_t procs, bool every,
                  Names &loops, Names &sites) {
  const Run &run = R.run;
  const Analysis &an = *run.procs[p];
  const CritPath &cp = R.procs[p].crit;
  const ProblemMasks &masks = R.procs[p].masks;
  ProcGraph PG;
  double tpn = an.clockNs();
  CoarseLevel level = coarseLevelFor(
      an, R.procs[p].loopTable,
      std::max<uint64_t>(MaxGraphNodes / std::max<size_t>(procs, 1), 200));
  // The grains of each group kept only for the page of every grain (the
  // critical path's by the graph's table of them, members): per grain,
  // only its flags counted, no table of its group.
  level.members = every;
  if (level.block != 1 || level.bySite || level.bare)
    PG.coarser = coarseLevelText(level, grainKinds(an));
  // Per group: its grains (every grain known; the first MaxExpand + 1: a
  // group of more does not expand), the grains each problem type flags.
  std::vector<std::vector<std::pair<bool, uint64_t>>> grains;
  std::vector<std::array<uint32_t, P_COUNT>> flagged;
  GrainNodeFn each = [&](bool chunk, size_t i, uint32_t v) {
    if (flagged.size() <= v)
      flagged.resize(v + 1), grains.resize(every ? v + 1 : 0);
    uint8_t m = chunk ? masks.chunks[i] : masks.tasks[i];
    for (int f = 0; m && f < P_COUNT; f++)
      flagged[v][f] += (m >> f) & 1;
    if (every && grains[v].size() <= size_t(MaxExpand))
      grains[v].push_back({chunk, i});
  };
  CoarseGraph cg = coarseGraph(an, R.procs[p].loopTable, cp, level,
                               run.prefix(p), -1, &each);
  std::vector<uint32_t> path = coarsePath(cg);
  std::vector<uint8_t> onPath(cg.nodes.size(), 0);
  for (uint32_t v : path)
    onPath[v] = 1;
  size_t nv = cg.nodes.size();
  flagged.resize(nv), grains.resize(every ? nv : 0);
  auto idOf = [&](bool chunk, uint64_t r) {
    return chunk ? chunkId(run, p, r) : taskId(run, p, r);
  };
  // Per group, its critical-path grains' ids as the page lists them
  // ("ci"), joined as they come.
  std::vector<std::string> critIds(nv);
  auto addCrit = [&](uint32_t v, const std::string &id) {
    critIds[v] += (critIds[v].empty() ? "" : ",") + str(id);
  };
  if (every) { // (a bare graph has no node per grain: no members)
    for (uint64_t i : cp.chunks)
      if (i < cg.chunkNode.size())
        if (uint32_t v = cg.chunkNode[i]; v != UINT32_MAX)
          addCrit(v, idOf(true, i));
    for (uint64_t k : cp.tasks)
      if (k < cg.taskNode.size())
        if (uint32_t v = cg.taskNode[k]; v != UINT32_MAX)
          addCrit(v, idOf(false, k));
  }
  // Per grain whether it is on the critical path: for the members (the
  // page of every grain) alone.
  std::vector<uint8_t> critChunk(every ? an.chunks.size() : 0, 0),
      critTask(every ? an.tasks.size() : 0, 0);
  for (uint64_t i : every ? cp.chunks : std::vector<uint32_t>())
    critChunk[i] = 1;
  for (uint64_t k : every ? cp.tasks : std::vector<uint32_t>())
    critTask[k] = 1;
  for (uint32_t v = 0; v < nv; v++) {
    const CoarseGraph::Node &n = cg.nodes[v];
    bool chunks = n.kind == CoarseGraph::Chunks,
         tasks = n.kind == CoarseGraph::Tasks;
    static const char *const Type[] = {"start", "end",   "fork",
                                       "join",  "chunk", "task"};
    int colour = chunks ? loops(n.name) : tasks ? sites(n.name) : -1;
    bool expandable = (chunks || tasks) && every && n.grains > 1 &&
                      n.grains <= MaxExpand &&
                      grains[v].size() == size_t(n.grains);
    uint32_t gid = uint32_t(PG.groups.size());
    std::string g =
        std::string(",\"t\":\"") + Type[n.kind] +
        "\",\"n\":" + std::to_string(n.grains) +
        ",\"w\":" + num(n.work / tpn, 0) + ",\"c\":" + (n.onPath ? "1" : "0") +
        (onPath[v] ? ",\"cp\":1" : "") + ",\"k\":" + std::to_string(colour) +
        ",\"x\":" + (expandable ? "1" : "0") + ",\"l\":" + str(n.label);
    // The problem types' counts: [flag, grains, flag, grains, ...].
    std::string pf;
    for (int f = 0; f < P_COUNT; f++)
      if (flagged[v][f])
        pf += (pf.empty() ? "" : ",") + std::to_string(f) + "," +
              std::to_string(flagged[v][f]);
    if (!pf.empty())
      g += ",\"pf\":[" + pf + "]";
    if (every && n.grains == 1 && grains[v].size() == 1)
      g += ",\"id\":" + str(idOf(grains[v][0].first, grains[v][0].second));
    else if (!expandable && !critIds[v].empty()) {
      // The critical path's grains in a group that does not expand.
      g += ",\"ci\":[" + critIds[v] + "]";
    }
    g += "}";
    PG.groups.push_back(std::move(g));
    if (!expandable)
      continue;
    for (auto [chunk, r] : grains[v]) {
      std::string label = chunk
                              ? "chunk " + std::to_string(an.chunks.lower[r]) +
                                    ".." + std::to_string(an.chunks.upper[r]) +
                                    " of " + an.loopName(an.chunks.loop[r])
                              : an.taskGrainName(r);
      GrainMetrics m = chunk ? an.chunkMetrics(r) : an.taskMetrics(r);
      PG.members.push_back(
          {gid, ",\"w\":" + num(m.work / tpn, 0) + ",\"c\":" +
                    ((chunk ? critChunk[r] : critTask[r]) ? "1" : "0") +
                    ",\"pm\":" +
                    std::to_string(chunk ? masks.chunks[r] : masks.tasks[r]) +
                    ",\"id\":" + str(idOf(chunk, r)) + ",\"l\":" + str(label) +
                    "}"});
    }
  }
  // Edges as [from, to, on the drawn critical path].
  std::set<std::pair<uint32_t, uint32_t>> pathEdges;
  for (size_t j = 1; j < path.size(); j++)
    pathEdges.insert({path[j - 1], path[j]});
  for (const CoarseGraph::Edge &e : cg.edges)
    PG.edges.push_back(
        {e.src, e.dst, uint32_t(pathEdges.count({e.src, e.dst}) ? 1 : 0)});
  return PG;
}

} // namespace

void everyBars(const Results &R, size_t p, Names &loops, Names &sites,
               const BarFn &bar) {
  const Analysis &an = *R.run.procs[p];
  const CritPath &cp = R.procs[p].crit;
  const ProblemMasks &masks = R.procs[p].masks;
  uint64_t t0 = R.run.firstInstant();
  double tpn = an.clockNs();
  auto ns = [&](uint64_t t) {
    return roundAway(double(int64_t(t - t0)) / tpn);
  };
  const Chunks &ch = an.chunks;
  const Tasks &T = an.tasks;
  std::vector<uint8_t> chunkCrit(ch.size(), 0), taskCrit(T.size(), 0);
  for (uint64_t i : cp.chunks)
    chunkCrit[i] = 1;
  for (uint64_t k : cp.tasks)
    taskCrit[k] = 1;
  for (size_t i = 0; i < ch.size(); i++) {
    int k = loops(an.loopName(ch.loop[i]));
    int64_t s = ns(ch.start[i]), e = ns(ch.end[i]);
    bar(ch.thread[i], s, std::max<int64_t>(e - s, 0), k, ch.loop[i],
        int64_t(ch.lower[i]), int64_t(ch.upper[i]),
        chunkCrit[i] | (an.chunkUnknown(i) ? 2 : 0), int64_t(i), 1,
        masks.chunks[i], nullptr);
  }
  for (uint32_t k : T.order) {
    int site = sites(an.taskGrainName(k));
    for (int64_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
      int64_t s = ns(T.segStart[j]), e = ns(T.segEnd[j]);
      bar(T.segThread[j], s, std::max<int64_t>(e - s, 0), -1 - site, -1, -1, -1,
          taskCrit[k], int64_t(T.id[k]), 1, masks.tasks[k], nullptr);
    }
  }
}

void taskBars(const Results &R, size_t p, Names &sites, const BarFn &bar) {
  const Analysis &an = *R.run.procs[p];
  const ProblemMasks &masks = R.procs[p].masks;
  const Tasks &T = an.tasks;
  size_t n = T.size();
  uint64_t t0 = R.run.firstInstant();
  double tpn = an.clockNs();
  auto ns = [&](uint64_t t) {
    return roundAway(double(int64_t(t - t0)) / tpn);
  };
  // Sites are named in creation order (the legend's order), once per code
  // (a task's code's place, TaskCodes::placeOf()).
  std::vector<int> sitePlace(T.codeptr.count(), -1);
  auto site = [&](uint32_t k) {
    int &st = sitePlace[T.codeptr.placeOf(k)];
    if (st < 0)
      st = sites(an.taskGrainName(k));
    return st;
  };
  // The segments' (site, thread) pairs, each with its rank and the range of
  // its starts (ticks). A pair looked up once per run of segments of it (a
  // task's segments are mostly on one thread); sites are never -1. The
  // timeline's ends: ns() keeps the order of t - t0 (the extremes
  // converted once).
  struct Pair {
    uint32_t rank = 0;
    uint64_t lo = UINT64_MAX, hi = 0;
  };
  std::map<std::pair<int, int>, Pair> pairs;
  std::pair<int, int> lastPair{-1, -1};
  Pair *last = nullptr;
  auto pairOf = [&](int st, uint32_t j) __attribute__((always_inline))->Pair & {
    std::pair<int, int> key{st, int(T.segThread[j])};
    if (key != lastPair)
      lastPair = key, last = &pairs[key];
    return *last;
  };
  int64_t loT = INT64_MAX, hiT = INT64_MIN;
  uint64_t minStart = UINT64_MAX, maxStart = 0;
  size_t width = 1; // the threads' numbers, up to the largest
  for (uint32_t k : T.order) {
    int st = site(k);
    for (uint32_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
      width = std::max(width, size_t(T.segThread[j]) + 1);
      uint64_t s = T.segStart[j];
      loT = std::min(loT, int64_t(s - t0));
      hiT = std::max(hiT, int64_t(T.segEnd[j] - t0));
      minStart = std::min(minStart, s), maxStart = std::max(maxStart, s);
      Pair &x = pairOf(st, j);
      x.lo = std::min(x.lo, s), x.hi = std::max(x.hi, s);
    }
  }
  size_t segs = T.segOff.empty() ? 0 : T.segOff[n];
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  if (segs) {
    lo = roundAway(double(loT) / tpn);
    hi = roundAway(double(hiT) / tpn);
  }
  std::vector<std::pair<int, int>> pairList;
  std::vector<const Pair *> pairAt;
  for (auto &[key, x] : pairs) {
    x.rank = uint32_t(pairList.size());
    pairList.push_back(key);
    pairAt.push_back(&x);
  }
  // Then a segment's pair found from its task's code's place and its
  // thread in a table (places x threads), where that takes at most a
  // pointer per two segments; else in the map.
  size_t places = sitePlace.size();
  std::vector<const Pair *> table;
  if (places * width <= std::max<size_t>(segs / 2, 256)) {
    table.assign(places * width, nullptr);
    for (size_t c = 0; c < places; c++)
      for (size_t th = 0; sitePlace[c] >= 0 && th < width; th++)
        if (auto it = pairs.find({sitePlace[c], int(th)}); it != pairs.end())
          table[c * width + th] = &it->second;
  }
  auto pairAtSeg = [&](uint32_t k, uint32_t j) __attribute__((always_inline))
                       ->const Pair & {
    if (!table.empty())
      return *table[T.codeptr.placeOf(k) * width + T.segThread[j]];
    return pairOf(site(k), j);
  };
  // The segments by (site, thread), each pair's by start: a counting sort
  // into cells (a pair's starts' range cut in 2^cellBits, about 64
  // segments a cell at least), then each cell sorted. A segment as a
  // 64-bit key: its task k where it is the task's first (j = segOff[k]),
  // else its number j with the top code bit set, below its start's ticks
  // less the least start where those fit above it (the keys then sort by
  // start, ties by code: ties fall in one aggregate whatever their order),
  // else sorted by their starts read.
  unsigned cellBits = 0;
  while (cellBits < 8 && (pairList.size() << (cellBits + 1)) * 64 <= segs)
    cellBits++;
  auto bitsOf = [](uint64_t v) { return v ? 64 - __builtin_clzll(v) : 0; };
  std::vector<unsigned> shift(pairList.size());
  for (size_t x = 0; x < pairList.size(); x++) {
    int b = bitsOf(pairAt[x]->hi - pairAt[x]->lo);
    shift[x] = unsigned(std::max(0, b - int(cellBits)));
  }
  auto segStart = T.segStart.view(); // in registers
  auto cellOf = [&](const Pair &x, uint64_t start) {
    return size_t(x.rank) << cellBits | size_t((start - x.lo) >> shift[x.rank]);
  };
  size_t cells = pairList.size() << cellBits;
  std::vector<uint32_t> cellOff(cells + 1, 0);
  for (uint32_t k = 0; k < n; k++)
    for (uint32_t j = T.segOff[k]; j < T.segOff[k + 1]; j++)
      cellOff[cellOf(pairAtSeg(k, j), segStart[j]) + 1]++;
  size_t largestCell = 0;
  for (size_t c = 0; c < cells; c++) {
    largestCell = std::max<size_t>(largestCell, cellOff[c + 1]);
    cellOff[c + 1] += cellOff[c];
  }
  unsigned idBits = 1;
  while ((uint64_t(1) << idBits) <= std::max<uint64_t>(n, segs))
    idBits++;
  const unsigned codeBits = idBits + 1;
  const uint64_t notFirst = uint64_t(1) << idBits;
  const uint64_t idMask = notFirst - 1, codeMask = (notFirst << 1) - 1;
  uint64_t range = maxStart >= minStart ? maxStart - minStart : 0;
  const bool packed = codeBits < 64 && (range >> (64 - codeBits)) == 0;
  auto segOf = [&](uint64_t key) {
    uint64_t c = key & codeMask;
    return c & notFirst ? uint32_t(c & idMask) : T.segOff[c];
  };
  auto startOf = [&](uint64_t key) {
    return packed ? minStart + (key >> codeBits) : segStart[segOf(key)];
  };
  double span = hi > lo ? double(hi - lo) : 0;
  int64_t gap =
      int64_t(std::max(span / 2000, span * double(pairList.size()) / 20000.0));
  struct Agg {
    int site = -1, th = -1;
    int64_t s = 0, e = 0, exec = 0, count = 0;
    std::array<uint32_t, P_COUNT> fc{};
  };
  Agg a;
  auto flush = [&] {
    if (a.site < 0)
      return;
    bar(a.th, a.s, std::max<int64_t>(a.e - a.s, 0), -1 - a.site, -1, -1, -1, 0,
        roundAway(double(a.exec) / tpn), a.count, maskOf(a.fc), a.fc.data());
  };
  // The cells in batches of at most a quarter of the segments (or one
  // cell): each batch's keys made by a pass over the segments, sorted per
  // cell, then merged into bars; the keys of one batch held at a time, in
  // one buffer.
  size_t room = std::max(largestCell, (segs + 3) / 4);
  std::vector<size_t> ends; // each batch's end (cells)
  size_t largest = 0;
  for (size_t c0 = 0, c1; c0 < cells; c0 = c1) {
    for (c1 = c0 + 1; c1 < cells && cellOff[c1 + 1] - cellOff[c0] <= room;)
      c1++;
    ends.push_back(c1);
    largest = std::max<size_t>(largest, cellOff[c1] - cellOff[c0]);
  }
  std::vector<uint64_t> keys;
  keys.reserve(largest);
  for (size_t c0 = 0, c1, b = 0; c0 < cells; c0 = c1) {
    c1 = ends[b++];
    uint32_t base = cellOff[c0];
    keys.resize(cellOff[c1] - base);
    {
      std::vector<uint32_t> at(cellOff.begin() + c0, cellOff.begin() + c1);
      uint32_t r0 = uint32_t(c0 >> cellBits),
               r1 = uint32_t((c1 - 1) >> cellBits);
      for (uint32_t k = 0; k < n; k++) {
        for (uint32_t j = T.segOff[k]; j < T.segOff[k + 1]; j++) {
          const Pair &x = pairAtSeg(k, j);
          if (x.rank < r0 || x.rank > r1) // not a pair of the batch
            continue;
          uint64_t start = segStart[j];
          size_t c = cellOf(x, start);
          if (c < c0 || c >= c1)
            continue;
          uint64_t key = j == T.segOff[k] ? k : notFirst | j;
          if (packed)
            key |= (start - minStart) << codeBits;
          keys[at[c - c0]++ - base] = key;
        }
      }
    }
    for (size_t c = c0; c < c1; c++) {
      auto kb = keys.begin() + (cellOff[c] - base),
           ke = keys.begin() + (cellOff[c + 1] - base);
      if (packed) {
        if (!std::is_sorted(kb, ke))
          std::sort(kb, ke);
      } else {
        auto byStart = [&](uint64_t u, uint64_t v) {
          return startOf(u) < startOf(v);
        };
        if (!std::is_sorted(kb, ke, byStart))
          std::sort(kb, ke, byStart);
      }
    }
    for (size_t c = c0; c < c1; c++) {
      auto [st, th] = pairList[c >> cellBits];
      for (uint32_t y = cellOff[c]; y < cellOff[c + 1]; y++) {
        uint64_t key = keys[y - base];
        uint32_t j = segOf(key);
        uint64_t st0 = startOf(key);
        int64_t len = T.segLen[j];
        int64_t s = ns(st0), e = ns(st0 + uint64_t(len));
        if (st != a.site || th != a.th || s > a.e + gap) {
          flush();
          a = Agg();
          a.site = st, a.th = th, a.s = s, a.e = e;
        }
        a.e = std::max(a.e, e);
        a.exec += len;
        if (!(key & notFirst)) {
          uint32_t k = uint32_t(key & idMask);
          a.count++;
          for (int f = 0; f < P_COUNT; f++)
            a.fc[f] += masks.tasks[k] >> f & 1;
        }
      }
    }
  }
  flush();
}

LoopSource loopSourceOf(const Results &R, size_t p, Names &loops) {
  const Analysis &an = *R.run.procs[p];
  const ProblemMasks &masks = R.procs[p].masks;
  const Chunks &ch = an.chunks;
  LoopSource L;
  L.table = &R.procs[p].loopTable;
  L.rows = &L.table->rows;
  // An instance's legend index is its site's (a name looked up once per
  // site), not held per instance.
  std::vector<int> &siteLegend = L.siteLegend;
  L.site = &an.loopSite;
  for (size_t li = 0; li < an.loops.size(); li++) {
    size_t site = size_t(an.loopSite[li]);
    if (siteLegend.size() <= site)
      siteLegend.resize(site + 1, -1);
    if (siteLegend[site] < 0)
      siteLegend[site] = loops(an.loopName(int(li)));
  }
  // Per row of the loop table (per instance its shares, one run of the
  // model's pool per instance in instance order: loopThreads()), its
  // flagged chunks: the mask of its one, or their counts apart.
  const LoopRows &rows = *L.rows;
  int lastLi = -1, lastTh = 0;
  uint32_t row = 0;
  auto rowOf = [&](size_t i) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      lastLi = li, lastTh = th;
      row = UINT32_MAX;
      for (const Share &s : an.shares(size_t(li)))
        if (s.th == th)
          row = uint32_t(an.shareIndex(s));
    }
    return row;
  };
  const uint8_t all = (1u << P_COUNT) - 1;
  L.rowMask.assign(rows.size(), 0);
  for (size_t i = 0; i < ch.size(); i++)
    if (uint8_t m = masks.chunks[i] & all)
      if (uint32_t r = rowOf(i); r != UINT32_MAX) {
        uint8_t &b = L.rowMask[r];
        b = !b ? uint8_t(LoopSource::Single | m) : uint8_t(LoopSource::Multi);
      }
  for (size_t r = 0; r < rows.size(); r++)
    if (L.rowMask[r] & LoopSource::Multi)
      L.multi.push_back({uint32_t(r), {}});
  if (!L.multi.empty()) {
    lastLi = -1;
    for (size_t i = 0; i < ch.size(); i++)
      if (uint8_t m = masks.chunks[i] & all)
        if (uint32_t r = rowOf(i);
            r != UINT32_MAX && (L.rowMask[r] & LoopSource::Multi)) {
          auto &fc = std::lower_bound(L.multi.begin(), L.multi.end(), r,
                                      [](const auto &x, uint32_t row) {
                                        return x.first < row;
                                      })
                         ->second;
          for (int f = 0; f < P_COUNT; f++)
            fc[f] += m >> f & 1;
        }
  }
  L.chunkMasks = &masks.chunks;
  L.t0 = R.run.firstInstant();
  L.tpn = an.clockNs();
  return L;
}

namespace {

/// Process p's level-independent pieces.
PageProc pageProcOf(const Results &R, size_t p, Names &loops) {
  const Run &run = R.run;
  const Analysis &an = *run.procs[p];
  double tpn = an.clockNs();
  uint64_t t0 = run.firstInstant();
  auto ns = [&](uint64_t t) {
    return roundAway(double(int64_t(t - t0)) / tpn);
  };
  PageProc P;
  P.prefix = run.prefix(p);
  P.who = an.proc.rank >= 0 ? "rank " + std::to_string(an.proc.rank)
                            : "pid " + std::to_string(an.proc.pid);
  P.threads = an.threads;
  P.chunks = an.chunks.size();
  P.tasks = an.tasks.size();
  // Per loop (its legend index): its instances' thread time lost (the
  // Results' LoopLosses), for the problem's steps: (lost, start, end,
  // instance) in ns, the first InstanceSteps most lost first.
  for (const LoopLosses &g : R.procs[p].losses) {
    size_t k = size_t(loops(g.name));
    if (P.instTop.size() <= k)
      P.instTop.resize(k + 1), P.instN.resize(k + 1);
    P.instN[k] = g.instances;
    for (const InstanceLost &x : g.most)
      P.instTop[k].push_back(
          {roundAway(x.lost / tpn), ns(x.first), ns(x.last), int64_t(x.loop)});
  }
  const CritPath &cp = R.procs[p].crit;
  P.json = "{\"pid\":" + std::to_string(an.proc.pid) +
           ",\"rank\":" + std::to_string(an.proc.rank) +
           ",\"host\":" + str(an.proc.host) + ",\"exe\":" + str(an.proc.exe) +
           ",\"threads\":" + std::to_string(an.threads.size()) +
           ",\"chunks\":" + std::to_string(an.chunks.size()) +
           ",\"tasks\":" + std::to_string(an.tasks.size()) +
           ",\"complete\":" + (an.proc.complete ? "true" : "false") +
           ",\"acyclic\":" + (cp.acyclic ? "true" : "false") +
           ",\"span\":" + num(cp.span / tpn, 0) +
           ",\"work\":" + num(cp.work / tpn, 0) +
           ",\"cp\":" + str(critPathFigures(an, cp)) + ",\"parallelism\":" +
           num(cp.acyclic && cp.span > 0 ? cp.work / cp.span : NAN, 2) +
           ",\"time\":[";
  const Breakdown &b = R.procs[p].time;
  std::vector<std::string> tl = breakdownLines(an, b);
  for (size_t j = 0; j < tl.size(); j++)
    P.json += (j ? "," : "") + str(tl[j]);
  // The same breakdown in numbers (ns; the summary's lines word them): the
  // page's table of processes.
  double waits = b.waits();
  P.json += "],\"bd\":{\"tt\":" + num(b.threadTime / tpn, 0) +
            ",\"serial\":" + num(b.serial / tpn, 0) +
            ",\"idle\":" + num(b.serialIdle / tpn, 0) +
            ",\"noTeam\":" + num(b.notInTeam / tpn, 0) +
            ",\"work\":" + num((b.chunkWork + b.taskWork) / tpn, 0) +
            ",\"waits\":" + num(waits / tpn, 0) +
            ",\"fork\":" + num(b.forkJoin / tpn, 0) +
            ",\"own\":" + num(b.outside / tpn, 0) + "}}";
  return P;
}

} // namespace

const PageProc &ResultsSource::proc(size_t p) {
  if (!pieces[p])
    pieces[p] = std::make_unique<PageProc>(pageProcOf(R, p, loops));
  return *pieces[p];
}

const ProcGraph &ResultsSource::graph(size_t p, bool every) {
  // writePage tries every grain before aggregating and never goes back:
  // once the aggregated graph is asked for, the every-grain one goes (made
  // again, the same, if it were asked for again).
  if (!every)
    graphs[p][true].reset();
  std::unique_ptr<ProcGraph> &g = graphs[p][every];
  if (!g)
    g = std::make_unique<ProcGraph>(graphOf(R, p, procs, every, loops, sites));
  return *g;
}

void ResultsSource::bars(size_t p, bool every, uint64_t block, const BarFn &f) {
  if (every)
    return everyBars(R, p, loops, sites, f);
  // The loop bars' source, made once (not per level tried).
  if (sources.size() <= p)
    sources.resize(p + 1);
  if (!sources[p])
    sources[p] = std::make_unique<LoopSource>(loopSourceOf(R, p, loops));
  loopBars(*sources[p], block, f);
  // The tasks' bars, the same at every block: made once (their segments
  // sorted once), then given again.
  if (tasks.size() <= p)
    tasks.resize(p + 1);
  if (!tasks[p]) {
    // Their sort keys take fresh pages, the heap's free ones (the graph's)
    // given back first.
    if (R.run.procs[p]->tasks.size())
      releaseFreed();
    auto &t = tasks[p] = std::make_unique<std::vector<Bar>>();
    taskBars(R, p, sites,
             [&](int th, int64_t s, int64_t d, int k, int64_t inst, int64_t lo,
                 int64_t hi, int c, int64_t n, int64_t count, unsigned pm,
                 const uint32_t *fc) {
               Bar b{th, s, d, k, inst, lo, hi, c, n, count, pm, {}};
               std::copy(fc, fc + P_COUNT, b.fc.begin());
               t->push_back(b);
             });
  }
  for (const Bar &b : *tasks[p])
    f(b.th, b.s, b.d, b.k, b.inst, b.lo, b.hi, b.c, b.n, b.count, b.pm,
      b.fc.data());
}

namespace {

/// The page with every grain's bar, or (!every) a bar per loop span of
/// `block` instances (CoarseGraph.h) and per task site and thread; without
/// the graph when !graph. Its size goes to measured (when not null); it
/// is written to out (when not null) if it is at most cap bytes: the bars'
/// text is spilled (Spill) up to cap bytes, beyond that (and without out)
/// only counted. Returns whether it was written.
bool reportPage(const PageRun &run, PageSource &src, Names &loops, Names &sites,
                const Caps &caps, const std::string &version,
                std::vector<LeftOut> &leftOut, bool every, uint64_t block,
                bool graph, uint64_t *measured, OutFile *out, uint64_t cap) {
  uint64_t grains = run.grains;
  // What the aggregated bars merge: the loops' chunks, the tasks, or both.
  GrainKinds kinds;
  for (size_t p = 0; p < src.size(); p++)
    kinds |= GrainKinds{src.proc(p).chunks > 0, src.proc(p).tasks > 0};
  std::string bars;
  if (kinds.loops)
    bars = "a bar per " +
           (block == 1 ? std::string("loop instance")
            : block    ? "loop over each " + std::to_string(block) +
                          " consecutive instances of it"
                    : std::string("loop over the whole run")) +
           " and thread";
  if (kinds.tasks)
    bars += (bars.empty() ? "a bar" : " and") +
            std::string(" per task creation site and thread");
  if (!every)
    leftOut.push_back(
        {"report.html",
         "aggregated: " + std::to_string(grains) +
             " grains, above the cap of " +
             (grains > caps.report
                  ? std::to_string(caps.report)
                  : std::to_string(caps.reportBudget(grains)) + " bytes") +
             "; the timeline has " + bars + ", the graph a node per group",
         "--max-report-grains " + std::to_string(grains) +
             (grains > caps.report ? "" : " --max-report-bytes 1000G") +
             " draws every grain"});
  Timeline tl;
  Graph G;
  IntArray gRow, gS, gD, gK, gI, gLo, gHi, gC, gN, gCount, gPm;
  // Aggregated bars: [bar, flag, grains it flags, ...].
  IntArray gPc;
  const std::array<IntArray *, 12> arrays{&gRow, &gS, &gD, &gK,     &gI,  &gLo,
                                          &gHi,  &gC, &gN, &gCount, &gPm, &gPc};
  // Written: each array spilled beside the page as its numbers come, up
  // to the cap; only measured: counted from the start.
  std::string dir = out ? out->path() : std::string();
  dir =
      dir.find('/') == std::string::npos ? "." : dir.substr(0, dir.rfind('/'));
  SpillFile spillFile(dir);
  std::deque<Spill> spills;
  Held held;
  held.limit = cap;
  for (IntArray *a : arrays) {
    a->to = out ? &spills.emplace_back(spillFile) : nullptr;
    a->held = &held;
    held.arrays.push_back(a);
  }
  int64_t nBars = 0;
  int64_t prevS = 0, prevI = 0, prevLo = 0, prevN = 0;
  double endNs = 0;
  std::string procs = "[";
  int64_t nChunks = 0, nTasks = 0;
  // Per loop (its legend index): its instances with time lost, and the
  // first InstanceSteps of them over every process.
  std::vector<int64_t> instN;
  std::vector<std::vector<std::array<int64_t, 4>>> instTop;
  for (size_t p = 0; p < src.size(); p++) {
    const PageProc &P = src.proc(p);
    if (instTop.size() < P.instTop.size())
      instTop.resize(P.instTop.size()), instN.resize(P.instTop.size());
    for (size_t k = 0; k < P.instTop.size(); k++) {
      instN[k] += P.instN[k];
      instTop[k].insert(instTop[k].end(), P.instTop[k].begin(),
                        P.instTop[k].end());
      sortSteps(instTop[k]);
    }
    for (int th : P.threads)
      tl.row(p, th);
    if (graph) {
      const ProcGraph &PG = src.graph(p, every);
      if (!PG.coarser.empty())
        G.coarser[PG.coarser].push_back(P.who);
      size_t base = G.nGroups;
      for (const std::string &g : PG.groups) {
        G.groups += (G.nGroups++ ? ",\n" : "\n");
        G.groups += "{\"p\":" + std::to_string(p) + g;
      }
      for (const auto &[g, m] : PG.members) {
        G.members += (G.nMembers++ ? ",\n" : "\n");
        G.members += "{\"g\":" + std::to_string(base + g) + m;
      }
      for (const auto &e : PG.edges) {
        G.gedges += G.gedges.size() == 1 ? "" : ",";
        G.gedges += "[" + std::to_string(base + e[0]) + "," +
                    std::to_string(base + e[1]) + "," + (e[2] ? "1" : "0") +
                    "]";
      }
    }
    nChunks += int64_t(P.chunks);
    nTasks += int64_t(P.tasks);
    // pm: the problem types flagging the bar's grains (bit per flag);
    // aggregated, fc: how many grains each flags.
    src.bars(p, every, block,
             [&](int th, int64_t s, int64_t d, int k, int64_t inst, int64_t lo,
                 int64_t hi, int c, int64_t n, int64_t count, unsigned pm,
                 const uint32_t *fc) {
               // Start, first iteration, instance and number as
               // differences from the bar before (small numbers: fewer
               // bytes); the last iteration as the count less one; the
               // count only when aggregated.
               gRow.add(tl.row(p, th));
               gS.add(wrapSub(s, prevS));
               prevS = s;
               gD.add(d);
               gK.add(k);
               gI.add(wrapSub(inst, prevI));
               prevI = inst;
               gLo.add(wrapSub(lo, prevLo));
               prevLo = lo;
               gHi.add(wrapSub(hi, lo));
               gC.add(c);
               gN.add(wrapSub(n, prevN));
               prevN = n;
               if (!every)
                 gCount.add(count);
               gPm.add(pm);
               for (int f = 0; fc && f < P_COUNT; f++)
                 if (fc[f]) {
                   gPc.add(nBars);
                   gPc.add(f);
                   gPc.add(fc[f]);
                 }
               nBars++;
               endNs = std::max(endNs, double(s + d));
             });
    procs += (p ? "," : "") + P.json;
  }
  procs += "]";
  if (!graph)
    leftOut.push_back({"report.html",
                       "graph: not drawn (the page would pass its cap of " +
                           std::to_string(caps.reportBudget(grains)) +
                           " bytes)",
                       "grains.graphml has the graph"});
  for (const auto &[how, who] : G.coarser) {
    std::string procs = src.size() > 1 ? " (" + whoText(who) + ")" : "";
    leftOut.push_back({"report.html",
                       "graph" + procs + ": " + how + " (more than " +
                           std::to_string(MaxGraphNodes) + " nodes at " +
                           coarseLevelText(CoarseLevel(), kinds) + ")",
                       "grains.graphml has the whole graph"});
  }
  // Rows: [process, thread].
  std::vector<std::pair<int, std::pair<size_t, int>>> rows;
  for (auto &kv : tl.rowOf)
    rows.push_back({kv.second, kv.first});
  std::sort(rows.begin(), rows.end());
  std::string rowJson = "[";
  for (size_t r = 0; r < rows.size(); r++) {
    size_t p = rows[r].second.first;
    rowJson += (r ? "," : "");
    rowJson += "[" + std::to_string(p) + "," +
               std::to_string(rows[r].second.second) + "," +
               str(src.proc(p).prefix) + "]";
  }
  rowJson += "]";
  std::string loopJson = "[", siteJson = "[", colourJson = "{\"loops\":[";
  for (size_t i = 0; i < loops.list.size(); i++) {
    loopJson += (i ? "," : "") + str(loops.list[i]);
    colourJson += (i ? "," : "") + str(colourOf(run.loopColour, loops.list[i]));
  }
  colourJson += "],\"sites\":[";
  for (size_t i = 0; i < sites.list.size(); i++) {
    siteJson += (i ? "," : "") + str(sites.list[i]);
    colourJson += (i ? "," : "") + str(colourOf(run.siteColour, sites.list[i]));
  }
  colourJson += "]}";
  std::string leftJson = "[";
  for (size_t i = 0; i < leftOut.size(); i++)
    leftJson += std::string(i ? "," : "") +
                "{\"file\":" + str(leftOut[i].file) +
                ",\"what\":" + str(leftOut[i].what) +
                ",\"how\":" + str(leftOut[i].option) + "}";
  // Each loop's instances, most lost first, the first InstanceSteps.
  std::string instJson = "[";
  for (size_t k = 0; k < instTop.size(); k++) {
    auto &v = instTop[k];
    instJson += std::string(k ? "," : "") +
                "{\"n\":" + std::to_string(instN[k]) + ",\"top\":[";
    for (size_t j = 0; j < v.size(); j++)
      instJson += std::string(j ? "," : "") + "[" + std::to_string(v[j][3]) +
                  "," + std::to_string(v[j][1]) + "," +
                  std::to_string(v[j][2]) + "," + std::to_string(v[j][0]) + "]";
    instJson += "]}";
  }
  // The data in pieces, in order: the graph's lists as they are, not
  // copied into one string; the bars' arrays by their number (array), in
  // the file already or only counted.
  std::deque<std::string> made; // the pieces made here (never moved)
  struct Part {
    std::string_view text;
    int array; // -1: text
  };
  std::vector<Part> parts;
  auto add = [&](std::string x) {
    made.push_back(std::move(x));
    parts.push_back({made.back(), -1});
  };
  auto ref = [&](const std::string &x) { parts.push_back({x, -1}); };
  add("{\"version\":" + str(version) + ",\"program\":" + str(run.program) +
      ",\"aggregated\":" + (every ? "false" : "true") +
      ",\"block\":" + std::to_string(every ? 1 : block) + ",\"cap\":" +
      std::to_string(caps.report) + ",\"grains\":" + std::to_string(grains) +
      ",\"chunks\":" + std::to_string(nChunks) + ",\"tasks\":" +
      std::to_string(nTasks) + ",\"end\":" + num(endNs, 0) + ",\"procs\":");
  ref(procs);
  add(",\"rows\":");
  ref(rowJson);
  add(",\"loops\":");
  ref(loopJson);
  add("],\"sites\":");
  ref(siteJson);
  add("],\"colours\":");
  ref(colourJson);
  add(",\"views\":");
  ref(run.views);
  add("],\"instances\":");
  ref(instJson);
  add("],\"across\":");
  ref(run.across);
  static const char *const ArrayNames[12] = {
      "row", "s", "d", "k", "inst", "lo", "hi", "c", "n", "count", "pm", "pc"};
  for (size_t a = 0; a < arrays.size(); a++) {
    add(a == 0 ? std::string("],\"bars\":{\"row\":[")
               : std::string(",\"") + ArrayNames[a] + "\":[");
    parts.push_back({std::string_view(), int(a)});
    add("]");
  }
  add("},\n\"graph\":{\"groups\":");
  ref(G.groups);
  add("],\"members\":");
  ref(G.members);
  add("],\"gedges\":");
  ref(G.gedges);
  add("]},\n\"problems\":");
  ref(run.problems);
  add("],\"leftOut\":");
  ref(leftJson);
  add("]}");
  // The page: its template's, style's and script's text around the data
  // (escaped as it goes), written, or only its size counted.
  auto [head, tail] = pageAround();
  uint64_t size = head.size() + tail.size();
  for (const Part &x : parts) {
    if (x.array >= 0)
      size += arrays[size_t(x.array)]->bytes;
    else
      pageSafe(x.text, [&](const char *, size_t n) { size += n; });
  }
  if (measured)
    *measured = size;
  if (!out || size > cap)
    return false;
  *out << head;
  for (const Part &x : parts) {
    if (x.array >= 0)
      spills[size_t(x.array)].copyTo(*out);
    else
      pageSafe(x.text, [&](const char *t, size_t n) { out->put(t, n); });
  }
  *out << tail;
  return true;
}

} // namespace

void writePage(const PageRun &run, PageSource &src, Names &loops, Names &sites,
               const std::string &path, const Caps &caps,
               const std::string &version, std::vector<LeftOut> &leftOut) {
  bool every = run.grains <= caps.report, graph = true;
  uint64_t block = 1, cap = caps.reportBudget(run.grains);
  // The page of every grain has a bar per chunk at least, each ten numbers
  // of a digit and a comma at least: past the cap by that alone, it is
  // not made to be measured (its size chooses no block).
  uint64_t chunks = 0;
  for (size_t p = 0; every && p < src.size(); p++)
    chunks += src.proc(p).chunks;
  if (every && 20 * chunks > cap + 10)
    every = false;
  std::vector<LeftOut> left;
  // A level's page is measured (its bars counted, not held), or, where
  // it is expected to fit (the level chosen from the size of the one
  // before, or measured to fit), made with its bars spilled beside the
  // page up to the cap (not held) and written if it fits.
  OutFile o(path);
  bool written = false, hold = false;
  for (;;) {
    left = leftOut;
    uint64_t size = 0;
    written = reportPage(run, src, loops, sites, caps, version, left, every,
                         block, true, &size, hold ? &o : nullptr, cap);
    if (written)
      break;
    if (size <= cap) {
      hold = true;
      continue;
    }
    if (!every && block == 0) {
      // The coarsest bars and still too large: without the graph (what
      // is left is the page's script, a bar per loop and thread and per
      // task site and thread, and the problems).
      graph = false;
      break;
    }
    if (every) {
      every = false;
      continue;
    }
    // Only the bars shrink: the rest of the page stays.
    block = coarserBlock(block, double(size) / double(cap) * 1.25, run.most);
    hold = true;
  }
  if (!written) {
    left = leftOut;
    reportPage(run, src, loops, sites, caps, version, left, every, block, graph,
               nullptr, &o, UINT64_MAX);
  }
  leftOut = left;
  o.close();
}

Names seeded(const std::vector<std::string> &names) {
  Names n;
  for (const std::string &s : names)
    n(s);
  return n;
}

void writeReport(const Results &R, const std::string &path, const Caps &caps,
                 const std::string &version, std::vector<LeftOut> &leftOut) {
  {
    PageRun run = pageRunOf(R);
    Names loops = seeded(run.loops), sites = seeded(run.sites);
    ResultsSource src(R, R.run.procs.size(), loops, sites);
    writePage(run, src, loops, sites, path, caps, version, leftOut);
  }
  releaseFreed(); // what making the page left free: not kept resident
}

} // namespace gcg

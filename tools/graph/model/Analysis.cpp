// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Analysis.cpp - one process's grains, in columns, and their metrics -===//
//
// The importer and the model of one process, and the baseline (see
// Analysis.h). Hot loops run over the columns; nothing is made per grain.
//
//===----------------------------------------------------------------------===//
#include "Analysis.h"
#include "Outliers.h"
#include "Run.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <cstring>
#include <map>
#include <numeric>
#include <queue>
#include <set>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace gcg {

const Threshold Thresholds[P_THRESHOLDS] = {
    {"parallel_benefit", '<', 1.0},   {"sibling_work_balance", '>', 2.0},
    {"chunk_work_balance", '>', 2.0}, {"chunk_work_cpu_balance", '>', 2.0},
    {"work_deviation", '>', 2.0},
};

const char *problemName(int p) {
  return p < P_THRESHOLDS ? Thresholds[p].name : "outlier";
}

std::string problemsText(unsigned mask) {
  std::string s;
  for (int p = 0; p < P_COUNT; p++)
    if (mask & (1u << p)) {
      if (!s.empty())
        s += '|';
      s += problemName(p);
    }
  return s;
}

static unsigned problems(const GrainMetrics &m) {
  double v[P_THRESHOLDS] = {m.pb, m.swb, m.cwb, m.cpu, m.dev};
  unsigned mask = m.outlier ? 1u << P_OUTLIER : 0;
  for (int p = 0; p < P_THRESHOLDS; p++) {
    if (std::isnan(v[p]))
      continue;
    if (Thresholds[p].op == '<' ? v[p] < Thresholds[p].value
                                : v[p] > Thresholds[p].value)
      mask |= 1u << p;
  }
  return mask;
}

int64_t &Counter::operator[](int k) {
  for (auto &it : items)
    if (it.first == k)
      return it.second;
  items.push_back({k, 0});
  return items.back().second;
}

void Counter::update(const Counter &o) {
  for (auto &it : o.items)
    (*this)[it.first] += it.second;
}

int64_t Analysis::nChunks(const Loop &lp) const {
  int64_t s = 0;
  for (const Share &x : shares(lp))
    s += x.count;
  return s;
}

void Analysis::setWide(uint32_t &f, int64_t v) {
  if (v >= 0 && v < int64_t(Share::Wide)) {
    f = uint32_t(v); // a wide value it held stays, unread
    return;
  }
  if (f >= Share::Wide) {
    shareWide[f - Share::Wide] = v;
    return;
  }
  if (shareWide.size() >= Share::Wide)
    throw Error("more than " + std::to_string(Share::Wide) +
                " loop instance threads' work or wait values outside [0, " +
                std::to_string(Share::Wide) + ") ticks");
  f = Share::Wide + uint32_t(shareWide.size());
  shareWide.push_back(v);
}

void Analysis::setJoin(IdTable<Implicit>::iterator im, uint64_t begin,
                       uint64_t end) {
  Implicit &x = im->second;
  if (begin >= x.begin && begin - x.begin < Implicit::JoinApart &&
      end >= begin && end - begin < Implicit::JoinApart - 1) {
    x.joinAt32 = uint32_t(begin - x.begin);
    x.join32 = uint32_t(end - begin + 1);
    if (!wideJoin.empty()) // set again
      wideJoin.erase(im->first);
    return;
  }
  x.joinAt32 = 0;
  x.join32 = Implicit::JoinApart;
  wideJoin[im->first] = {begin, end};
}

void Analysis::setLoopEnd(Loop &lp, uint64_t e) {
  if (__builtin_expect(lp.end32 != Loop::EndApart && e >= lp.begin &&
                           e - lp.begin < Loop::EndApart,
                       1)) {
    lp.hasEnd = true;
    lp.end32 = uint32_t(e - lp.begin);
    return;
  }
  setLoopEndApart(lp, e);
}

void Analysis::setLoopEndApart(Loop &lp, uint64_t e) {
  lp.hasEnd = true;
  if (e >= lp.begin && e - lp.begin < Loop::EndApart) {
    if (lp.end32 == Loop::EndApart) // held apart before
      loopEndApart.erase(uint32_t(indexOf(lp)));
    lp.end32 = uint32_t(e - lp.begin);
    return;
  }
  lp.end32 = Loop::EndApart;
  loopEndApart[uint32_t(indexOf(lp))] = e;
}

void Analysis::setImplicitEnd(IdTable<Implicit>::iterator im, uint64_t end) {
  Implicit &x = im->second;
  if (__builtin_expect(x.end32 != Implicit::Far && end >= x.begin &&
                           end - x.begin < Implicit::Far - 1 && end,
                       1)) {
    x.end32 = uint32_t(end - x.begin + 1);
    return;
  }
  setImplicitEndApart(im, end);
}

// Sets an end held as a 32-bit field e32 from begin (0: not seen to end;
// below Far: begin + e32 - 1; Far: held apart, apart[key]) to end (0: not
// seen to end): narrow where it fits, else apart (Implicit's, Region's).
template <class Apart, class Key>
static void setEnd32(uint32_t &e32, uint64_t begin, uint64_t end, Apart &apart,
                     Key key) {
  constexpr uint32_t Far = UINT32_MAX;
  if (e32 == Far) // set again
    apart.erase(key);
  if (!end) { // as not seen to end
    e32 = 0;
  } else if (end >= begin && end - begin < Far - 1) {
    e32 = uint32_t(end - begin + 1);
  } else {
    e32 = Far;
    apart[key] = end;
  }
}

void Analysis::setImplicitEndApart(IdTable<Implicit>::iterator im,
                                   uint64_t end) {
  static_assert(Implicit::Far == UINT32_MAX, "setEnd32's Far");
  setEnd32(im->second.end32, im->second.begin, end, implicitEndApart,
           im->first);
}

void Analysis::setRegionEnd(size_t r, uint64_t end) {
  static_assert(Region::Far == UINT32_MAX, "setEnd32's Far");
  Region &x = regionList[r];
  setEnd32(x.end32, x.t, end, regionEndApart, uint32_t(r));
}

void Analysis::resolveImplicitRegions() {
  for (auto it = implicitParApart.begin(); it != implicitParApart.end();) {
    size_t r = regions.find(it->second);
    auto im = implicit.find(it->first);
    if (r != IdIndex::None && im != implicit.end()) {
      im->second.region = uint32_t(r);
      it = implicitParApart.erase(it);
    } else {
      ++it;
    }
  }
}

const std::string &PooledName::empty() {
  static const std::string e;
  return e;
}

PooledName Analysis::pooled(const std::string &s) {
  return PooledName(&*namePool.insert(s).first);
}

uint32_t Analysis::codeId(const LoopCode &c) {
  auto key =
      std::make_tuple(c.codeptr, c.sched, c.psource, &c.fn.str(), &c.loc.str());
  uint32_t &recent = recentCodes[((c.codeptr ^ c.psource * 31 ^ c.sched) *
                                  0x9E3779B97F4A7C15ull) >>
                                 (64 - RecentCodesBits)];
  if (recent != UINT32_MAX) {
    const LoopCode &l = loopCodes[recent];
    if (std::make_tuple(l.codeptr, l.sched, l.psource, &l.fn.str(),
                        &l.loc.str()) == key)
      return recent;
  }
  auto it = codeIds.emplace(key, uint32_t(loopCodes.size())).first;
  if (it->second == loopCodes.size()) {
    if (loopCodes.size() >= Loop::MaxCodes)
      throw Error("more than " + std::to_string(Loop::MaxCodes) +
                  " distinct loop codes");
    loopCodes.push_back(c);
  }
  return recent = it->second;
}

Share &Analysis::readShare(int li, int th) {
  // Threads are read one at a time, each making its own shares only: the
  // share of th (the thread read), if the instance has one, is the one it
  // made last.
  constexpr uint32_t None = Loop::NoShare;
  Loop &lp = loops[size_t(li)];
  if (lp.shareAt != None && sharePool[lp.shareAt].th == th)
    return sharePool[lp.shareAt];
  if (sharePool.size() >= None)
    throw Error("more than " + std::to_string(None) +
                " loop instances' threads");
  uint32_t x = uint32_t(sharePool.size());
  sharePool.push_back(Share{th});
  shareEnd.push_back(0);
  sharePrev.push_back(lp.shareAt);
  lp.shareAt = x;
  return sharePool[x];
}

/// Gives the whole pages inside [p, p + n) back to the system (read again,
/// they are zeros): the part of a buffer no longer read, before the buffer
/// itself goes.
static void releasePages(const void *p, size_t n) {
#ifdef __linux__
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  uintptr_t b = (uintptr_t(p) + page - 1) / page * page;
  uintptr_t e = (uintptr_t(p) + n) / page * page;
  if (e > b)
    madvise(reinterpret_cast<void *>(b), e - b, MADV_DONTNEED);
#else
  (void)p;
  (void)n;
#endif
}

/// v gathered in the order from gives (v[from[0]], v[from[1]], ...; from a
/// permutation) into a new vector; the old one's pages go back as the
/// values on them have all moved (counted per block), so that the two are
/// not held whole at once.
template <class T>
static void gather(std::vector<T> &v, const std::vector<uint32_t> &from) {
  size_t n = v.size();
  constexpr size_t Block = 4096;
  std::vector<uint16_t> left((n + Block - 1) / Block, uint16_t(Block));
  if (n % Block)
    left.back() = uint16_t(n % Block);
  std::vector<T> out;
  out.reserve(n);
  for (uint32_t x : from) {
    out.push_back(v[x]);
    if (!--left[x / Block]) {
      size_t b = x / Block * Block;
      releasePages(v.data() + b, std::min(Block, n - b) * sizeof(T));
    }
  }
  std::vector<T>().swap(v);
  v.swap(out);
}

void Analysis::packShares() {
  // Each instance's list becomes one run of the pool, in the order met
  // (the order made). What reading left freed goes back first.
  releaseFreed();
  constexpr uint32_t None = Loop::NoShare;
  size_t n = sharePool.size();
  // The share at each place: each instance's list, made backwards through
  // sharePrev, laid out in the order made, the instances' runs in their
  // order (an instance's count of threads is where the next one's begins,
  // Analysis::nShares()).
  std::vector<uint32_t> from(n);
  uint32_t pos = 0;
  for (Loop &lp : loops) {
    uint32_t at = pos;
    for (uint32_t x = lp.shareAt; x != None; x = sharePrev[x])
      from[pos++] = x;
    std::reverse(from.begin() + at, from.begin() + pos);
    lp.shareAt = at;
  }
  std::vector<uint32_t>().swap(sharePrev);
  // The pool, and where each share's thread left the loop, in place
  // order.
  gather(sharePool, from);
  gather(shareEnd, from);
}

void Chunks::reserve(size_t n) {
  loop.reserve(n);
  start.reserve(n);
  end.reserve(n);
  lower.reserve(n);
  upper.reserve(n);
  parent.reserve(n);
  creation.reserve(n);
  flags.reserve(n);
}

uint64_t Chunks::parentOf(size_t i) const {
  if (!parent.empty())
    return parent[i];
  size_t r = size_t(std::upper_bound(runFirst.begin(), runFirst.end(), i) -
                    runFirst.begin());
  return runParent[r - 1];
}

void Chunks::pushParent(size_t i, uint64_t p) {
  if (!parent.empty() || (i && runFirst.empty())) { // a column
    parent.push_back(p);
    return;
  }
  if (!runParent.empty() && runParent.back() == p)
    return;
  runFirst.push_back(i);
  runParent.push_back(p);
  if (i >= 4096 && runFirst.size() > i / 2) // more than the column
    unpackParents(i + 1);
}

void Chunks::unpackParents(size_t n) {
  for (size_t r = 0; r < runFirst.size(); r++)
    parent.resize(r + 1 < runFirst.size() ? runFirst[r + 1] : n, runParent[r]);
  std::vector<uint64_t>().swap(runFirst);
  std::vector<uint64_t>().swap(runParent);
}

void Chunks::packParents() {
  if (parent.empty() && !runFirst.empty()) { // read as runs
    if (runFirst.size() >= size() / 4)       // two columns of runs: half of it
      unpackParents(size());
    return;
  }
  size_t runs = 0;
  for (size_t i = 0; i < parent.size(); i++)
    runs += !i || parent[i] != parent[i - 1];
  if (runs >= parent.size() / 4) // two columns of runs: not half of it
    return;
  runFirst.reserve(runs);
  runParent.reserve(runs);
  for (size_t i = 0; i < parent.size(); i++)
    if (!i || parent[i] != parent[i - 1]) {
      runFirst.push_back(i);
      runParent.push_back(parent[i]);
    }
  std::vector<uint64_t>().swap(parent);
}

int32_t Tasks::threadOf(size_t k) const {
  if (segOff[k] < segOff[k + 1])
    return segThread[segOff[k]];
  // The thread whose range holds k (ranges ascend).
  auto r = std::upper_bound(
      ranges.begin(), ranges.end(), k,
      [](size_t x, const std::pair<size_t, size_t> &y) { return x < y.first; });
  return int32_t(rangeThread[size_t(r - ranges.begin()) - 1]);
}

void TaskIds::push_back(uint64_t x) {
  if (col.empty()) {
    if (n && x == start.back() + (n - first.back())) { // the run goes on
      n++;
      return;
    }
    if (n < 4096 || first.size() < n / 2) {
      first.push_back(n++);
      start.push_back(x);
      return;
    }
    // The runs would take more than the column: the column from here on.
    col.reserve(std::max(room, n + 1));
    for (size_t r = 0; r < first.size(); r++)
      for (size_t k = first[r]; k < (r + 1 < first.size() ? first[r + 1] : n);
           k++)
        col.push_back(start[r] + (k - first[r]));
    std::vector<size_t>().swap(first);
    std::vector<uint64_t>().swap(start);
  }
  col.push_back(x);
  n++;
}

int64_t TaskIds::findInRuns(uint64_t x) const {
  size_t r =
      size_t(std::upper_bound(start.begin(), start.end(), x) - start.begin());
  if (!r--)
    return -1;
  size_t len = (r + 1 < first.size() ? first[r + 1] : n) - first[r];
  return x - start[r] < len ? int64_t(first[r] + (x - start[r])) : -1;
}

uint32_t CodeTable::indexOf(uint64_t c, const char *rows) {
  if (last != UINT32_MAX && codes[last] == c)
    return last;
  // A few codes are looked for in their list, more in the map.
  if (index.empty()) {
    for (size_t i = 0; i < codes.size(); i++)
      if (codes[i] == c)
        return last = uint32_t(i);
  } else if (auto it = index.find(c); it != index.end()) {
    return last = it->second;
  }
  if (codes.size() >= UINT32_MAX)
    throw Error(std::string("more than 2^32 ") + rows + ": not analysed");
  codes.push_back(c);
  if (codes.size() > 16) { // the map, made once they are more
    if (index.empty())
      for (size_t i = 0; i < codes.size(); i++)
        index.emplace(codes[i], uint32_t(i));
    else
      index.emplace(c, uint32_t(codes.size() - 1));
  }
  return last = uint32_t(codes.size() - 1);
}

std::vector<uint64_t>
CodeTable::distinct(const std::vector<uint8_t> &has) const {
  std::vector<uint64_t> out;
  for (size_t i = 0; i < codes.size(); i++)
    if (has[i])
      out.push_back(codes[i]);
  std::sort(out.begin(), out.end());
  return out;
}

uint32_t TaskCodes::codeIndex(uint64_t c) {
  uint32_t i = codes.indexOf(c, "tasks");
  if (codes.size() > 256 && !isWide) { // the places widened
    wide.reserve(std::max(room, at.size() + 1));
    wide.assign(at.begin(), at.end());
    std::vector<uint8_t>().swap(at);
    isWide = true;
  }
  return i;
}

std::vector<uint64_t> TaskCodes::distinct() const {
  std::vector<uint8_t> has(codes.size(), 0);
  for (size_t k = 0; k < size(); k++)
    has[placeOf(k)] = 1;
  return codes.distinct(has);
}

uint32_t ChildNumbers::operator[](size_t k) const {
  if (!col.empty())
    return col[k];
  const Tasks &T = *t;
  uint32_t p = T.pslot[k];
  auto b = T.kids.begin() + T.kidOff[p], e = T.kids.begin() + T.kidOff[p + 1];
  return uint32_t(std::lower_bound(b, e, uint32_t(k)) - b);
}

int64_t Tasks::index(uint64_t tid) const {
  uint64_t hi = tid >> 40;
  if (hi == 0)
    return -1;
  if (id.column().empty())
    return id.findInRuns(tid);
  const std::vector<uint64_t> &id = this->id.column();
  // Threads are mostly numbered 0, 1, ...: the range at its number first.
  size_t t = hi - 1;
  if (t >= rangeThread.size() || rangeThread[t] != hi - 1) {
    auto th = std::lower_bound(rangeThread.begin(), rangeThread.end(), hi - 1);
    if (th == rangeThread.end() || *th != hi - 1)
      return -1;
    t = size_t(th - rangeThread.begin());
  }
  auto [b, e] = ranges[t];
  if (b == e || tid < id[b] || tid > id[e - 1])
    return -1;
  // A range's ids ascend strictly (readThread()): tid is at most tid -
  // id[b] places after b and id[e - 1] - tid places before e - 1, which
  // leaves one place where a thread's ids run without gaps.
  uint64_t last = e - 1 - b;
  size_t lo = e - 1 - size_t(std::min(id[e - 1] - tid, last));
  size_t up = b + size_t(std::min(tid - id[b], last)) + 1;
  auto it = std::lower_bound(id.begin() + lo, id.begin() + up, tid);
  return it != id.begin() + up && *it == tid ? int64_t(it - id.begin()) : -1;
}

static double asDuration(uint64_t bits) {
  if (bits == UNMEASURED)
    return NAN;
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

// Waits that end a loop (implicit barrier of the worksharing construct) and
// waits that join a task's children (taskwait, taskgroup, barriers).
static bool loopBarrier(uint32_t k) {
  return k == GC_SYNC_BARRIER_IMPLICIT || k == GC_SYNC_BARRIER_EXPLICIT ||
         k == GC_SYNC_BARRIER_IMPLEMENTATION ||
         k == GC_SYNC_BARRIER_IMPLICIT_WORKSHARE ||
         k == GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
}
static bool joinWait_(uint32_t k) {
  return (k >= GC_SYNC_BARRIER && k <= GC_SYNC_TASKGROUP) ||
         k == GC_SYNC_BARRIER_IMPLICIT_WORKSHARE ||
         k == GC_SYNC_BARRIER_IMPLICIT_PARALLEL;
}

/// An implicit task on one thread: its open loop and chunk; the loop's
/// chunks marked MAY_NOT_RUN (held until the loop ends) and whether the
/// thread left the loop early (cancelled).
struct Analysis::Frame {
  uint64_t task, par;
  int loop = -1, ended = -1;
  int64_t chunk = -1;
  struct Held {
    uint64_t t, a, b;
    double c;
    uint64_t e;
    uint32_t d;
  };
  std::vector<Held> held;
  bool cancelled = false;
  int shareLoop = -1;
  size_t shareIdx = 0;
  size_t im = SIZE_MAX; // its entry in implicit, if it began as one
  // Where its waits begin in Tasks' wait columns, and whether it made a
  // task (an implicit task's frame).
  size_t firstWait = 0;
  bool made = false;
  // The loops its task has begun on this thread, once asked (seeded).
  bool seeded = false;
  uint64_t begun = 0;
  Frame(uint64_t t, uint64_t p) : task(t), par(p) {}
};

Analysis::Analysis(const ProcessDir &pd, const Baseline *base)
    : proc(pd), baseline(base) {
  tpn = ticksPerNs(pd.meta);
  // Room for every record as a chunk (an upper bound): address space only,
  // pages are touched as chunks come, and the columns never move.
  uint64_t bytes = 0;
  for (int th : pd.threads) {
    struct stat st;
    if (stat((pd.dir + "/thread-" + std::to_string(th) + ".bin").c_str(),
             &st) == 0)
      bytes += st.st_size;
  }
  chunks.reserve(bytes / RecordBytes);
  // The tables read likewise (a record makes at most one task, segment,
  // wait, loop instance, share, region or implicit task): grown, each
  // would be copied and its pages touched again at every doubling.
  {
    size_t n = bytes / RecordBytes;
    loops.reserve(n);
    sharePool.reserve(n);
    shareEnd.reserve(n);
    sharePrev.reserve(n);
    regionList.reserve(n);
    regions.reserve(n);
    implicit.reserve(n);
    for (auto &keys : loopKeys)
      keys.reserve(n);
    regionKeys.reserve(n);
    Tasks &T = tasks;
    for (auto *v : {&T.parent, &T.create, &T.segTask, &T.segStart})
      v->reserve(n);
    T.segLen.reserve(n);
    T.waitTask.reserve(n);
    T.waitBegin.reserve(n);
    T.id.reserve(n);
    T.codeptr.reserve(n);
    T.creation.reserve(n);
    T.ctx.reserve(n);
    T.segThread.reserve(n);
    T.waitTime.reserve(n);
  }
  readNotes = pd.notes; // where the directory contradicts its meta.txt
  std::vector<unsigned char> readBuf; // every thread's reader's, in turn
  for (int th : pd.threads) {
    threads.push_back(th);
    ThreadReader rd(pd, th, strings);
    rd.swapBuffer(readBuf);
    readThread(th, rd);
    rd.swapBuffer(readBuf);
    lastRecord = std::max(lastRecord, rd.lastTime());
    if (!rd.endNote().empty())
      readNotes.push_back("thread " + std::to_string(th) + ": " + rd.endNote());
    if (rd.corrupt()) // a record that cannot be right, or none at all
      proc.complete = false, proc.contradicts = true;
  }
  std::vector<unsigned char>().swap(readBuf);
  maps = Maps(pd.dir + "/maps.txt");
  finish();
  instants();
}

int Analysis::newLoop(int kind, uint64_t a, uint64_t b) {
  Loop lp;
  lp.keyKind = uint32_t(kind);
  // The key's 32-bit part. Kind 2: a, the thread number (an int); kinds 0
  // and 1: b, n, below the instances' count (a task numbers the loops it
  // begins on a thread 0, 1, ..., each n an instance of its own), itself
  // below INT_MAX.
  assert(kind == 2 ? int64_t(a) == int64_t(int32_t(a))
                   : b <= uint64_t(loops.size()));
  lp.id = kind == 2 ? b : a;
  lp.small = uint32_t(kind == 2 ? a : b);
  if (loops.size() >= size_t(INT_MAX))
    throw Error("more than " + std::to_string(INT_MAX) + " loop instances");
  int li = int(loops.size());
  loops.push_back(std::move(lp));
  if (kind < 2)
    setLoop(kind ? loopKeys[1][a] : *regionKey(a, true), b, li);
  return li;
}

Analysis::ByN *Analysis::regionKey(uint64_t par, bool make) {
  if (!loopKeys[0].empty()) {
    auto it = loopKeys[0].find(par);
    if (it != loopKeys[0].end())
      return &it->second;
  }
  size_t r = regions.find(par);
  if (r == IdIndex::None)
    return make ? &loopKeys[0][par] : nullptr;
  if (r >= regionKeys.size()) {
    if (!make)
      return nullptr;
    regionKeys.resize(r + 1);
  }
  return &regionKeys[r];
}

int Analysis::loopOf(const ByN &k, uint64_t n) const {
  if (!n)
    return k.first;
  if (!k.more)
    return -1;
  const MoreN &m = loopKeyMore[k.more - 1];
  if (n <= m.run)
    return k.first + int(n);
  n -= m.run;
  return n <= m.rest.size() ? m.rest[n - 1] : -1;
}

void Analysis::setLoop(ByN &k, uint64_t n, int li) {
  // Called for an n that has no instance yet.
  if (!n) {
    k.first = li;
    return;
  }
  if (!k.more) {
    loopKeyMore.emplace_back();
    k.more = uint32_t(loopKeyMore.size());
  }
  MoreN &m = loopKeyMore[k.more - 1];
  if (m.rest.empty() && k.first >= 0 && n == uint64_t(m.run) + 1 &&
      int64_t(li) == int64_t(k.first) + int64_t(n) && m.run < UINT32_MAX) {
    m.run++;
    return;
  }
  n -= m.run;
  if (m.rest.size() < n)
    m.rest.resize(n, -1);
  m.rest[n - 1] = li;
}

Analysis::Frame &Analysis::frame(std::vector<Frame> &frames, uint64_t task,
                                 uint64_t par) {
  for (size_t i = frames.size(); i-- > 0;)
    if (frames[i].task == task)
      return frames[i];
  frames.emplace_back(task, par);
  return frames.back();
}

void Analysis::appendChunk(Frame &fr, int th, uint64_t t, uint64_t a,
                           uint64_t b, double c, uint64_t e, uint32_t d) {
  if (fr.shareLoop != fr.loop) {
    fr.shareIdx = size_t(&readShare(fr.loop, th) - sharePool.data());
    fr.shareLoop = fr.loop;
  }
  Loop &lp = loops[fr.loop];
  Share &sh = sharePool[fr.shareIdx];
  if (sh.count == Share::MaxCount)
    throw Error("thread " + std::to_string(th) + ": more than " +
                std::to_string(Share::MaxCount) +
                " chunks in one loop instance");
  sh.count++;
  fr.chunk = int64_t(chunks.size());
  chunks.thread.push_back(th);
  chunks.loop.push_back(indexOf(lp));
  chunks.start.push_back(t);
  chunks.end.push_back(t);
  chunks.lower.push_back(a);
  chunks.upper.push_back(b);
  chunks.pushParent(size_t(fr.chunk), fr.task);
  chunks.flags.push_back(uint8_t(d & 0xff));
  chunks.creation.push_back(c);
  // The instance's source location: its first chunk's that names one (a
  // loop not seen to begin has the first code, 0, whatever comes first:
  // its own aside).
  if (e && lp.keyKind == 2) {
    orphanSource.emplace(indexOf(lp), e);
  } else if (e && !codeOf(lp).psource) {
    LoopCode code = codeOf(lp);
    code.psource = e;
    lp.code = codeId(code);
  }
}

void Analysis::release(Frame &fr, int th) {
  // At the end of the frame's loop: its held chunks (reported ahead,
  // MAY_NOT_RUN) become chunks if the thread did not leave the loop early;
  // if it did, which of them ran is unknown: they are left out, and the
  // thread's share goes to its chunks that are known to have run, with
  // their own times unknown.
  std::vector<Frame::Held> held;
  held.swap(fr.held);
  bool cancelled = fr.cancelled;
  fr.cancelled = false;
  if (held.empty())
    return;
  if (cancelled) {
    leftOut += int64_t(held.size());
    if (fr.loop >= 0)
      readShare(fr.loop, th).unknown = anyUnknown = true;
    return;
  }
  for (const Frame::Held &h : held) {
    if (fr.chunk >= 0)
      chunks.end.set(size_t(fr.chunk), h.t);
    appendChunk(fr, th, h.t, h.a, h.b, h.c, h.e, h.d);
  }
}

void Analysis::closeChunk(Frame &fr, bool has, uint64_t t) {
  if (fr.chunk >= 0 && has)
    chunks.end.set(size_t(fr.chunk), t);
  fr.chunk = -1;
}

void Analysis::readThread(int th, ThreadReader &rd) {
  std::vector<Frame> frames; // implicit tasks this thread is in, innermost last
  frames.reserve(16);
  // The loops each task began on this thread: held by the task's innermost
  // frame (Frame::begun); a frame that ends passes its count to an outer
  // frame of the same task, else to ended (ascending ids, as the thread
  // makes them; from the first that is not, endedMap), read only if its
  // task has a frame again. A task above every ended one (a new one) is
  // not looked for.
  std::vector<std::pair<uint64_t, uint64_t>> ended;
  // Room for its most (an entry takes a loop's begin and an implicit
  // task's end: two records): address space only, never copied as it grows.
  ended.reserve(size_t(rd.recordsAtMost() / 2));
  std::unordered_map<uint64_t, uint64_t> endedMap;
  uint64_t endedMost = 0; // the largest ended task id
  auto loopsBegun = [&](Frame &fr) -> uint64_t & {
    if (fr.seeded)
      return fr.begun;
    fr.seeded = true;
    fr.begun = 0;
    for (size_t i = frames.size(); i-- > 0;)
      if (&frames[i] != &fr && frames[i].task == fr.task && frames[i].seeded)
        return fr.begun = frames[i].begun;
    uint64_t t = fr.task;
    if ((ended.empty() && endedMap.empty()) || t > endedMost)
      return fr.begun;
    if (!endedMap.empty()) {
      auto it = endedMap.find(t);
      if (it != endedMap.end())
        fr.begun = it->second;
      return fr.begun;
    }
    auto it = std::lower_bound(ended.begin(), ended.end(), t,
                               [](const std::pair<uint64_t, uint64_t> &e,
                                  uint64_t x) { return e.first < x; });
    if (it != ended.end() && it->first == t)
      fr.begun = it->second;
    return fr.begun;
  };
  auto endFrame = [&]() {
    Frame &fr = frames.back();
    if (fr.seeded) {
      size_t i = frames.size() - 1;
      while (i-- > 0 && frames[i].task != fr.task)
        ;
      if (i != SIZE_MAX) {
        frames[i].seeded = true;
        frames[i].begun = fr.begun;
      } else if (endedMap.empty() &&
                 (ended.empty() || fr.task > ended.back().first)) {
        ended.emplace_back(fr.task, fr.begun);
      } else { // out of order (nested regions end inner first): a map
        endedMap.insert(ended.begin(), ended.end());
        std::vector<std::pair<uint64_t, uint64_t>>().swap(ended);
        endedMap[fr.task] = fr.begun;
      }
      endedMost = std::max(endedMost, fr.task);
    }
    frames.pop_back();
  };
  // Task -> running since: the tasks switched to and not yet away from,
  // mostly one (the task running), so a short list searched from its end;
  // beyond Open of them (tasks never seen to stop) the rest in a map.
  constexpr size_t Open = 64;
  std::vector<std::pair<uint64_t, uint64_t>> open;
  std::unordered_map<uint64_t, uint64_t> openMore;
  // Where task's start is held (its place in open, or in openMore), or
  // null.
  auto findOpen = [&](uint64_t task) -> uint64_t * {
    for (size_t i = open.size(); i-- > 0;)
      if (open[i].first == task)
        return &open[i].second;
    if (!openMore.empty()) {
      auto it = openMore.find(task);
      if (it != openMore.end())
        return &it->second;
    }
    return nullptr;
  };
  struct Wait {
    uint64_t task, begin;
    uint32_t kind;
    int64_t time;
    bool running;
    uint64_t since;
    uint64_t code = 0; // where it waits (its code pointer)
  };
  std::vector<Wait> waiting; // open waits, in the order begun
  // Task a's implicit task entry: the innermost frame's when it is a's.
  auto implicitOf = [&](uint64_t a) {
    if (!frames.empty() && frames.back().task == a &&
        frames.back().im != SIZE_MAX)
      return implicit.begin() + frames.back().im;
    return implicit.find(a);
  };
  auto findWait = [&](uint64_t task) -> Wait * {
    for (Wait &w : waiting)
      if (w.task == task)
        return &w;
    return nullptr;
  };
  Tasks &T = tasks;
  size_t firstTask = T.size(), firstWait = T.waitTask.size();
  // The implicit tasks (frames) that made tasks here, consecutive repeats
  // once.
  std::vector<uint64_t> makers;
  uint64_t lastId = 0, lastCreate = 0, running = 0;
  uint32_t lastEnc = 0; // the last region's encountering task's number
  auto keepWait = [&](const Wait &w) {
    if (joinWait_(w.kind)) {
      T.waitTask.push_back(w.task);
      T.waitBegin.push_back(w.begin);
      T.waitTime.push_back(w.time);
    }
  };
  // An implicit task that ends having made no task is no task's parent:
  // its waits (kept since it began, its task's only frame) join nothing
  // and go now, not held to the thread's end (below).
  auto dropWaits = [&](const Frame &fr) {
    for (const Frame &o : frames)
      if (&o != &fr && o.task == fr.task)
        return;
    size_t o = fr.firstWait;
    for (size_t j = fr.firstWait; j < T.waitTask.size(); j++) {
      if (T.waitTask[j] == fr.task)
        continue;
      T.waitTask[o] = T.waitTask[j];
      T.waitBegin[o] = T.waitBegin[j];
      T.waitTime[o++] = T.waitTime[j];
    }
    T.waitTask.resize(o);
    T.waitBegin.resize(o);
    T.waitTime.resize(o);
  };
  const Starts &starts = chunks.start;
  size_t regionAt = 0; // the region of the implicit task begun last
  Record r;
  while (rd.next(r)) {
    uint64_t t = r.t, a = r.a, b = r.b, c = r.c;
    uint32_t d = r.d;
    if (r.kind != R_STRING)
      firstRecord = std::min(firstRecord, t);
    switch (r.kind) {
    case R_CHUNK: {
      if (frames.empty())
        frames.emplace_back(0, 0);
      Frame &fr = frames.back();
      if ((d & CH_MAY_NOT_RUN) && fr.loop >= 0) {
        fr.held.push_back({t, a, b, r.creation, r.e, d}); // known at loop end
        break;
      }
      if (fr.chunk >= 0) {
        // The thread's previous chunk ended where this one's making began
        // (the creation time, when measured).
        double cr = r.creation;
        int64_t span = int64_t(t - starts[fr.chunk]);
        chunks.end.set(size_t(fr.chunk), (cr >= 0 && cr <= double(span))
                                             ? t - uint64_t(int64_t(cr))
                                             : t);
      }
      if (fr.loop < 0) // a chunk of a loop not seen to begin
        fr.loop = newLoop(2, uint64_t(th), fr.task);
      appendChunk(fr, th, t, a, b, r.creation, r.e, d);
      break;
    }
    case R_IMPLICIT_BEGIN: {
      size_t n0 = implicit.size(), e = implicit.entry(a);
      Implicit &im = (implicit.begin() + e)->second;
      if (e < n0) { // an id given again: what it held apart goes
        if (im.region == Implicit::Far)
          implicitParApart.erase(a);
        if (im.end32 == Implicit::Far)
          implicitEndApart.erase(a);
        if (im.num16 == Implicit::Apart)
          wideImplicit.erase(a);
        if (im.join32 == Implicit::JoinApart)
          wideJoin.erase(a);
        im = Implicit();
      }
      im.begin = t;
      im.th = th;
      // Its region: mostly the one after the last found (a thread's
      // implicit tasks come in their regions' order), else looked up; not
      // recorded yet (a region another thread began, read later): apart.
      if (regionAt + 1 < regions.size() && regions[regionAt + 1] == b)
        regionAt++;
      else
        regionAt = regions.find(b);
      if (regionAt != IdIndex::None) {
        im.region = uint32_t(regionAt);
      } else {
        implicitParApart[a] = b;
        regionAt = 0;
      }
      if (c < Implicit::Apart && d < Implicit::Apart) {
        im.num16 = uint16_t(c);
        im.team16 = uint16_t(d);
      } else {
        im.num16 = im.team16 = Implicit::Apart;
        wideImplicit[a] = {c, d};
      }
      Frame &fr = frames.emplace_back(a, b);
      fr.im = e;
      fr.firstWait = T.waitTask.size();
      running = a;
      break;
    }
    case R_IMPLICIT_END:
      if (auto im = implicitOf(a); im != implicit.end())
        setImplicitEnd(im, t);
      if (!frames.empty() && frames.back().task == a) {
        Frame &fr = frames.back();
        release(fr, th);
        closeChunk(fr, true, t);
        if (a && fr.im != SIZE_MAX && !fr.made)
          dropWaits(fr);
        endFrame();
      }
      running = frames.empty() ? 0 : frames.back().task;
      break;
    case R_CANCEL:
      // The thread leaves its loop early (a=its implicit task).
      for (size_t i = frames.size(); i-- > 0;)
        if (frames[i].task == a) {
          if ((d & CANCEL_LOOP) && frames[i].loop >= 0)
            frames[i].cancelled = true;
          break;
        }
      break;
    case R_LOOP_BEGIN: {
      Frame &fr = frame(frames, a, b);
      uint64_t n = loopsBegun(fr)++;
      // Every thread of a team meets its worksharing loops in the same
      // order: (region, n) names the instance on all of them.
      int kind = b ? 0 : 1;
      uint64_t k0 = b ? b : a;
      const ByN *key = nullptr;
      if (kind) {
        auto it = loopKeys[1].find(k0);
        key = it != loopKeys[1].end() ? &it->second : nullptr;
      } else {
        key = regionKey(k0, false);
      }
      int li = key ? loopOf(*key, n) : -1;
      if (li < 0) {
        li = newLoop(kind, k0, n);
        LoopCode code;
        code.codeptr = c;
        code.sched = d;
        loops[li].code = codeId(code);
      }
      Loop &lp = loops[li];
      uint64_t e = loopEnd(lp); // held from the begin: set again
      lp.begin = lp.hasBegin ? std::min(lp.begin, t) : t;
      lp.hasBegin = true;
      if (lp.hasEnd)
        setLoopEnd(lp, e);
      release(fr, th);
      closeChunk(fr, false, 0);
      fr.loop = li;
      fr.ended = -1;
      break;
    }
    case R_LOOP_END: {
      Frame &fr = frame(frames, a, b);
      release(fr, th);
      closeChunk(fr, true, t);
      if (fr.loop >= 0) {
        Loop &lp = loops[fr.loop];
        setLoopEnd(lp, lp.hasEnd ? std::max(loopEnd(lp), t) : t);
        Share &s = readShare(fr.loop, th);
        shareEnd[size_t(&s - sharePool.data())] = t;
        s.hasEnd = true;
        fr.shareLoop = -1;
      }
      fr.ended = fr.loop;
      fr.loop = -1;
      break;
    }
    case R_PARALLEL_BEGIN: {
      // Where the region started: the chunk its encountering (implicit)
      // task was running, if any (for lineages).
      int64_t ch =
          !frames.empty() && frames.back().task == b ? frames.back().chunk : -1;
      if (ch > INT32_MAX)
        throw Error("a region begun in chunk " + std::to_string(ch) +
                    ": more than 2^31 chunks, not analysed");
      Region reg(t, regionCodes.indexOf(c, "parallel regions"), int32_t(ch));
      // Its encountering task: mostly the last one's.
      if (regionEncs.empty() || regionEncs[lastEnc] != b)
        lastEnc = uint32_t(regionEncs.entry(b));
      reg.enc32 = lastEnc;
      size_t e = regions.entry(a); // regionList's index
      if (e == regionList.size()) {
        if (regionList.size() >= Implicit::Far)
          throw Error("more than " + std::to_string(Implicit::Far) +
                      " parallel regions: not analysed");
        regionList.push_back(reg);
      } else { // an id given again: what it held apart goes
        setRegionEnd(e, 0);
        regionList[e] = reg;
      }
      break;
    }
    case R_TASK_CREATE: {
      if ((a >> 40) - 1 != uint64_t(th) || a <= lastId)
        throw Error("thread " + std::to_string(th) +
                    "'s recording names task " + hexStr(a) +
                    " out of order: not a recording of this "
                    "grainchunk-record");
      lastId = a;
      if (t < lastCreate) // the thread's clock went back: sort later
        createsInOrder = false;
      lastCreate = t;
      T.id.push_back(a);
      T.parent.push_back(b);
      T.create.push_back(t);
      T.creation.push_back(asDuration(r.e));
      T.codeptr.push_back(c);
      int64_t ctx =
          !frames.empty() && frames.back().task == b ? frames.back().chunk : -1;
      if (ctx > INT32_MAX)
        throw Error("a task made in chunk " + std::to_string(ctx) +
                    ": more than 2^31 chunks, not analysed");
      T.ctx.push_back(int32_t(ctx));
      // The task running (0: none, the implicit task), where it is not
      // the parent: as the parent, it finds no taskloop helper.
      if (running && running != b) {
        if (T.size() > UINT32_MAX)
          throw Error("more than 2^32 tasks and parents: not analysed");
        T.creatorAt.push_back(uint32_t(T.size() - 1));
        T.creatorId.push_back(running);
      }
      for (size_t i = frames.size(); i-- > 0;)
        if (frames[i].task == b) {
          frames[i].made = true;
          if (makers.empty() || makers.back() != b)
            makers.push_back(b);
          break;
        }
      break;
    }
    case R_TASK_SWITCH: {
      // a stops running here, b starts (or resumes). A wait of a task is
      // only counted while the task is on the CPU: time spent running
      // other tasks inside a taskwait is theirs. (Tasks may come from
      // threads read later: segments are kept for every task and matched
      // in finishTasks.)
      if (uint64_t *since = findOpen(a)) {
        T.segTask.push_back(a);
        T.segStart.push_back(*since);
        T.segLen.push_back(int64_t(t - *since));
        if (th > UINT16_MAX)
          throw Error("tasks run by thread " + std::to_string(th) +
                      ": a thread number above 65535, not analysed");
        T.segThread.push_back(uint16_t(th));
        auto in = std::find_if(open.begin(), open.end(),
                               [&](const auto &o) { return o.first == a; });
        if (in != open.end())
          open.erase(in);
        else
          openMore.erase(a);
      }
      if (Wait *w = findWait(a))
        if (w->running) {
          w->time += int64_t(t - w->since);
          w->running = false;
        }
      if (uint64_t *since = findOpen(b)) {
        *since = t;
      } else {
        if (open.size() == Open) { // the oldest go to the map
          openMore.insert(open.begin(), open.end());
          open.clear();
        }
        open.emplace_back(b, t);
      }
      running = b;
      if (Wait *w = findWait(b))
        if (!w->running) {
          w->running = true;
          w->since = t;
        }
      break;
    }
    case R_SYNC_BEGIN: {
      if (Wait *w = findWait(a)) { // its last wait never ended
        keepWait(*w);
        *w = Wait{a, t, d, 0, true, t, c};
      } else {
        waiting.push_back(Wait{a, t, d, 0, true, t, c});
      }
      break;
    }
    case R_SYNC_END: {
      Wait *wp = findWait(a);
      if (!wp)
        break;
      Wait w = *wp;
      waiting.erase(waiting.begin() + (wp - waiting.data()));
      if (w.running)
        w.time += int64_t(t - w.since);
      waitByKind[w.kind < waitByKind.size() ? w.kind : 0] += double(w.time);
      if (w.kind == GC_SYNC_BARRIER_EXPLICIT) {
        auto &bw = barrierWaits[w.code];
        bw.first += double(w.time);
        bw.second++;
      }
      if (w.kind == GC_SYNC_BARRIER_IMPLICIT_PARALLEL)
        if (auto im = implicitOf(a); im != implicit.end()) {
          setJoin(im, w.begin, t);
        }
      keepWait(w);
      // The barrier right after a loop: this thread's wait for the loop's
      // other chunks.
      if (!frames.empty()) {
        Frame &fr = frames.back();
        if (fr.task == a && fr.ended >= 0 && loopBarrier(w.kind)) {
          Share &s = readShare(fr.ended, th);
          setWide(s.wait32, waitOf(s) + w.time);
          fr.ended = -1;
        }
      }
      break;
    }
    case R_PARALLEL_END: {
      if (int64_t r = regionIndex(a); r >= 0)
        setRegionEnd(size_t(r), t);
      break;
    }
    case R_TASKLOOP: {
      auto &v = taskloops[a];
      if (v.empty())
        taskloopOrder.push_back(a);
      v.emplace_back(t, c, r.e);
      break;
    }
    default:
      break;
    }
  }
  for (Frame &fr : frames) {
    release(fr, th);
    closeChunk(fr, false, 0);
  }
  for (const Wait &w : waiting)
    keepWait(w);
  // This thread's implicit tasks that made no task are no task's parent
  // (an implicit task runs, and makes tasks, on its own thread alone):
  // their waits join nothing and go.
  std::sort(makers.begin(), makers.end());
  size_t o = firstWait;
  uint64_t lastX = 0;
  bool drop = false;
  for (size_t j = firstWait; j < T.waitTask.size(); j++) {
    uint64_t x = T.waitTask[j];
    if (j == firstWait || x != lastX) {
      auto im = implicit.find(x);
      drop = x && im != implicit.end() && im->second.th == th &&
             !std::binary_search(makers.begin(), makers.end(), x);
      lastX = x;
    }
    if (drop)
      continue;
    T.waitTask[o] = x;
    T.waitBegin[o] = T.waitBegin[j];
    T.waitTime[o++] = T.waitTime[j];
  }
  T.waitTask.resize(o);
  T.waitBegin.resize(o);
  T.waitTime.resize(o);
  // Threads are read in ascending order: their ranges stay sorted.
  T.rangeThread.push_back(uint64_t(th));
  T.ranges.push_back({firstTask, T.size()});
}

void Analysis::orderTasks() {
  // The tasks' creation order: the threads' lists merged by creation time
  // (ties: the earlier thread's file first, as a stable sort would).
  Tasks &T = tasks;
  size_t n = T.size();
  T.order.clear();
  T.order.reserve(n);
  if (createsInOrder) {
    using Item = std::tuple<uint64_t, size_t, size_t>; // create, run, pos
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t th = 0; th < T.ranges.size(); th++)
      if (T.ranges[th].first < T.ranges[th].second)
        runs.push_back(T.ranges[th]);
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (size_t r = 0; r < runs.size(); r++)
      heap.emplace(T.create[runs[r].first], r, runs[r].first);
    while (!heap.empty()) {
      auto [cr, r, pos] = heap.top();
      heap.pop();
      T.order.push_back(uint32_t(pos));
      if (pos + 1 < runs[r].second)
        heap.emplace(T.create[pos + 1], r, pos + 1);
    }
  } else {
    for (size_t k = 0; k < n; k++)
      T.order.push_back(uint32_t(k));
    std::stable_sort(
        T.order.begin(), T.order.end(),
        [&](uint32_t x, uint32_t y) { return T.create[x] < T.create[y]; });
  }
}

void Analysis::taskloopTasks() {
  // Gives each task of a taskloop the program's call of the taskloop as its
  // code pointer (the runtime created it with one inside itself, the same
  // for all taskloops). Every task of a taskloop has the encountering task
  // as its parent; the runtime makes some of them inside helper tasks of
  // the same taskloop (a large taskloop is split recursively), perhaps
  // after the encountering task began another taskloop: a task made while
  // a helper ran belongs to the helper's taskloop, one made by the
  // encountering task itself to its taskloop begun last.
  Tasks &T = tasks;
  if (taskloops.empty())
    return;
  std::set<uint64_t> inner;
  for (auto &kv : taskloops) {
    std::sort(kv.second.begin(), kv.second.end());
    for (auto &x : kv.second)
      inner.insert(std::get<2>(x));
  }
  std::unordered_map<size_t, uint64_t> site; // task index -> taskloop's call
  for (uint32_t k : T.order) {
    uint64_t c = T.codeptr[k];
    if (!inner.count(c))
      continue;
    auto at = std::lower_bound(T.creatorAt.begin(), T.creatorAt.end(), k);
    int64_t ck = at != T.creatorAt.end() && *at == k
                     ? T.index(T.creatorId[size_t(at - T.creatorAt.begin())])
                     : -1;
    if (ck >= 0) {
      auto it = site.find(size_t(ck));
      if (it != site.end()) {
        site[k] = it->second;
        continue;
      }
    }
    auto lit = taskloops.find(T.parentOf(k));
    if (lit == taskloops.end() || lit->second.empty())
      continue;
    const auto &lst = lit->second;
    // bisect_right(lst, (create, inf, inf)) - 1, and Python's
    // lst[:max(j, 0) + 1].
    size_t cnt = std::upper_bound(lst.begin(), lst.end(), T.create[k],
                                  [](uint64_t v, const auto &x) {
                                    return v < std::get<0>(x);
                                  }) -
                 lst.begin();
    long j = long(cnt) - 1;
    size_t upto = size_t(std::max(j, 0L)) + 1;
    for (size_t i = std::min(upto, lst.size()); i-- > 0;)
      if (std::get<2>(lst[i]) == c) {
        site[k] = std::get<1>(lst[i]);
        break;
      }
  }
  for (auto &kv : site)
    T.codeptr.set(kv.first, kv.second);
}

static bool endsWithAny(const std::string &s,
                        std::initializer_list<const char *> xs) {
  for (const char *x : xs) {
    size_t n = std::strlen(x);
    if (s.size() >= n && s.compare(s.size() - n, n, x) == 0)
      return true;
  }
  return false;
}

void Analysis::finish() {
  // The recording is read: what only reading needed goes.
  resolveImplicitRegions();
  for (auto &keys : loopKeys)
    keys = IdTable<ByN>();
  std::vector<ByN>().swap(regionKeys);
  std::vector<MoreN>().swap(loopKeyMore);
  chunks.packParents();
  packShares();
  orderTasks();
  taskloopTasks();
  // Only taskloops' sites needed the creators.
  std::vector<uint32_t>().swap(tasks.creatorAt);
  std::vector<uint64_t>().swap(tasks.creatorId);
  std::vector<uint64_t> ptrs; // sorted and made unique below
  for (const LoopCode &lc : loopCodes)
    ptrs.push_back(lc.codeptr);
  {
    std::vector<uint64_t> tp = tasks.codeptr.distinct();
    ptrs.insert(ptrs.end(), tp.begin(), tp.end());
  }
  {
    // The regions' code pointers: those some region has.
    std::vector<uint8_t> has(regionCodes.size(), 0);
    for (const Region &r : regionList)
      has[r.code] = 1;
    std::vector<uint64_t> rp = regionCodes.distinct(has);
    ptrs.insert(ptrs.end(), rp.begin(), rp.end());
  }
  for (const auto &kv : barrierWaits)
    ptrs.push_back(kv.first);
  std::sort(ptrs.begin(), ptrs.end());
  ptrs.erase(std::unique(ptrs.begin(), ptrs.end()), ptrs.end());
  maps.resolve(ptrs);
  const Meta &m = proc.meta;
  waitsKnown = m.get("answer_sync_region_wait") == "5";
  extToolTime = m.get("ext_tool_time") == "1";
  extLoop = m.get("ext_loop") == "1";
  extChunk = m.get("ext_chunk") == "1";
  extTaskCreate = m.get("ext_task_create") == "1";
  // Loop names: psource (grainchunk) or the code pointer's line, found
  // once per code as read; its instances' code named once where that
  // names a function.
  std::vector<LoopCode> read;
  read.swap(loopCodes);
  // Instances not seen to begin take the first code read (code 0); where
  // no loop was seen to begin at all, a code of no code pointer.
  if (read.empty() && !loops.empty())
    read.emplace_back();
  codeIds.clear();
  recentCodes.fill(UINT32_MAX);
  auto sourceName = [&](uint64_t codeptr, uint64_t ps) {
    auto [fn, loc] = maps.get(codeptr);
    if (ps) {
      auto s = strings.find(ps);
      if (s != strings.end()) {
        auto [pfn, ploc] = psourceLocation(s->second);
        // flang's source locations name no file ("FIRModule"), and
        // without line tables Clang's and flang's name nothing
        // (";unknown;unknown;0;0;;"): the code's line then, which is the
        // same, with its file; without one, the code's file or object
        // (never "FIRModule" or "unknown").
        bool fir = ploc.compare(0, 10, "FIRModule:") == 0 ||
                   ploc.compare(0, 8, "unknown:") == 0;
        if (!fir || (!Maps::hasLine(loc) && Maps::hasLine(ploc))) {
          fn = pfn;
          loc = ploc;
        } else if ((fn.empty() || fn == "?") && pfn != "unknown") {
          fn = pfn;
        }
      }
    }
    return std::make_pair(fn, loc);
  };
  std::vector<std::pair<std::string, std::string>> sourceNames(read.size());
  std::vector<uint8_t> found(read.size(), 0);
  std::vector<uint32_t> namedAs(read.size(), UINT32_MAX);
  std::pair<std::string, std::string> orphanName;
  for (Loop &lp : loops) {
    uint32_t rc = lp.code;
    bool orphan = lp.keyKind == 2;
    if (!orphan && namedAs[rc] != UINT32_MAX) {
      lp.code = namedAs[rc];
      continue;
    }
    LoopCode lc = read[rc];
    if (orphan) {
      auto o = orphanSource.find(indexOf(lp));
      lc.psource = o != orphanSource.end() ? o->second : 0;
      orphanName = sourceName(lc.codeptr, lc.psource);
    } else if (!found[rc]) {
      found[rc] = 1;
      sourceNames[rc] = sourceName(lc.codeptr, lc.psource);
    }
    const auto &[fn, loc] = orphan ? orphanName : sourceNames[rc];
    lc.loc = pooled(loc);
    if (!fn.empty()) {
      lc.fn = pooled(fn);
      lp.code = codeId(lc);
      if (!orphan)
        namedAs[rc] = lp.code;
      continue;
    }
    // No function: the region's code's, per instance.
    std::string f = "?";
    if (lp.keyKind == 0) {
      if (int64_t r = regionIndex(lp.k0()); r >= 0)
        f = siteFunction(codeptrOf(regionList[size_t(r)]),
                         encOf(regionList[size_t(r)]));
    }
    lc.fn = pooled(f);
    lp.code = codeId(lc);
  }
  decltype(orphanSource)().swap(orphanSource);
  decltype(codeIds)().swap(codeIds);
  std::vector<LoopCode>().swap(read);
  finishTasks();
  taskContexts();
  siteNames();
  lineages();
  metrics();
  LineageMemo().swap(tlin); // the model's walks: not kept
}

/// A location that is a code address ("object+0x1c4c": addr2line found no
/// name), which names the code itself.
static bool hasAddress(const std::string &loc) {
  return loc.find("+0x") != std::string::npos;
}

void Analysis::siteNames() {
  // Identity is code: a site per code pointer (a loop's init call, a
  // task's creation), named by its source line. Copies the compiler made
  // of one construct (an unrolled loop's task creations, an inlined
  // function's loop) have one line and are one site; where the code has
  // no line (no line table: one name per function or file) each code
  // pointer is its own site, named with its address, so that distinct
  // constructs are never merged.
  auto where = [&](uint64_t c) { return " at " + maps.where(c); };
  std::map<std::string, int32_t> byLine;
  std::map<std::tuple<int, uint64_t>, int32_t> byCode;
  std::vector<std::string> names;
  size_t loopsUnlined = 0;
  // By a loop's pooled (function, location): the site of a location with a
  // line, -1 for one without (its site is its code's).
  std::map<std::pair<const std::string *, const std::string *>, int32_t> byName;
  for (const Loop &lp : loops) {
    const LoopCode &lc = codeOf(lp);
    auto pk = std::make_pair(&lc.fn.str(), &lc.loc.str());
    auto known = byName.find(pk);
    if (known != byName.end() && known->second >= 0) {
      loopSite.push_back(known->second);
      continue;
    }
    std::string nm = loopName(lp);
    bool lined = Maps::hasLine(lc.loc);
    auto key = lc.codeptr   ? std::make_tuple(0, lc.codeptr)
               : lc.psource ? std::make_tuple(1, lc.psource)
                            : std::make_tuple(2, uint64_t(indexOf(lp)));
    int32_t next = int32_t(names.size());
    int32_t site = lined ? byLine.emplace(nm, next).first->second
                         : byCode.emplace(key, next).first->second;
    byName.emplace(pk, lined ? site : -1);
    if (site == next) {
      loopsUnlined += !lined;
      if (!lined && !hasAddress(lc.loc))
        nm += lc.codeptr ? where(lc.codeptr)
                         : " (instance L" + std::to_string(indexOf(lp)) + ")";
      names.push_back(nm);
    }
    loopSite.push_back(site);
  }
  siteLoopNames = std::move(names);
  // Task sites (taskloops': the taskloop's call). Without a line the
  // location itself adds the address, so that grains.csv's
  // source_location tells the sites apart too.
  std::map<std::pair<std::string, std::string>, int32_t> tByLine;
  size_t tu = 0, nt = 0; // task sites without a line, all
  for (size_t k = 0; k < tasks.size(); k++) {
    uint64_t c = tasks.codeptr[k];
    if ((k && c == tasks.codeptr[k - 1]) || taskSites.count(c))
      continue; // the previous task's code has its site
    auto src = taskSource(k);
    int32_t site = int32_t(nt);
    if (Maps::hasLine(src.second)) {
      site = tByLine.emplace(src, int32_t(nt)).first->second;
    } else {
      tu++;
      if (!hasAddress(src.second))
        src.second += where(c);
    }
    nt += site == int32_t(nt);
    auto [fn, loc] = src;
    taskSites[c] = {
        {fn, loc}, fn != "?" ? "task " + loc + " (" + fn + ")" : "task " + loc};
    taskSiteOf[c] = site;
  }
  if (!loopsUnlined && !tu)
    return;
  std::string what;
  if (loopsUnlined)
    what = std::to_string(loopsUnlined) + " of " +
           std::to_string(siteLoopNames.size()) + " loop(s)";
  if (tu)
    what += (what.empty() ? "" : " and ") + std::to_string(tu) + " of " +
            std::to_string(nt) + " task site(s)";
  if (!maps.canResolve())
    nameNotes.push_back(what + " have no source line: addr2line (binutils) "
                               "was not found to read the line tables; they "
                               "are named by function and code address");
  else
    nameNotes.push_back(
        what + " have no source line: their code was built without line "
               "tables (add -g or -gline-tables-only; grainchunk's Clang "
               "plugin adds line tables itself unless given "
               "-fplugin-arg-grainchunk-no-line-tables, flang gets them from "
               "grainchunk-config --fflags); they are named by function and "
               "code address");
}

std::string Analysis::siteFunction(uint64_t codeptr, uint64_t task) const {
  // The user's function of the code at codeptr, which task runs: its own
  // name's, else (an outlined function whose name does not say, Clang 14)
  // that of the code that started the task (a region's fork, a task's
  // creation), outward.
  for (int i = 0; i < 256; i++) {
    std::string fn = maps.get(codeptr).first;
    if (!fn.empty())
      return fn;
    auto im = implicit.find(task);
    if (im != implicit.end()) {
      int64_t r = regionIndexOf(im);
      if (r < 0)
        break;
      codeptr = codeptrOf(regionList[size_t(r)]);
      task = encOf(regionList[size_t(r)]);
    } else {
      int64_t k = tasks.index(task);
      if (k < 0)
        break;
      codeptr = tasks.codeptr[k];
      task = tasks.parentOf(k);
    }
  }
  return "?";
}

void Analysis::taskContexts() {
  // Where a task's code names no function, the function of the code that
  // made its parent (siteFunction()), once per parent.
  // Whether the code names a function: asked once per run of one code.
  bool unnamed = false;
  for (size_t k = 0; k < tasks.size(); k++) {
    uint64_t c = tasks.codeptr[k];
    if (!k || c != tasks.codeptr[k - 1])
      unnamed = maps.get(c).first.empty();
    if (!unnamed)
      continue;
    uint64_t p = tasks.parentOf(k);
    if (!context.count(p))
      context.emplace(p, siteFunction(c, p));
  }
}

std::pair<std::string, std::string> Analysis::taskSource(size_t k) const {
  auto [fn, loc] = maps.get(tasks.codeptr[k]);
  if (fn.empty()) {
    auto it = context.find(tasks.parentOf(k));
    fn = it != context.end() ? it->second : "?";
  }
  return {fn, loc};
}

std::string Analysis::loopName(const Loop &lp) const {
  const LoopCode &lc = codeOf(lp);
  if (endsWithAny(lc.loc, {":?", ":0"})) // no line table: build with -g
    return lc.fn.str() + " (" +
           lc.loc.str().substr(0, lc.loc.str().size() - 2) + ")";
  return lc.fn.str() != "?" ? lc.loc.str() + " (" + lc.fn.str() + ")"
                            : lc.loc.str();
}

/// No owner (groupBy()).
static constexpr uint32_t Dropped = UINT32_MAX;

/// Column v's rows in the order from (v[from[0]], v[from[1]], ...) into
/// out, a column of the same kind (a plain or a narrow one, Narrow.h).
template <typename Out, typename In>
static void gather(Out &out, const In &v, const std::vector<uint32_t> &from) {
  Out o;
  o.reserve(from.size());
  for (uint32_t j : from)
    o.push_back(v[j]);
  out = std::move(o);
}

/// Rows grouped by owner (0..n-1; Dropped: left out): a counting sort
/// (off: each group's first row, then the rows kept), each group sorted
/// (as tuples of the columns c) where not already in order of the first
/// column. Returns the rows' new order (from: the old rows, by place); the
/// columns are then moved one at a time (gather(): no more than one
/// column's copy held beside the others).
template <typename A, typename... C>
static std::vector<uint32_t> groupOrder(std::vector<uint32_t> &owner, size_t n,
                                        std::vector<uint32_t> &off, const A &a,
                                        const C &...c) {
  off.assign(n + 1, 0);
  for (uint32_t k : owner)
    if (k != Dropped)
      off[k + 1]++;
  for (size_t k = 0; k < n; k++)
    off[k + 1] += off[k];
  std::vector<uint32_t> from(off[n]);
  // Each row to its group's next place: off[k] moves to group k's end,
  // then back.
  for (size_t j = 0; j < owner.size(); j++)
    if (owner[j] != Dropped)
      from[off[owner[j]]++] = uint32_t(j);
  std::vector<uint32_t>().swap(owner);
  for (size_t k = n; k > 0; k--)
    off[k] = off[k - 1];
  off[0] = 0;
  for (size_t k = 0; k < n; k++) {
    uint32_t lo = off[k], hi = off[k + 1];
    bool sorted = true;
    for (uint32_t j = lo; j + 1 < hi && sorted; j++)
      sorted = !(a[from[j]] > a[from[j + 1]]);
    if (!sorted)
      std::sort(from.begin() + lo, from.begin() + hi,
                [&](uint32_t x, uint32_t y) {
                  return std::make_tuple(a[x], c[x]...) <
                         std::make_tuple(a[y], c[y]...);
                });
  }
  return from;
}

void Analysis::finishTasks() {
  // Each task's run (from its segments), its children in creation order
  // (child_number), the parent wait it joins at, as columns.
  Tasks &T = tasks;
  size_t n = T.size();
  const char *tooMany = "more than 2^32 task segments or waits: not analysed";
  if (T.segTask.size() > UINT32_MAX)
    throw Error(tooMany);
  if (n > UINT32_MAX)
    throw Error("more than 2^32 tasks and parents: not analysed");
  auto giveBack = [&] { // where there are tasks
    if (n)
      releaseFreed();
  };
  {
    std::vector<uint32_t> owner(T.segTask.size());
    for (size_t j = 0; j < owner.size(); j++) {
      int64_t k = T.index(T.segTask[j]);
      owner[j] = k < 0 ? Dropped : uint32_t(k);
    }
    T.segTask.clear();
    std::vector<uint32_t> from =
        groupOrder(owner, n, T.segOff, T.segStart, T.segEnd, T.segThread);
    // Each column moved with the heap's free pages (the ids', the owners',
    // the column before) given back first: the next takes fresh pages, not
    // the holes left (held, they would add up to the columns again).
    giveBack();
    gather(T.segStart, T.segStart, from);
    giveBack();
    gather(T.segLen, T.segLen, from);
    giveBack();
    gather(T.segThread, T.segThread, from);
  }
  giveBack(); // the order and the columns before
  // Parents: an explicit task's index, or a slot n + j for the j-th
  // implicit task (or unknown task) that made tasks.
  std::vector<uint64_t> &implicitIds = T.implicitIds;
  implicitIds.clear();
  std::unordered_map<uint64_t, int64_t> implicitSlot; // their slots
  T.pslot.resize(n);
  for (size_t k = 0; k < n; k++) {
    uint64_t pid = T.parentOf(k);
    int64_t i = T.index(pid);
    if (i < 0) {
      auto it = implicitSlot.find(pid);
      if (it == implicitSlot.end()) {
        it = implicitSlot.emplace(pid, int64_t(n + implicitIds.size())).first;
        implicitIds.push_back(pid);
      }
      i = it->second;
    }
    T.pslot[k] = uint32_t(i);
  }
  if (T.slots() > UINT32_MAX)
    throw Error("more than 2^32 tasks and parents: not analysed");
  T.parent.clear(); // slotId(pslot[k]) now
  if (n)            // what reading alone needed: not held beside the rest
    releaseFreed();
  size_t slots = T.slots();
  // A slot's children counted in kidOff[p + 1], then its start summed.
  std::vector<uint32_t> number(n); // each task's among its parent's kids
  T.kidOff.assign(slots + 1, 0);
  for (uint32_t k : T.order)
    number[k] = T.kidOff[T.pslot[k] + 1]++;
  for (size_t p = 0; p < slots; p++)
    T.kidOff[p + 1] += T.kidOff[p];
  T.kids.assign(n, 0);
  for (uint32_t k : T.order)
    T.kids[T.kidOff[T.pslot[k]] + number[k]] = k;
  // Where every slot's kids ascend, a child's number is its place there.
  bool ascend = true;
  for (size_t p = 0; p < slots && ascend; p++)
    for (uint32_t j = T.kidOff[p] + 1; j < T.kidOff[p + 1] && ascend; j++)
      ascend = T.kids[j] > T.kids[j - 1];
  T.childNumber.col.clear();
  if (!ascend)
    T.childNumber.col.swap(number);
  // The join waits of every slot, by begin.
  {
    if (T.waitTask.size() > UINT32_MAX)
      throw Error(tooMany);
    std::vector<uint32_t> wslot(T.waitTask.size());
    for (size_t j = 0; j < wslot.size(); j++) {
      uint64_t x = T.waitTask[j];
      int64_t k = T.index(x);
      if (k < 0) {
        auto it = implicitSlot.find(x);
        k = it == implicitSlot.end() ? -1 : it->second;
      }
      wslot[j] = k < 0 ? Dropped : uint32_t(k);
    }
    std::vector<uint64_t>().swap(T.waitTask);
    std::vector<uint32_t> from =
        groupOrder(wslot, slots, T.waitOff, T.waitBegin, T.waitTime);
    gather(T.wBegin, T.waitBegin, from);
    std::vector<uint64_t>().swap(T.waitBegin);
    gather(T.wTime, T.waitTime, from);
    std::vector<int64_t>().swap(T.waitTime);
  }
  // A child joins at its parent's first wait that begins after the child
  // was created (taskwait, taskgroup end, barrier).
  T.joinsAt = JoinPoints();
  T.joinsAt.reserve(n);
  auto create = T.create.view(), wBegin = T.wBegin.view(); // in registers
  for (size_t k = 0; k < n; k++) {
    int64_t p = T.pslot[k];
    // lower_bound of its creation among the slot's waits' begins.
    uint32_t b = T.waitOff[p], lo = b, hi = T.waitOff[p + 1];
    if (lo == hi) { // no waits: its creation not read
      T.joinsAt.push_back(0);
      continue;
    }
    uint64_t cr = create[k];
    while (lo < hi) {
      uint32_t mid = lo + (hi - lo) / 2;
      if (wBegin[mid] < cr)
        lo = mid + 1;
      else
        hi = mid;
    }
    T.joinsAt.push_back(lo - b);
  }
}

/// Whether the join points of slot p's children do not decrease (kids are
/// in creation order, each joins at its parent's first wait after it was
/// made: always, unless the recording's clocks disagree).
static bool joinsAscend(const Tasks &T, size_t p) {
  for (uint32_t j = T.kidOff[p] + 1; j < T.kidOff[p + 1]; j++)
    if (T.joinsAt[T.kids[j]] < T.joinsAt[T.kids[j - 1]])
      return false;
  return true;
}

int64_t Analysis::joinWait(int64_t p) const {
  // The parent's waits at the join points of its children, each once, in
  // ascending order.
  const Tasks &T = tasks;
  int64_t lo = T.waitOff[p], hi = T.waitOff[p + 1];
  std::vector<uint32_t> js;
  if (!joinsAscend(T, size_t(p))) {
    for (int64_t j = T.kidOff[p]; j < T.kidOff[p + 1]; j++)
      js.push_back(T.joinsAt[T.kids[j]]);
    std::sort(js.begin(), js.end());
  }
  int64_t s = 0;
  bool any = false;
  uint32_t last = 0;
  for (int64_t x = T.kidOff[p]; x < T.kidOff[p + 1]; x++) {
    uint32_t j = js.empty() ? T.joinsAt[T.kids[x]] : js[x - T.kidOff[p]];
    if (any && j == last)
      continue;
    any = true;
    last = j;
    if (lo + int64_t(j) < hi)
      s += T.wTime[lo + j];
  }
  return s;
}

void Analysis::metrics() {
  // Tasks (the prototype's definitions; docs/grain-graphs.md): overhead =
  // the task's waits at its children's join points + its children's
  // creation; work = exec - overhead; sync_cycles_per_child = (parent's
  // overhead - its children's creation) / its children.
  Tasks &T = tasks;
  size_t n = T.size(), slots = T.slots();
  const NarrowDoubles &cr = T.creation;
  // Per slot in order: a task's overhead, a slot's waits at its children's
  // join points (sync() shares them out: the creation part cancels out).
  T.overhead.clear();
  T.overhead.reserve(n);
  T.joinWaits.clear();
  T.joinWaits.reserve(slots);
  for (size_t p = 0; p < slots; p++) {
    int64_t lo = T.kidOff[p], hi = T.kidOff[p + 1];
    int64_t jw = lo == hi ? 0 : joinWait(int64_t(p));
    T.joinWaits.push_back(jw);
    if (p >= n)
      continue;
    if (lo == hi) {
      T.overhead.push_back(0.0);
      continue;
    }
    bool known = true;
    double s = 0;
    for (int64_t j = lo; j < hi; j++) {
      double c = cr[T.kids[j]];
      known &= !std::isnan(c);
      s += c;
    }
    T.overhead.push_back(known ? double(jw) + s : NAN);
  }
  // The outliers (a site's works held while they run) before swb is made,
  // the heap's free pages (what finishing the tasks left) given back.
  if (n)
    releaseFreed();
  taskOutliers = outlierTasks(*this);
  T.swb.assign(n, 0.0);
  for (size_t p = 0; p < slots; p++) {
    int64_t lo = T.kidOff[p], hi = T.kidOff[p + 1];
    if (lo == hi)
      continue;
    struct G {
      double sum = 0, mx = 0;
      int64_t cnt = 0;
      bool na = false;
      void add(double w) {
        if (std::isnan(w))
          na = true;
        else {
          sum += w;
          mx = cnt ? std::max(mx, w) : w;
        }
        cnt++;
      }
      double swb() const {
        double mean = sum / double(cnt);
        return na || !(mean > 0) ? NAN : mx / mean;
      }
    };
    if (joinsAscend(T, p)) { // the kids of a join point are a run
      for (int64_t a = lo, b; a < hi; a = b) {
        G g;
        uint32_t at = T.joinsAt[T.kids[a]];
        for (b = a; b < hi && T.joinsAt[T.kids[b]] == at; b++)
          g.add(T.work(T.kids[b]));
        double v = g.swb();
        for (int64_t j = a; j < b; j++)
          T.swb[T.kids[j]] = v;
      }
      continue;
    }
    std::map<uint32_t, G> groups;
    for (int64_t j = lo; j < hi; j++) {
      uint32_t k = T.kids[j];
      groups[T.joinsAt[k]].add(T.work(k));
    }
    for (int64_t j = lo; j < hi; j++) {
      uint32_t k = T.kids[j];
      T.swb[k] = groups[T.joinsAt[k]].swb();
    }
  }
  if (baseline) {
    T.deviation.assign(n, NAN);
    for (size_t k = 0; k < n; k++) {
      double w = T.work(k);
      auto lin = taskLineage(k, tlin);
      if (!lin) {
        matches.taskNoLineage++;
        continue;
      }
      if (std::isnan(w)) {
        matches.taskNoWork++;
        continue;
      }
      auto it = baseline->tasks.find(*lin);
      if (it != baseline->tasks.end() && it->second != 0 &&
          !std::isnan(it->second)) {
        T.deviation[k] = w / it->second;
        matches.tasks++;
      } else {
        matches.taskNoTwin++;
      }
    }
  }
  for (size_t k = 0; k < n; k++) {
    GrainMetrics m = taskMetrics(k);
    for (int p = 0; p < P_COUNT; p++)
      if (m.problems & (1u << p))
        taskFlagged[p]++;
    taskPbNa += std::isnan(m.pb);
  }
  chunkMetricsPass();
}

double Analysis::taskOwnWork(size_t k) const {
  const Tasks &T = tasks;
  double w = T.work(k);
  if (std::isnan(w))
    w = double(T.execc(k)) -
        (T.kidOff[k] < T.kidOff[k + 1] ? double(joinWait(int64_t(k))) : 0.0);
  return w > 0 ? w : 0.0;
}

GrainMetrics Analysis::taskMetrics(size_t k) const {
  const Tasks &T = tasks;
  GrainMetrics m;
  m.work = T.work(k);
  m.hasWork = !std::isnan(m.work);
  m.sync = T.sync(k);
  double cost = T.creation[k] + m.sync;
  m.pb = cost > 0 ? m.work / cost : NAN; // NaN in, NaN out
  m.swb = T.swb[k];
  m.dev = T.deviation.empty() ? NAN : T.deviation[k];
  m.outlier = k < taskOutliers.size() && taskOutliers[k];
  m.problems = problems(m);
  return m;
}

static double maxMeanOf(double mx, double total, int64_t n) {
  return n && total > 0 ? mx / (total / double(n)) : NAN;
}

/// A loop instance's shares' work in one pass: whether any is unknown,
/// their total (saturated), the largest and how many have work; its chunks
/// (Analysis::nChunks()); the share of thread th, if any.
struct ShareWork {
  bool unknown = false;
  int64_t total = 0, mx = 0, cnt = 0, n = 0;
  const Share *of = nullptr;
  ShareWork(const Analysis &an, const Loop &lp, int th = INT_MIN) {
    for (const Share &s : an.shares(lp)) {
      n += s.count;
      if (!of && s.th == th)
        of = &s;
      unknown |= s.unknown;
      if (s.hasWork) {
        int64_t w = an.workOf(s);
        total = satAdd(total, w);
        mx = cnt ? std::max(mx, w) : w;
        cnt++;
      }
    }
  }
  double cwb(int64_t maxWork) const {
    if (!n || unknown)
      return NAN;
    return maxMeanOf(double(maxWork), double(total), n);
  }
  double cpu() const {
    if (!n)
      return NAN;
    if (cnt > 1) {
      double mean = double(total) / double(cnt);
      return mean > 0 ? double(mx) / mean : NAN;
    }
    return 1.0;
  }
};

int64_t Analysis::maxWorkOf(size_t li, int64_t mx, int64_t cnt) const {
  if (multiDense)
    return multiMax[li];
  auto it = std::lower_bound(multiAt.begin(), multiAt.end(), uint32_t(li));
  if (it != multiAt.end() && *it == li)
    return multiMax[size_t(it - multiAt.begin())];
  // One chunk per thread: a thread's work is its chunk's.
  return cnt ? std::max<int64_t>(0, mx) : 0;
}

void Analysis::balance(const Loop &lp, int64_t &n, double &cwb,
                       double &cpu) const {
  ShareWork w(*this, lp);
  n = w.n;
  cwb = w.cwb(maxWorkOf(size_t(indexOf(lp)), w.mx, w.cnt));
  cpu = w.cpu();
}

void Analysis::chunkMetricsPass() {
  // Chunks: the parent is the thread's share of the loop instance. The
  // shares' waits (per chunk), then a pass over the columns: the
  // per-thread sums, and the largest chunk of the instances that have a
  // thread of two chunks or more.
  const Chunks &ch = chunks;
  size_t nc = ch.size();
  for (Loop &lp : loops)
    for (Share &s : shares(lp)) {
      int64_t sync = waitOf(s);      // read: its waits, which make its wait
      if (!waitsKnown || !s.count) { // its wait per chunk: NA
        setWide(s.wait32, 0);
        continue;
      }
      // The thread's wait at the barrier after the loop; no barrier
      // (nowait): 0. libomp ends a worker's wait at the end of a parallel
      // region only when the next region starts, so the wait is capped by
      // how long the loop's last thread ran on after this one.
      int64_t wait = 0;
      if (uint64_t end = loopEnd(lp)) {
        int64_t after =
            int64_t(end - (s.hasEnd ? shareEnd[shareIndex(s)] : end));
        wait = std::min(sync, after);
      }
      setWide(s.wait32, wait);
    }
  // Where each thread left its loop is kept for the tasks made in chunks
  // alone.
  if (!tasks.ctx.any())
    std::vector<uint64_t>().swap(shareEnd);
  // The instances with a thread of two chunks or more.
  for (const Loop &lp : loops)
    for (const Share &s : shares(lp))
      if (s.count > 1) {
        multiAt.push_back(uint32_t(indexOf(lp)));
        break;
      }
  if (multiAt.size() > loops.size() / 2) {
    std::vector<uint32_t>().swap(multiAt);
    multiDense = true;
    multiMax.assign(loops.size(), 0);
  } else {
    multiMax.assign(multiAt.size(), 0);
  }
  auto multiOf = [&](size_t li) -> int64_t * {
    if (multiDense)
      return &multiMax[li];
    auto it = std::lower_bound(multiAt.begin(), multiAt.end(), uint32_t(li));
    return it != multiAt.end() && *it == li
               ? &multiMax[size_t(it - multiAt.begin())]
               : nullptr;
  };
  auto find = [&](const Loop &lp, int th) {
    return const_cast<Share *>(shareOf(lp, th));
  };
  int lastLi = -1, lastTh = -1;
  Share *sh = nullptr;
  int64_t work = 0, *mx = nullptr; // sh's work so far, its instance's max
  // In the same pass: each instance's team size, from the first of its
  // chunks whose implicit task is known.
  teamSize.assign(loops.size(), 0);
  for (size_t i = 0; i < nc; i++) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      if (sh)
        setWide(sh->work32, work);
      sh = find(loops[li], th); // every chunk's thread has its share
      work = workOf(*sh);
      mx = multiOf(size_t(li));
      lastLi = li;
      lastTh = th;
    }
    if (uint32_t &ts = teamSize[size_t(li)]; !ts) {
      auto it = implicit.find(ch.parentOf(i));
      if (it != implicit.end())
        ts = teamOf(it);
    }
    int64_t x = int64_t(ch.span(i));
    work = satAdd(work, x);
    sh->hasWork = true;
    if (mx && x > *mx)
      *mx = x;
    // A static loop compiled without the plugin, with grainchunk's runtime
    // library: every chunk of the thread is reported when the init call
    // returns, before any runs, the first at its start and the others
    // marked AHEAD (extensions.md). Their own times are then not known,
    // only the thread's share.
    if (ch.flags[i] & CH_AHEAD)
      sh->unknown = anyUnknown = true;
  }
  if (sh)
    setWide(sh->work32, work);
  // The outlier chunks (Problems.h), instead of every chunk of an
  // instance past chunk_work_balance or chunk_work_cpu_balance.
  outliers = outlierChunks(*this);
  if (!baseline)
    return;
  baseInstance.assign(loops.size(), nullptr);
  loopDeviations.assign(loops.size(), 0);
  std::vector<uint8_t> noLineage(loops.size(), 0);
  for (Loop &lp : loops) {
    auto il = instanceLineage(indexOf(lp));
    if (!il) {
      noLineage[indexOf(lp)] = 1;
      continue;
    }
    auto it = baseline->instances.find(*il);
    if (it != baseline->instances.end())
      baseInstance[indexOf(lp)] = &it->second;
  }
  double thr = Thresholds[P_WORK_DEVIATION].value;
  lastLi = -1;
  for (size_t i = 0; i < nc; i++) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      sh = find(loops[li], th);
      lastLi = li;
      lastTh = th;
    }
    double d = chunkDeviation(li, ch.lower[i], ch.upper[i], !sh->unknown,
                              double(int64_t(ch.span(i))));
    if (noLineage[li]) // NA
      matches.chunkNoLineage++;
    else if (sh->unknown)
      matches.chunkUnknown++;
    else if (std::isnan(d))
      matches.chunkNoTwin++;
    else
      matches.chunks++;
    if (!std::isnan(d)) {
      deviations.push_back(d);
      if (d > thr)
        loopDeviations[size_t(li)]++;
    }
  }
  for (double v : tasks.deviation)
    if (!std::isnan(v))
      deviations.push_back(v);
}

void Analysis::flaggedChunks(const std::function<void(size_t, int)> &f) const {
  const Chunks &ch = chunks;
  int lastLi = -1, lastTh = -1;
  const Share *sh = nullptr;
  double per = NAN;
  for (size_t i = 0; i < ch.size(); i++) {
    int li = ch.loop[i], th = ch.thread[i];
    if (li != lastLi || th != lastTh) {
      sh = shareOf(loops[li], th);
      per = waitPer(*sh);
      lastLi = li;
      lastTh = th;
    }
    double c = ch.creation[i];
    if (!std::isnan(per) && !std::isnan(c) && !sh->unknown) {
      double cost = c + per;
      if (cost > 0 && double(int64_t(ch.span(i))) / cost <
                          Thresholds[P_PARALLEL_BENEFIT].value)
        f(i, P_PARALLEL_BENEFIT);
    }
    if (i < outliers.size() && outliers[i])
      f(i, P_OUTLIER);
  }
}

double Analysis::chunkDeviation(int li, uint64_t lo, uint64_t up, bool has,
                                double work) const {
  if (!baseline || !has || !baseInstance[li])
    return NAN;
  int64_t base;
  if (!Baseline::chunkWork(
          *static_cast<const Baseline::Instance *>(baseInstance[li]), lo, up,
          base) ||
      base == 0)
    return NAN;
  return work / double(base);
}

int64_t Analysis::madeInChunk(size_t k) const {
  const Tasks &T = tasks;
  if (size_t(T.pslot[k]) < T.size() || T.ctx[k] < 0 ||
      size_t(T.ctx[k]) >= chunks.size())
    return -1;
  return T.ctx[k];
}

std::vector<uint32_t> Analysis::chunkNumbers() const {
  // Each share's chunks counted in the order they were read (appended).
  std::vector<uint32_t> next(sharePool.size(), 0), out(chunks.size());
  int lastLi = -1, lastTh = 0;
  size_t at = 0;
  for (size_t i = 0; i < chunks.size(); i++) {
    int li = chunks.loop[i], th = chunks.thread[i];
    if (li != lastLi || th != lastTh) {
      at = shareIndex(*shareOf(loops[size_t(li)], th));
      lastLi = li, lastTh = th;
    }
    out[i] = next[at]++;
  }
  return out;
}

GrainMetrics Analysis::chunkMetrics(size_t i) const {
  const Loop &lp = loops[chunks.loop[i]];
  ShareWork sw(*this, lp, chunks.thread[i]);
  const Share *sh = sw.of;
  GrainMetrics m;
  bool unknown = sh && sh->unknown;
  m.hasWork = !unknown;
  m.work = unknown ? NAN : double(int64_t(chunks.span(i)));
  m.sync = sh ? waitPer(*sh) : NAN;
  double cost = chunks.creation[i] + m.sync;
  m.pb = cost > 0 ? m.work / cost : NAN;
  m.cwb = sw.cwb(maxWorkOf(size_t(indexOf(lp)), sw.mx, sw.cnt));
  m.cpu = sw.cpu();
  m.dev = chunkDeviation(indexOf(lp), chunks.lower[i], chunks.upper[i],
                         m.hasWork, m.work);
  m.outlier = i < outliers.size() && outliers[i];
  // chunk_work_balance and chunk_work_cpu_balance are the instance's: they
  // stay columns, not problems of each of its chunks.
  m.problems = problems(m) &
               ~(1u << P_CHUNK_WORK_BALANCE | 1u << P_CHUNK_WORK_CPU_BALANCE);
  return m;
}

int64_t Analysis::threadNum(size_t i) const {
  auto it = implicit.find(chunks.parentOf(i));
  return it == implicit.end() ? -1 : int64_t(threadNumOf(it));
}

void Analysis::instants() {
  bool any = false;
  uint64_t v = 0;
  for (size_t j = 0; j < tasks.segStart.size(); j++)
    if (uint64_t s = tasks.segStart[j]; !any || s < v)
      v = s, any = true;
  for (size_t i = 0; i < chunks.size(); i++)
    if (!any || chunks.start[i] < v)
      v = chunks.start[i], any = true;
  firstAt = v;
  v = 0;
  any = false;
  for (size_t j = 0; j < tasks.segEnd.size(); j++)
    if (uint64_t s = tasks.segEnd[j]; !any || s > v)
      v = s, any = true;
  for (size_t i = 0; i < chunks.size(); i++)
    if (!any || chunks.end[i] > v)
      v = chunks.end[i], any = true;
  lastAt = v;
}

// ------------------------------------------------------------ lineage
// A grain's lineage names it the same way in two runs of the program,
// whatever the team sizes, so that its twin in a one-thread run can be
// found (work_deviation; the prototype's lineage and chunk_lineage keys):
//   region         <context>/p<its code's file:line>#<k-th such region in the
//                  context>
//   loop instance  <region>/L<n-th worksharing loop of the region>
//   chunk          <loop instance>:<first>-<last iteration>
//   task           <loop instance>>t<k> (made in a chunk), <region>>t<k> or
//                  >t<k> (the initial task), then .<child number> per
//                  generation
// <context> is the lineage of the loop instance (started in a chunk) or
// task that started the region ("" at the top). Grains made in chunks are
// numbered in the instance's iteration order (iterationOrder()), not per
// chunk: the chunks' bounds depend on the team size, the order of the
// iterations does not. NA where no such name is unique: a nested region
// started outside a loop by a thread of a bigger team, root tasks of a
// region created outside loops by more than one thread, grains made in an
// instance whose iteration order is not known.
std::optional<uint64_t> Analysis::rootRegion(size_t k) const {
  auto im = implicit.find(tasks.parentOf(k));
  if (im != implicit.end() && regionIndexOf(im) >= 0)
    return parOf(im);
  return std::nullopt;
}

void Analysis::iterationOrder(std::unordered_map<int64_t, int32_t> &perChunk,
                              std::vector<int32_t> &regionRank) {
  // The root tasks made in a loop instance's chunks, and the regions
  // started there, ranked by (their chunk's first iteration, their order in
  // the chunk). The chunks of an instance are disjoint ranges of its
  // iterations, each run in order, so as long as every iteration makes the
  // same grains the ranks are the same in every team. They hold up to the
  // first gap in the recorded iterations (a chunk not recorded: a run cut
  // short); not at all where a task's chunk is not known: chunks reported
  // ahead of running (a loop compiled without the plugin), a thread that
  // left the loop early, a stock runtime (it reports a thread's first
  // static chunk only), records dropped or threads lost (a chunk before
  // the task's may be missing). In: perChunk, per chunk the root
  // tasks made in it; out: per chunk their first rank (-1: unknown).
  // Only the instances with such grains are sorted.
  const Chunks &ch = chunks;
  std::vector<uint8_t> need(loops.size(), 0);
  for (auto &kv : perChunk)
    need[ch.loop[kv.first]] = 1;
  for (const Region &r : regionList)
    if (r.chunk >= 0)
      need[ch.loop[r.chunk]] = 1;
  std::vector<uint32_t> idx;
  for (size_t i = 0; i < ch.size(); i++)
    if (need[ch.loop[i]])
      idx.push_back(uint32_t(i));
  if (idx.empty())
    return;
  std::sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) {
    return std::make_tuple(ch.loop[x], ch.lower[x], ch.upper[x], x) <
           std::make_tuple(ch.loop[y], ch.lower[y], ch.upper[y], y);
  });
  const Meta &m = proc.meta;
  bool known = (m.get("grainchunk_runtime") == "1" || extChunk) &&
               m.get("dropped", "0") == "0" &&
               m.get("lost_threads", "0") == "0";
  // Per chunk that started a region: 1 if in the known prefix.
  std::unordered_map<int64_t, uint8_t> regionChunk;
  for (const Region &r : regionList)
    if (r.chunk >= 0)
      regionChunk[r.chunk] = 0;
  for (size_t a = 0; a < idx.size();) {
    int li = ch.loop[idx[a]];
    size_t b = a;
    bool ok = known;
    for (; b < idx.size() && ch.loop[idx[b]] == li; b++)
      if (ch.flags[idx[b]] & (CH_AHEAD | CH_MAY_NOT_RUN))
        ok = false;
    for (const Share &s : shares(size_t(li)))
      if (s.unknown)
        ok = false;
    int64_t rank = 0;
    for (size_t j = a; j < b; j++) {
      uint32_t i = idx[j];
      if (j > a && ch.lower[i] != ch.upper[idx[j - 1]] + 1)
        ok = false; // a gap, or chunks that overlap
      auto it = perChunk.find(i);
      if (it != perChunk.end()) {
        int32_t c = it->second;
        it->second = ok && rank + c <= INT32_MAX ? int32_t(rank) : -1;
        rank += c;
      }
      auto rc = regionChunk.find(i);
      if (rc != regionChunk.end())
        rc->second = ok;
    }
    a = b;
  }
  // Regions started in chunks: numbered per (instance, code location) in
  // the same order; the regions of a chunk in the order they began.
  std::vector<size_t> rs;
  for (size_t i = 0; i < regionList.size(); i++)
    if (regionList[i].chunk >= 0)
      rs.push_back(i);
  auto key = [&](size_t i) {
    const Region &r = regionList[i];
    return std::make_tuple(ch.loop[r.chunk], ch.lower[r.chunk], r.t, i);
  };
  std::sort(rs.begin(), rs.end(),
            [&](size_t x, size_t y) { return key(x) < key(y); });
  std::map<std::pair<int, std::string>, int32_t> counts;
  for (size_t i : rs) {
    const Region &r = regionList[i];
    int32_t k = counts[{ch.loop[r.chunk], maps.get(codeptrOf(r)).second}]++;
    regionRank[i] = regionChunk[r.chunk] ? k : -1;
  }
}

void Analysis::lineages() {
  // Root tasks (made by an implicit task): numbered in creation order per
  // creating chunk, then in the instance's iteration order
  // (iterationOrder()), or per region when one implicit task made them.
  Tasks &T = tasks;
  size_t n = T.size();
  // Per root, where at most half the tasks are roots (rootPlace()).
  T.rootAt.clear();
  for (size_t k = 0; k < n; k++)
    if (T.pslot[k] >= n)
      T.rootAt.push_back(uint32_t(k));
  bool perTask = T.rootAt.size() > n / 2;
  if (perTask)
    std::vector<uint32_t>().swap(T.rootAt);
  T.rootk.assign(perTask ? n : T.rootAt.size(), 0);
  std::unordered_map<int64_t, int32_t> perChunk;
  std::map<std::optional<uint64_t>, int32_t> perRegion;
  std::map<std::optional<uint64_t>, std::set<uint64_t>> makers;
  for (uint32_t k : T.order) {
    if (T.pslot[k] < int64_t(n))
      continue;
    if (T.ctx[k] >= 0) {
      T.rootk[T.rootPlace(k)] = perChunk[T.ctx[k]]++;
    } else {
      auto r = rootRegion(k);
      T.rootk[T.rootPlace(k)] = perRegion[r]++;
      makers[r].insert(T.parentOf(k));
    }
  }
  for (auto &kv : makers)
    if (kv.second.size() == 1)
      oneMaker.push_back(kv.first);
  std::vector<int32_t> regionRank(regionList.size(), -1);
  iterationOrder(perChunk, regionRank);
  for (size_t k = 0; k < n; k++)
    if (T.pslot[k] >= int64_t(n) && T.ctx[k] >= 0) {
      int32_t base = perChunk[T.ctx[k]];
      int32_t &rk = T.rootk[T.rootPlace(k)];
      rk = base < 0 || rk > INT32_MAX - base ? -1 : base + rk;
    }
  // Regions in the order they began: a region's context began before it.
  // Mostly in that order already (one thread starts them, its records in
  // time order): sorted only if not.
  std::vector<size_t> idx(regionList.size());
  std::iota(idx.begin(), idx.end(), 0);
  auto began = [&](size_t x, size_t y) {
    return regionList[x].t < regionList[y].t;
  };
  if (!std::is_sorted(idx.begin(), idx.end(), began))
    std::stable_sort(idx.begin(), idx.end(), began);
  // Per (context, location): by context, then location (no pair made
  // per region); the last code pointer's location kept. The process's own
  // regions' (context "") counters by code pointer, found again without
  // naming the location.
  std::map<std::string, std::map<std::string, int>> counts;
  std::unordered_map<uint64_t, int *> rootCounts;
  uint64_t locCode = 0;
  std::string lastLoc;
  bool haveLoc = false;
  regionLineage.assign(regionList.size(), RL_NONE);
  regionNumber.assign(regionList.size(), 0);
  for (size_t i : idx) {
    const Region &r = regionList[i];
    if (r.chunk >= 0) {
      // Started in a chunk: its instance, its rank in iteration order.
      if (regionRank[i] >= 0 && instanceLineage(chunks.loop[r.chunk])) {
        regionLineage[i] = RL_CHUNK;
        regionNumber[i] = regionRank[i];
      }
      continue;
    }
    std::optional<std::string> ctx;
    uint64_t encId = encOf(r);
    int64_t enc = T.index(encId);
    if (enc >= 0) {
      ctx = taskLineage(size_t(enc), tlin);
    } else {
      auto im = implicit.find(encId);
      if (im == implicit.end() || regionIndexOf(im) < 0)
        ctx = std::string();
    }
    if (!ctx)
      continue;
    regionLineage[i] = enc >= 0 ? RL_TASK : RL_ROOT;
    int **root = nullptr;
    if (ctx->empty()) {
      root = &rootCounts[codeptrOf(r)];
      if (*root) {
        regionNumber[i] = (**root)++;
        continue;
      }
    }
    if (!haveLoc || codeptrOf(r) != locCode) {
      lastLoc = maps.get(codeptrOf(r)).second;
      locCode = codeptrOf(r);
      haveLoc = true;
    }
    int &count = counts[*ctx][lastLoc];
    if (root)
      *root = &count;
    regionNumber[i] = count++;
  }
}

std::optional<std::string> Analysis::regionLineageOf(uint64_t par) const {
  int64_t at = regionIndex(par);
  if (at < 0 || size_t(at) >= regionLineage.size())
    return std::nullopt;
  size_t i = size_t(at);
  const Region &r = regionList[i];
  std::optional<std::string> ctx;
  if (regionLineage[i] == RL_CHUNK)
    ctx = instanceLineage(chunks.loop[r.chunk]);
  else if (regionLineage[i] == RL_TASK)
    ctx = taskLineage(size_t(tasks.index(encOf(r))));
  else if (regionLineage[i] == RL_ROOT)
    ctx = std::string();
  if (!ctx)
    return std::nullopt;
  return *ctx + "/p" + maps.get(codeptrOf(r)).second + "#" +
         std::to_string(regionNumber[i]);
}

std::optional<std::string> Analysis::rootLineage(size_t k) const {
  const Tasks &T = tasks;
  if (T.ctx[k] >= 0) {
    if (T.rootk[T.rootPlace(k)] < 0)
      return std::nullopt;
    auto il = instanceLineage(chunks.loop[size_t(T.ctx[k])]);
    if (!il)
      return std::nullopt;
    return *il + ">t" + std::to_string(T.rootk[T.rootPlace(k)]);
  }
  auto r = rootRegion(k);
  if (std::find(oneMaker.begin(), oneMaker.end(), r) == oneMaker.end())
    return std::nullopt;
  if (!r)
    return ">t" + std::to_string(T.rootk[T.rootPlace(k)]);
  auto lin = regionLineageOf(*r);
  if (!lin)
    return std::nullopt;
  return *lin + ">t" + std::to_string(T.rootk[T.rootPlace(k)]);
}

std::optional<std::string> Analysis::instanceLineage(int li) const {
  const Loop &lp = loops[li];
  if (lp.keyKind != 0)
    return std::nullopt;
  auto lin = regionLineageOf(lp.k0());
  if (!lin)
    return std::nullopt;
  return *lin + "/L" + std::to_string(lp.k1());
}

std::optional<std::string> Analysis::chunkLineage(size_t i) const {
  auto s = instanceLineage(chunks.loop[i]);
  if (!s)
    return s;
  *s += ':';
  *s += std::to_string(chunks.lower[i]);
  *s += '-';
  *s += std::to_string(chunks.upper[i]);
  return s;
}

std::optional<std::string> Analysis::taskLineage(size_t k,
                                                 LineageMemo &memo) const {
  // Task k's lineage: its root's, then a child number per generation. The
  // memo keeps the last 65,536 asked (a child's walk stops at its
  // parent's).
  const Tasks &T = tasks;
  int64_t n = int64_t(T.size());
  auto m = memo.find(k);
  if (m != memo.end())
    return m->second;
  std::vector<size_t> chain;
  while (!memo.count(k) && T.pslot[k] < n) {
    chain.push_back(k);
    k = size_t(T.pslot[k]);
  }
  auto it = memo.find(k);
  std::optional<std::string> base =
      it != memo.end() ? it->second : rootLineage(k);
  if (memo.size() > 65536)
    memo.clear();
  memo[k] = base;
  for (size_t i = chain.size(); i-- > 0;) {
    size_t c = chain[i];
    if (base)
      base = *base + "." + std::to_string(T.childNumber[c]);
    memo[c] = base;
  }
  return base;
}

Baseline::Baseline(Analysis &an) {
  const Chunks &ch = an.chunks;
  for (const Loop &lp : an.loops) {
    if (!an.nChunks(lp))
      continue;
    auto il = an.instanceLineage(an.indexOf(lp));
    if (!il)
      continue;
    int64_t w = 0;
    for (const Share &s : an.shares(lp))
      w = satAdd(w, an.workOf(s));
    instanceWork[*il] = w;
  }
  std::vector<Instance *> byLoop(an.loops.size(), nullptr);
  for (size_t i = 0; i < ch.size(); i++) {
    int li = ch.loop[i];
    if (!byLoop[li]) {
      auto il = an.instanceLineage(li);
      if (!il)
        continue;
      byLoop[li] = &instances[*il];
    }
    if (an.chunkUnknown(i))
      continue;
    Instance &in = *byLoop[li];
    in.lo.push_back(ch.lower[i]);
    in.up.push_back(ch.upper[i]);
    in.work.push_back(int64_t(ch.span(i)));
  }
  for (auto &kv : instances) {
    Instance &in = kv.second;
    if (std::is_sorted(in.lo.begin(), in.lo.end()))
      continue;
    std::vector<size_t> ord(in.lo.size());
    std::iota(ord.begin(), ord.end(), 0);
    std::stable_sort(ord.begin(), ord.end(),
                     [&](size_t x, size_t y) { return in.lo[x] < in.lo[y]; });
    Instance s;
    for (size_t k : ord) {
      s.lo.push_back(in.lo[k]);
      s.up.push_back(in.up[k]);
      s.work.push_back(in.work[k]);
    }
    in = std::move(s);
  }
  Analysis::LineageMemo memo;
  for (size_t k = 0; k < an.tasks.size(); k++) {
    double w = an.tasks.work(k);
    auto lin = an.taskLineage(k, memo);
    if (lin && !std::isnan(w))
      tasks[*lin] = w;
  }
  grains = an.nGrains();
  threads = an.threads.size();
}

bool Baseline::chunkWork(const Instance &in, uint64_t lo, uint64_t up,
                         int64_t &work) {
  auto it = std::lower_bound(in.lo.begin(), in.lo.end(), lo);
  size_t k = it - in.lo.begin();
  if (k < in.lo.size() && in.lo[k] == lo && in.up[k] == up) {
    work = in.work[k];
    return true;
  }
  return false;
}

} // namespace gcg

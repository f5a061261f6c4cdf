// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grainchunk-graph reader trusts nothing in a recording (issue 33): a
// thread number does not size anything, a recording that contradicts its
// meta.txt is incomplete and says where, times far outside the recording's
// clock end their thread's records (sums of durations stay defined),
// non-regular files are refused and meta.txt is read only up to a bound,
// and a refusal is one printable line; twelve threads of one loop instance
// keep a span each (CoarseGraph.h). Also run under ASan+UBSan
// (unit-graph-asan, test/fuzz/CMakeLists.txt).
#include "CoarseGraph.h"
#include "LoopTable.h"
#include "Run.h"
#include "graph_recording.h"

#include <cstring>
#include <gtest/gtest.h>
#include <set>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef __has_feature
#define __has_feature(x) 0
#endif

using namespace gcg;
using namespace gcgtest;

namespace {

const uint64_t Par = 100;

// Thread th's share of one loop of a region of `team` threads: a thread
// record, its implicit task, `chunks` chunks at times t, t+step, ... and
// the loop's end at `end`.
Thread share(int th, int team, uint64_t t, uint64_t step, int chunks,
             uint64_t end) {
  Thread r;
  uint64_t task = 1000 + th;
  r.rec(R_THREAD, t, th, 1);
  if (th == 0)
    r.rec(R_PARALLEL_BEGIN, t, Par, 1, 0, team);
  r.rec(R_IMPLICIT_BEGIN, t, task, Par, th, team)
      .rec(R_LOOP_BEGIN, t, task, Par, 0, 0);
  for (int i = 0; i < chunks; i++)
    r.chunk(t + i * step, uint64_t(th) * chunks + i, uint64_t(th) * chunks + i,
            2);
  r.rec(R_LOOP_END, end, task, Par).rec(R_IMPLICIT_END, end, task, 0);
  if (th == 0)
    r.rec(R_PARALLEL_END, end, Par, 0);
  return r;
}

// A complete format-4 recording of `threads` threads in dir.
void complete(const std::string &dir, int threads) {
  writeFile(dir + "/meta.txt", meta4(7, -1, true, threads));
  for (int th = 0; th < threads; th++)
    share(th, threads, 1000 + th, 10, 3, 2000)
        .write(dir + "/thread-" + std::to_string(th) + ".bin");
}

std::string notes(const Analysis &an) {
  std::string s;
  for (const std::string &n : an.readNotes)
    s += n + "\n";
  return s;
}

std::string refusal(const std::string &raw) {
  try {
    analyseRun({raw}, {});
  } catch (const Error &e) {
    return e.what();
  }
  return "(not refused)";
}

bool printableLine(const std::string &s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f)
      return false;
  return !s.empty();
}

} // namespace

TEST(GraphReaderTrust, CompleteRecordingIsComplete) {
  TempDir d;
  complete(d.path, 2);
  auto run = analyseRun({d.path}, {});
  EXPECT_TRUE(run->complete()) << notes(*run->procs[0]);
  EXPECT_EQ(run->procs[0]->chunks.size(), 6u);
}

// A thread file named by a huge number sizes nothing: it is not read (the
// process had 2 threads), and an incomplete recording reads it with its
// number indexed densely.
TEST(GraphReaderTrust, HugeThreadNumberSizesNothing) {
  TempDir d;
  complete(d.path, 2);
  share(999999999, 2, 1000, 10, 3, 2000)
      .write(d.path + "/thread-999999999.bin");
  // 8 GB of address space at most (not under ASan, whose shadow needs
  // more): a table indexed by thread number would need 16 GB.
  struct rlimit old;
  getrlimit(RLIMIT_AS, &old);
  bool limited = false;
#if !defined(__SANITIZE_ADDRESS__) && !__has_feature(address_sanitizer)
  if (old.rlim_cur == RLIM_INFINITY) {
    struct rlimit lim = {uint64_t(8) << 30, old.rlim_max};
    limited = setrlimit(RLIMIT_AS, &lim) == 0;
  }
#endif
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  EXPECT_FALSE(an.proc.complete);
  EXPECT_NE(notes(an).find("thread-999999999.bin not read: meta.txt says the "
                           "process had 2 threads"),
            std::string::npos)
      << notes(an);
  EXPECT_EQ(an.threads.size(), 2u);
  writeFile(d.path + "/meta.txt", meta4(7, -1, false));
  auto inc = analyseRun({d.path}, {});
  EXPECT_EQ(inc->procs[0]->threads.size(), 3u);
  EXPECT_EQ(inc->procs[0]->chunks.size(), 9u);
  if (limited)
    setrlimit(RLIMIT_AS, &old);
}

TEST(GraphReaderTrust, MissingEmptyOrZeroedThreadFileIsIncomplete) {
  TempDir d;
  complete(d.path, 2);
  unlink((d.path + "/thread-1.bin").c_str());
  auto run = analyseRun({d.path}, {});
  EXPECT_FALSE(run->complete());
  EXPECT_NE(notes(*run->procs[0])
                .find("thread-1.bin missing: meta.txt says the process had 2 "
                      "threads"),
            std::string::npos)
      << notes(*run->procs[0]);
  complete(d.path, 2);
  writeFile(d.path + "/thread-0.bin", "");
  run = analyseRun({d.path}, {});
  EXPECT_FALSE(run->complete());
  EXPECT_NE(notes(*run->procs[0])
                .find("thread 0: the thread's file holds no "
                      "record"),
            std::string::npos)
      << notes(*run->procs[0]);
  complete(d.path, 2);
  writeFile(d.path + "/thread-0.bin", std::string(4096, '\0'));
  run = analyseRun({d.path}, {});
  EXPECT_FALSE(run->complete());
}

// A time near 2^63 ends its thread's records there: no span of 10^13 ms.
TEST(GraphReaderTrust, TimeOutsideTheClockEndsTheThread) {
  TempDir d;
  complete(d.path, 2);
  Thread t = share(1, 2, 1001, 10, 3, 2000);
  // Records: thread, implicit, loop begin, chunk, chunk, chunk, ...: the
  // third chunk's time.
  uint64_t huge = (uint64_t(1) << 63) - 1000;
  std::memcpy(t.bytes.data() + 5 * 32, &huge, 8);
  t.write(d.path + "/thread-1.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  EXPECT_FALSE(an.proc.complete);
  EXPECT_NE(notes(an).find("record 5's time, 9223372036854774808 ticks, is "
                           "outside the recording's clock"),
            std::string::npos)
      << notes(an);
  EXPECT_EQ(an.chunks.size(), 5u);
  EXPECT_LT(an.lastRecord, uint64_t(1) << 62);
  // A task whose creation took 1e161 ticks (a float-cast overflow where
  // the trace is written, found by graph_fuzz).
  complete(d.path, 2);
  Thread c = share(1, 2, 1001, 10, 3, 2000);
  c.task(1500, (uint64_t(2) << 40) | 1, 1001, 0, 1.4e161);
  c.write(d.path + "/thread-1.bin");
  run = analyseRun({d.path}, {});
  EXPECT_FALSE(run->complete());
  EXPECT_NE(notes(*run->procs[0])
                .find("creation time, 1.4e+161 ticks, is not a time of the "
                      "recording"),
            std::string::npos)
      << notes(*run->procs[0]);
  EXPECT_EQ(run->procs[0]->tasks.size(), 0u);
  // A thread's clock that jumps back by more than a second.
  complete(d.path, 2);
  Thread b = share(1, 2, 1001 + (uint64_t(1) << 40), 10, 3,
                   2000 + (uint64_t(1) << 40));
  uint64_t early = 1000;
  std::memcpy(b.bytes.data() + 5 * 32, &early, 8);
  b.write(d.path + "/thread-1.bin");
  writeFile(d.path + "/meta.txt", meta4(7, -1, false));
  run = analyseRun({d.path}, {});
  EXPECT_NE(notes(*run->procs[0]).find("before the thread's latest"),
            std::string::npos)
      << notes(*run->procs[0]);
}

// Many threads, each running for the whole window: sums of their work do
// not overflow (UBSan would halt) and stay positive.
TEST(GraphReaderTrust, SumsOfLongThreadsStayDefined) {
  TempDir d;
  const int threads = 300;
  const uint64_t span = (uint64_t(1) << 55) - (uint64_t(1) << 41);
  writeFile(d.path + "/meta.txt", meta4(7, -1, false));
  for (int th = 0; th < threads; th++)
    share(th, threads, 1000, span / 2, 2, 1000 + span)
        .write(d.path + "/thread-" + std::to_string(th) + ".bin");
  auto run = analyseRun({d.path}, {});
  Analysis &an = *run->procs[0];
  ASSERT_EQ(an.chunks.size(), size_t(2 * threads)) << notes(an);
  for (const LoopThread &r : loopThreads(an))
    EXPECT_GT(r.work, 0);
  for (const Loop &lp : an.loops)
    for (const Share &s : an.shares(lp))
      EXPECT_GE(an.workOf(s), 0);
}

TEST(GraphReaderTrust, NonRegularFilesAreRefused) {
  TempDir d;
  complete(d.path, 2);
  unlink((d.path + "/thread-1.bin").c_str());
  ASSERT_EQ(mkfifo((d.path + "/thread-1.bin").c_str(), 0600), 0);
  ASSERT_EQ(mkfifo((d.path + "/maps.txt").c_str(), 0600), 0);
  auto run = analyseRun({d.path}, {}); // would block on either FIFO
  EXPECT_FALSE(run->complete());
  EXPECT_NE(notes(*run->procs[0])
                .find("thread-1.bin not read: it is a FIFO, not a regular "
                      "file"),
            std::string::npos)
      << notes(*run->procs[0]);
  unlink((d.path + "/meta.txt").c_str());
  ASSERT_EQ(mkfifo((d.path + "/meta.txt").c_str(), 0600), 0);
  std::string e = refusal(d.path);
  EXPECT_NE(e.find("meta.txt is a FIFO, not a regular file"), std::string::npos)
      << e;
}

TEST(GraphReaderTrust, LargeMetaIsNotRead) {
  TempDir d;
  complete(d.path, 2);
  ASSERT_EQ(truncate((d.path + "/meta.txt").c_str(), off_t(10) << 30), 0);
  std::string e = refusal(d.path);
  EXPECT_NE(e.find("meta.txt holds more than 1048576 bytes (10737418240)"),
            std::string::npos)
      << e;
}

// One printable line, with no guess about how the program was built when
// a recording lacks its meta.txt.
TEST(GraphReaderTrust, RefusalsArePrintableLines) {
  TempDir d;
  complete(d.path, 2);
  unlink((d.path + "/meta.txt").c_str());
  std::string e = refusal(d.path);
  EXPECT_TRUE(printableLine(e)) << e;
  EXPECT_EQ(e.find("libgomp"), std::string::npos) << e;
  EXPECT_NE(e.find("meta.txt beside its thread files"), std::string::npos) << e;
  writeFile(d.path + "/meta.txt", "");
  e = refusal(d.path);
  EXPECT_EQ(e.find("None"), std::string::npos) << e;
  EXPECT_NE(e.find("meta.txt is empty"), std::string::npos) << e;
  const char version[] = "record_version 4\0\xff\x1b[2J\n";
  writeFile(d.path + "/meta.txt", std::string(version, sizeof version - 1));
  e = refusal(d.path);
  EXPECT_TRUE(printableLine(e)) << e;
  EXPECT_NE(e.find("format 4\\x00\\xff\\x1b[2J,"), std::string::npos) << e;
  const char host[] = "host a\0\xff\x1b\n";
  writeFile(d.path + "/meta.txt",
            meta4(7, -1, true, 2) + std::string(host, sizeof host - 1));
  auto run = analyseRun({d.path}, {});
  EXPECT_EQ(run->procs[0]->proc.host, "a\\x00\\xff\\x1b");
  EXPECT_TRUE(printableLine(Error("a\nb\xff").what()));
  EXPECT_EQ(printable("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");
}

// Twelve threads in one loop instance: more than a block's spans looked up
// along its list (spansOf), each thread's span found again past them.
TEST(GraphReaderTrust, ManyThreadsOneSpanEach) {
  TempDir d;
  complete(d.path, 12);
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  LoopTable lt = loopTable(an);
  for (uint64_t block : {1, 0}) {
    std::vector<LoopSpan> spans = loopSpans(lt, block);
    ASSERT_EQ(spans.size(), 12u) << block;
    std::set<int> threads;
    for (const LoopSpan &s : spans) {
      EXPECT_EQ(s.chunks, 3) << s.th;
      EXPECT_EQ(s.instances, 1) << s.th;
      threads.insert(s.th);
    }
    EXPECT_EQ(threads.size(), 12u);
    EXPECT_EQ(countLoopSpans(lt, block), 12u);
  }
}

// An implicit task's thread number and team size are held in 16 bits
// where both fit (Analysis.h's Implicit), else apart: a team of 65535
// threads or more, a thread number above 32 bits, are analysed with their
// own numbers, never cut to 16 bits.
TEST(GraphReaderTrust, LargeTeamsKeepTheirNumbers) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta4(7, -1, true, 1));
  for (uint32_t team : {65534u, 65535u, 65536u, 1u << 20}) {
    share(0, int(team), 1000, 10, 3, 2000).write(d.path + "/thread-0.bin");
    auto run = analyseRun({d.path}, {});
    const Analysis &an = *run->procs[0];
    EXPECT_EQ(an.teamOf(an.implicit.begin()), team);
    ASSERT_EQ(an.teamSize.size(), 1u);
    EXPECT_EQ(an.teamSize[0], team);
  }
  Thread t;
  t.rec(R_THREAD, 1000, 0, 1)
      .rec(R_PARALLEL_BEGIN, 1000, Par, 1, 0, 2)
      .wide(R_IMPLICIT_BEGIN, 1000, 1000, Par, (uint64_t(1) << 32) + 3, 0, 2)
      .rec(R_LOOP_BEGIN, 1000, 1000, Par, 0, 0)
      .chunk(1010, 0, 0, 2)
      .rec(R_LOOP_END, 2000, 1000, Par)
      .rec(R_IMPLICIT_END, 2000, 1000, 0)
      .rec(R_PARALLEL_END, 2000, Par, 0);
  t.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  const Analysis &an = *run->procs[0];
  EXPECT_EQ(an.threadNum(0), int64_t((uint64_t(1) << 32) + 3));
  EXPECT_EQ(an.teamOf(an.implicit.begin()), 2u);
}

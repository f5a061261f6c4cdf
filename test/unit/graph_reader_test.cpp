// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The grainchunk-graph engine's reader on hand-made recordings: format 3
// (a flat directory) and 4 (a directory per process), a zero-filled tail,
// records cut short, an incomplete process, and bad recordings (one Error,
// never a crash).
#include "Run.h"
#include "Writers.h"
#include "graph_recording.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

using namespace gcg;
using namespace gcgtest;

namespace {

// One thread of one region: a loop of two chunks.
Thread oneLoop(uint64_t par, uint64_t task) {
  Thread t;
  t.rec(R_PARALLEL_BEGIN, 0, par, 1, 0, 1)
      .rec(R_IMPLICIT_BEGIN, 1, task, par, 0, 1)
      .rec(R_LOOP_BEGIN, 10, task, par, 0, 0)
      .chunk(10, 0, 0, 2)
      .chunk(20, 1, 1, 2)
      .rec(R_LOOP_END, 40, task, par)
      .rec(R_IMPLICIT_END, 60, task, 0);
  return t;
}

size_t countRecords(const std::string &path) {
  std::unordered_map<uint64_t, std::string> strings;
  ThreadReader rd(path, strings);
  Record r;
  size_t n = 0;
  while (rd.next(r))
    n++;
  return n;
}

} // namespace

TEST(GraphReader, Version3FlatDirectory) {
  TempDir d;
  writeFile(d.path + "/meta.txt", meta3());
  oneLoop(100, 200).write(d.path + "/thread-0.bin");
  auto procs = findProcesses(d.path);
  ASSERT_EQ(procs.size(), 1u);
  EXPECT_EQ(procs[0].version, 3);
  EXPECT_TRUE(procs[0].complete);
  EXPECT_EQ(procs[0].threads, std::vector<int>{0});
  EXPECT_DOUBLE_EQ(ticksPerNs(procs[0].meta), 2.0);
  Analysis an(procs[0]);
  EXPECT_EQ(an.chunks.size(), 2u);
}

TEST(GraphReader, ZeroTailEndsTheStream) {
  TempDir d;
  oneLoop(100, 200).write(d.path + "/thread-0.bin", 4096);
  EXPECT_EQ(countRecords(d.path + "/thread-0.bin"), 7u);
}

TEST(GraphReader, TruncatedWideRecordIsIgnored) {
  TempDir d;
  Thread t = oneLoop(100, 200);
  Thread w;
  w.task(70, (1ull << 40) | 1, 200, 0, 5.0);
  // The wide record's first half only, then a record cut short.
  t.append(w.bytes.data(), 32);
  t.write(d.path + "/thread-0.bin");
  std::unordered_map<uint64_t, std::string> strings;
  ThreadReader rd(d.path + "/thread-0.bin", strings);
  Record r;
  size_t n = 0;
  while (rd.next(r))
    n++;
  EXPECT_EQ(n, 7u);
  EXPECT_NE(rd.endNote().find("wide record cut short"), std::string::npos);
  Thread p = oneLoop(100, 200);
  p.append(w.bytes.data(), 10);
  p.write(d.path + "/thread-1.bin");
  EXPECT_EQ(countRecords(d.path + "/thread-1.bin"), 7u);
}

TEST(GraphReader, Version4ProcessDirectories) {
  TempDir d;
  mkdir((d.path + "/node1.100").c_str(), 0777);
  mkdir((d.path + "/node1.200").c_str(), 0777);
  writeFile(d.path + "/node1.100/meta.txt", meta4(100, 0, true));
  writeFile(d.path + "/node1.200/meta.txt", meta4(200, 1, false));
  oneLoop(100, 300).write(d.path + "/node1.100/thread-0.bin", 1 << 12);
  Thread t = oneLoop(100, 300);
  Thread w;
  w.task(70, (1ull << 40) | 1, 300, 0, 5.0);
  t.append(w.bytes.data(), 32); // killed while writing a wide record
  t.write(d.path + "/node1.200/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  ASSERT_EQ(run->procs.size(), 2u);
  EXPECT_TRUE(run->multi());
  EXPECT_FALSE(run->complete());
  const Analysis &a = *run->procs[0], &b = *run->procs[1];
  EXPECT_EQ(a.proc.pid, 100);
  EXPECT_EQ(b.proc.pid, 200);
  EXPECT_EQ(a.proc.rank, 0);
  EXPECT_EQ(b.proc.rank, 1);
  EXPECT_TRUE(a.proc.complete);
  EXPECT_FALSE(b.proc.complete);
  EXPECT_EQ(a.chunks.size(), 2u);
  EXPECT_EQ(b.chunks.size(), 2u);
  EXPECT_EQ(b.tasks.size(), 0u); // the cut record is not a task
  // Ticks per ns: from the two clock readings when complete, else the
  // calibration written at start.
  EXPECT_DOUBLE_EQ(a.clockNs(), 2.0);
  EXPECT_DOUBLE_EQ(b.clockNs(), 2.0);
  EXPECT_EQ(run->prefix(0), "p100.");
  EXPECT_EQ(run->prefix(1), "p200.");
  std::string s = summary(*computeResults(*run));
  EXPECT_NE(s.find("2 processes"), std::string::npos);
  EXPECT_NE(s.find("process 200 (parent 1, rank 1, host node1) INCOMPLETE"),
            std::string::npos);
  EXPECT_NE(s.find("INCOMPLETE: the program ended"), std::string::npos);
  // A process directory alone (--from-raw of one process).
  auto one = analyseRun({d.path + "/node1.100"}, {});
  ASSERT_EQ(one->procs.size(), 1u);
  EXPECT_EQ(one->prefix(0), "");
}

TEST(GraphReader, IncompleteEndsAt) {
  TempDir d;
  // clock0 1000, 2 ticks per ns: a last record at 2001000 is 1 ms later.
  writeFile(d.path + "/meta.txt", meta4(7, -1, false));
  Thread t;
  t.rec(R_IMPLICIT_BEGIN, 1000, 5, 6, 0, 1)
      .rec(R_LOOP_BEGIN, 1000, 5, 6)
      .chunk(1000, 0, 9, 0)
      .chunk(2001000, 10, 19, 0);
  t.write(d.path + "/thread-0.bin");
  auto run = analyseRun({d.path}, {});
  EXPECT_EQ(Run::endsAt(*run->procs[0]),
            "1.000 ms after the recording started");
  EXPECT_EQ(Run::rankText(run->procs[0]->proc), "NA");
}

TEST(GraphReader, BadRecordingsAreErrors) {
  TempDir d;
  EXPECT_THROW(findProcesses(d.path + "/missing"), Error);
  EXPECT_THROW(findProcesses(d.path), Error); // no meta.txt anywhere
  writeFile(d.path + "/meta.txt", "record_version 2\n");
  try {
    findProcesses(d.path);
    FAIL();
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("recorded in format 2"),
              std::string::npos);
  }
  writeFile(d.path + "/meta.txt", "garbage\n\x01\x02");
  EXPECT_THROW(findProcesses(d.path), Error);
  // Task ids out of order: not a recording of this tool.
  writeFile(d.path + "/meta.txt", meta3());
  Thread t;
  t.rec(R_IMPLICIT_BEGIN, 0, 200, 100, 0, 1)
      .task(10, (1ull << 40) | 2, 200, 0, 1.0)
      .task(20, (1ull << 40) | 1, 200, 0, 1.0);
  t.write(d.path + "/thread-0.bin");
  EXPECT_THROW(analyseRun({d.path}, {}), Error);
  // Random bytes: analysed or refused, never a crash.
  Thread junk;
  for (int i = 0; i < 4096; i++)
    junk.put32(uint32_t(i * 2654435761u));
  junk.write(d.path + "/thread-0.bin");
  try {
    analyseRun({d.path}, {});
  } catch (const Error &) {
  }
}

// Format 4, a process that did not reach finalize: the stream is the .bin
// file's whole records, then the ring in thread-N.tail from the index its
// header gives (a record may be split between the two), up to a kd of 0.
TEST(GraphReader, RingOfAnUnfinishedProcessContinuesTheStream) {
  TempDir d;
  Thread t = oneLoop(100, 200); // 7 records
  Thread w;
  w.task(70, (1ull << 40) | 1, 200, 0, 5.0); // a wide record: 2 x 32 bytes
  t.append(w.bytes.data(), w.bytes.size());  // 9 records in the stream
  const std::vector<unsigned char> &all = t.bytes;
  ASSERT_EQ(all.size(), 9u * 32);
  // .bin: the first 4 records and a partial fifth (cut by the kill);
  // the ring begins at stream index 2 (records 2.. are in it, again).
  std::vector<unsigned char> bin(all.begin(), all.begin() + 4 * 32 + 7);
  std::vector<unsigned char> tail(32, 0);
  uint64_t first = 2;
  std::memcpy(tail.data(), &first, 8);
  tail.insert(tail.end(), all.begin() + 2 * 32, all.begin() + 7 * 32);
  tail.resize(tail.size() + 6144 * 32, 0); // the rest of the ring: zero
  writeFile(d.path + "/thread-0.bin", std::string(bin.begin(), bin.end()));
  writeFile(d.path + "/thread-0.tail", std::string(tail.begin(), tail.end()));
  // The 7 records before the wide one (whose kind was never written).
  EXPECT_EQ(countRecords(d.path + "/thread-0.bin"), 7u);
  tail.resize(32 + 5 * 32); // records 2..6, then the wide one (7, 8)
  tail.insert(tail.end(), all.begin() + 7 * 32, all.end());
  tail.resize(tail.size() + 64, 0);
  writeFile(d.path + "/thread-0.tail", std::string(tail.begin(), tail.end()));
  EXPECT_EQ(countRecords(d.path + "/thread-0.bin"), 8u);
  // A ring that begins after the .bin file's end (the disk filled): the
  // stream is the .bin file's, and the reader says why.
  first = 9;
  std::memcpy(tail.data(), &first, 8);
  writeFile(d.path + "/thread-0.tail", std::string(tail.begin(), tail.end()));
  std::unordered_map<uint64_t, std::string> strings;
  ThreadReader rd(d.path + "/thread-0.bin", strings);
  Record r;
  size_t n = 0;
  while (rd.next(r))
    n++;
  EXPECT_EQ(n, 4u); // and the partial fifth is cut short
  EXPECT_NE(rd.endNote().find("disk full"), std::string::npos) << rd.endNote();
}

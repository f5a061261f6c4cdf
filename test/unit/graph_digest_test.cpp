// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// A process's digest (tools/graph/write/Digest.*), what an MPI job's ranks
// hand rank 0 instead of their grains: written and read back field for
// field; the run-level sums and the summary made from digests alone; and
// the reader refusing every cut-short, damaged or other-version file with
// an Error naming it, never crashing.
#include "Digest.h"

#include <fstream>
#include <gtest/gtest.h>
#include <sstream>
#include <string>
#include <unistd.h>

using namespace gcg;

namespace {
std::string tempFile() {
  char T[] = "/tmp/gcg-digest-XXXXXX";
  int fd = mkstemp(T);
  EXPECT_GE(fd, 0);
  close(fd);
  return T;
}
std::string slurp(const std::string &P) {
  std::ifstream In(P, std::ios::binary);
  std::stringstream S;
  S << In.rdbuf();
  return S.str();
}
void spill(const std::string &P, const std::string &Text) {
  std::ofstream(P, std::ios::binary | std::ios::trunc) << Text;
}

ProcessDigest sample(int rank, double work) {
  ProcessDigest d;
  d.pid = 100 + rank;
  d.ppid = 1;
  d.rank = rank;
  d.host = "node\n1"; // a newline inside a string survives
  d.exe = "/bin/app";
  d.recordVersion = 3;
  d.threads = 2;
  d.chunks = 60;
  d.tasks = 0;
  d.ticksPerNs = 1.0 / 3;
  d.hasClock = true;
  d.clock = "tsc";
  d.toolTime = true;
  d.complete = rank != 2;
  d.endsAt = d.complete ? "" : "1.000 ms after the recording started";
  d.critAcyclic = true;
  d.critSpan = 12345.5;
  d.critWork = 23456.25;
  d.time.threads = 2;
  d.time.span = 1e6;
  d.time.coverage = NAN;
  d.counts.resize(P_COUNT);
  for (int f = 0; f < P_COUNT; f++)
    d.counts[f] = {f, uint64_t(f * 3), uint64_t(f), f != 1};
  Problem q;
  q.kind = "loop";
  q.where = "a.c:7 (main)";
  q.lostMs = 0.1 + rank;
  q.why = "imbalance";
  q.imbalance = NAN;
  d.problems.push_back(q);
  d.outlierIds.push_back({"p100.c0.3", "p100.c1.4"});
  d.loopWork.who = "r" + std::to_string(rank);
  d.loopWork.ticksPerMs = 1e6 / 3;
  d.loopWork.loops.push_back(
      {"a.c:7 (main)", {{0, work}, {1, 2 * work}}, q.lostMs});
  d.summary = "grainchunk-graph: 60 chunks\nloop a.c:7\n";
  return d;
}
} // namespace

TEST(Digest, RoundTrip) {
  std::string P = tempFile();
  std::vector<ProcessDigest> In = {sample(0, 100), sample(2, 300)};
  writeDigestFile(In, P);
  std::vector<ProcessDigest> Out = readDigestFile(P);
  ASSERT_EQ(Out.size(), 2u);
  for (size_t i = 0; i < 2; i++) {
    const ProcessDigest &a = In[i], &b = Out[i];
    EXPECT_EQ(a.pid, b.pid);
    EXPECT_EQ(a.rank, b.rank);
    EXPECT_EQ(a.host, b.host);
    EXPECT_EQ(a.ticksPerNs, b.ticksPerNs); // exact (%a)
    EXPECT_EQ(a.complete, b.complete);
    EXPECT_EQ(a.endsAt, b.endsAt);
    EXPECT_EQ(a.critSpan, b.critSpan);
    EXPECT_TRUE(std::isnan(b.time.coverage));
    ASSERT_EQ(b.counts.size(), size_t(P_COUNT));
    EXPECT_EQ(b.counts[2].grains, 6u);
    EXPECT_FALSE(b.counts[1].pathKnown);
    ASSERT_EQ(b.problems.size(), 1u);
    EXPECT_EQ(b.problems[0].where, "a.c:7 (main)");
    EXPECT_TRUE(std::isnan(b.problems[0].imbalance));
    EXPECT_EQ(b.outlierIds[0], a.outlierIds[0]);
    ASSERT_EQ(b.loopWork.loops.size(), 1u);
    EXPECT_EQ(b.loopWork.loops[0].perThread, a.loopWork.loops[0].perThread);
    EXPECT_EQ(a.summary, b.summary);
  }
  unlink(P.c_str());
}

TEST(Digest, RunLevelFromDigestsAlone) {
  RunDigest D = runDigest({sample(0, 100), sample(1, 300)}, true);
  EXPECT_EQ(D.counts[2].grains, 12u);
  EXPECT_FALSE(D.counts[1].pathKnown);
  ASSERT_EQ(D.across.size(), 1u);
  EXPECT_EQ(D.across[0].who, (std::vector<std::string>{"r0", "r1"}));
  // Rank 1 does three times rank 0's work: max/mean = 300 / 200.
  EXPECT_NEAR(D.across[0].processImbalance, 1.5, 1e-12);
  std::string S = summaryText(D);
  EXPECT_NE(S.find("grainchunk-graph: 2 processes, 120 chunks, 0 tasks\n"),
            std::string::npos);
  EXPECT_NE(S.find("process 101 (parent 1, rank 1, host node\n"),
            std::string::npos);
  EXPECT_NE(S.find("  loop a.c:7\n"), std::string::npos);
  EXPECT_NE(S.find("work per process (ms) r0="), std::string::npos);
}

TEST(Digest, RefusesCutShortAndDamaged) {
  std::string P = tempFile();
  writeDigestFile({sample(0, 100)}, P);
  std::string Good = slurp(P);
  // Every prefix is refused with one line naming the file.
  for (size_t n = 0; n < Good.size(); n++) {
    try {
      parseDigest(Good.substr(0, n), P);
      ADD_FAILURE() << "a digest cut at byte " << n << " was read";
    } catch (const Error &e) {
      EXPECT_EQ(std::string(e.what()).rfind(P, 0), 0u) << e.what();
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
    }
  }
  // Bytes changed anywhere: an Error or a digest, never a crash.
  for (size_t n = 0; n < Good.size(); n++)
    for (char c : {'\0', '\n', '9', '-', ' ', 'x'}) {
      std::string Bad = Good;
      Bad[n] = c;
      try {
        parseDigest(Bad, P);
      } catch (const Error &) {
      }
    }
  spill(P, "grainchunk-digest 99\n");
  try {
    readDigestFile(P);
    ADD_FAILURE() << "another version was read";
  } catch (const Error &e) {
    EXPECT_NE(std::string(e.what()).find("digest version 99"),
              std::string::npos);
  }
  unlink(P.c_str());
}

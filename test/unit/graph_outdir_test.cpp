// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// grainchunk-graph's output directory (tools/graph/driver/OutputDir.*) and
// program launch (driver/Launch.*): the user's data is never removed, an
// earlier result is replaced whole and only by a complete one, a run holds
// a lock, bad paths and programs are one-line errors, exit statuses are a
// shell's.
#include "Launch.h"
#include "OutputDir.h"
#include "Writers.h"

#include <charconv>
#include <dirent.h>
#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gcg;

namespace {
std::string tempDir() {
  char T[] = "/tmp/gcg-outdir-XXXXXX";
  EXPECT_NE(mkdtemp(T), nullptr);
  return T;
}
void touch(const std::string &P, const std::string &Text = "x") {
  std::ofstream(P) << Text;
}
bool exists(const std::string &P) {
  struct stat St;
  return ::lstat(P.c_str(), &St) == 0;
}
} // namespace

namespace {
/// A run into D that writes Names (each a file holding Text) and commits.
void result(const std::string &D, std::vector<std::string> Names,
            const OutputDir::Config &C = {}, const std::string &Text = "x") {
  OutputDir O;
  std::string Err;
  ASSERT_TRUE(O.open(D, Err, C)) << Err;
  for (const std::string &N : Names) {
    ASSERT_TRUE(O.claim(N, Err)) << Err;
    touch(O.path(N), Text);
  }
  ASSERT_TRUE(O.commit(Err)) << Err;
}
std::string slurp(const std::string &P) {
  std::ifstream In(P);
  std::string S;
  std::getline(In, S);
  return S;
}
/// Whether the directory holds a name starting with Prefix.
bool holds(const std::string &Dir, const std::string &Prefix) {
  std::vector<std::string> Names;
  if (DIR *D = ::opendir(Dir.c_str())) {
    while (struct dirent *E = ::readdir(D))
      if (std::string(E->d_name).compare(0, Prefix.size(), Prefix) == 0)
        Names.push_back(E->d_name);
    ::closedir(D);
  }
  return !Names.empty();
}

} // namespace

TEST(OutputDir, CreatesMissingDirectoriesAndClaimsNames) {
  std::string T = tempDir(), D = T + "/a/b/out";
  OutputDir O;
  std::string Err;
  ASSERT_TRUE(O.open(D, Err)) << Err;
  ASSERT_TRUE(O.claim("grains.csv", Err)) << Err;
  touch(O.path("grains.csv"));
  EXPECT_FALSE(exists(D)); // built beside it
  EXPECT_EQ(O.shown(O.path("grains.csv")), D + "/grains.csv");
  std::string Err2;
  EXPECT_FALSE(O.claim("../escape", Err2));
  EXPECT_FALSE(Err2.empty());
  ASSERT_TRUE(O.commit(Err)) << Err;
  EXPECT_TRUE(OutputDir::isResult(D));
  EXPECT_TRUE(exists(D + "/grains.csv"));
  EXPECT_FALSE(holds(T + "/a/b", ".out.grainchunk-graph.new-"));
  removeTree(T, Err);
}

TEST(OutputDir, RefusesNonEmptyDirectoryOfTheUser) {
  std::string T = tempDir();
  ::mkdir((T + "/raw").c_str(), 0755);
  touch(T + "/raw/data.bin");
  touch(T + "/notes.txt");
  OutputDir O;
  std::string Err;
  EXPECT_FALSE(O.open(T, Err));
  EXPECT_NE(Err.find("is not empty"), std::string::npos) << Err;
  EXPECT_NE(Err.find("not an earlier result"), std::string::npos) << Err;
  EXPECT_TRUE(exists(T + "/raw/data.bin"));
  EXPECT_TRUE(exists(T + "/notes.txt"));
  EXPECT_FALSE(exists(T + "/" + OutputDir::manifestName()));
  removeTree(T, Err);
}

TEST(OutputDir, ReplacesEarlierResultWholeAndKeepsOtherFiles) {
  std::string T = tempDir(), D = T + "/out", Err;
  {
    OutputDir O;
    ASSERT_TRUE(O.open(D, Err)) << Err;
    for (const char *N : {"grains.csv", "grains.graphml", "trace.json"}) {
      ASSERT_TRUE(O.claim(N, Err));
      touch(O.path(N));
    }
    ASSERT_TRUE(O.claim("raw", Err));
    ::mkdir(O.path("raw").c_str(), 0755);
    touch(O.path("raw") + "/thread-0.bin");
    ASSERT_TRUE(O.commit(Err)) << Err;
  }
  touch(D + "/mine.txt"); // the user's, added after the run
  {
    OutputDir O;
    ASSERT_TRUE(O.open(D, Err)) << Err;
    ASSERT_TRUE(O.claim("grains.csv", Err));
    touch(O.path("grains.csv"), "new");
    // Until the new result is complete, the earlier one is whole.
    EXPECT_TRUE(exists(D + "/grains.graphml"));
    ASSERT_TRUE(O.commit(Err)) << Err;
    EXPECT_EQ(O.replaced().size(), 4u);
  }
  EXPECT_FALSE(exists(D + "/grains.graphml"));
  EXPECT_FALSE(exists(D + "/trace.json"));
  EXPECT_FALSE(exists(D + "/raw"));
  EXPECT_EQ(slurp(D + "/grains.csv"), "new");
  EXPECT_EQ(slurp(D + "/mine.txt"), "x");
  // A manifest naming a path outside the directory removes nothing there.
  std::string Outside = tempDir();
  touch(Outside + "/keep");
  {
    std::ofstream M(D + "/" + OutputDir::manifestName(), std::ios::app);
    M << "../" << Outside.substr(5) << "/keep\n" << Outside << "\n";
  }
  result(D, {});
  EXPECT_TRUE(exists(Outside + "/keep"));
  removeTree(T, Err);
  removeTree(Outside, Err);
}

TEST(OutputDir, AFailedRunLeavesTheEarlierResultWhole) {
  std::string T = tempDir(), D = T + "/out", Err;
  result(D, {"grains.csv", "trace.json"});
  {
    OutputDir O;
    ASSERT_TRUE(O.open(D, Err)) << Err;
    ASSERT_TRUE(O.claim("grains.csv", Err));
    touch(O.path("grains.csv"), "half");
    // No commit: the run failed.
  }
  EXPECT_EQ(slurp(D + "/grains.csv"), "x");
  EXPECT_TRUE(exists(D + "/trace.json"));
  EXPECT_FALSE(holds(T, ".out.grainchunk-graph."));
  // A run killed half way leaves its build directory: the next run
  // removes it.
  pid_t P = ::fork();
  if (P == 0) {
    OutputDir O;
    std::string E;
    if (O.open(D, E) && O.claim("grains.csv", E))
      touch(O.path("grains.csv"), "half");
    ::_exit(0); // no destructor: as if killed
  }
  int St;
  ::waitpid(P, &St, 0);
  EXPECT_TRUE(holds(T, ".out.grainchunk-graph.new-"));
  result(D, {"grains.csv"});
  EXPECT_FALSE(holds(T, ".out.grainchunk-graph."));
  removeTree(T, Err);
}

TEST(OutputDir, ASecondRunIsRefusedWhileTheFirstHoldsTheLock) {
  std::string T = tempDir(), D = T + "/out", Err;
  {
    OutputDir A;
    ASSERT_TRUE(A.open(D, Err)) << Err;
    OutputDir B;
    EXPECT_FALSE(B.open(D, Err));
    EXPECT_NE(Err.find("another grainchunk-graph run (pid " +
                       std::to_string(::getpid()) + ") is writing"),
              std::string::npos)
        << Err;
    EXPECT_EQ(Err.find('\n'), std::string::npos);
  }
  OutputDir C;
  EXPECT_TRUE(C.open(D, Err)) << Err;
  removeTree(T, Err);
}

TEST(OutputDir, UserFilesTheRunWouldWriteOrReplaceRefuseIt) {
  std::string T = tempDir(), D = T + "/out", Err;
  OutputDir::Config Rec;
  Rec.Writes = {"raw", "trace.json", "grains.csv"};
  {
    OutputDir O;
    ASSERT_TRUE(O.open(D, Err, Rec)) << Err;
    ASSERT_TRUE(O.claim("raw", Err));
    ::mkdir(O.path("raw").c_str(), 0755);
    touch(O.path("raw") + "/thread-0.bin");
    ASSERT_TRUE(O.commit(Err)) << Err;
  }
  // A file of the user's inside the earlier result's raw/.
  touch(D + "/raw/important.txt");
  OutputDir A;
  EXPECT_FALSE(A.open(D, Err, Rec));
  EXPECT_NE(Err.find("holds raw/important.txt, which grainchunk-graph did "
                     "not write"),
            std::string::npos)
      << Err;
  ::unlink((D + "/raw/important.txt").c_str());
  // A symbolic link of the user's named like an output: refused when the
  // run writes that name, kept as a link when it does not.
  touch(T + "/outside", "outside");
  ASSERT_EQ(::symlink((T + "/outside").c_str(), (D + "/trace.json").c_str()),
            0);
  OutputDir B;
  EXPECT_FALSE(B.open(D, Err, Rec));
  EXPECT_NE(Err.find("holds trace.json, which grainchunk-graph did not "
                     "write and would write now"),
            std::string::npos)
      << Err;
  result(D, {"grains.csv"});
  struct stat St;
  EXPECT_EQ(::lstat((D + "/trace.json").c_str(), &St), 0);
  EXPECT_TRUE(S_ISLNK(St.st_mode));
  EXPECT_EQ(slurp(T + "/outside"), "outside");
  removeTree(T, Err);
}

TEST(OutputDir, BadPathsAreOneLineErrors) {
  std::string T = tempDir(), Err;
  touch(T + "/file");
  OutputDir A;
  EXPECT_FALSE(A.open(T + "/file", Err));
  EXPECT_NE(Err.find("exists and is not a directory"), std::string::npos);
  OutputDir B;
  EXPECT_FALSE(B.open(T + "/file/sub", Err));
  EXPECT_NE(Err.find("Not a directory"), std::string::npos) << Err;
  OutputDir C;
  EXPECT_FALSE(C.open("/proc/grainchunk-x", Err));
  EXPECT_NE(Err.find("cannot create the output directory"), std::string::npos)
      << Err;
  EXPECT_EQ(Err.find('\n'), std::string::npos);
  removeTree(T, Err);
}

TEST(OutputDir, KeepsARecordingBeingAnalysedAgain) {
  std::string T = tempDir(), D = T + "/out", Err;
  {
    OutputDir O;
    ASSERT_TRUE(O.open(D, Err)) << Err;
    ASSERT_TRUE(O.claim("raw", Err) && O.claim("grains.csv", Err));
    ::mkdir(O.path("raw").c_str(), 0755);
    touch(O.path("raw") + "/meta.txt");
    touch(O.path("grains.csv"));
    ASSERT_TRUE(O.commit(Err)) << Err;
  }
  OutputDir::Config Keep;
  Keep.Keep = {"raw"};
  result(D, {"loops.csv"}, Keep);
  EXPECT_TRUE(exists(D + "/raw/meta.txt"));
  EXPECT_FALSE(exists(D + "/grains.csv"));
  // Still claimed: the next run replaces it.
  result(D, {});
  EXPECT_FALSE(exists(D + "/raw"));
  removeTree(T, Err);
}

TEST(OutFile, FullDiskIsAnError) {
  std::string Row(1000, 'x');
  try {
    OutFile F("/dev/full");
    for (int I = 0; I < 3000; ++I)
      F << Row;
    F.close();
    FAIL() << "no error on a full disk";
  } catch (const Error &E) {
    EXPECT_NE(std::string(E.what()).find("No space left on device"),
              std::string::npos)
        << E.what();
  }
}

TEST(OutFile, DecimalsAreToCharsText) {
  // decU/decI write the digits in pieces of eight: every digit count, the
  // pieces' edges (10^8, 10^16) and the extremes, as std::to_chars has them.
  std::vector<uint64_t> Vals = {0,
                                9,
                                10,
                                99,
                                100,
                                UINT64_MAX,
                                UINT64_MAX - 1,
                                uint64_t(INT64_MAX),
                                uint64_t(INT64_MIN)};
  for (uint64_t P = 1, I = 0; I < 20; ++I, P *= 10)
    for (uint64_t D : {P - 1, P, P + 1, 2 * P - 1, 9 * P, 9 * P + 7})
      Vals.push_back(D);
  uint64_t X = 0x9E3779B97F4A7C15ull;
  for (int I = 0; I < 100000; ++I) { // xorshift, shifted to every width
    X ^= X << 13, X ^= X >> 7, X ^= X << 17;
    Vals.push_back(X >> (X & 63));
  }
  for (uint64_t V : Vals) {
    char A[24], B[24];
    std::string Want(A, std::to_chars(A, A + sizeof A, V).ptr);
    ASSERT_EQ(std::string(B, OutFile::decU(B, V)), Want) << V;
    auto S = int64_t(V);
    Want = std::string(A, std::to_chars(A, A + sizeof A, S).ptr);
    ASSERT_EQ(std::string(B, OutFile::decI(B, S)), Want) << S;
  }
}

TEST(Launch, ExitStatusIsTheShells) {
  std::string Err;
  auto Env = environWith({});
  EXPECT_EQ(runProgram({"true"}, Env, {}, Err), 0);
  EXPECT_EQ(runProgram({"sh", "-c", "exit 3"}, Env, {}, Err), 3);
  EXPECT_EQ(runProgram({"sh", "-c", "kill -SEGV $$"}, Env, {}, Err), 139);
  EXPECT_EQ(runProgram({"sh", "-c", "kill -KILL $$"}, Env, {}, Err), 137);
  EXPECT_EQ(runProgram({"sh", "-c", "test \"$GCG_X\" = 1 && test -z \"$HOME\""},
                       environWith({"GCG_X=1", "HOME"}), {}, Err),
            0);
}

TEST(Launch, BadProgramsAreOneLineErrors) {
  std::string Err, T = tempDir();
  auto Env = environWith({});
  EXPECT_EQ(runProgram({"grainchunk-no-such-program"}, Env, {}, Err), -1);
  EXPECT_NE(Err.find("command not found"), std::string::npos) << Err;
  touch(T + "/data.txt");
  EXPECT_EQ(runProgram({T + "/data.txt"}, Env, {}, Err), -1);
  EXPECT_NE(Err.find("Permission denied"), std::string::npos) << Err;
  EXPECT_EQ(runProgram({T}, Env, {}, Err), -1);
  EXPECT_NE(Err.find("Is a directory"), std::string::npos) << Err;
  // A path with spaces runs as it is.
  std::string Sp = T + "/with space";
  ::mkdir(Sp.c_str(), 0755);
  touch(Sp + "/prog", "#!/bin/sh\nexit 5\n");
  ::chmod((Sp + "/prog").c_str(), 0755);
  EXPECT_EQ(runProgram({Sp + "/prog"}, Env, {}, Err), 5) << Err;
  removeTree(T, Err);
}

TEST(Launch, RankFromTheLaunchersEnvironment) {
  for (const char *V :
       {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK",
        "PMI_SIZE", "SLURM_PROCID", "SLURM_NTASKS", "OMPI_MCA_ess_base_jobid",
        "PMIX_NAMESPACE", "SLURM_JOB_ID"})
    ::unsetenv(V);
  EXPECT_EQ(rankFromEnv().Rank, -1);
  ::setenv("PMI_RANK", "3", 1);
  ::setenv("PMI_SIZE", "4", 1);
  RankInfo R = rankFromEnv();
  EXPECT_EQ(R.Rank, 3);
  EXPECT_EQ(R.Size, 4);
  EXPECT_EQ(R.Source, "PMI_RANK");
  ::setenv("OMPI_COMM_WORLD_RANK", "1", 1);
  ::setenv("OMPI_COMM_WORLD_SIZE", "2", 1);
  ::setenv("OMPI_MCA_ess_base_jobid", "77", 1);
  R = rankFromEnv();
  EXPECT_EQ(R.Rank, 1);
  EXPECT_EQ(R.Size, 2);
  EXPECT_EQ(R.Job, "ompi:77");
  ::setenv("OMPI_COMM_WORLD_RANK", "x", 1);
  EXPECT_EQ(rankFromEnv().Source, "PMI_RANK");
}

TEST(Launch, RanksMeetInTheRawDirectory) {
  std::string T = tempDir(), Err;
  RankInfo R0{0, 2, "T", "j1"}, R1{1, 2, "T", "j1"}, Old{1, 2, "T", "j0"};
  EXPECT_FALSE(mpiJobReady(R1, T, 1, Err)); // rank 0 has not marked it
  EXPECT_NE(Err.find("rank 0 did not prepare"), std::string::npos);
  ASSERT_TRUE(mpiJobReady(R0, T, 1, Err)) << Err;
  EXPECT_TRUE(mpiJobReady(R1, T, 1, Err)) << Err;
  EXPECT_FALSE(mpiJobReady(Old, T, 1, Err)); // another job's mark
  std::vector<int> Missing;
  ASSERT_TRUE(mpiRankDone(R0, T, 0, Err));
  mpiWaitRanks(R0, T, 0, Missing);
  EXPECT_EQ(Missing, std::vector<int>{1});
  ASSERT_TRUE(mpiRankDone(R1, T, 3, Err));
  mpiWaitRanks(R0, T, 0, Missing);
  EXPECT_TRUE(Missing.empty());
  removeTree(T, Err);
}

TEST(OutputDir, AcceptsADirectoryHoldingOnlyTheRecordingAnalysed) {
  std::string T = tempDir(), Err;
  ::mkdir((T + "/raw").c_str(), 0755);
  touch(T + "/raw/meta.txt");
  OutputDir::Config Keep;
  Keep.Keep = {"raw"};
  result(T, {"grains.csv"}, Keep);
  // The user's recording was not claimed: the next run keeps it.
  result(T, {});
  EXPECT_TRUE(exists(T + "/raw/meta.txt"));
  EXPECT_FALSE(exists(T + "/grains.csv"));
  removeTree(T, Err);
}

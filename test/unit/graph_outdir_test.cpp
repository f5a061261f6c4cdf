// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// grainchunk-graph's output directory (tools/graph/OutputDir.*) and program
// launch (tools/graph/Launch.*): the user's data is never removed, an earlier
// result is replaced whole, bad paths and programs are one-line errors, exit
// statuses are a shell's.
#include "Launch.h"
#include "OutputDir.h"
#include "Writers.h"

#include <fstream>
#include <gtest/gtest.h>
#include <string>
#include <sys/stat.h>
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

TEST(OutputDir, CreatesMissingDirectoriesAndClaimsNames) {
  std::string T = tempDir(), D = T + "/a/b/out";
  OutputDir O;
  std::string Err;
  ASSERT_TRUE(O.open(D, Err)) << Err;
  ASSERT_TRUE(O.claim("grains.csv", Err)) << Err;
  touch(O.path("grains.csv"));
  EXPECT_TRUE(OutputDir::isResult(D));
  std::string Err2;
  EXPECT_FALSE(O.claim("../escape", Err2));
  EXPECT_FALSE(Err2.empty());
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
  std::string T = tempDir(), Err;
  {
    OutputDir O;
    ASSERT_TRUE(O.open(T, Err)) << Err;
    for (const char *N : {"grains.csv", "grains.graphml", "trace.json"}) {
      ASSERT_TRUE(O.claim(N, Err));
      touch(O.path(N));
    }
    ASSERT_TRUE(O.claim("raw", Err));
    ::mkdir(O.path("raw").c_str(), 0755);
    touch(O.path("raw") + "/thread-0.bin");
  }
  touch(T + "/mine.txt"); // the user's, added after the run
  OutputDir O;
  ASSERT_TRUE(O.open(T, Err)) << Err;
  EXPECT_FALSE(exists(T + "/grains.graphml"));
  EXPECT_FALSE(exists(T + "/trace.json"));
  EXPECT_FALSE(exists(T + "/raw"));
  EXPECT_TRUE(exists(T + "/mine.txt"));
  EXPECT_EQ(O.replaced().size(), 4u);
  // A manifest naming a path outside the directory removes nothing there.
  std::string Outside = tempDir();
  touch(Outside + "/keep");
  {
    std::ofstream M(T + "/" + OutputDir::manifestName(), std::ios::app);
    M << "../" << Outside.substr(5) << "/keep\n" << Outside << "\n";
  }
  OutputDir O2;
  ASSERT_TRUE(O2.open(T, Err)) << Err;
  EXPECT_TRUE(exists(Outside + "/keep"));
  removeTree(T, Err);
  removeTree(Outside, Err);
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
  std::string T = tempDir(), Err;
  {
    OutputDir O;
    ASSERT_TRUE(O.open(T, Err)) << Err;
    ASSERT_TRUE(O.claim("raw", Err) && O.claim("grains.csv", Err));
    ::mkdir(O.path("raw").c_str(), 0755);
    touch(O.path("raw") + "/meta.txt");
    touch(O.path("grains.csv"));
  }
  OutputDir O;
  ASSERT_TRUE(O.open(T, Err, {"raw"})) << Err;
  EXPECT_TRUE(exists(T + "/raw/meta.txt"));
  EXPECT_FALSE(exists(T + "/grains.csv"));
  // Still claimed: the next run replaces it.
  OutputDir O2;
  ASSERT_TRUE(O2.open(T, Err)) << Err;
  EXPECT_FALSE(exists(T + "/raw"));
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
  {
    OutputDir O;
    ASSERT_TRUE(O.open(T, Err, {"raw"})) << Err;
    ASSERT_TRUE(O.claim("grains.csv", Err));
    touch(O.path("grains.csv"));
  }
  // The user's recording was not claimed: the next run keeps it.
  OutputDir O;
  ASSERT_TRUE(O.open(T, Err)) << Err;
  EXPECT_TRUE(exists(T + "/raw/meta.txt"));
  EXPECT_FALSE(exists(T + "/grains.csv"));
  removeTree(T, Err);
}

//===- Launch.h - grainchunk-graph runs the program -------------*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// Running the program under the recording tool: finding it as a shell
// would (an unknown or non-executable program is one line, before anything
// is written), running it with its own stdin, stdout and stderr, and its
// exit status as a shell reports it (128 + N when signal N ended it).
//
// MPI: when the command itself is one rank of an MPI job (mpirun -np N
// grainchunk-graph -o D -- ./app), every rank records into D/raw, each
// program process into its own directory, and rank 0 writes the one
// analysis of all ranks once every rank has said its program ended
// (D/raw/.rank-<r>.done). Rank 0 prepares D first (D/raw/.job names the
// job); the other ranks wait for it. D must be on a file system every node
// sees. When rank 0 can merge every output asked for from the ranks' parts
// (Command.cpp), each rank records into its own D/raw/.rank-<r>.rec, marks
// .rank-<r>.ended when its program ends, analyses its own processes into
// D/raw/.rank-<r>.part and marks .rank-<r>.done ("ok" or "failed"); for
// trace.json the ranks first tell each other their grains and first
// instant (.rank-<r>.head).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_LAUNCH_H
#define GRAINCHUNK_GRAPH_LAUNCH_H

#include <string>
#include <vector>

namespace gcg {

/// The MPI rank this process is, from the launcher's environment.
struct RankInfo {
  int Rank = -1; ///< -1: not an MPI rank (NA)
  int Size = -1;
  std::string Source; ///< the variable Rank came from
  std::string Job;    ///< the job's id, when the launcher gives one
};
RankInfo rankFromEnv();

/// Finds Prog as execvp would (PATH when it has no '/'): its path, or false
/// and Err ("PROG: command not found", "PROG: Permission denied"...).
bool findProgram(const std::string &Prog, std::string &Path, std::string &Err);

/// Where the program's standard streams go: -1 keeps the command's own.
struct Redirect {
  int In = -1, Out = -1, Err = -1;
};

/// Runs Argv (Argv[0] found with findProgram) with Env and returns its exit
/// status as a shell gives it (128 + N for signal N); -1 and Err when it
/// could not be started. While it runs, the command passes SIGTERM and
/// SIGHUP on to it, and SIGINT and SIGQUIT when they were sent to the
/// command alone (from the terminal the program gets them itself; the
/// recording up to there is analysed). The program runs with SIGXFSZ's
/// default action (the command ignores it).
///
/// With WaitTool (the recording tool's real path), the command becomes the
/// reaper of the program's orphaned descendants and, once the program's
/// process has ended, waits for its live descendants that have the tool
/// loaded (a daemon: they record whenever they run OpenMP), saying so in
/// one line and passing the signals above on to them.
int runProgram(const std::vector<std::string> &Argv,
               const std::vector<std::string> &Env, const Redirect &R,
               std::string &Err, const std::string &WaitTool = "");

/// The environment of this process as NAME=VALUE strings, with Set applied
/// (NAME=VALUE replaces or adds; NAME alone removes).
std::vector<std::string> environWith(const std::vector<std::string> &Set);

/// MPI: rank 0 marks RawDir as prepared for this job; other ranks wait
/// (up to TimeoutSec) until it is. False and Err on timeout.
bool mpiJobReady(const RankInfo &R, const std::string &RawDir, int TimeoutSec,
                 std::string &Err);
/// MPI: this rank's program ended with Status.
bool mpiRankDone(const RankInfo &R, const std::string &RawDir, int Status,
                 std::string &Err);
/// MPI (rank 0): waits up to TimeoutSec for every rank's mark; the ranks
/// that did not mark, in Missing.
void mpiWaitRanks(const RankInfo &R, const std::string &RawDir, int TimeoutSec,
                  std::vector<int> &Missing);

/// MPI, a job whose ranks each analyse their own processes: rank R's mark
/// Name (RawDir/.rank-<r>.<name>) holding Text, written whole.
bool mpiRankMark(const RankInfo &R, const std::string &RawDir,
                 const std::string &Name, const std::string &Text,
                 std::string &Err);
/// Rank K's mark Name: its text, or false when it is not there.
bool mpiReadMark(int K, const std::string &RawDir, const std::string &Name,
                 std::string &Text);
/// Waits (0.05 s between looks) until each rank in Ranks has mark Name,
/// or TimeoutSec (negative: no limit) have passed; the ranks that have
/// none, in Missing.
void mpiWaitMarks(const std::vector<int> &Ranks, const std::string &RawDir,
                  const std::string &Name, int TimeoutSec,
                  std::vector<int> &Missing);

} // namespace gcg

#endif

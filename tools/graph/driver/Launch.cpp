//===- Launch.cpp - grainchunk-graph runs the program ---------------------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See Launch.h.
//
//===----------------------------------------------------------------------===//
#include "Launch.h"

#include <cerrno>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <time.h>
#include <unistd.h>

extern char **environ;

namespace gcg {

namespace {
bool intFromEnv(const char *Name, int &V) {
  const char *S = std::getenv(Name);
  if (!S || !*S)
    return false;
  char *End;
  long L = std::strtol(S, &End, 10);
  if (*End || L < 0 || L > 1 << 30)
    return false;
  V = static_cast<int>(L);
  return true;
}

std::string envOr(const char *Name) {
  const char *S = std::getenv(Name);
  return S ? S : "";
}

volatile sig_atomic_t ChildPid = 0, Pending = 0;
/// SIGTERM and SIGHUP go on to the program, and so do SIGINT and SIGQUIT
/// sent to the command alone (kill); from the terminal (SI_KERNEL) the
/// program had them itself. With no program process (waiting for its
/// descendants, which may be in a session of their own), any of them is
/// kept for the waiting loop to pass on.
void passOn(int Sig, siginfo_t *Info, void *) {
  if (ChildPid <= 0) {
    Pending = Sig;
    return;
  }
  if ((Sig == SIGINT || Sig == SIGQUIT) && Info && Info->si_code == SI_KERNEL)
    return;
  ::kill(ChildPid, Sig);
}

const int Forwarded[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};

/// Reads /proc/<Pid>/stat: its parent and whether it is a zombie.
bool procStat(int Pid, int &Parent, bool &Zombie) {
  std::ifstream In("/proc/" + std::to_string(Pid) + "/stat");
  std::string Text;
  if (!std::getline(In, Text))
    return false;
  size_t P = Text.rfind(')');
  if (P == std::string::npos || P + 4 >= Text.size())
    return false;
  std::istringstream SS(Text.substr(P + 2));
  char State = 0;
  if (!(SS >> State >> Parent))
    return false;
  Zombie = State == 'Z' || State == 'X';
  return true;
}

/// Whether Pid is a live descendant of this process.
bool liveDescendant(int Pid) {
  int Me = ::getpid(), P = Pid;
  for (int Depth = 0; Depth < 256 && P > 1; ++Depth) {
    int Parent;
    bool Zombie;
    if (!procStat(P, Parent, Zombie) || (P == Pid && Zombie))
      return false;
    if (Parent == Me)
      return true;
    P = Parent;
  }
  return false;
}

/// The live descendants of this process that have the recording tool
/// (its path, Tool) loaded: they record when they run OpenMP, now or later.
std::vector<int> recordingDescendants(const std::string &Tool) {
  std::vector<int> Pids;
  DIR *D = ::opendir("/proc");
  if (!D)
    return Pids;
  int Me = ::getpid();
  while (struct dirent *E = ::readdir(D)) {
    char *End;
    long Pid = std::strtol(E->d_name, &End, 10);
    if (*End || Pid <= 1 || Pid > INT_MAX || Pid == Me ||
        !liveDescendant(int(Pid)))
      continue;
    std::ifstream Maps("/proc/" + std::to_string(Pid) + "/maps");
    std::string Line;
    bool Loaded = false;
    while (!Loaded && std::getline(Maps, Line))
      Loaded = Line.size() >= Tool.size() &&
               Line.compare(Line.size() - Tool.size(), Tool.size(), Tool) == 0;
    if (Loaded)
      Pids.push_back(int(Pid));
  }
  ::closedir(D);
  return Pids;
}

/// After the program's process ended: reaps the descendants that ended,
/// and waits for those that have the recording tool Tool loaded (a
/// daemon), passing on the signals the command gets.
void waitRecorders(const std::string &Tool) {
  bool Said = false;
  for (;;) {
    int St;
    while (::waitpid(-1, &St, WNOHANG) > 0)
      ;
    std::vector<int> Pids = recordingDescendants(Tool);
    if (Pids.empty())
      return;
    if (!Said) {
      std::string List;
      for (int P : Pids)
        List += (List.empty() ? "" : ", ") + std::to_string(P);
      std::cerr << "grainchunk-graph: the program exited; waiting for "
                << Pids.size() << " of its processes still recording (pid "
                << List << ")" << std::endl;
      Said = true;
    }
    if (int Sig = Pending) {
      Pending = 0;
      for (int P : Pids)
        ::kill(P, Sig);
    }
    struct timespec Ts = {0, 20 * 1000 * 1000};
    ::nanosleep(&Ts, nullptr);
  }
}

double nowSec() {
  struct timespec Ts;
  clock_gettime(CLOCK_REALTIME, &Ts);
  return Ts.tv_sec + Ts.tv_nsec * 1e-9;
}
} // namespace

RankInfo rankFromEnv() {
  RankInfo R;
  static const struct {
    const char *Rank, *Size;
  } Vars[] = {{"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
              {"PMIX_RANK", "PMIX_SIZE"},
              {"PMI_RANK", "PMI_SIZE"},
              {"SLURM_PROCID", "SLURM_NTASKS"}};
  for (const auto &V : Vars)
    if (intFromEnv(V.Rank, R.Rank)) {
      R.Source = V.Rank;
      if (!intFromEnv(V.Size, R.Size))
        intFromEnv("OMPI_COMM_WORLD_SIZE", R.Size);
      break;
    }
  if (R.Rank < 0)
    return R;
  if (!envOr("OMPI_MCA_ess_base_jobid").empty())
    R.Job = "ompi:" + envOr("OMPI_MCA_ess_base_jobid");
  else if (!envOr("PMIX_NAMESPACE").empty())
    R.Job = "pmix:" + envOr("PMIX_NAMESPACE");
  else if (!envOr("SLURM_JOB_ID").empty())
    R.Job = "slurm:" + envOr("SLURM_JOB_ID") + "." + envOr("SLURM_STEP_ID");
  return R;
}

bool findProgram(const std::string &Prog, std::string &Path, std::string &Err) {
  auto Check = [&](const std::string &P, int &E) {
    struct stat St;
    if (::stat(P.c_str(), &St) != 0) {
      E = errno;
      return false;
    }
    if (S_ISDIR(St.st_mode)) {
      E = EISDIR;
      return false;
    }
    if (::access(P.c_str(), X_OK) != 0) {
      E = errno;
      return false;
    }
    return true;
  };
  if (Prog.empty()) {
    Err = "no program given (grainchunk-graph -o DIR -- PROGRAM ARGS...)";
    return false;
  }
  int E = ENOENT;
  if (Prog.find('/') != std::string::npos) {
    if (Check(Prog, E)) {
      Path = Prog;
      return true;
    }
    Err = "cannot run " + Prog + ": " + std::strerror(E);
    return false;
  }
  std::string PathVar = envOr("PATH");
  if (PathVar.empty())
    PathVar = "/usr/local/bin:/usr/bin:/bin";
  int FirstErr = 0;
  std::stringstream SS(PathVar);
  std::string D;
  while (std::getline(SS, D, ':')) {
    std::string P = (D.empty() ? "." : D) + "/" + Prog;
    if (Check(P, E)) {
      Path = P;
      return true;
    }
    if (E != ENOENT && E != ENOTDIR && !FirstErr)
      FirstErr = E;
  }
  Err = FirstErr ? "cannot run " + Prog + ": " + std::strerror(FirstErr)
                 : Prog + ": command not found (not a file, and not in PATH)";
  return false;
}

std::vector<std::string> environWith(const std::vector<std::string> &Set) {
  std::vector<std::string> Env;
  for (char **E = environ; *E; ++E)
    Env.emplace_back(*E);
  for (const std::string &S : Set) {
    size_t Eq = S.find('=');
    std::string Name = S.substr(0, Eq);
    for (size_t I = 0; I < Env.size();)
      if (Env[I].compare(0, Name.size() + 1, Name + "=") == 0)
        Env.erase(Env.begin() + static_cast<long>(I));
      else
        ++I;
    if (Eq != std::string::npos)
      Env.push_back(S);
  }
  return Env;
}

int runProgram(const std::vector<std::string> &Argv,
               const std::vector<std::string> &Env, const Redirect &R,
               std::string &Err, const std::string &WaitTool) {
  std::string Path;
  if (Argv.empty() || !findProgram(Argv[0], Path, Err))
    return -1;
  std::vector<char *> A, E;
  for (const std::string &S : Argv)
    A.push_back(const_cast<char *>(S.c_str()));
  A.push_back(nullptr);
  for (const std::string &S : Env)
    E.push_back(const_cast<char *>(S.c_str()));
  E.push_back(nullptr);
  // A pipe closed on exec tells the parent whether exec worked.
  int P[2];
  if (::pipe2(P, O_CLOEXEC) != 0) {
    Err = std::string("cannot run ") + Argv[0] + ": " + std::strerror(errno);
    return -1;
  }
  // Orphaned descendants (a daemon) become this process's children, so
  // that the ones still recording can be waited for.
  if (!WaitTool.empty())
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  struct sigaction Pass = {}, Old[4];
  Pass.sa_sigaction = passOn;
  Pass.sa_flags = SA_SIGINFO;
  sigemptyset(&Pass.sa_mask);
  Pending = 0;
  for (int I = 0; I < 4; ++I)
    ::sigaction(Forwarded[I], &Pass, &Old[I]);
  pid_t Pid = ::fork();
  if (Pid == 0) {
    for (int I = 0; I < 4; ++I)
      ::sigaction(Forwarded[I], &Old[I], nullptr);
    ::signal(SIGXFSZ, SIG_DFL); // the command ignores it, not the program
    if (R.In >= 0)
      ::dup2(R.In, 0);
    if (R.Out >= 0)
      ::dup2(R.Out, 1);
    if (R.Err >= 0)
      ::dup2(R.Err, 2);
    ::execve(Path.c_str(), A.data(), E.data());
    int Errno = errno;
    (void)!::write(P[1], &Errno, sizeof Errno);
    ::_exit(127);
  }
  ::close(P[1]);
  if (Pid < 0) {
    Err = std::string("cannot run ") + Argv[0] + ": " + std::strerror(errno);
    ::close(P[0]);
    for (int I = 0; I < 4; ++I)
      ::sigaction(Forwarded[I], &Old[I], nullptr);
    return -1;
  }
  ChildPid = Pid;
  if (int Sig = Pending) {
    Pending = 0;
    ::kill(Pid, Sig);
  }
  int ExecErr = 0;
  ssize_t Got;
  while ((Got = ::read(P[0], &ExecErr, sizeof ExecErr)) < 0 && errno == EINTR)
    ;
  ::close(P[0]);
  int Status = 0;
  while (::waitpid(Pid, &Status, 0) < 0 && errno == EINTR)
    ;
  ChildPid = 0;
  if (!WaitTool.empty() && Got != static_cast<ssize_t>(sizeof ExecErr))
    waitRecorders(WaitTool);
  for (int I = 0; I < 4; ++I)
    ::sigaction(Forwarded[I], &Old[I], nullptr);
  if (Got == static_cast<ssize_t>(sizeof ExecErr)) {
    Err = "cannot run " + Argv[0] + ": " + std::strerror(ExecErr);
    return -1;
  }
  if (WIFSIGNALED(Status))
    return 128 + WTERMSIG(Status);
  return WEXITSTATUS(Status);
}

namespace {
/// Writes a mark whole (a temporary file renamed): a reader sees all of it
/// or nothing.
bool writeMark(const std::string &Mark, const std::string &Text,
               std::string &Err) {
  std::string Tmp = Mark + ".tmp" + std::to_string(::getpid());
  {
    std::ofstream O(Tmp);
    O << Text;
    if (!O.flush()) {
      Err = "cannot write " + Mark + ": " + std::strerror(errno);
      return false;
    }
  }
  if (::rename(Tmp.c_str(), Mark.c_str()) != 0) {
    Err = "cannot write " + Mark + ": " + std::strerror(errno);
    return false;
  }
  return true;
}

std::string jobLine(const RankInfo &R) {
  return "job " + (R.Job.empty() ? std::string("-") : R.Job) + " size " +
         std::to_string(R.Size);
}
} // namespace

bool mpiJobReady(const RankInfo &R, const std::string &RawDir, int TimeoutSec,
                 std::string &Err) {
  std::string Mark = RawDir + "/.job";
  if (R.Rank == 0)
    return writeMark(Mark,
                     jobLine(R) + "\n" +
                         std::to_string(static_cast<long long>(nowSec())) +
                         "\n",
                     Err);
  // Another rank: wait for rank 0's mark of this job. Without a job id, a
  // mark written more than a minute before this rank started is an earlier
  // run's.
  double Start = nowSec();
  for (;;) {
    std::ifstream In(Mark);
    std::string Line;
    long long When = 0;
    if (In && std::getline(In, Line) && In >> When && Line == jobLine(R) &&
        (!R.Job.empty() || When >= Start - 60))
      return true;
    if (nowSec() - Start > TimeoutSec) {
      Err = "rank " + std::to_string(R.Rank) + ": rank 0 did not prepare " +
            RawDir + " within " + std::to_string(TimeoutSec) +
            " s (is -o on a file system all ranks see?)";
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool mpiRankMark(const RankInfo &R, const std::string &RawDir,
                 const std::string &Name, const std::string &Text,
                 std::string &Err) {
  return writeMark(RawDir + "/.rank-" + std::to_string(R.Rank) + "." + Name,
                   Text, Err);
}

bool mpiReadMark(int K, const std::string &RawDir, const std::string &Name,
                 std::string &Text) {
  std::ifstream In(RawDir + "/.rank-" + std::to_string(K) + "." + Name);
  if (!In)
    return false;
  std::getline(In, Text);
  return true;
}

void mpiWaitMarks(const std::vector<int> &Ranks, const std::string &RawDir,
                  const std::string &Name, int TimeoutSec,
                  std::vector<int> &Missing) {
  double Start = nowSec();
  for (;;) {
    Missing.clear();
    for (int K : Ranks) {
      std::string Mark = RawDir + "/.rank-" + std::to_string(K) + "." + Name;
      if (::access(Mark.c_str(), F_OK) != 0)
        Missing.push_back(K);
    }
    if (Missing.empty() || (TimeoutSec >= 0 && nowSec() - Start > TimeoutSec))
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

bool mpiRankDone(const RankInfo &R, const std::string &RawDir, int Status,
                 std::string &Err) {
  return mpiRankMark(R, RawDir, "done", std::to_string(Status) + "\n", Err);
}

void mpiWaitRanks(const RankInfo &R, const std::string &RawDir, int TimeoutSec,
                  std::vector<int> &Missing) {
  std::vector<int> All;
  for (int K = 0; K < R.Size; ++K)
    All.push_back(K);
  mpiWaitMarks(All, RawDir, "done", TimeoutSec, Missing);
}

} // namespace gcg

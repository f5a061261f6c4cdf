// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Command.cpp - the steps of the grainchunk-graph command ------------===//
//
// Option parsing (argparse's interface and --help text, as the Python
// command had them), running the program under the recording tool, and the
// order of the steps.
//
//===----------------------------------------------------------------------===//
#include "Command.h"
#include "Writers.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <ftw.h>
#include <iostream>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

namespace gcg {

const char *const Version = "0.1";

const char *const HelpText =
    "usage: grainchunk-graph [-o DIR] [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Run an OpenMP program under grainchunk's recording tool and write grains.csv,\n"
    "grains.graphml, trace.json, timeline.svg and a per-loop summary.\n"
    "\n"
    "positional arguments:\n"
    "  cmd\n"
    "\n"
    "options:\n"
    "  -h, --help            show this help message and exit\n"
    "  --version             show program's version number and exit\n"
    "  -o OUT, --out OUT     output directory\n"
    "  --from-raw DIR        analyse a recording instead of running (a process\n"
    "                        directory or a directory of them; may be repeated)\n"
    "  --no-ext              record with the standard OMPT events only (no\n"
    "                        extension events)\n"
    "  --keep-raw            keep the raw recording (OUT/raw)\n"
    "  --tool TOOL           the recording tool library (default: found next to\n"
    "                        this command)\n"
    "  --outputs LIST        which files to write, comma-separated, from\n"
    "                        csv,graphml,trace,svg (default: all; the summary and\n"
    "                        run.json are always written)\n"
    "  --baseline            run the program once more on one thread first\n"
    "                        (OMP_THREAD_LIMIT=1; its output goes to\n"
    "                        OUT/baseline.out) for work_deviation\n"
    "  --baseline-from-raw DIR\n"
    "                        take work_deviation's one-thread run from a recording\n";

bool parseOptions(int argc, char **argv, Options &o) {
  std::string outputs = "csv,graphml,trace,svg";
  int i = 1;
  auto value = [&](const std::string &a, const std::string &name,
                   size_t eq) -> std::string {
    if (eq != std::string::npos)
      return a.substr(eq + 1);
    if (i + 1 >= argc)
      throw Error("argument " + name + ": expected one argument");
    return argv[++i];
  };
  for (; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--") {
      i++;
      break;
    }
    if (a.empty() || a[0] != '-' || a == "-")
      break; // the program (argparse's REMAINDER)
    size_t eq = a.compare(0, 2, "--") == 0 ? a.find('=') : std::string::npos;
    std::string name = a.substr(0, eq);
    if (name == "-h" || name == "--help") {
      std::cout << HelpText;
      return false;
    } else if (name == "--version") {
      std::cout << "grainchunk-graph " << Version << "\n";
      return false;
    } else if (name == "-o" || name == "--out") {
      o.out = value(a, "-o/--out", eq);
    } else if (name.compare(0, 2, "-o") == 0 && name.size() > 2 && name[1] == 'o') {
      o.out = name.substr(2);
    } else if (name == "--from-raw") {
      o.fromRaw.push_back(value(a, "--from-raw", eq));
    } else if (name == "--no-ext") {
      o.noExt = true;
    } else if (name == "--keep-raw") {
      o.keepRaw = true;
    } else if (name == "--tool") {
      o.tool = value(a, "--tool", eq);
    } else if (name == "--outputs") {
      outputs = value(a, "--outputs", eq);
    } else if (name == "--baseline") {
      o.baseline = true;
    } else if (name == "--baseline-from-raw") {
      o.baselineFromRaw = value(a, "--baseline-from-raw", eq);
    } else {
      throw Error("unrecognized argument " + a + " (see grainchunk-graph --help)");
    }
  }
  for (; i < argc; i++)
    o.cmd.push_back(argv[i]);
  std::string bad, all = "csv,graphml,trace,svg";
  size_t b = 0;
  while (b <= outputs.size()) {
    size_t e = outputs.find(',', b);
    if (e == std::string::npos)
      e = outputs.size();
    std::string w = outputs.substr(b, e - b);
    if (!w.empty()) {
      if (std::find(OutputNames.begin(), OutputNames.end(), w) == OutputNames.end())
        bad += (bad.empty() ? "" : ",") + w;
      else
        o.outputs.push_back(w);
    }
    b = e + 1;
  }
  if (!bad.empty())
    throw Error("--outputs: unknown " + bad + " (choose from " + all + ")");
  if (o.baseline && !o.fromRaw.empty())
    throw Error("--baseline runs the program: with --from-raw, use "
                "--baseline-from-raw DIR");
  if (o.fromRaw.empty() && o.cmd.empty())
    throw Error("no program given (grainchunk-graph -o DIR -- PROGRAM ARGS...)");
  return true;
}

static bool exists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

static std::string realPath(const std::string &p) {
  char b[PATH_MAX];
  return realpath(p.c_str(), b) ? std::string(b) : p;
}

std::string toolPath() {
  std::string here = realPath("/proc/self/exe");
  here = here.substr(0, here.rfind('/'));
  for (const std::string &c : {here + "/libgrainchunk-record.so",
                               here + "/../lib/libgrainchunk-record.so"})
    if (exists(c))
      return realPath(c);
  throw Error("libgrainchunk-record.so not found next to " + here + " or in ../lib");
}

void removeTree(const std::string &path) {
  nftw(
      path.c_str(),
      [](const char *p, const struct stat *, int, struct FTW *) {
        std::remove(p);
        return 0;
      },
      16, FTW_DEPTH | FTW_PHYS);
}

static void makeDirs(const std::string &path) {
  std::string cur;
  size_t b = 0;
  while (b <= path.size()) {
    size_t e = path.find('/', b);
    if (e == std::string::npos)
      e = path.size();
    cur = path.substr(0, e);
    if (!cur.empty() && mkdir(cur.c_str(), 0777) != 0 && errno != EEXIST)
      throw Error("cannot create " + cur + ": " + std::strerror(errno));
    b = e + 1;
  }
  struct stat st;
  if (stat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    throw Error("cannot use " + path + " as the output directory: not a directory");
}

int recordProgram(const Options &o, const std::string &raw,
                  const std::vector<std::pair<std::string, std::string>> &extra,
                  int stdinFd, int stdoutFd, int stderrFd) {
  removeTree(raw);
  makeDirs(raw);
  std::vector<std::pair<std::string, std::string>> set = extra;
  set.push_back({"OMP_TOOL_LIBRARIES", o.tool.empty() ? toolPath() : o.tool});
  set.push_back({"GRAINCHUNK_RECORD_DIR", realPath(raw)});
  if (o.noExt)
    set.push_back({"GRAINCHUNK_RECORD_NO_EXT", "1"});
  std::vector<std::string> env;
  for (char **e = environ; *e; e++) {
    std::string kv = *e, k = kv.substr(0, kv.find('='));
    if (k == "OMP_TOOL")
      continue;
    bool replaced = false;
    for (auto &s : set)
      replaced |= s.first == k;
    if (!replaced)
      env.push_back(kv);
  }
  for (auto &s : set)
    env.push_back(s.first + "=" + s.second);
  std::vector<char *> envp, args;
  for (std::string &s : env)
    envp.push_back(&s[0]);
  envp.push_back(nullptr);
  for (const std::string &s : o.cmd)
    args.push_back(const_cast<char *>(s.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (stdinFd >= 0)
    posix_spawn_file_actions_adddup2(&fa, stdinFd, 0);
  if (stdoutFd >= 0)
    posix_spawn_file_actions_adddup2(&fa, stdoutFd, 1);
  if (stderrFd >= 0)
    posix_spawn_file_actions_adddup2(&fa, stderrFd, 2);
  pid_t pid;
  int rc = posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw Error("cannot run " + o.cmd[0] + ": " + std::strerror(rc));
  int st = 0;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR)
      throw Error(std::string("waiting for the program: ") + std::strerror(errno));
  if (WIFSIGNALED(st))
    return 128 + WTERMSIG(st);
  return WEXITSTATUS(st);
}

void writeOutputs(Run &run, const Options &o) {
  for (const std::string &w : o.outputs) {
    std::string path = o.out + "/" + outputFile(w);
    if (w == "csv")
      writeCsv(run, path);
    else if (w == "graphml")
      writeGraphml(run, path);
    else if (w == "trace")
      writeTrace(run, path);
    else if (w == "svg")
      writeSvg(run, path);
  }
}

void writeSummary(Run &run, const Options &o) {
  std::string text = summary(run);
  {
    OutFile f(o.out + "/summary.txt");
    f << text;
    f.close();
  }
  std::vector<std::string> files;
  for (const std::string &w : o.outputs)
    files.push_back(outputFile(w));
  files.push_back("summary.txt");
  writeRunJson(run, o.out + "/run.json", files, Version);
  std::cerr << text << std::flush;
}

int runCommand(const Options &o) {
  makeDirs(o.out);
  if (o.fromRaw.empty() && std::getenv("OMP_TOOL_LIBRARIES") &&
      *std::getenv("OMP_TOOL_LIBRARIES"))
    std::cerr << "grainchunk-graph: OMP_TOOL_LIBRARIES was set; recording replaces it\n";
  std::string baseRaw = o.baselineFromRaw;
  if (o.baseline) {
    // One thread everywhere, num_threads clauses included: the thread limit
    // caps every team. The program's input is not read twice.
    baseRaw = o.out + "/raw-baseline";
    std::string bo = o.out + "/baseline.out";
    std::cerr << "grainchunk-graph: baseline run on one thread (OMP_THREAD_LIMIT=1), "
                 "output in "
              << bo << std::endl;
    int fd = open(bo.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
      throw Error("cannot write " + bo + ": " + std::strerror(errno));
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int st;
    try {
      st = recordProgram(o, baseRaw, {{"OMP_NUM_THREADS", "1"}, {"OMP_THREAD_LIMIT", "1"}},
                         nul, fd, fd);
    } catch (...) {
      close(fd);
      close(nul);
      throw;
    }
    close(fd);
    close(nul);
    if (st != 0)
      std::cerr << "grainchunk-graph: the baseline run exited with " << st << "\n";
  }
  int status = 0;
  std::vector<std::string> raws = o.fromRaw;
  std::string raw = o.out + "/raw";
  if (raws.empty()) {
    status = recordProgram(o, raw, {});
    raws.push_back(raw);
  }
  std::vector<std::string> baseRaws;
  if (!baseRaw.empty())
    baseRaws.push_back(baseRaw);
  std::unique_ptr<Run> run = analyseRun(raws, baseRaws);
  writeOutputs(*run, o);
  writeSummary(*run, o);
  if (o.fromRaw.empty() && !o.keepRaw) {
    removeTree(raw);
    if (o.baseline)
      removeTree(baseRaw);
  }
  return status;
}

} // namespace gcg

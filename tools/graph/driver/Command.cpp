// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Command.cpp - the steps of the grainchunk-graph command ------------===//
//
// Option parsing (an argparse-style interface and --help text), running
// the program under the recording tool, and the order of the steps.
//
//===----------------------------------------------------------------------===//
#include "Command.h"
#include "Digest.h"
#include "Launch.h"
#include "OutputDir.h"
#include "Palette.h"
#include "Parts.h"
#include "ProblemViews.h"
#include "ReportWriter.h"
#include "Writers.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gcg {

const char *const Version = "0.1";

const char *const HelpText =
    "usage: grainchunk-graph [-o DIR] [options] -- PROGRAM [ARGS...]\n"
    "\n"
    "Run an OpenMP program under grainchunk's recording tool and write "
    "grains.csv,\n"
    "loops.csv, grains.graphml, trace.json, trace.otf2, timeline.svg,\n"
    "report.html (the page to open first) and a per-loop summary.\n"
    "\n"
    "positional arguments:\n"
    "  cmd\n"
    "\n"
    "options:\n"
    "  -h, --help            show this help message and exit\n"
    "  --version             show program's version number and exit\n"
    "  -o OUT, --out OUT     output directory\n"
    "  --from-raw DIR        analyse a recording instead of running (a "
    "process\n"
    "                        directory or a directory of them; may be "
    "repeated)\n"
    "  --no-ext              record with the standard OMPT events only (no\n"
    "                        extension events)\n"
    "  --keep-raw            keep the raw recording (OUT/raw)\n"
    "  --wait-lock           when another run is writing OUT, wait for it\n"
    "                        (default: refuse)\n"
    "  --tool TOOL           the recording tool library (default: found next "
    "to\n"
    "                        this command)\n"
    "  --outputs LIST        which files to write, comma-separated, from\n"
    "                        csv,graphml,trace,svg,otf2,report (default: all;\n"
    "                        the summary, loops.csv and run.json are always\n"
    "                        written) and problem-graphs (not by default:\n"
    "                        problems/<type>.graphml, the grain graph with\n"
    "                        the grains of one problem type red, per type\n"
    "                        that flags any)\n"
    "  --max-trace-grains N  trace.json has every grain up to N grains "
    "(default\n"
    "                        25000), above it one event per loop instance "
    "and\n"
    "                        thread and per task creation site and thread\n"
    "                        (trace.otf2 has every grain); N may be 'all'\n"
    "  --max-graph-grains N  grains.graphml has every grain up to N grains\n"
    "                        (default 25000), above it a node per loop "
    "instance\n"
    "                        and thread and per group of tasks (one\n"
    "                        generation, join point and creation site), one "
    "DAG\n"
    "                        per process (per class of processes of the same\n"
    "                        shape: MPI ranks alike but for their values) "
    "from\n"
    "                        start to end\n"
    "  --max-csv-grains N    grains.csv is written up to N grains (default\n"
    "                        25000) unless --outputs names csv; loops.csv "
    "has\n"
    "                        every loop instance and thread\n"
    "  --max-report-grains N report.html draws every grain up to N grains\n"
    "                        (default 100000), above it a bar per loop "
    "instance\n"
    "                        and thread and per task creation site and "
    "thread\n"
    "  --max-trace-bytes N, --max-graph-bytes N, --max-report-bytes N\n"
    "                        the byte caps: trace.json at most 200 MB\n"
    "                        (chrome://tracing fails near 256 MB), "
    "grains.graphml\n"
    "                        (and each problem graph) at most 100 MB, "
    "report.html\n"
    "                        at most 10 MB; by default also, once "
    "aggregated\n"
    "                        (report.html always), at most 12 bytes per "
    "grain or\n"
    "                        0.5 MB if more. Where the aggregates per loop\n"
    "                        instance would pass the cap, they merge blocks "
    "of\n"
    "                        consecutive instances of a loop, then the whole\n"
    "                        run per loop (and tasks per creation site). N "
    "may\n"
    "                        end in K, M or G (10^3, 10^6, 10^9); giving it\n"
    "                        drops the per-grain bound\n"
    "  --baseline            run the program once more on one thread first\n"
    "                        (OMP_THREAD_LIMIT=1; its output goes to\n"
    "                        OUT/baseline.out) for work_deviation\n"
    "  --baseline-from-raw DIR\n"
    "                        take work_deviation's one-thread run from a "
    "recording\n";

bool parseOptions(int argc, char **argv, Options &o) {
  std::string outputs = "csv,graphml,trace,svg,otf2,report";
  int i = 1;
  auto value = [&](const std::string &a, const std::string &name,
                   size_t eq) -> std::string {
    if (eq != std::string::npos)
      return a.substr(eq + 1);
    if (i + 1 >= argc)
      throw Error("argument " + name + ": expected one argument");
    return argv[++i];
  };
  auto cap = [&](const std::string &a, const std::string &name,
                 size_t eq) -> uint64_t {
    std::string v = value(a, name, eq);
    if (v == "all")
      return UINT64_MAX;
    char *end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    if (v.empty() || v[0] == '-' || *end || errno)
      throw Error("argument " + name + ": " + v +
                  " is not a number of grains (or 'all')");
    return n;
  };
  // A byte cap: a number, maybe with K, M or G (powers of 1000).
  auto bytes = [&](const std::string &a, const std::string &name,
                   size_t eq) -> uint64_t {
    std::string v = value(a, name, eq);
    char *end = nullptr;
    errno = 0;
    unsigned long long n = std::strtoull(v.c_str(), &end, 10);
    uint64_t mult = 1;
    if (end && *end && !end[1])
      mult = *end == 'K' || *end == 'k'   ? 1000
             : *end == 'M' || *end == 'm' ? 1000000
             : *end == 'G' || *end == 'g' ? 1000000000
                                          : 0;
    if (v.empty() || v[0] == '-' || end == v.c_str() || errno || !mult ||
        (*end && end[1]) || n > UINT64_MAX / mult)
      throw Error("argument " + name + ": " + v +
                  " is not a number of bytes (N, NK, NM or NG)");
    return n * mult;
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
    } else if (name.compare(0, 2, "-o") == 0 && name.size() > 2 &&
               name[1] == 'o') {
      o.out = name.substr(2);
    } else if (name == "--from-raw") {
      o.fromRaw.push_back(value(a, "--from-raw", eq));
    } else if (name == "--no-ext") {
      o.noExt = true;
    } else if (name == "--keep-raw") {
      o.keepRaw = true;
    } else if (name == "--wait-lock") {
      o.waitLock = true;
    } else if (name == "--tool") {
      o.tool = value(a, "--tool", eq);
    } else if (name == "--outputs") {
      outputs = value(a, "--outputs", eq);
      o.outputsGiven = true;
    } else if (name == "--max-trace-grains") {
      o.caps.trace = cap(a, name, eq);
    } else if (name == "--max-graph-grains") {
      o.caps.graph = cap(a, name, eq);
    } else if (name == "--max-csv-grains") {
      o.caps.csv = cap(a, name, eq);
    } else if (name == "--max-report-grains") {
      o.caps.report = cap(a, name, eq);
    } else if (name == "--max-trace-bytes") {
      o.caps.traceBytes = bytes(a, name, eq);
      o.caps.tracePerGrain = 0;
    } else if (name == "--max-graph-bytes") {
      o.caps.graphBytes = bytes(a, name, eq);
      o.caps.graphPerGrain = 0;
    } else if (name == "--max-report-bytes") {
      o.caps.reportBytes = bytes(a, name, eq);
      o.caps.reportPerGrain = 0;
    } else if (name == "--baseline") {
      o.baseline = true;
    } else if (name == "--baseline-from-raw") {
      o.baselineFromRaw = value(a, "--baseline-from-raw", eq);
    } else {
      throw Error("unrecognized argument " + a +
                  " (see grainchunk-graph --help)");
    }
  }
  for (; i < argc; i++)
    o.cmd.push_back(argv[i]);
  std::string bad, all = "csv,graphml,trace,svg,otf2,report,problem-graphs";
  size_t b = 0;
  while (b <= outputs.size()) {
    size_t e = outputs.find(',', b);
    if (e == std::string::npos)
      e = outputs.size();
    std::string w = outputs.substr(b, e - b);
    if (!w.empty()) {
      if (std::find(OutputNames.begin(), OutputNames.end(), w) ==
          OutputNames.end())
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
    throw Error(
        "no program given (grainchunk-graph -o DIR -- PROGRAM ARGS...)");
  if (!o.fromRaw.empty() && !o.cmd.empty())
    throw Error("--from-raw analyses a recording and runs no program: drop " +
                o.cmd[0] + ", or drop --from-raw to record it");
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
  throw Error("libgrainchunk-record.so not found next to " + here +
              " or in ../lib");
}

void checkTool(const std::string &tool) {
  int fd = open(tool.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0)
    throw Error("--tool " + tool + ": " + std::strerror(errno));
  struct stat st;
  char magic[4] = {0};
  bool file = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  bool elf =
      file && read(fd, magic, 4) == 4 && !std::memcmp(magic, "\177ELF", 4);
  close(fd);
  if (!file)
    throw Error("--tool " + tool + ": not a file");
  if (!elf)
    throw Error("--tool " + tool +
                ": not a shared library (no ELF header); give the recording "
                "tool, libgrainchunk-record.so");
}

/// Creates the directory of a recording in the build directory.
static void newDir(const std::string &dir, const OutputDir &out) {
  if (mkdir(dir.c_str(), 0777) != 0)
    throw Error("cannot create " + out.shown(dir) + ": " +
                std::strerror(errno));
}

int recordProgram(const Options &o, const std::string &raw,
                  const std::vector<std::pair<std::string, std::string>> &extra,
                  int stdinFd, int stdoutFd, int stderrFd) {
  std::vector<std::string> set;
  for (const auto &kv : extra)
    set.push_back(kv.first + "=" + kv.second);
  std::string tool = o.tool.empty() ? toolPath() : realPath(o.tool);
  set.push_back("OMP_TOOL_LIBRARIES=" + tool);
  set.push_back("GRAINCHUNK_RECORD_DIR=" + realPath(raw));
  set.push_back("OMP_TOOL"); // removed: the recording needs the tool enabled
  if (o.noExt)
    set.push_back("GRAINCHUNK_RECORD_NO_EXT=1");
  Redirect r;
  r.In = stdinFd;
  r.Out = stdoutFd;
  r.Err = stderrFd;
  std::string err;
  int st = runProgram(o.cmd, environWith(set), r, err, tool);
  if (st < 0)
    throw Error(err);
  return st;
}

/// "N grains, above the cap of ..." (the grain cap, or the byte cap when
/// the grains are within the grain cap).
static std::string overCap(uint64_t grains, uint64_t cap, uint64_t byteCap) {
  if (grains <= cap && byteCap)
    return std::to_string(grains) + " grains, above the cap of " +
           std::to_string(byteCap) + " bytes";
  return std::to_string(grains) + " grains, above the cap of " +
         std::to_string(cap);
}

bool csvWritten(const Options &o, uint64_t grains) {
  return o.outputsGiven || grains <= o.caps.csv;
}

LeftOut csvLeftOut(const Options &o, uint64_t grains) {
  return {"grains.csv",
          "not written: " + overCap(grains, o.caps.csv, 0) +
              "; loops.csv has every loop instance and thread",
          "--outputs csv or --max-csv-grains " + std::to_string(grains) +
              " writes it"};
}

/// What an aggregated trace.json leaves out of a run of `grains` grains.
LeftOut traceLeftOut(const Options &o, uint64_t grains, const std::string &how,
                     bool otf2) {
  return {"trace.json",
          "aggregated: " +
              overCap(grains, o.caps.trace, o.caps.traceBudget(grains)) + "; " +
              how + "; " +
              (otf2 ? "trace.otf2 has every grain"
                    : "--outputs otf2 writes trace.otf2 with every grain"),
          "--max-trace-grains " + std::to_string(grains) +
              (grains > o.caps.trace ? "" : " --max-trace-bytes 1000G") +
              " writes every grain (too large for chrome://tracing)"};
}

/// What an aggregated grains.graphml leaves out of a run of `grains`
/// grains (problem graphs: File their directory, How theirs).
LeftOut graphLeftOut(const Options &o, uint64_t grains, const std::string &how,
                     const std::string &file) {
  return {file,
          "aggregated: " +
              overCap(grains, o.caps.graph, o.caps.graphBudget(grains)) + "; " +
              how,
          "--max-graph-grains " + std::to_string(grains) +
              (grains > o.caps.graph ? "" : " --max-graph-bytes 1000G") +
              " writes every grain"};
}

Written writeOutputs(const Results &R, const Options &o, OutputDir &dir) {
  const Run &run = R.run;
  std::string err;
  Written out;
  uint64_t grains = run.grains();
  bool otf2 =
      std::find(o.outputs.begin(), o.outputs.end(), "otf2") != o.outputs.end();
  bool report = false;
  for (const std::string &w : o.outputs) {
    if (w == "report") { // last: it lists what the others left out
      report = true;
      continue;
    }
    if (w == "csv" && !csvWritten(o, grains)) {
      out.leftOut.push_back(csvLeftOut(o, grains));
      continue;
    }
    std::string file = outputFile(w);
    if (w == "problem-graphs") {
      // A copy of the grain graph per problem type that flags a grain
      // (ProblemViews.h), in the directory problems/.
      if (!dir.claim(file, err))
        throw Error(err);
      std::string pdir = dir.path(file);
      if (mkdir(pdir.c_str(), 0777) != 0)
        throw Error("cannot create " + pdir + ": " + std::strerror(errno));
      bool every = true;
      for (const ProblemCount &c : R.counts) {
        if (!c.grains)
          continue;
        std::string name = problemGraphName(c.flag);
        every = writeGraphmlCapped(R, dir.path(name), o.caps, c.flag).every &&
                every;
        out.files.push_back(name);
      }
      if (!every)
        out.leftOut.push_back(graphLeftOut(
            o, grains,
            "problematic is the number of a group's grains the problem "
            "type flags",
            file + "/"));
      continue;
    }
    if (w == "otf2") {
      // The archive's anchor file, its definitions and its directory
      // (Otf2Writer.h).
      for (const char *n : {"trace.otf2", "trace.def", "trace"})
        if (!dir.claim(n, err))
          throw Error(err);
      writeOtf2(R, dir.dir(), "trace");
      out.files.push_back(file);
      continue;
    }
    if (!dir.claim(file, err))
      throw Error(err);
    std::string path = dir.path(file);
    if (w == "csv") {
      writeCsv(R, path);
    } else if (w == "graphml") {
      CapResult r = writeGraphmlCapped(R, path, o.caps);
      if (!r.every)
        out.leftOut.push_back(graphLeftOut(o, grains, r.how, file));
    } else if (w == "trace") {
      CapResult r = writeTraceCapped(R, path, o.caps);
      if (!r.every)
        out.leftOut.push_back(traceLeftOut(o, grains, r.how, otf2));
    } else if (w == "svg") {
      writeSvg(R, path);
    }
    out.files.push_back(file);
  }
  if (!dir.claim("loops.csv", err))
    throw Error(err);
  writeLoopsCsv(R, dir.path("loops.csv"));
  out.files.push_back("loops.csv");
  if (report) {
    if (!dir.claim("report.html", err))
      throw Error(err);
    writeReport(R, dir.path("report.html"), o.caps, Version, out.leftOut);
    out.files.push_back("report.html");
  }
  return out;
}

/// summary.txt and run.json from the run's digests (every path: a run
/// analysed here, an MPI job merged from its ranks' parts).
void writeSummaryOf(const RunDigest &D, OutputDir &dir, const Written &w) {
  std::string tail = leftOutText(w.leftOut), err;
  if (std::find(w.files.begin(), w.files.end(), "report.html") != w.files.end())
    tail += "report: " + printable(dir.shownPath("report.html")) +
            " (open it in a browser)\n";
  std::string text = summaryText(D) + tail;
  if (!dir.claim("summary.txt", err) || !dir.claim("run.json", err))
    throw Error(err);
  {
    OutFile f(dir.path("summary.txt"));
    f << text;
    f.close();
  }
  std::vector<std::string> files = w.files;
  files.push_back("summary.txt");
  writeRunJson(D, dir.path("run.json"), files, Version, w.leftOut);
  std::cerr << terminalText(D, printable(dir.shownPath("summary.txt"))) + tail
            << std::flush;
}

void writeSummary(const Results &R, const Options &o, OutputDir &dir,
                  const Written &w) {
  (void)o;
  writeSummaryOf(runDigest(digestsOf(R), R.run.multi()), dir, w);
}

/// The names of the output directory's entries that recordings to be read
/// live in (--from-raw OUT/raw, or OUT itself): an earlier result's, kept.
static std::vector<std::string> rawInside(const Options &o) {
  std::vector<std::string> keep;
  std::string out = realPath(o.out.empty() ? "." : o.out) + "/";
  std::vector<std::string> raws = o.fromRaw;
  if (!o.baselineFromRaw.empty())
    raws.push_back(o.baselineFromRaw);
  for (const std::string &r : raws) {
    std::string p = realPath(r);
    if (p.compare(0, out.size(), out) == 0 && p.size() > out.size())
      keep.push_back(
          p.substr(out.size(), p.find('/', out.size()) - out.size()));
  }
  return keep;
}

/// An earlier result given as a recording (--from-raw D, D written with
/// --keep-raw): its recording, D/raw.
static std::string recordingOf(const std::string &r) {
  struct stat st;
  if (OutputDir::isResult(r) && stat((r + "/raw").c_str(), &st) == 0 &&
      S_ISDIR(st.st_mode))
    return r + "/raw";
  return r;
}

/// The names this run writes in the output directory.
static std::vector<std::string> namesWritten(const Options &o, bool running) {
  std::vector<std::string> n = {"loops.csv", "summary.txt", "run.json"};
  for (const std::string &w : o.outputs) {
    n.push_back(outputFile(w));
    if (w == "otf2")
      n.insert(n.end(), {"trace.otf2", "trace.def", "trace"});
  }
  if (running)
    n.push_back("raw");
  if (o.baseline)
    n.insert(n.end(), {"raw-baseline", "baseline.out"});
  return n;
}

/// MPI: the build directory every rank records into (OutputDir.h).
static std::string mpiTag(const RankInfo &rk) {
  std::string t = "mpi-" + (rk.Job.empty() ? std::string("job") : rk.Job);
  for (char &c : t)
    if (!isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '.')
      c = '_';
  return t;
}

/// An MPI rank other than 0: rank 0's raw directory for D, once rank 0
/// has prepared it (120 s at most).
static std::string jobRaw(const Options &o, const RankInfo &rk) {
  std::string raw, err;
  for (int waited = 0;; waited++) {
    // D's parent may not exist before rank 0 makes it: the path is found
    // again each second.
    raw = OutputDir::buildPath(o.out, mpiTag(rk)) + "/raw";
    if (mpiJobReady(rk, raw, 1, err))
      return raw;
    if (waited >= 120)
      throw Error(err);
  }
}

/// An MPI rank other than 0 (mpirun -np N grainchunk-graph -o D -- app):
/// records into rank 0's build directory for D once rank 0 has prepared
/// it, says its program ended, and leaves the analysis to rank 0.
static int recordRank(const Options &o, const RankInfo &rk) {
  std::string raw = jobRaw(o, rk), err;
  int status = recordProgram(o, raw, {});
  if (!mpiRankDone(rk, raw, status, err))
    throw Error(err);
  return status;
}

namespace {
volatile sig_atomic_t AnalysisPid = 0, Caught = 0;
const int Stops[] = {SIGINT, SIGQUIT, SIGTERM, SIGHUP};
void stopAnalysis(int sig) {
  Caught = sig;
  if (AnalysisPid > 0)
    kill(AnalysisPid, SIGKILL);
}

/// Runs Body in a process of its own: a crash, running out of memory or
/// an interrupt there leaves this process to keep the earlier result and
/// say what happened. Returns 0 when Body returned; otherwise the child
/// said why in one line (1; Shown turns the paths in it into the user's),
/// died of a signal (its number, in Died), or this process was
/// interrupted (Caught).
int runApart(const std::function<void()> &Body,
             const std::function<std::string(const std::string &)> &Shown,
             int &died) {
  struct sigaction stop = {}, old[4];
  stop.sa_handler = stopAnalysis;
  sigemptyset(&stop.sa_mask);
  Caught = 0;
  for (int i = 0; i < 4; i++)
    sigaction(Stops[i], &stop, &old[i]);
  std::cout.flush();
  std::cerr.flush();
  pid_t pid = fork();
  if (pid == 0) {
    for (int i = 0; i < 4; i++)
      sigaction(Stops[i], &old[i], nullptr);
    // A closed stderr (| head) loses the summary's lines, not the result.
    signal(SIGPIPE, SIG_IGN);
    int rc = 0;
    try {
      Body();
    } catch (const Error &e) {
      std::cerr << "grainchunk-graph: " << printable(Shown(e.what()))
                << std::endl;
      rc = 1;
    } catch (const std::bad_alloc &) {
      std::cerr << "grainchunk-graph: out of memory while analysing the "
                   "recording"
                << std::endl;
      rc = 1;
    } catch (const std::exception &e) {
      std::cerr << "grainchunk-graph: " << printable(Shown(e.what()))
                << std::endl;
      rc = 1;
    }
    std::cout.flush();
    std::cerr.flush();
    _exit(rc);
  }
  int st = 0, rc;
  if (pid < 0) {
    std::cerr << "grainchunk-graph: cannot start the analysis: "
              << std::strerror(errno) << std::endl;
    rc = 1;
  } else {
    AnalysisPid = pid;
    if (Caught)
      kill(pid, SIGKILL);
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    AnalysisPid = 0;
    died = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    rc = WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
  }
  for (int i = 0; i < 4; i++)
    sigaction(Stops[i], &old[i], nullptr);
  return rc;
}

/// Analyses the recordings and writes the outputs into the build
/// directory, apart (runApart).
int analyseApart(const std::vector<std::string> &raws,
                 const std::vector<std::string> &baseRaws, const Options &o,
                 OutputDir &dir, int &died) {
  return runApart(
      [&] {
        // The pipeline, one way: read and model every process, derive the
        // results once, then each output reads them.
        std::unique_ptr<Run> run = analyseRun(raws, baseRaws);
        std::unique_ptr<const Results> results = computeResults(*run);
        Written w = writeOutputs(*results, o, dir);
        writeSummary(*results, o, dir, w);
      },
      [&](const std::string &t) { return dir.shown(t); }, died);
}
} // namespace

//===-- An MPI job analysed where it ran ----------------------------------===//
//
// The ranks' side: each records, says its program ended, makes its part and
// says it is done; rank 0 then merges the parts (Parts.h), or, asked for an
// output the parts do not make, every rank records into D/raw and rank 0
// analyses them all (recordRank).

/// One rank's share of a job analysed where it ran: records into raw's
/// .rank-<r>.rec, analyses it into its part, and marks it done. Returns
/// the program's exit status; Failed when the part could not be made.
static int rankPart(const Options &o, const RankInfo &rk,
                    const std::string &raw, bool &failed) {
  std::string rec = rankDir(raw, rk.Rank, "rec");
  std::string part = rankDir(raw, rk.Rank, "part"), err;
  if (mkdir(rec.c_str(), 0777) != 0)
    throw Error("cannot create " + rec + ": " + std::strerror(errno));
  int status = recordProgram(o, rec, {});
  if (!mpiRankMark(rk, raw, "ended", std::to_string(status) + "\n", err))
    throw Error(err);
  int died = 0;
  int rc = runApart([&] { writePart(o, rk, raw, rec, part); },
                    [](const std::string &t) { return t; }, died);
  if (died)
    std::cerr << "grainchunk-graph: rank " << rk.Rank
              << ": the analysis died of signal " << died << " ("
              << strsignal(died) << ")" << std::endl;
  // The recording is the job's (D/raw) with --keep-raw, else gone.
  bool moved = true;
  if (o.keepRaw)
    for (const std::string &e : entriesOf(rec))
      moved = rename((rec + "/" + e).c_str(), (raw + "/" + e).c_str()) == 0 &&
              moved;
  if (moved && !removeTree(rec, err))
    std::cerr << "grainchunk-graph: " << printable(err) << std::endl;
  failed = rc != 0 || Caught;
  // A part that failed before telling the others its head: they need not
  // wait for it (the merge refuses the job anyway).
  std::string head;
  if (failed && needsHead(o) && !mpiReadMark(rk.Rank, raw, "head", head))
    mpiRankMark(rk, raw, "head", "0 0 0\n", err);
  if (!mpiRankMark(rk, raw, "done", failed ? "failed\n" : "ok\n", err))
    throw Error(err);
  return status;
}

/// An MPI rank other than 0, the job analysed where it ran.
static int partRank(const Options &o, const RankInfo &rk) {
  bool failed = false;
  int status = rankPart(o, rk, jobRaw(o, rk), failed);
  if (int sig = Caught) {
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  return failed && status == 0 ? 2 : status;
}

/// The end of a command whose outputs were made apart (Rc 0) or not, the
/// program's exit status Status: interrupted (Caught), the earlier result
/// stays and the signal is raised again; else on success the recordings in
/// Remove go and the outputs are put in place whole, and on failure the
/// recording is kept only when asked (KeepName). Returns the exit status.
static int finishRun(OutputDir &dir, int rc, int died, bool running, int status,
                     const std::string &keepName,
                     const std::vector<std::string> &remove) {
  std::string err, kept;
  if (int sig = Caught) {
    dir.abandon(err, keepName, kept);
    std::cerr << "grainchunk-graph: " << strsignal(sig)
              << " during the analysis: " << printable(dir.target())
              << " is unchanged"
              << (kept.empty()
                      ? (running ? "; the recording was removed" : "")
                      : "; the recording is kept in " + printable(kept))
              << std::endl;
    signal(sig, SIG_DFL);
    raise(sig);
    return 128 + sig;
  }
  for (const std::string &r : remove)
    if (rc == 0 && !removeTree(r, err))
      throw Error(dir.shown(err));
  if (rc == 0 && !dir.commit(err)) {
    std::cerr << "grainchunk-graph: " << printable(err) << std::endl;
    rc = 1;
  }
  if (rc != 0) {
    if (died)
      std::cerr << "grainchunk-graph: the analysis died of signal " << died
                << " (" << strsignal(died) << "): " << printable(dir.target())
                << " is unchanged" << std::endl;
    // The recording that could not be analysed is kept only when asked.
    dir.abandon(err, keepName, kept);
    if (!kept.empty())
      std::cerr << "grainchunk-graph: the recording is kept in "
                << printable(kept) << std::endl;
    return running && status != 0 ? status : 2;
  }
  return status;
}

/// Rank 0 of a job analysed where it ran: its own part, then the others'
/// merged into D (the exit status as runCommand's).
static int mergeJob(const Options &o, const RankInfo &rk,
                    const std::string &raw, OutputDir &dir) {
  bool failed = false;
  int status = rankPart(o, rk, raw, failed);
  std::vector<int> all, missing, ended;
  for (int k = 0; k < rk.Size; k++)
    all.push_back(k);
  int rc = 1, died = 0;
  std::string err;
  if (!Caught) {
    mpiWaitMarks(all, raw, "ended", 120, missing);
    for (int k : all)
      if (std::find(missing.begin(), missing.end(), k) == missing.end())
        ended.push_back(k);
    for (int k : missing)
      std::cerr << "grainchunk-graph: rank " << k
                << " did not say its program ended within 120 s: its "
                   "processes are missing from the outputs\n";
    // A rank whose program ended analyses it: no limit on that.
    mpiWaitMarks(ended, raw, "done", -1, missing);
    rc = runApart([&] { mergeParts(o, raw, ended, dir); },
                  [&](const std::string &t) { return dir.shown(t); }, died);
  }
  for (int k : all)
    removeTree(rankDir(raw, k, "part"), err);
  return finishRun(dir, rc, died, true, status, o.keepRaw ? "raw" : "",
                   o.keepRaw ? std::vector<std::string>()
                             : std::vector<std::string>{raw});
}

int runCommand(const Options &given) {
  Options o = given;
  bool running = o.fromRaw.empty();
  std::string err, found;
  if (running && !findProgram(o.cmd[0], found, err))
    throw Error(err);
  if (running && std::getenv("OMP_TOOL_LIBRARIES") &&
      *std::getenv("OMP_TOOL_LIBRARIES"))
    std::cerr << "grainchunk-graph: OMP_TOOL_LIBRARIES was set; recording "
                 "replaces it\n";
  if (running && o.tool.empty())
    toolPath(); // not found: say so before the program runs
  if (running && !o.tool.empty())
    checkTool(o.tool);
  // An earlier result analysed again into itself keeps its one-thread
  // recording and that run's output too, though this run does not read
  // them.
  bool again = false;
  for (std::string &r : o.fromRaw) {
    again |= realPath(r) == realPath(o.out.empty() ? "." : o.out);
    r = recordingOf(r);
  }
  if (!o.baselineFromRaw.empty())
    o.baselineFromRaw = recordingOf(o.baselineFromRaw);
  // As one rank of an MPI job, every rank records into OUT/raw and rank 0
  // analyses them all (Launch.h).
  RankInfo rk = running ? rankFromEnv() : RankInfo();
  bool mpi = rk.Rank >= 0 && rk.Size > 1;
  if (mpi && o.baseline)
    throw Error("--baseline is not available when grainchunk-graph runs as "
                "an MPI rank: record a one-thread run and give it with "
                "--baseline-from-raw");
  // Rank 0 merges the ranks' parts when it can merge every output asked
  // for; otherwise it analyses every rank's recording.
  bool parts = mpi && mergeable(o);
  if (mpi && rk.Rank > 0)
    return parts ? partRank(o, rk) : recordRank(o, rk);
  OutputDir::Config cfg;
  cfg.Keep = rawInside(o);
  if (again)
    cfg.Keep.insert(cfg.Keep.end(), {"raw-baseline", "baseline.out"});
  cfg.Writes = namesWritten(o, running);
  cfg.WaitLock = o.waitLock;
  if (mpi)
    cfg.BuildTag = mpiTag(rk);
  OutputDir dir;
  if (!dir.open(o.out, err, cfg))
    throw Error(err);
  std::string baseRaw = o.baselineFromRaw;
  if (o.baseline) {
    // One thread everywhere, num_threads clauses included: the thread limit
    // caps every team. The program's input is not read twice.
    if (!dir.claim("raw-baseline", err) || !dir.claim("baseline.out", err))
      throw Error(err);
    baseRaw = dir.path("raw-baseline");
    newDir(baseRaw, dir);
    std::string bo = dir.path("baseline.out");
    std::cerr
        << "grainchunk-graph: baseline run on one thread (OMP_THREAD_LIMIT=1), "
           "output in "
        << printable(dir.shownPath("baseline.out")) << std::endl;
    int fd = open(bo.c_str(),
                  O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
      throw Error("cannot write " + dir.shown(bo) + ": " +
                  std::strerror(errno));
    int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int st;
    try {
      st = recordProgram(o, baseRaw,
                         {{"OMP_NUM_THREADS", "1"}, {"OMP_THREAD_LIMIT", "1"}},
                         nul, fd, fd);
    } catch (...) {
      close(fd);
      close(nul);
      throw;
    }
    close(fd);
    close(nul);
    if (st != 0)
      std::cerr << "grainchunk-graph: the baseline run exited with " << st
                << "\n";
  }
  int status = 0;
  std::vector<std::string> raws = o.fromRaw;
  std::string raw = dir.path("raw");
  if (running) {
    if (!dir.claim("raw", err))
      throw Error(err);
    newDir(raw, dir);
    if (mpi && !mpiJobReady(rk, raw, 0, err))
      throw Error(err);
    if (parts)
      return mergeJob(o, rk, raw, dir);
    status = recordProgram(o, raw, {});
    raws.push_back(raw);
    if (mpi) {
      std::vector<int> missing;
      if (!mpiRankDone(rk, raw, status, err))
        throw Error(err);
      mpiWaitRanks(rk, raw, 120, missing);
      for (int r : missing)
        std::cerr << "grainchunk-graph: rank " << r
                  << " did not say its program ended within 120 s: its "
                     "recording may be missing or incomplete\n";
    }
  }
  // From here on the program has run: its exit status is the command's,
  // unless it succeeded and the analysis could not be made (2). The
  // outputs are made in the build directory and put in place only whole.
  std::vector<std::string> baseRaws;
  if (!baseRaw.empty())
    baseRaws.push_back(baseRaw);
  int died = 0;
  int rc = analyseApart(raws, baseRaws, o, dir, died);
  std::vector<std::string> remove;
  if (running && !o.keepRaw)
    remove.push_back(raw);
  if (running && !o.keepRaw && o.baseline)
    remove.push_back(baseRaw);
  return finishRun(dir, rc, died, running, status,
                   running && o.keepRaw ? "raw" : "", remove);
}

} // namespace gcg

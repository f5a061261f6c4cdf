// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Command.cpp - the steps of the grainchunk-graph command ------------===//
//
// Option parsing (argparse's interface and --help text, as the Python
// command had them), running the program under the recording tool, and the
// order of the steps.
//
//===----------------------------------------------------------------------===//
#include "Command.h"
#include "Launch.h"
#include "OutputDir.h"
#include "ProblemViews.h"
#include "ReportWriter.h"
#include "Writers.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <iostream>
#include <sys/stat.h>
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
    "                        per process from start to end\n"
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

/// Creates an empty directory for a recording (removing an earlier one the
/// command wrote: raw and raw-baseline are claimed in the output directory).
static void freshDir(const std::string &dir) {
  std::string err;
  if (!removeTree(dir, err))
    throw Error(err);
  if (mkdir(dir.c_str(), 0777) != 0)
    throw Error("cannot create " + dir + ": " + std::strerror(errno));
}

int recordProgram(const Options &o, const std::string &raw,
                  const std::vector<std::pair<std::string, std::string>> &extra,
                  int stdinFd, int stdoutFd, int stderrFd) {
  std::vector<std::string> set;
  for (const auto &kv : extra)
    set.push_back(kv.first + "=" + kv.second);
  set.push_back("OMP_TOOL_LIBRARIES=" + (o.tool.empty() ? toolPath() : o.tool));
  set.push_back("GRAINCHUNK_RECORD_DIR=" + realPath(raw));
  set.push_back("OMP_TOOL"); // removed: the recording needs the tool enabled
  if (o.noExt)
    set.push_back("GRAINCHUNK_RECORD_NO_EXT=1");
  Redirect r;
  r.In = stdinFd;
  r.Out = stdoutFd;
  r.Err = stderrFd;
  std::string err;
  int st = runProgram(o.cmd, environWith(set), r, err);
  if (st < 0)
    throw Error(err);
  return st;
}

Written writeOutputs(Run &run, const Options &o, OutputDir &dir) {
  std::string err;
  Written out;
  uint64_t grains = run.grains();
  bool otf2 =
      std::find(o.outputs.begin(), o.outputs.end(), "otf2") != o.outputs.end();
  auto over = [&](uint64_t cap, uint64_t byteCap = 0) {
    if (grains <= cap && byteCap)
      return std::to_string(grains) + " grains, above the cap of " +
             std::to_string(byteCap) + " bytes";
    return std::to_string(grains) + " grains, above the cap of " +
           std::to_string(cap);
  };
  // The options that write every grain (both caps when the bytes would
  // pass the byte cap).
  auto graphOption = [&]() {
    return "--max-graph-grains " + std::to_string(grains) +
           (grains > o.caps.graph ? "" : " --max-graph-bytes 1000G");
  };
  bool report = false;
  for (const std::string &w : o.outputs) {
    if (w == "report") { // last: it lists what the others left out
      report = true;
      continue;
    }
    if (w == "csv" && grains > o.caps.csv && !o.outputsGiven) {
      out.leftOut.push_back(
          {"grains.csv",
           "not written: " + over(o.caps.csv) +
               "; loops.csv has every loop instance and thread",
           "--outputs csv or --max-csv-grains " + std::to_string(grains) +
               " writes it"});
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
      for (const ProblemCount &c : problemCounts(run)) {
        if (!c.grains)
          continue;
        std::string name = problemGraphName(c.flag);
        every = writeGraphmlCapped(run, dir.path(name), o.caps, c.flag).every &&
                every;
        out.files.push_back(name);
      }
      if (!every)
        out.leftOut.push_back(
            {file + "/",
             "aggregated: " + over(o.caps.graph, o.caps.graphBudget(grains)) +
                 "; problematic is the number of a group's grains the "
                 "problem type flags",
             graphOption() + " writes every grain"});
      continue;
    }
    if (w == "otf2") {
      // The archive's anchor file, its definitions and its directory
      // (Otf2Writer.h).
      for (const char *n : {"trace.otf2", "trace.def", "trace"})
        if (!dir.claim(n, err))
          throw Error(err);
      writeOtf2(run, dir.dir(), "trace");
      out.files.push_back(file);
      continue;
    }
    if (!dir.claim(file, err))
      throw Error(err);
    std::string path = dir.path(file);
    if (w == "csv") {
      writeCsv(run, path);
    } else if (w == "graphml") {
      CapResult r = writeGraphmlCapped(run, path, o.caps);
      if (!r.every)
        out.leftOut.push_back(
            {file,
             "aggregated: " + over(o.caps.graph, o.caps.graphBudget(grains)) +
                 "; " + r.how,
             graphOption() + " writes every grain"});
    } else if (w == "trace") {
      CapResult r = writeTraceCapped(run, path, o.caps);
      if (!r.every)
        out.leftOut.push_back(
            {file,
             "aggregated: " + over(o.caps.trace, o.caps.traceBudget(grains)) +
                 "; " + r.how + "; " +
                 (otf2 ? "trace.otf2 has every grain"
                       : "--outputs otf2 writes trace.otf2 with every grain"),
             "--max-trace-grains " + std::to_string(grains) +
                 (grains > o.caps.trace ? "" : " --max-trace-bytes 1000G") +
                 " writes every grain (too large for chrome://tracing)"});
    } else if (w == "svg") {
      writeSvg(run, path);
    }
    out.files.push_back(file);
  }
  if (!dir.claim("loops.csv", err))
    throw Error(err);
  writeLoopsCsv(run, dir.path("loops.csv"));
  out.files.push_back("loops.csv");
  if (report) {
    if (!dir.claim("report.html", err))
      throw Error(err);
    writeReport(run, dir.path("report.html"), o.caps, Version, out.leftOut);
    out.files.push_back("report.html");
  }
  return out;
}

void writeSummary(Run &run, const Options &o, OutputDir &dir,
                  const Written &w) {
  (void)o;
  std::string text = summary(run) + leftOutText(w.leftOut), err;
  if (std::find(w.files.begin(), w.files.end(), "report.html") != w.files.end())
    text += "report: " + dir.path("report.html") + " (open it in a browser)\n";
  if (!dir.claim("summary.txt", err) || !dir.claim("run.json", err))
    throw Error(err);
  {
    OutFile f(dir.path("summary.txt"));
    f << text;
    f.close();
  }
  std::vector<std::string> files = w.files;
  files.push_back("summary.txt");
  writeRunJson(run, dir.path("run.json"), files, Version, w.leftOut);
  std::cerr << text << std::flush;
}

/// The names of the output directory's entries that recordings to be read
/// live in (--from-raw OUT/raw): an earlier result's, kept.
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

/// An MPI rank other than 0 (mpirun -np N grainchunk-graph -o D -- app):
/// records into D/raw once rank 0 has prepared it, says its program ended,
/// and leaves the analysis to rank 0.
static int recordRank(const Options &o, const RankInfo &rk) {
  std::string raw = o.out + "/raw", err;
  if (!mpiJobReady(rk, raw, 120, err))
    throw Error(err);
  int status = recordProgram(o, raw, {});
  if (!mpiRankDone(rk, raw, status, err))
    throw Error(err);
  return status;
}

int runCommand(const Options &o) {
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
  // As one rank of an MPI job, every rank records into OUT/raw and rank 0
  // analyses them all (Launch.h).
  RankInfo rk = running ? rankFromEnv() : RankInfo();
  bool mpi = rk.Rank >= 0 && rk.Size > 1;
  if (mpi && o.baseline)
    throw Error("--baseline is not available when grainchunk-graph runs as "
                "an MPI rank: record a one-thread run and give it with "
                "--baseline-from-raw");
  if (mpi && rk.Rank > 0)
    return recordRank(o, rk);
  OutputDir dir;
  if (!dir.open(o.out, err, rawInside(o)))
    throw Error(err);
  std::string baseRaw = o.baselineFromRaw;
  if (o.baseline) {
    // One thread everywhere, num_threads clauses included: the thread limit
    // caps every team. The program's input is not read twice.
    if (!dir.claim("raw-baseline", err) || !dir.claim("baseline.out", err))
      throw Error(err);
    baseRaw = dir.path("raw-baseline");
    freshDir(baseRaw);
    std::string bo = dir.path("baseline.out");
    std::cerr
        << "grainchunk-graph: baseline run on one thread (OMP_THREAD_LIMIT=1), "
           "output in "
        << bo << std::endl;
    int fd = open(bo.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
      throw Error("cannot write " + bo + ": " + std::strerror(errno));
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
    freshDir(raw);
    if (mpi && !mpiJobReady(rk, raw, 0, err))
      throw Error(err);
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
  // unless it succeeded and the analysis could not be made (2).
  try {
    std::vector<std::string> baseRaws;
    if (!baseRaw.empty())
      baseRaws.push_back(baseRaw);
    std::unique_ptr<Run> run = analyseRun(raws, baseRaws);
    Written w = writeOutputs(*run, o, dir);
    writeSummary(*run, o, dir, w);
  } catch (const Error &e) {
    // The recording that could not be analysed is kept only when asked.
    if (running && !o.keepRaw)
      removeTree(raw, err);
    if (!running || status == 0)
      throw;
    std::cerr << "grainchunk-graph: " << e.what() << std::endl;
    return status;
  }
  if (running && !o.keepRaw) {
    if (!removeTree(raw, err))
      throw Error(err);
    if (o.baseline && !removeTree(baseRaw, err))
      throw Error(err);
  }
  return status;
}

} // namespace gcg

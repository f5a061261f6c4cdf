// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Command.h - the steps of the grainchunk-graph command --------------===//
//
// What main() calls after parsing the options: run the program under the
// recording tool, analyse the recording, write the outputs, the summary.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_COMMAND_H
#define GRAINCHUNK_GRAPH_COMMAND_H

#include "OutputDir.h"
#include "Run.h"
#include "Writers.h"

#include <string>
#include <vector>

namespace gcg {

/// grainchunk's version (the project's, CMakeLists.txt).
extern const char *const Version;

struct Options {
  std::string out = "grainchunk-graph.out";
  std::vector<std::string> fromRaw;
  bool noExt = false, keepRaw = false, baseline = false;
  bool waitLock = false; // wait for another run writing -o

  std::string tool;
  std::vector<std::string> outputs; // csv, graphml, trace, svg, otf2
  bool outputsGiven = false;        // --outputs named them
  Caps caps;
  std::string baselineFromRaw;
  std::vector<std::string> cmd;
};

/// Parses argv the argparse way (--opt VALUE, --opt=VALUE, --). Prints --help
/// and
/// --version itself (exit 0); throws Error for a usage error.
bool parseOptions(int argc, char **argv, Options &o);
extern const char *const HelpText;

/// The recording tool library: next to this command, or in ../lib.
std::string toolPath();
/// Checks a --tool library before the program runs: Error naming it when
/// it is missing or not an ELF file.
void checkTool(const std::string &Tool);
/// Runs o.cmd with the recording tool writing into raw (a new directory),
/// extra environment variables added; stdio as given (-1: inherited).
/// Waits for its descendants that still have the tool loaded (Launch.h).
/// Returns its exit status, a signal death as 128+N.
int recordProgram(const Options &o, const std::string &raw,
                  const std::vector<std::pair<std::string, std::string>> &extra,
                  int stdinFd = -1, int stdoutFd = -1, int stderrFd = -1);
/// The files written and what they leave out.
struct Written {
  std::vector<std::string> files;
  std::vector<LeftOut> leftOut;
};
/// Writes the chosen outputs and loops.csv into the output directory (each
/// claimed in its manifest first), each within its cap (o.caps).
Written writeOutputs(const Results &R, const Options &o, OutputDir &dir);
/// Writes summary.txt and run.json, and prints the summary on stderr.
void writeSummary(const Results &R, const Options &o, OutputDir &dir,
                  const Written &w);
/// Whether grains.csv is written for a run of Grains grains (asked for by
/// --outputs, or within --max-csv-grains), and what its absence leaves out.
bool csvWritten(const Options &o, uint64_t Grains);
LeftOut csvLeftOut(const Options &o, uint64_t Grains);
/// What an aggregated trace.json or grains.graphml (File) leaves out of a
/// run of Grains grains, aggregated as How says; Otf2: trace.otf2 written.
LeftOut traceLeftOut(const Options &o, uint64_t Grains, const std::string &How,
                     bool Otf2);
LeftOut graphLeftOut(const Options &o, uint64_t Grains, const std::string &How,
                     const std::string &File = "grains.graphml");
struct RunDigest;
/// summary.txt and run.json from the run's digests, the summary on stderr.
void writeSummaryOf(const RunDigest &D, OutputDir &dir, const Written &w);
/// The whole command; returns its exit status.
int runCommand(const Options &o);

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- grainchunk-graph.cpp - grain graphs, traces and timelines ----------===//
//
//   grainchunk-graph -o out/ -- ./app args...
//
// Runs the program under grainchunk's recording OMPT tool
// (libgrainchunk-record.so) and writes, into the -o directory: grains.csv
// (a row per grain: loop chunk or explicit task, the grain-graphs
// prototype's columns and metrics), grains.graphml (the grain graph),
// trace.json (Chrome trace events), timeline.svg, run.json (the run's
// metadata) and summary.txt (also printed on stderr). The program's stdin,
// stdout and stderr are its own; its exit status is ours. Bad input: one
// line on stderr and exit status 2 (its bytes printable(): a path or a name
// with a newline or control bytes in it cannot make a line of its own).
//
//===----------------------------------------------------------------------===//
#include "Command.h"

#include <csignal>
#include <exception>
#include <iostream>
#include <new>

int main(int argc, char **argv) {
  // A file size limit (ulimit -f) is an error writing a file (EFBIG), said
  // in one line, not the death of the command (the program keeps SIGXFSZ).
  std::signal(SIGXFSZ, SIG_IGN);
  try {
    gcg::Options o;
    if (!gcg::parseOptions(argc, argv, o))
      return 0;
    return gcg::runCommand(o);
  } catch (const gcg::Error &e) {
    std::cerr << "grainchunk-graph: " << gcg::printable(e.what()) << std::endl;
  } catch (const std::bad_alloc &) {
    std::cerr << "grainchunk-graph: out of memory" << std::endl;
  } catch (const std::exception &e) {
    std::cerr << "grainchunk-graph: " << gcg::printable(e.what()) << std::endl;
  }
  return 2;
}

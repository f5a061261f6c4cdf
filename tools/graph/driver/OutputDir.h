//===- OutputDir.h - grainchunk-graph's -o directory, kept safe -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The output directory of grainchunk-graph. The command never deletes what
// it did not write: a directory is reused only when it is empty or holds an
// earlier result of the command, recognized by its manifest
// (.grainchunk-graph, the names the command wrote there, one per line).
// An earlier result is then replaced completely: every name its manifest
// lists is removed before anything new is written, so no stale file of the
// earlier run stays beside the new ones. Every name is claimed (written to
// the manifest) before the file is created, so a run that stops half way
// still leaves a directory the next run may replace.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_OUTPUTDIR_H
#define GRAINCHUNK_GRAPH_OUTPUTDIR_H

#include <string>
#include <vector>

namespace gcg {

class OutputDir {
public:
  OutputDir() = default;
  OutputDir(const OutputDir &) = delete;
  OutputDir &operator=(const OutputDir &) = delete;
  ~OutputDir();

  /// Makes Dir ready for a new result: creates it (and its parents) when
  /// missing; refuses a path that is not a directory, a directory that
  /// cannot be written, and a non-empty directory that is not an earlier
  /// result; removes an earlier result, except the names in Keep (a
  /// recording of it being analysed again), which stay claimed. On failure:
  /// false and Err, one line naming the problem.
  bool open(const std::string &Dir, std::string &Err,
            const std::vector<std::string> &Keep = {});

  /// Records Name (one path component) in the manifest before it is
  /// written. Claiming a name twice is harmless.
  bool claim(const std::string &Name, std::string &Err);

  /// The path of Name inside the directory.
  std::string path(const std::string &Name) const;
  const std::string &dir() const { return Dir; }

  /// The names an earlier result's manifest lists that open() removed.
  const std::vector<std::string> &replaced() const { return Replaced; }

  /// The manifest's file name.
  static const char *manifestName();

  /// Whether Dir holds an earlier result (a readable manifest).
  static bool isResult(const std::string &Dir);

private:
  std::string Dir;
  int ManifestFd = -1;
  std::vector<std::string> Claimed, Replaced;
};

/// Removes Path, recursively when it is a directory (without following
/// symbolic links). False and Err on failure.
bool removeTree(const std::string &Path, std::string &Err);

} // namespace gcg

#endif

//===- OutputDir.h - grainchunk-graph's -o directory, kept safe -*- C++ -*-===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// The output directory of grainchunk-graph (-o D). The command never
// deletes what it did not write, and an interrupted or failed run leaves
// the earlier result whole:
//
// - A run holds a lock on D: an flock on a lock file beside D
//   (.<D's name>.grainchunk-graph.lock). A second run into D is refused with
//   one line, or waits for the first when asked (--wait-lock).
// - The new result is built in a directory of its own beside D
//   (.<D's name>.grainchunk-graph.new-<pid>, mode 0700 until it is complete),
//   and put in place only when complete: renamed to D, or swapped with D
//   atomically (renameat2 RENAME_EXCHANGE) when D exists.
// - D is reused only when it is empty, holds only the recording being
//   analysed, or holds an earlier result of the command, recognized by its
//   manifest (.grainchunk-graph, the names the command wrote there, one per
//   line; when the result is complete, also every path inside the
//   directories it wrote). What the manifest lists is the earlier result's and
//   is removed once the new result is in place, except the recordings being
//   analysed again (Keep), which move into the new result. Everything else in D
//   is the user's and moves into the new result as it is (a rename: never
//   opened, symbolic links stay links); a name of the user's that the new
//   run writes itself, or a file of the user's inside a directory the
//   earlier result wrote (its raw/), refuses the run before anything is
//   done.
// - Nothing is opened through a symbolic link: the manifest and the lock
//   file with O_NOFOLLOW, trees are removed by directory descriptor.
// - A build directory left by a run that was killed is removed by the next
//   run (the names its manifest lists; what else it holds stays).
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
  /// Removes the build directory unless it was committed or kept, and
  /// releases the lock.
  ~OutputDir();

  struct Config {
    /// Names of an earlier result that hold a recording analysed again:
    /// they move into the new result and stay claimed.
    std::vector<std::string> Keep;
    /// Names this run will write: the user's files of these names in D
    /// refuse the run.
    std::vector<std::string> Writes;
    /// Wait for a run holding the lock instead of refusing.
    bool WaitLock = false;
    /// The build directory's suffix instead of new-<pid> (MPI: every rank
    /// finds rank 0's, mpi-<job>).
    std::string BuildTag;
  };

  /// Locks Dir, checks it, and makes the build directory beside it
  /// (creating Dir's parents when missing). Refuses a path that is not a
  /// directory, a directory that cannot be written, a non-empty directory
  /// that is not an earlier result, and a user's file the run would write.
  /// Nothing in Dir changes. On failure: false and Err, one line.
  bool open(const std::string &Dir, std::string &Err, const Config &C);
  bool open(const std::string &Dir, std::string &Err) {
    return open(Dir, Err, Config());
  }

  /// Records Name (one path component) in the new result's manifest before
  /// it is written. Claiming a name twice is harmless.
  bool claim(const std::string &Name, std::string &Err);

  /// The path of Name in the build directory (where it is written).
  std::string path(const std::string &Name) const;
  /// The build directory.
  const std::string &dir() const { return Build; }
  /// The output directory as given (-o), and the path of Name in it once
  /// the result is in place.
  const std::string &target() const { return Target; }
  std::string shownPath(const std::string &Name) const;
  /// Text with the build directory's path replaced by the output
  /// directory's (messages name the files where the user will look), as it
  /// is or as printable() writes it (an Error's text).
  std::string shown(std::string Text) const;

  /// Puts the new result in place (see above). On failure: false and Err,
  /// the earlier result untouched; the new one stays in dir().
  bool commit(std::string &Err);
  /// Removes the build directory (a failed or interrupted run), keeping
  /// Name when not empty: renamed beside the output directory
  /// (<Dir>.<Name>-<pid>), its new path in Kept. False and Err on failure.
  bool abandon(std::string &Err, const std::string &Name, std::string &Kept);

  /// The names the earlier result's manifest lists that commit() removed.
  const std::vector<std::string> &replaced() const { return Replaced; }

  /// The manifest's file name.
  static const char *manifestName();
  /// Whether Dir holds an earlier result (a readable manifest).
  static bool isResult(const std::string &Dir);
  /// The build directory a run into Dir with Config::BuildTag Tag uses.
  static std::string buildPath(const std::string &Dir, const std::string &Tag);

private:
  bool lock(std::string &Err, bool Wait);
  void unlock();
  void cleanStale();
  bool finishManifest(int BuildFd, std::string &Err);

  std::string Target;   ///< as given
  std::string Real;     ///< its absolute path, symbolic links resolved
  std::string Parent;   ///< Real's directory
  std::string Base;     ///< Real's name
  std::string Build;    ///< the build directory
  std::string LockPath; ///< the lock file
  int LockFd = -1, ManifestFd = -1;
  bool Exists = false, Done = false;
  std::vector<std::string> Keep, Earlier, Claimed, Replaced;
};

/// Removes Path, recursively when it is a directory, by directory
/// descriptor: a symbolic link is removed, never followed. False and Err on
/// failure.
bool removeTree(const std::string &Path, std::string &Err);

} // namespace gcg

#endif

//===- OutputDir.cpp - grainchunk-graph's -o directory, kept safe ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See OutputDir.h. The manifest's first line names the command; the others
// are the names it wrote, each one path component (a manifest naming
// anything else is not ours, and nothing it lists is removed).
//
//===----------------------------------------------------------------------===//
#include "OutputDir.h"

#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace gcg {

namespace {
const char *const Manifest = ".grainchunk-graph";
const char *const ManifestHead =
    "# grainchunk-graph result: the files it wrote "
    "here (replaced by its next run)";

std::string why(int E) { return std::strerror(E); }

bool isName(const std::string &N) {
  return !N.empty() && N != "." && N != ".." &&
         N.find('/') == std::string::npos && N != Manifest;
}

/// mkdir -p.
bool makeDirs(const std::string &Dir, std::string &Err) {
  std::string Cur;
  size_t I = 0;
  while (I <= Dir.size()) {
    size_t J = Dir.find('/', I);
    if (J == std::string::npos)
      J = Dir.size();
    Cur = Dir.substr(0, J);
    I = J + 1;
    if (Cur.empty() || Cur == "." || Cur == "..")
      continue;
    if (::mkdir(Cur.c_str(), 0777) == 0 || errno == EEXIST)
      continue;
    Err = "cannot create the output directory " + Dir + ": " + Cur + ": " +
          why(errno);
    return false;
  }
  return true;
}

/// The names a manifest lists; false when Dir has no readable manifest of
/// ours.
bool readManifest(const std::string &Dir, std::vector<std::string> &Names) {
  std::ifstream In(Dir + "/" + Manifest);
  std::string Line;
  if (!In || !std::getline(In, Line) || Line != ManifestHead)
    return false;
  while (std::getline(In, Line))
    if (isName(Line))
      Names.push_back(Line);
  return true;
}
} // namespace

const char *OutputDir::manifestName() { return Manifest; }

bool OutputDir::isResult(const std::string &Dir) {
  std::vector<std::string> Names;
  return readManifest(Dir, Names);
}

bool removeTree(const std::string &Path, std::string &Err) {
  struct stat St;
  if (::lstat(Path.c_str(), &St) != 0)
    return errno == ENOENT ? true : (Err = Path + ": " + why(errno), false);
  if (S_ISDIR(St.st_mode)) {
    DIR *D = ::opendir(Path.c_str());
    if (!D) {
      Err = "cannot remove " + Path + ": " + why(errno);
      return false;
    }
    std::vector<std::string> Kids;
    while (struct dirent *E = ::readdir(D))
      if (std::strcmp(E->d_name, ".") && std::strcmp(E->d_name, ".."))
        Kids.push_back(Path + "/" + E->d_name);
    ::closedir(D);
    for (const std::string &K : Kids)
      if (!removeTree(K, Err))
        return false;
    if (::rmdir(Path.c_str()) != 0) {
      Err = "cannot remove " + Path + ": " + why(errno);
      return false;
    }
    return true;
  }
  if (::unlink(Path.c_str()) != 0) {
    Err = "cannot remove " + Path + ": " + why(errno);
    return false;
  }
  return true;
}

OutputDir::~OutputDir() {
  if (ManifestFd >= 0)
    ::close(ManifestFd);
}

bool OutputDir::open(const std::string &D, std::string &Err,
                     const std::vector<std::string> &Keep) {
  Dir = D.empty() ? "." : D;
  while (Dir.size() > 1 && Dir.back() == '/')
    Dir.pop_back();
  std::vector<std::string> EarlierNames;
  struct stat St;
  if (::stat(Dir.c_str(), &St) != 0) {
    if (errno != ENOENT) {
      Err = "cannot use the output directory " + Dir + ": " + why(errno);
      return false;
    }
    if (!makeDirs(Dir, Err))
      return false;
  } else if (!S_ISDIR(St.st_mode)) {
    Err = "the output directory " + Dir +
          " exists and is not a directory: choose another -o";
    return false;
  } else {
    std::vector<std::string> &Earlier = EarlierNames;
    bool Ours = readManifest(Dir, Earlier);
    if (!Ours) {
      DIR *Dp = ::opendir(Dir.c_str());
      if (!Dp) {
        Err = "cannot read the output directory " + Dir + ": " + why(errno);
        return false;
      }
      // A directory holding only the recording being analysed (made with
      // GRAINCHUNK_RECORD_DIR, say) is fine: nothing in it is removed.
      std::string First;
      while (struct dirent *E = ::readdir(Dp)) {
        std::string N = E->d_name;
        if (N == "." || N == "..")
          continue;
        bool Kept = false;
        for (const std::string &K : Keep)
          Kept |= K == N;
        if (!Kept) {
          First = N;
          break;
        }
      }
      ::closedir(Dp);
      if (!First.empty()) {
        Err = "the output directory " + Dir + " is not empty (it holds " +
              First +
              ") and is not an earlier result of grainchunk-graph: choose "
              "an empty or new directory with -o (nothing was changed)";
        return false;
      }
    }
    if (::access(Dir.c_str(), W_OK | X_OK) != 0) {
      Err = "cannot write in the output directory " + Dir + ": " + why(errno);
      return false;
    }
    for (const std::string &N : Earlier) {
      bool Kept = false;
      for (const std::string &K : Keep)
        Kept |= K == N;
      if (Kept)
        continue;
      std::string Path = Dir + "/" + N;
      struct stat Ls;
      if (::lstat(Path.c_str(), &Ls) != 0)
        continue;
      if (!removeTree(Path, Err)) {
        Err = "cannot replace the earlier result in " + Dir + ": " + Err;
        return false;
      }
      Replaced.push_back(N);
    }
  }
  std::string M = Dir + "/" + Manifest;
  ManifestFd =
      ::open(M.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (ManifestFd < 0) {
    Err = "cannot write in the output directory " + Dir + ": " + why(errno);
    return false;
  }
  std::string Head = std::string(ManifestHead) + "\n";
  if (::write(ManifestFd, Head.data(), Head.size()) !=
      static_cast<ssize_t>(Head.size())) {
    Err = "cannot write in the output directory " + Dir + ": " + why(errno);
    return false;
  }
  // A kept recording the earlier result wrote stays the command's to
  // replace later; one the user made stays the user's.
  for (const std::string &K : Keep)
    for (const std::string &N : EarlierNames)
      if (K == N && !claim(K, Err))
        return false;
  return true;
}

bool OutputDir::claim(const std::string &Name, std::string &Err) {
  if (!isName(Name)) {
    Err = "internal error: output name " + Name + " is not a file name";
    return false;
  }
  for (const std::string &C : Claimed)
    if (C == Name)
      return true;
  std::string Line = Name + "\n";
  if (ManifestFd < 0 || ::write(ManifestFd, Line.data(), Line.size()) !=
                            static_cast<ssize_t>(Line.size())) {
    Err = "cannot write in the output directory " + Dir + ": " +
          why(ManifestFd < 0 ? EBADF : errno);
    return false;
  }
  Claimed.push_back(Name);
  return true;
}

std::string OutputDir::path(const std::string &Name) const {
  return Dir + "/" + Name;
}

} // namespace gcg

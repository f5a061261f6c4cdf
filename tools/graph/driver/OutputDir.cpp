//===- OutputDir.cpp - grainchunk-graph's -o directory, kept safe ---------===//
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
// See OutputDir.h. The manifest's first line names the command; the others
// are the names it wrote, each one path component (a manifest naming
// anything else is not ours, and nothing it lists is removed). Every file
// operation on the output directory and the build directory goes through a
// directory descriptor opened with O_NOFOLLOW, or is a rename or unlink of
// one name (which never follows a link).
//
//===----------------------------------------------------------------------===//
#include "OutputDir.h"
#include "Recording.h" // printable()

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <set>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gcg {

namespace {
const char *const Manifest = ".grainchunk-graph";
const char *const ManifestHead =
    "# grainchunk-graph result: the files it wrote "
    "here (replaced by its next run)";
const char *const Mark = ".grainchunk-graph.";

std::string why(int E) { return std::strerror(E); }

bool isName(const std::string &N) {
  return !N.empty() && N != "." && N != ".." &&
         N.find('/') == std::string::npos && N != Manifest;
}

/// A path inside a directory of the result: name/name..., no . or ..
bool isInside(const std::string &P) {
  if (P.find('/') == std::string::npos)
    return false;
  for (size_t I = 0; I <= P.size();) {
    size_t E = P.find('/', I);
    if (E == std::string::npos)
      E = P.size();
    if (!isName(P.substr(I, E - I)))
      return false;
    I = E + 1;
  }
  return true;
}

bool has(const std::vector<std::string> &V, const std::string &N) {
  return std::find(V.begin(), V.end(), N) != V.end();
}

/// mkdir -p.
bool makeDirs(const std::string &Dir, const std::string &Shown,
              std::string &Err) {
  size_t I = 0;
  while (I <= Dir.size()) {
    size_t J = Dir.find('/', I);
    if (J == std::string::npos)
      J = Dir.size();
    std::string Cur = Dir.substr(0, J);
    I = J + 1;
    if (Cur.empty() || Cur == "." || Cur == "..")
      continue;
    if (::mkdir(Cur.c_str(), 0777) == 0 || errno == EEXIST)
      continue;
    Err = "cannot create the output directory " + Shown + ": " + Cur + ": " +
          why(errno);
    return false;
  }
  return true;
}

/// The names in the directory open as Fd ("." and ".." left out).
bool listAt(int Fd, std::vector<std::string> &Names) {
  int Dup = ::fcntl(Fd, F_DUPFD_CLOEXEC, 0);
  DIR *D = Dup >= 0 ? ::fdopendir(Dup) : nullptr;
  if (!D) {
    if (Dup >= 0)
      ::close(Dup);
    return false;
  }
  ::rewinddir(D);
  while (struct dirent *E = ::readdir(D))
    if (std::strcmp(E->d_name, ".") && std::strcmp(E->d_name, ".."))
      Names.push_back(E->d_name);
  ::closedir(D);
  return true;
}

/// Removes Name in the directory Fd, recursively, never following a link.
bool removeAt(int Fd, const std::string &Name, const std::string &Shown,
              std::string &Err) {
  if (::unlinkat(Fd, Name.c_str(), 0) == 0 || errno == ENOENT)
    return true;
  if (errno != EISDIR && errno != EPERM) {
    Err = "cannot remove " + Shown + ": " + why(errno);
    return false;
  }
  int Sub = ::openat(Fd, Name.c_str(),
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (Sub < 0) {
    Err = "cannot remove " + Shown + ": " + why(errno);
    return false;
  }
  std::vector<std::string> Kids;
  bool Ok = listAt(Sub, Kids);
  for (size_t I = 0; Ok && I < Kids.size(); ++I)
    Ok = removeAt(Sub, Kids[I], Shown + "/" + Kids[I], Err);
  ::close(Sub);
  if (!Ok)
    return Err.empty() ? (Err = "cannot read " + Shown, false) : false;
  if (::unlinkat(Fd, Name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    Err = "cannot remove " + Shown + ": " + why(errno);
    return false;
  }
  return true;
}

/// The names the manifest in the directory Fd lists; false when it has no
/// manifest of ours. Read without following a link, at most 16 MiB.
bool readManifestAt(int Fd, std::vector<std::string> &Names,
                    std::set<std::string> *Inside = nullptr) {
  int M =
      ::openat(Fd, Manifest, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (M < 0)
    return false;
  struct stat St;
  std::string Text;
  if (::fstat(M, &St) == 0 && S_ISREG(St.st_mode)) {
    char Buf[65536];
    ssize_t N;
    while (Text.size() < (16u << 20) && (N = ::read(M, Buf, sizeof Buf)) > 0)
      Text.append(Buf, size_t(N));
  }
  ::close(M);
  size_t Nl = Text.find('\n');
  if (Nl == std::string::npos || Text.compare(0, Nl, ManifestHead) != 0)
    return false;
  for (size_t I = Nl + 1; I < Text.size();) {
    size_t E = Text.find('\n', I);
    if (E == std::string::npos)
      break; // a line cut short: not a name the command finished claiming
    std::string Line = Text.substr(I, E - I);
    if (isName(Line) && !has(Names, Line))
      Names.push_back(Line);
    else if (Inside && isInside(Line))
      Inside->insert(Line);
    I = E + 1;
  }
  return true;
}

int openDir(const std::string &Path) {
  return ::open(Path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/// Removes what the manifest in directory Path lists, the manifest, and
/// the directory when that leaves it empty. True when Path is gone.
bool removeListed(const std::string &Path) {
  int Fd = openDir(Path);
  if (Fd < 0)
    return errno == ENOENT;
  std::vector<std::string> Names;
  if (readManifestAt(Fd, Names)) {
    std::string Err;
    bool Ok = true;
    for (const std::string &N : Names)
      Ok &= removeAt(Fd, N, Path + "/" + N, Err);
    if (Ok)
      ::unlinkat(Fd, Manifest, 0);
  }
  ::close(Fd);
  return ::rmdir(Path.c_str()) == 0;
}

/// Every path inside the directory Name of directory Fd, as Name/...
/// (directories too), without following links.
void walkAt(int Fd, const std::string &Name, const std::string &Rel,
            std::vector<std::string> &Out, int Depth = 0) {
  int Sub = ::openat(Fd, Name.c_str(),
                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (Sub < 0)
    return;
  std::vector<std::string> Kids;
  listAt(Sub, Kids);
  for (const std::string &K : Kids) {
    Out.push_back(Rel + "/" + K);
    if (Depth < 32)
      walkAt(Sub, K, Rel + "/" + K, Out, Depth + 1);
  }
  ::close(Sub);
}

std::string lastName(const std::string &P) {
  return P.substr(P.rfind('/') + 1);
}
} // namespace

const char *OutputDir::manifestName() { return Manifest; }

bool OutputDir::isResult(const std::string &Dir) {
  int Fd = openDir(Dir);
  if (Fd < 0)
    return false;
  std::vector<std::string> Names;
  bool R = readManifestAt(Fd, Names);
  ::close(Fd);
  return R;
}

bool removeTree(const std::string &Path, std::string &Err) {
  std::string P = Path;
  while (P.size() > 1 && P.back() == '/')
    P.pop_back();
  size_t S = P.rfind('/');
  std::string Dir = S == std::string::npos ? "."
                    : S == 0               ? "/"
                                           : P.substr(0, S);
  int Fd = ::open(Dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (Fd < 0) {
    if (errno == ENOENT)
      return true;
    Err = "cannot remove " + Path + ": " + why(errno);
    return false;
  }
  bool Ok = removeAt(Fd, lastName(P), Path, Err);
  ::close(Fd);
  return Ok;
}

std::string OutputDir::buildPath(const std::string &Dir,
                                 const std::string &Tag) {
  std::string D = Dir.empty() ? "." : Dir;
  while (D.size() > 1 && D.back() == '/')
    D.pop_back();
  char B[PATH_MAX];
  std::string Real = ::realpath(D.c_str(), B) ? std::string(B) : D;
  if (Real.empty() || Real[0] != '/') {
    // Missing: its parent resolved, its own name kept.
    size_t S = D.rfind('/');
    std::string Par = S == std::string::npos ? "."
                      : S == 0               ? "/"
                                             : D.substr(0, S);
    std::string Rp = ::realpath(Par.c_str(), B) ? std::string(B) : Par;
    Real = (Rp == "/" ? "" : Rp) + "/" + lastName(D);
  }
  size_t S = Real.rfind('/');
  return Real.substr(0, S == 0 ? 1 : S) + (S == 0 ? "" : "/") + "." +
         Real.substr(S + 1) + Mark + Tag;
}

OutputDir::~OutputDir() {
  if (ManifestFd >= 0)
    ::close(ManifestFd);
  if (!Done && !Build.empty())
    removeListed(Build);
  unlock();
}

bool OutputDir::lock(std::string &Err, bool Wait) {
  for (;;) {
    LockFd =
        ::open(LockPath.c_str(),
               O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0644);
    if (LockFd < 0) {
      Err = "cannot create the output directory " + Target + ": " + Target +
            ": " + why(errno) + " (cannot make its lock file " + LockPath + ")";
      return false;
    }
    if (::flock(LockFd, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) {
        Err = "cannot lock " + LockPath + ": " + why(errno);
        ::close(LockFd);
        LockFd = -1;
        return false;
      }
      char Pid[32] = {0};
      (void)!::pread(LockFd, Pid, sizeof Pid - 1, 0);
      Pid[std::strcspn(Pid, "\n")] = 0;
      std::string Who = *Pid ? std::string(" (pid ") + Pid + ")" : "";
      if (!Wait) {
        Err = "another grainchunk-graph run" + Who + " is writing " + Target +
              ": wait for it, or give --wait-lock to wait (nothing was "
              "changed)";
        ::close(LockFd); // not ours: left in place
        LockFd = -1;
        return false;
      }
      std::fprintf(stderr,
                   "grainchunk-graph: waiting for another run%s writing %s\n",
                   Who.c_str(), printable(Target).c_str());
      if (::flock(LockFd, LOCK_EX) != 0) {
        Err = "cannot lock " + LockPath + ": " + why(errno);
        ::close(LockFd);
        LockFd = -1;
        return false;
      }
    }
    // The file locked must still be the one at LockPath: a run that
    // finished removes it (while holding the lock).
    struct stat A, B;
    if (::fstat(LockFd, &A) == 0 && ::lstat(LockPath.c_str(), &B) == 0 &&
        A.st_dev == B.st_dev && A.st_ino == B.st_ino)
      break;
    ::close(LockFd);
    LockFd = -1;
  }
  std::string Pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(LockFd, 0) == 0)
    (void)!::pwrite(LockFd, Pid.data(), Pid.size(), 0);
  return true;
}

void OutputDir::unlock() {
  if (LockFd < 0)
    return;
  ::unlink(LockPath.c_str());
  ::close(LockFd);
  LockFd = -1;
}

void OutputDir::cleanStale() {
  int Fd = openDir(Parent);
  if (Fd < 0)
    return;
  std::vector<std::string> Names;
  listAt(Fd, Names);
  ::close(Fd);
  std::string Prefix = "." + Base + Mark;
  for (const std::string &N : Names)
    if (N.compare(0, Prefix.size(), Prefix) == 0 &&
        N.size() > Prefix.size() + 4 && N != Prefix + "lock")
      removeListed(Parent + "/" + N);
}

bool OutputDir::open(const std::string &D, std::string &Err, const Config &C) {
  Target = D.empty() ? "." : D;
  while (Target.size() > 1 && Target.back() == '/')
    Target.pop_back();
  Keep = C.Keep;
  struct stat St;
  if (::stat(Target.c_str(), &St) != 0) {
    if (errno != ENOENT) {
      Err = "cannot use the output directory " + Target + ": " + why(errno);
      return false;
    }
    size_t S = Target.rfind('/');
    if (S != std::string::npos && S > 0 &&
        !makeDirs(Target.substr(0, S), Target, Err))
      return false;
  } else if (!S_ISDIR(St.st_mode)) {
    Err = "the output directory " + Target +
          " exists and is not a directory: choose another -o";
    return false;
  }
  Build =
      buildPath(Target, C.BuildTag.empty() ? "new-" + std::to_string(::getpid())
                                           : C.BuildTag);
  size_t S = Build.rfind('/');
  Parent = S == 0 ? "/" : Build.substr(0, S);
  std::string BName = Build.substr(S + 1);
  Base = BName.substr(1, BName.find(Mark, 1) - 1);
  Real = (Parent == "/" ? "" : Parent) + "/" + Base;
  if (Base.empty() || Base == "." || Base == "..") {
    Err =
        "cannot use " + Target + " as the output directory: choose another -o";
    Build.clear();
    return false;
  }
  LockPath = (Parent == "/" ? "" : Parent) + "/." + Base + Mark + "lock";
  std::string Made = Build;
  Build.clear(); // nothing of ours to remove until it is made
  if (!lock(Err, C.WaitLock))
    return false;
  // A refused run releases the lock at once.
  struct Release {
    OutputDir *O;
    bool Armed = true;
    ~Release() {
      if (Armed)
        O->unlock();
    }
  } Guard{this};
  cleanStale();
  int Fd = openDir(Real);
  Exists = Fd >= 0;
  if (!Exists && errno != ENOENT) {
    Err = (errno == ELOOP ? "the output directory " + Target +
                                " is a symbolic link: give the directory "
                                "it points to"
                          : "cannot use the output directory " + Target + ": " +
                                why(errno));
    return false;
  }
  if (Exists) {
    std::set<std::string> Inside;
    bool Ours = readManifestAt(Fd, Earlier, &Inside);
    // A directory the earlier result wrote (its recording, the OTF2
    // archive) holding a file it did not write: refused, not removed. A
    // manifest listing no path inside is an older command's: not checked.
    for (const std::string &N : Earlier) {
      if (has(Keep, N) || Inside.empty())
        continue;
      std::vector<std::string> Paths;
      walkAt(Fd, N, N, Paths);
      for (const std::string &P : Paths)
        if (!Inside.count(P)) {
          Err = "the output directory " + Target + " holds " + P +
                ", which grainchunk-graph did not write, inside " + N +
                "/ of its earlier result: move it away or choose another -o "
                "(nothing was changed)";
          ::close(Fd);
          return false;
        }
    }
    std::vector<std::string> Names;
    if (!listAt(Fd, Names)) {
      Err = "cannot read the output directory " + Target + ": " + why(errno);
      ::close(Fd);
      return false;
    }
    ::close(Fd);
    std::sort(Names.begin(), Names.end());
    for (const std::string &N : Names) {
      if (N == Manifest || has(Earlier, N))
        continue;
      // A directory holding only the recording being analysed (made with
      // GRAINCHUNK_RECORD_DIR, say) is fine: it stays as it is.
      if (!Ours && !has(Keep, N)) {
        Err = "the output directory " + Target + " is not empty (it holds " +
              N +
              ") and is not an earlier result of grainchunk-graph: choose "
              "an empty or new directory with -o (nothing was changed)";
        return false;
      }
      if (has(C.Writes, N) && !has(Keep, N)) {
        Err = "the output directory " + Target + " holds " + N +
              ", which grainchunk-graph did not write and would write now: "
              "move it away or choose another -o (nothing was changed)";
        return false;
      }
    }
    if (::access(Real.c_str(), W_OK | X_OK) != 0) {
      Err =
          "cannot write in the output directory " + Target + ": " + why(errno);
      return false;
    }
  }
  if (::mkdir(Made.c_str(), 0700) != 0) {
    Err = "cannot create the output directory " + Target + ": " + Target +
          ": " + why(errno);
    return false;
  }
  Build = Made;
  int B = openDir(Build);
  ManifestFd =
      B < 0 ? -1
            : ::openat(B, Manifest,
                       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                       0644);
  if (B >= 0)
    ::close(B);
  std::string Head = std::string(ManifestHead) + "\n";
  if (ManifestFd < 0 || ::write(ManifestFd, Head.data(), Head.size()) !=
                            static_cast<ssize_t>(Head.size())) {
    Err = "cannot write in the output directory " + Target + ": " + why(errno);
    return false;
  }
  // A kept recording the earlier result wrote stays the command's to
  // replace later; one the user made stays the user's.
  for (const std::string &K : Keep)
    if (has(Earlier, K) && !claim(K, Err))
      return false;
  Guard.Armed = false;
  return true;
}

bool OutputDir::claim(const std::string &Name, std::string &Err) {
  if (!isName(Name)) {
    Err = "internal error: output name " + Name + " is not a file name";
    return false;
  }
  if (has(Claimed, Name))
    return true;
  std::string Line = Name + "\n";
  if (ManifestFd < 0 || ::write(ManifestFd, Line.data(), Line.size()) !=
                            static_cast<ssize_t>(Line.size())) {
    Err = "cannot write in the output directory " + Target + ": " +
          why(ManifestFd < 0 ? EBADF : errno);
    return false;
  }
  Claimed.push_back(Name);
  return true;
}

std::string OutputDir::path(const std::string &Name) const {
  return Build + "/" + Name;
}

std::string OutputDir::shownPath(const std::string &Name) const {
  return Target + "/" + Name;
}

std::string OutputDir::shown(std::string Text) const {
  if (Build.empty())
    return Text;
  auto replace = [&Text](const std::string &From, const std::string &To) {
    for (size_t P = 0; (P = Text.find(From, P)) != std::string::npos;) {
      Text.replace(P, From.size(), To);
      P += To.size();
    }
  };
  replace(Build, Target);
  // As an Error's text has it (printable(): a newline in it as \x0a).
  std::string Escaped = printable(Build);
  if (Escaped != Build)
    replace(Escaped, printable(Target));
  return Text;
}

bool OutputDir::commit(std::string &Err) {
  if (Done || Build.empty()) {
    Err = "internal error: no result to put in place";
    return false;
  }
  mode_t Mask = ::umask(0);
  ::umask(Mask);
  ::chmod(Build.c_str(), 0777 & ~Mask);
  if (!Exists) {
    int BFd = openDir(Build);
    bool Ok = BFd >= 0 && finishManifest(BFd, Err);
    if (BFd >= 0)
      ::close(BFd);
    if (!Ok)
      return false;
    if (::rename(Build.c_str(), Real.c_str()) != 0) {
      Err = "cannot put the result in place at " + Target + ": " + why(errno) +
            " (it is in " + Build + ")";
      Done = true; // kept where it is, for the user
      return false;
    }
    Done = true;
    return true;
  }
  int DFd = openDir(Real), BFd = openDir(Build);
  if (DFd < 0 || BFd < 0) {
    Err = "cannot put the result in place at " + Target + ": " + why(errno);
    if (DFd >= 0)
      ::close(DFd);
    if (BFd >= 0)
      ::close(BFd);
    return false;
  }
  // The recordings analysed again, then the user's files, into the new
  // result; on a failure, back where they were.
  std::vector<std::string> Names, Moved;
  listAt(DFd, Names);
  std::sort(Names.begin(), Names.end());
  bool Ok = true;
  for (const std::string &N : Names) {
    if (N == Manifest || (has(Earlier, N) && !has(Keep, N)))
      continue;
    if (::renameat2(DFd, N.c_str(), BFd, N.c_str(), RENAME_NOREPLACE) == 0) {
      Moved.push_back(N);
      continue;
    }
    if (has(Earlier, N))
      continue; // the new result has its own
    Err = "cannot keep " + Target + "/" + N +
          " in the new result: " + why(errno) + " (nothing was changed)";
    Ok = false;
    break;
  }
  if (Ok && !finishManifest(BFd, Err))
    Ok = false;
  if (Ok && ::renameat2(AT_FDCWD, Build.c_str(), AT_FDCWD, Real.c_str(),
                        RENAME_EXCHANGE) != 0) {
    // No atomic swap on this file system: the earlier result aside, then
    // the new one in its place.
    int E = errno;
    std::string Aside = Build + "-old";
    if ((E == EINVAL || E == ENOSYS) &&
        ::rename(Real.c_str(), Aside.c_str()) == 0) {
      if (::rename(Build.c_str(), Real.c_str()) == 0 &&
          ::rename(Aside.c_str(), Build.c_str()) == 0) {
        E = 0;
      } else {
        E = errno;
        ::rename(Aside.c_str(), Real.c_str());
      }
    }
    if (E) {
      Err = "cannot put the result in place at " + Target + ": " + why(E) +
            " (nothing was changed)";
      Ok = false;
    }
  }
  if (!Ok) {
    for (const std::string &N : Moved)
      ::renameat2(BFd, N.c_str(), DFd, N.c_str(), RENAME_NOREPLACE);
    ::close(DFd);
    ::close(BFd);
    return false;
  }
  ::close(DFd);
  ::close(BFd);
  Done = true;
  // Build now holds the earlier result: what its manifest lists goes.
  for (const std::string &N : Earlier)
    if (!has(Moved, N))
      Replaced.push_back(N);
  if (!removeListed(Build)) {
    // Something appeared in the output directory during the run, after its
    // files were moved: kept beside it.
    std::string Left = Real + ".left-" + std::to_string(::getpid());
    if (::rename(Build.c_str(), Left.c_str()) == 0)
      std::fprintf(stderr,
                   "grainchunk-graph: files that appeared in %s during the "
                   "run are in %s\n",
                   printable(Target).c_str(), printable(Left).c_str());
  }
  return true;
}

bool OutputDir::finishManifest(int BFd, std::string &Err) {
  // The manifest as the result stands: the names claimed that exist, and
  // every path inside the directories among them.
  // (Names may have been claimed by another process, the analysis: the
  // manifest written so far has them all.)
  std::string Text = std::string(ManifestHead) + "\n";
  std::vector<std::string> Names = Claimed;
  readManifestAt(BFd, Names);
  for (const std::string &N : Names) {
    struct stat St;
    if (::fstatat(BFd, N.c_str(), &St, AT_SYMLINK_NOFOLLOW) != 0)
      continue;
    Text += N + "\n";
    if (S_ISDIR(St.st_mode)) {
      std::vector<std::string> Paths;
      walkAt(BFd, N, N, Paths);
      for (const std::string &P : Paths)
        if (isInside(P))
          Text += P + "\n";
    }
  }
  if (ManifestFd < 0 || ::ftruncate(ManifestFd, 0) != 0 ||
      ::pwrite(ManifestFd, Text.data(), Text.size(), 0) !=
          static_cast<ssize_t>(Text.size())) {
    Err = "cannot write in the output directory " + Target + ": " +
          why(ManifestFd < 0 ? EBADF : errno);
    return false;
  }
  return true;
}

bool OutputDir::abandon(std::string &Err, const std::string &Name,
                        std::string &Kept) {
  if (Done || Build.empty())
    return true;
  Kept.clear();
  if (!Name.empty()) {
    struct stat St;
    std::string From = path(Name);
    if (::lstat(From.c_str(), &St) == 0 && S_ISDIR(St.st_mode)) {
      std::string To = Real + "." + Name + "-" + std::to_string(::getpid());
      if (::rename(From.c_str(), To.c_str()) == 0)
        Kept = To;
    }
  }
  if (ManifestFd >= 0)
    ::close(ManifestFd);
  ManifestFd = -1;
  Done = true;
  bool Ok = removeListed(Build);
  unlock();
  if (!Ok) {
    Err = "cannot remove " + Build + ": " + why(errno);
    return false;
  }
  return true;
}

} // namespace gcg

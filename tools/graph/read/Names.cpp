// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Names.cpp - code pointers and compiler-made names to user names ----===//
//
// The code's names: the maps of the process, the user's function of a code
// address, C++ and Fortran names (see Names.h). The regular expressions run
// once per distinct name, never per grain.
//
//===----------------------------------------------------------------------===//
#include "Names.h"
#include "Recording.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gcg {

std::string hexStr(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  return b;
}

std::string baseName(const std::string &p) {
  size_t s = p.rfind('/');
  return s == std::string::npos ? p : p.substr(s + 1);
}

static bool endsWith(const std::string &s, const std::string &x) {
  return s.size() >= x.size() &&
         s.compare(s.size() - x.size(), x.size(), x) == 0;
}
static bool startsWith(const std::string &s, const std::string &x) {
  return s.compare(0, x.size(), x) == 0;
}

// Functions the compiler made for a construct, and what is left of the
// user's function in their names. Clang 14: .omp_outlined., .omp_outlined..N,
// .omp_outlined._debug__(.N) (no user function in the name); Clang 15+:
// <fn>.omp_outlined(.N), <fn>.omp_outlined_debug__, nested:
// <fn>.omp_outlined_debug__.omp_outlined (C++: <mangled>.omp_outlined...,
// demangled as "<fn>(<args>) [clone .omp_outlined]"); target regions run on
// the host: __omp_offloading_<dev>_<file>_<mangled fn>_l<line>(_debug__);
// task entries: .omp_task_entry.(.N). flang: <fn>..omp_par(.N).
static const std::regex &outlinedSuffix() {
  static const std::regex r(
      R"((\.omp_outlined|\.omp_task_entry|\.omp_task_privates_map|\.omp\.|_debug__|\.\.omp_par).*$)");
  return r;
}
static const std::regex &offload() {
  static const std::regex r(
      R"(^__omp_offloading_[0-9a-f]+_[0-9a-f]+_(.+)_l[0-9]+$)");
  return r;
}
static const std::regex &cloneRe() {
  static const std::regex r(R"(( \[clone [^\]]*\])+$)");
  return r;
}
static const std::regex &lambdaRe() {
  static const std::regex r(
      R"(::(\$_[0-9]+|\{lambda\([^)]*\)#[0-9]+\}|'lambda[0-9]*'\([^)]*\))::operator\(\)$)");
  return r;
}

std::string cxxName(std::string s) {
  static const std::regex quals(R"((\s*(const|volatile|&&|&|noexcept))+$)");
  s = std::regex_replace(s, quals, "");
  if (endsWith(s, ")")) { // the parameters: the last top-level (...) group
    int depth = 0;
    for (long i = long(s.size()) - 1; i >= 0; i--) {
      depth += s[i] == ')' ? 1 : s[i] == '(' ? -1 : 0;
      if (depth == 0) {
        s = s.substr(0, i);
        break;
      }
    }
  }
  int depth = 0;
  for (size_t i = 0; i < s.size();
       i++) { // a return type: up to a top-level space
    char ch = s[i];
    depth += (ch == '<' || ch == '(') ? 1 : (ch == '>' || ch == ')') ? -1 : 0;
    if (ch == ' ' && depth == 0 && !endsWith(s.substr(0, i), "operator")) {
      s = s.substr(i + 1);
      return endsWith(s, ")") ? cxxName(s) : cxxStrip(s);
    }
  }
  return cxxStrip(s);
}

std::string cxxStrip(std::string s) {
  static const std::regex op(R"(operator\W*$)");
  if (endsWith(s, ">")) {
    size_t lt = s.find('<');
    // Python's s[:s.find("<")]: without a '<', all but the last character.
    std::string head =
        lt == std::string::npos ? s.substr(0, s.size() - 1) : s.substr(0, lt);
    if (!std::regex_search(head, op)) {
      int depth = 0;
      for (long i = long(s.size()) - 1; i >= 0; i--) {
        depth += s[i] == '>' ? 1 : s[i] == '<' ? -1 : 0;
        if (depth == 0) {
          s = s.substr(0, i);
          break;
        }
      }
    }
  }
  while (std::regex_search(s, lambdaRe()))
    s = std::regex_replace(s, lambdaRe(), "");
  return s;
}

std::string userFunction(std::string name) {
  name = std::regex_replace(std::regex_replace(name, cloneRe(), ""),
                            outlinedSuffix(), "",
                            std::regex_constants::format_first_only);
  std::smatch m;
  if (std::regex_match(name, m, offload()))
    name = m[1].str();
  return name.find('(') != std::string::npos ? cxxName(name) : name;
}

std::string fortranName(const std::string &n) {
  if (n == "_QQmain")
    return "main program";
  static const std::regex re(
      R"(^_Q(?:M([a-z0-9_$]+))?(?:F([a-z0-9_$]*))?P([a-z0-9_$]+)$)");
  std::smatch m;
  if (!std::regex_match(n, m, re))
    return n;
  std::string out;
  for (int i = 1; i <= 3; i++)
    if (m[i].matched && m[i].length()) {
      if (!out.empty())
        out += "::";
      out += m[i].str();
    }
  return out;
}

std::string which(const std::string &prog) {
  if (prog.find('/') != std::string::npos)
    return access(prog.c_str(), X_OK) == 0 ? prog : "";
  const char *path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string p = (dir.empty() ? "." : dir) + "/" + prog;
    struct stat st;
    if (stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
        access(p.c_str(), X_OK) == 0)
      return p;
  }
  return "";
}

bool runCapture(const std::vector<std::string> &argv, const std::string &input,
                std::string &out) {
  // The input goes through an unlinked temporary file, so that a large
  // input cannot deadlock against a large output; none (addr2line's
  // addresses are its arguments): /dev/null, no file made.
  // Without /dev/null (a bare container), an empty temporary file.
  int in = input.empty() ? open("/dev/null", O_RDONLY | O_CLOEXEC) : -1;
  if (in < 0) {
    char tmpl[] = "/tmp/grainchunk-graph.XXXXXX";
    in = mkostemp(tmpl, O_CLOEXEC);
    if (in < 0)
      return false;
    unlink(tmpl);
    if (!input.empty() &&
        write(in, input.data(), input.size()) != ssize_t(input.size())) {
      close(in);
      return false;
    }
    lseek(in, 0, SEEK_SET);
  }
  // Close-on-exec: a command run by another thread (processes are
  // analysed in parallel) must not hold this one's pipe open.
  int pfd[2];
  if (pipe2(pfd, O_CLOEXEC) != 0) {
    close(in);
    return false;
  }
  // Started with posix_spawn, not fork: the analysis holds its tables by
  // then, and a fork would copy their page tables and leave every page
  // this process writes afterwards to fault once more (copy on write).
  std::vector<char *> args;
  for (const std::string &a : argv)
    args.push_back(const_cast<char *>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  pid_t pid = -1;
  int err = posix_spawn_file_actions_init(&fa);
  if (!err) {
    err = posix_spawn_file_actions_adddup2(&fa, in, 0);
    if (!err)
      err = posix_spawn_file_actions_adddup2(&fa, pfd[1], 1);
    if (!err)
      err = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    if (!err)
      err = posix_spawn(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
  }
  if (err) {
    close(in);
    close(pfd[0]);
    close(pfd[1]);
    return false;
  }
  close(in);
  close(pfd[1]);
  char b[65536];
  ssize_t n;
  while ((n = read(pfd[0], b, sizeof b)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      out.append(b, n);
  close(pfd[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static std::vector<std::string> splitLines(const std::string &s) {
  // Python's str.split("\n").
  std::vector<std::string> v;
  size_t b = 0;
  for (;;) {
    size_t e = s.find('\n', b);
    if (e == std::string::npos) {
      v.push_back(s.substr(b));
      return v;
    }
    v.push_back(s.substr(b, e - b));
    b = e + 1;
  }
}

std::vector<std::string> demangle(std::vector<std::string> out) {
  std::vector<size_t> mangled;
  for (size_t i = 0; i < out.size(); i++)
    if (startsWith(out[i], "_Z"))
      mangled.push_back(i);
  std::string tool = mangled.empty() ? "" : which("c++filt");
  if (!tool.empty()) {
    std::string input, res;
    for (size_t j = 0; j < mangled.size(); j++)
      input += (j ? "\n" : "") + out[mangled[j]];
    if (runCapture({tool}, input, res) || !res.empty()) {
      std::vector<std::string> lines = splitLines(res);
      for (size_t j = 0; j < mangled.size() && j < lines.size(); j++) {
        const std::string &d = lines[j];
        if (!d.empty() && d != out[mangled[j]])
          out[mangled[j]] = cxxName(d);
      }
    }
  }
  for (std::string &n : out)
    if (startsWith(n, "_Q"))
      n = fortranName(n);
  return out;
}

static bool isDigits(const std::string &s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return c >= '0' && c <= '9'; });
}

/// A Fortran external procedure's name as its source spells it: flang
/// (like gfortran) appends one underscore to it for the linker
/// (initialize_ for `subroutine initialize`); module procedures and the
/// main program have _Q names (fortranName). Only for a Fortran file.
static std::string fortranExternal(const std::string &fn,
                                   const std::string &file) {
  static const std::regex fortranFile(
      R"(.*\.(f|for|ftn|fpp|f77|f90|f95|f03|f08|F|FOR|FTN|FPP|F77|F90|F95|F03|F08)$)");
  static const std::regex linkName(R"([A-Za-z][A-Za-z0-9_]*_)");
  if (fn.size() > 1 && fn.back() == '_' && std::regex_match(fn, linkName) &&
      std::regex_match(file, fortranFile))
    return fn.substr(0, fn.size() - 1);
  return fn;
}

std::pair<std::string, std::string> psourceLocation(const std::string &s) {
  std::vector<std::string> parts;
  size_t b = 0;
  for (;;) {
    size_t e = s.find(';', b);
    parts.push_back(
        s.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos)
      break;
    b = e + 1;
  }
  if (parts.size() >= 5 && isDigits(parts[3]))
    return {fortranExternal(demangle({userFunction(parts[2])})[0], parts[1]),
            baseName(parts[1]) + ":" + parts[3]};
  return {"?", s};
}

Maps::Maps(const std::string &path) {
  // A regular file of at most MapsMaxBytes, else no names (a FIFO is not
  // waited on, a huge file not read).
  std::string text, why;
  if (!readSmallFile(path, MapsMaxBytes, text, why))
    text.clear();
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    // address perms offset dev inode [path: the rest of the line, which
    // may hold spaces]
    std::istringstream ls(line);
    std::string addr, perms, off, dev, inode;
    if (!(ls >> addr >> perms >> off >> dev >> inode))
      continue;
    std::string obj;
    std::getline(ls, obj);
    size_t b = obj.find_first_not_of(" \t");
    if (b == std::string::npos)
      continue;
    obj = obj.substr(b);
    while (!obj.empty() && (obj.back() == ' ' || obj.back() == '\r'))
      obj.pop_back();
    size_t dash = addr.find('-');
    if (dash == std::string::npos)
      continue;
    uint64_t lo = std::strtoull(addr.substr(0, dash).c_str(), nullptr, 16);
    uint64_t hi = std::strtoull(addr.substr(dash + 1).c_str(), nullptr, 16);
    if (std::strtoull(off.c_str(), nullptr, 16) == 0 && !bases.count(obj))
      bases[obj] = lo; // the object's load base
    if (perms.find('x') != std::string::npos)
      ranges.push_back({lo, hi, obj});
  }
  std::sort(ranges.begin(), ranges.end());
}

void Maps::resolve(const std::vector<uint64_t> &ptrs) {
  std::map<std::string, std::vector<std::pair<uint64_t, uint64_t>>> byObj;
  std::vector<std::string> order; // objects in the order first met
  for (uint64_t p : ptrs) {
    if (!p || cache.count(p))
      continue;
    for (const Range &r : ranges)
      if (r.lo <= p && p < r.hi) {
        auto b = bases.find(r.obj);
        if (b != bases.end()) {
          auto &v = byObj[r.obj];
          if (v.empty())
            order.push_back(r.obj);
          if (std::find_if(v.begin(), v.end(),
                           [&](auto &x) { return x.first == p; }) == v.end())
            v.push_back({p, p - b->second});
        }
        break;
      }
  }
  const std::string &tool = addr2line;
  for (const std::string &obj : order) {
    auto &items = byObj[obj];
    std::vector<std::pair<std::string, std::string>> names(items.size(),
                                                           {"?", "?"});
    if (!tool.empty()) {
      std::vector<std::string> argv = {tool, "-f", "-C", "-e", obj};
      // codeptr_ra is a return address: ask for the call (p-1).
      for (auto &it : items)
        argv.push_back(hexStr(it.second ? it.second - 1 : 0));
      std::string res;
      runCapture(argv, "", res);
      std::vector<std::string> lines = splitLines(res);
      if (lines.size() >= 2 * items.size())
        for (size_t k = 0; k < items.size(); k++)
          names[k] = {lines[2 * k], lines[2 * k + 1]};
    }
    std::vector<std::string> fns;
    for (auto &n : names)
      fns.push_back(n.first != "??" ? userFunction(n.first) : "?");
    fns = demangle(fns);
    std::string base = baseName(obj);
    for (size_t k = 0; k < items.size(); k++) {
      std::string loc = names[k].second;
      loc = loc.substr(0, loc.find(' '));
      // flang names an object's file symbol after its module, "FIRModule":
      // without a line that names no file either.
      if (startsWith(loc, "??") || startsWith(loc, "FIRModule:?")) {
        loc = base + "+" + hexStr(items[k].first - bases[obj]);
      } else {
        size_t c = loc.rfind(':');
        std::string f = c == std::string::npos ? "" : loc.substr(0, c);
        std::string line = c == std::string::npos ? loc : loc.substr(c + 1);
        loc = baseName(f) + ":" + line;
        fns[k] = fortranExternal(fns[k], f);
      }
      cache[items[k].first] = {fns[k], loc};
    }
  }
}

std::string Maps::where(uint64_t p) const {
  for (const Range &r : ranges)
    if (r.lo <= p && p < r.hi) {
      auto b = bases.find(r.obj);
      if (b != bases.end())
        return baseName(r.obj) + "+" + hexStr(p - b->second);
      break;
    }
  return hexStr(p);
}

bool Maps::hasLine(const std::string &loc) {
  // "file:123"; not "file:?", "file:0", "?", "object+0x1c4c" or "0x4011a0".
  size_t c = loc.rfind(':');
  if (c == std::string::npos || c + 1 == loc.size())
    return false;
  for (size_t i = c + 1; i < loc.size(); i++)
    if (loc[i] < '0' || loc[i] > '9')
      return false;
  return loc.compare(c + 1, std::string::npos, "0") != 0;
}

std::pair<std::string, std::string> Maps::get(uint64_t p) const {
  auto it = cache.find(p);
  if (it != cache.end())
    return it->second;
  return {"?", p ? hexStr(p) : "?"};
}

} // namespace gcg

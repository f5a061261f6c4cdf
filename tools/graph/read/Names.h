// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Names.h - code pointers and compiler-made names to user names ------===//
//
// maps.txt (where each object was loaded), addr2line and c++filt run as
// subprocesses (one batch per object file), and the rules that turn the
// names compilers give outlined regions, task entries and target regions
// back into the user's function as Clang's source locations name it.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_NAMES_H
#define GRAINCHUNK_GRAPH_NAMES_H

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gcg {

/// A demangled C++ function as Clang's source locations name it.
std::string cxxName(std::string s);
std::string cxxStrip(std::string s);
/// The user's function a compiler-made function belongs to ("" when its
/// name does not say: Clang 14's outlined functions).
std::string userFunction(std::string name);
/// Names with mangled C++ ones demangled (c++filt, one batch) and cut as
/// userFunction does; Fortran ones (flang) as in the source.
std::vector<std::string> demangle(std::vector<std::string> names);
std::string fortranName(const std::string &n);
/// ";file;function;line;column;;" -> (function, "file:line"), or ("?", s).
std::pair<std::string, std::string> psourceLocation(const std::string &s);
std::string hexStr(uint64_t v);
std::string baseName(const std::string &p);

/// Runs argv (argv[0] looked up in PATH), its stdin from the given text,
/// and returns its stdout; false when it could not run or failed.
bool runCapture(const std::vector<std::string> &argv, const std::string &input,
                std::string &out);
/// The program's path in PATH, or "".
std::string which(const std::string &prog);

/// Code pointers to (function, file:line) with addr2line, per object.
class Maps {
public:
  explicit Maps(const std::string &path);
  Maps() = default;
  void resolve(const std::vector<uint64_t> &ptrs);
  std::pair<std::string, std::string> get(uint64_t p) const;
  /// The code at p as "object+0xoffset" (what addr2line -e object takes),
  /// or its address when it is in no mapped object: a name of the code
  /// itself, for sites whose source names are not unique.
  std::string where(uint64_t p) const;
  /// Whether resolve() found addr2line (binutils) to run.
  bool canResolve() const { return !addr2line.empty(); }
  /// Whether a location get() gave names a source line.
  static bool hasLine(const std::string &loc);

private:
  struct Range {
    uint64_t lo, hi;
    std::string obj;
    bool operator<(const Range &o) const {
      return lo != o.lo ? lo < o.lo : (hi != o.hi ? hi < o.hi : obj < o.obj);
    }
  };
  std::vector<Range> ranges;
  std::map<std::string, uint64_t> bases;
  std::unordered_map<uint64_t, std::pair<std::string, std::string>> cache;
  std::string addr2line = which("addr2line");
};

} // namespace gcg

#endif

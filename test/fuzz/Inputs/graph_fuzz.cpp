// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- graph_fuzz.cpp - libFuzzer target over grainchunk-graph's reader ---===//
//
// One input is a recording packed into one file (pack_recording.py writes
// them from real recordings): entries, each "%%NAME\n" then its bytes up to
// the next "\n%%" (or the end). NAME is a file of the recording, one
// directory deep at most ("meta.txt", "thread-0.bin", "h.12/meta.txt"), 512
// files at most; a
// NAME ending in "|" is made a FIFO instead (no bytes). The input is
// unpacked into a fresh temporary directory, then analysed and written the
// way `grainchunk-graph --from-raw DIR -o OUT` does (all outputs and the
// problem graphs). A refusal (gcg::Error) is an expected end; any other
// exception, a crash or a sanitizer report is a finding.
//
// Built with -fsanitize=fuzzer,address,undefined (test/fuzz/CMakeLists.txt)
// and run by the fuzz-graph ctest test (run-graph-fuzz.sh).
//
//===----------------------------------------------------------------------===//
#include "Command.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

/// A name the fuzzer may make: [A-Za-z0-9._-] parts, at most two, neither
/// "." nor "..".
bool safeName(const std::string &n) {
  if (n.empty() || n.size() > 64)
    return false;
  int parts = 1;
  std::string part;
  for (char c : n + "/") {
    if (c == '/') {
      if (part.empty() || part == "." || part == ".." || ++parts > 3)
        return false;
      part.clear();
    } else if (isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
               c == '-') {
      part += c;
    } else {
      return false;
    }
  }
  return true;
}

void unpack(const uint8_t *data, size_t size, const std::string &dir) {
  std::string in(reinterpret_cast<const char *>(data), size);
  size_t at = in.compare(0, 2, "%%") == 0 ? 0 : in.find("\n%%");
  if (at == std::string::npos)
    return;
  if (at != 0)
    at++;
  for (int files = 0; at < in.size() && files < 512; files++) {
    size_t nl = in.find('\n', at);
    if (nl == std::string::npos)
      return;
    std::string name = in.substr(at + 2, nl - at - 2);
    size_t end = in.find("\n%%", nl + 1);
    if (end == std::string::npos)
      end = in.size();
    bool fifo = !name.empty() && name.back() == '|';
    if (fifo)
      name.pop_back();
    if (safeName(name)) {
      std::string path = dir + "/" + name;
      size_t slash = name.find('/');
      if (slash != std::string::npos)
        mkdir((dir + "/" + name.substr(0, slash)).c_str(), 0777);
      if (fifo) {
        mkfifo(path.c_str(), 0666);
      } else {
        std::ofstream f(path, std::ios::binary | std::ios::app);
        f.write(in.data() + nl + 1, std::streamsize(end - nl - 1));
      }
    }
    at = end + 1;
  }
}

/// The temporary directory inputs are unpacked and analysed in, removed at
/// exit.
struct Scratch {
  std::string root;
  Scratch() {
    const char *t = std::getenv("TMPDIR");
    std::string tmpl = std::string(t && *t ? t : "/tmp") + "/gcg-fuzz.XXXXXX";
    std::vector<char> b(tmpl.begin(), tmpl.end());
    b.push_back(0);
    if (!mkdtemp(b.data()))
      std::abort();
    root = b.data();
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static Scratch scratch;
  const std::string &root = scratch.root;
  std::string rec = root + "/rec", out = root + "/out";
  std::error_code ec;
  fs::remove_all(rec, ec);
  fs::remove_all(out, ec);
  mkdir(rec.c_str(), 0777);
  unpack(data, size, rec);
  std::vector<std::string> args = {
      "grainchunk-graph",
      "--from-raw",
      rec,
      "-o",
      out,
      "--outputs",
      "csv,graphml,trace,svg,otf2,report,problem-graphs"};
  std::vector<char *> argv;
  for (std::string &a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  try {
    gcg::Options o;
    if (gcg::parseOptions(int(args.size()), argv.data(), o))
      gcg::runCommand(o);
  } catch (const gcg::Error &) {
    // A refusal: one line, exit status 2 in the command.
  }
  fs::remove_all(rec, ec);
  fs::remove_all(out, ec);
  return 0;
}

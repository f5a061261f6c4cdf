// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Recording.h - grainchunk-graph's reader of recordings -------------===//
//
// The recording's format (tools/grainchunk-record-format.h), finding the
// process directories of a recording, meta.txt, and a streaming reader of one
// thread's records that survives a truncated or zero-filled tail.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_RECORDING_H
#define GRAINCHUNK_GRAPH_RECORDING_H

#include "grainchunk-record-format.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcg {

/// Bad input: main() prints "grainchunk-graph: <what>" and exits with 2.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The records, their kinds and flags: tools/grainchunk-record-format.h,
// shared with the recording tool.
constexpr uint32_t RecordBytes = RECORD_BYTES;
constexpr uint32_t CANCEL_LOOP = GC_CANCEL_LOOP;
constexpr uint64_t UNMEASURED = GC_UNMEASURED;
constexpr uint32_t NO_TICKS = GC_NO_TICKS;

/// One record as the analysis sees it. For R_CHUNK: creation is the chunk's
/// making time in ticks (NaN: unmeasured) and e the key of its source
/// location (the thread's last R_SOURCE); c is unused.
struct Record {
  uint64_t t, a, b, c, e;
  double creation;
  uint32_t kind, d;
};

/// meta.txt: "key value" lines.
struct Meta {
  std::map<std::string, std::string> kv;
  std::string get(const std::string &k, const std::string &def = "") const;
  bool has(const std::string &k) const { return kv.count(k) != 0; }
  /// An integer value, or def when absent or not a number.
  int64_t num(const std::string &k, int64_t def) const;
};

/// One process's recording directory.
struct ProcessDir {
  std::string dir;
  Meta meta;
  int version = 0;
  std::vector<int> threads; // thread file numbers, ascending
  bool complete = true;     // v3: always (meta.txt is written at the end)
  int64_t pid = -1, ppid = -1, rank = -1; // -1: NA
  std::string host, exe;
};

/// The process directories of a recording: DIR itself when it holds
/// meta.txt (record_version 3 or 4), else its subdirectories that do
/// (record_version 4: one per process), by name. Throws Error when there is
/// none or one has another version.
std::vector<ProcessDir> findProcesses(const std::string &raw);
/// Reads one process directory's meta.txt and thread file list.
ProcessDir readProcessDir(const std::string &dir);

/// Ticks per ns: from the tool's two clock readings when present, else
/// the meta's ticks_per_ns, else 1.
double ticksPerNs(const Meta &m);

/// A thread file's records, in order, read in blocks (memory does not grow
/// with the file). Strings (R_STRING) go into the strings map; R_SOURCE
/// records set the chunks' source key and are not returned. A format-4
/// thread of a process that did not reach finalize goes on in its ring
/// (thread-N.tail, see tools/grainchunk-record.c). The stream ends at the
/// end of the file, at a record whose kind is 0 (the unused,
/// zero-filled tail of a preallocated file) or at a record cut short.
class ThreadReader {
public:
  ThreadReader(const std::string &path,
               std::unordered_map<uint64_t, std::string> &strings);
  ~ThreadReader();
  ThreadReader(const ThreadReader &) = delete;
  ThreadReader &operator=(const ThreadReader &) = delete;
  bool next(Record &r);
  /// The largest record time seen so far.
  uint64_t lastTime() const { return last; }
  /// Why the stream ended early ("" when it did not).
  const std::string &endNote() const { return note; }

private:
  bool fill(size_t need); // at least need bytes available
  const unsigned char *take(size_t n);
  std::FILE *f = nullptr;
  std::FILE *ring = nullptr; // format 4's thread-N.tail, read after f
  uint64_t binLeft = 0;      // bytes of f's whole records not yet read
  std::vector<unsigned char> buf;
  size_t pos = 0, len = 0;
  bool eof = false, done = false;
  uint64_t src = 0, last = 0;
  std::string note, path;
  std::unordered_map<uint64_t, std::string> &strings;
};

} // namespace gcg

#endif

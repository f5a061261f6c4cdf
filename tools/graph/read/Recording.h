// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Recording.h - grainchunk-graph's reader of recordings -------------===//
//
// The recording's format (tools/grainchunk-record-format.h), finding the
// process directories of a recording, meta.txt, and a streaming reader of one
// thread's records that survives a truncated or zero-filled tail.
//
// Nothing in a recording is trusted: sizes, counts and thread numbers only
// index what the files hold (never an array sized by a number read), only
// regular files are read and meta.txt only up to a bound, record times
// outside the recording's clock window end the thread's stream there, and
// each inconsistency marks the process incomplete with a note saying where.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_RECORDING_H
#define GRAINCHUNK_GRAPH_RECORDING_H

#include "grainchunk-record-format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

namespace gcg {

/// s with every byte that is not printable ASCII or part of valid UTF-8
/// (control characters, NUL, 0xFF...) written as \xNN: one printable line.
std::string printable(const std::string &s);

/// Bad input: main() prints "grainchunk-graph: <what>" and exits with 2.
/// The text is made printable (one line, whatever bytes the input held).
struct Error : std::runtime_error {
  explicit Error(const std::string &what)
      : std::runtime_error(printable(what)) {}
};

/// The most meta.txt and maps.txt may hold (real ones: a few KB); a
/// larger or non-regular file is refused, never read to its end.
constexpr uint64_t MetaMaxBytes = 1 << 20;
constexpr uint64_t MapsMaxBytes = 64 << 20;
/// Reads a regular file of at most max bytes (opened without blocking: a
/// FIFO is refused, not waited on). False with why set otherwise.
bool readSmallFile(const std::string &path, uint64_t max, std::string &out,
                   std::string &why);

/// a + b, or the int64_t limit the sum passes: sums of durations (ticks)
/// stay defined whatever a corrupt recording's times add up to.
inline int64_t satAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r))
    return b > 0 ? INT64_MAX : INT64_MIN;
  return r;
}

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

/// meta.txt: "key value" lines (keys and values printable(): raw bytes
/// never reach a terminal or an output file).
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
  /// Where the recording contradicts itself (a thread file meta.txt's
  /// thread count does not allow, one missing, one that is not a regular
  /// file): each also makes complete false.
  std::vector<std::string> notes;
  /// complete is false because the recording contradicts itself (notes,
  /// or a thread's records that cannot be right), not because the
  /// program ended early.
  bool contradicts = false;
  /// The window record times must lie in (ticks): from clock0 (and clock1
  /// when complete), with a margin, below MaxTime and never wider than
  /// MaxSpanTicks (139 days at 3 GHz): a difference of two times, or a sum
  /// of 128 such differences, fits int64_t. A time outside ends the
  /// thread's stream there.
  uint64_t timeLo = 0, timeHi = MaxTime;
  /// How far a thread's record may be before its latest one (a second of
  /// ticks: cores' clocks may differ a little); further back ends the
  /// thread's stream there. A thread's durations then add up to about its
  /// time in the window.
  uint64_t timeBack = UINT64_MAX;
  static constexpr uint64_t MaxTime = uint64_t(1) << 62;
  static constexpr uint64_t MaxSpanTicks = uint64_t(1) << 55;
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
/// with the file). With the process directory and the thread's number, a
/// record outside the process's time window, before the thread's latest
/// by more than timeBack, or naming another thread (R_THREAD) ends the
/// stream with a note, and corrupt() is true. Strings
/// (R_STRING) go into the strings map; R_SOURCE records set the chunks' source
/// key and are not returned. A format-4 thread of a process that did not reach
/// finalize goes on in its ring (thread-N.tail, see tools/grainchunk-record.c).
/// The stream ends at the end of the file, at a record whose kind is 0 (the
/// unused, zero-filled tail of a preallocated file) or at a record cut short.
class ThreadReader {
public:
  ThreadReader(const std::string &path,
               std::unordered_map<uint64_t, std::string> &strings);
  ThreadReader(const ProcessDir &pd, int thread,
               std::unordered_map<uint64_t, std::string> &strings);
  ~ThreadReader();
  ThreadReader(const ThreadReader &) = delete;
  ThreadReader &operator=(const ThreadReader &) = delete;
  /// The next record (false at the stream's end). The common one (narrow,
  /// not a string, source or thread record, its time within the window)
  /// is read here, inline; the others, and any that fails a check, by
  /// nextRecord().
  __attribute__((always_inline)) bool next(Record &r) {
    if (done || len - pos < RecordBytes)
      return nextRecord(r);
    const unsigned char *p = buf.data() + pos;
    uint32_t kd, c32;
    uint64_t t;
    std::memcpy(&kd, p + 28, 4);
    uint32_t k = kd & 0xff;
    if (k == 0 || (kd & R_WIDE) || k == R_SOURCE || k == R_STRING ||
        k == R_THREAD)
      return nextRecord(r);
    std::memcpy(&t, p, 8);
    static_assert(ProcessDir::MaxSpanTicks > UINT32_MAX,
                  "a narrow record's creation time needs no check");
    if (thread >= 0 &&
        (t < lo || t > hi || (any && t < last && last - t > back)))
      return nextRecord(r);
    std::memcpy(&c32, p + 24, 4);
    r.t = t;
    std::memcpy(&r.a, p + 8, 8);
    std::memcpy(&r.b, p + 16, 8);
    r.kind = k;
    r.d = kd >> 8;
    if (k == R_CHUNK) {
      r.c = 0;
      r.e = src;
      r.creation = c32 == NO_TICKS ? NAN : double(c32);
    } else {
      r.c = c32;
      r.e = 0;
      r.creation = NAN;
    }
    pos += RecordBytes;
    last = std::max(last, t);
    at++;
    any = true;
    return true;
  }
  /// Reads into b's storage, b gets the reader's (swapped): one buffer,
  /// its pages touched once, for the readers of a process's threads.
  void swapBuffer(std::vector<unsigned char> &b) { buf.swap(b); }
  /// The most records the thread's files hold (an upper bound).
  uint64_t recordsAtMost() const { return fileBytes / RecordBytes; }
  /// The largest record time seen so far.
  uint64_t lastTime() const { return last; }
  /// Why the stream ended early ("" when it did not).
  const std::string &endNote() const { return note; }
  /// The stream ended at a record that cannot be right (its time outside
  /// the window, another thread's number), or it held no record at all:
  /// the recording is not complete.
  bool corrupt() const { return bad; }

private:
  bool nextRecord(Record &r); // next(), every record
  bool fill(size_t need);     // at least need bytes available
  const unsigned char *take(size_t n);
  bool stop(const std::string &why); // ends the stream, corrupt
  bool accept(Record &r); // checks r (thread >= 0): true to return it
  void open();
  std::FILE *f = nullptr;
  std::FILE *ring = nullptr; // format 4's thread-N.tail, read after f
  uint64_t binLeft = 0;      // bytes of f's whole records not yet read
  uint64_t fileBytes = 0;    // the .bin and .tail files' sizes
  std::vector<unsigned char> buf;
  size_t pos = 0, len = 0;
  bool eof = false, done = false;
  uint64_t src = 0, last = 0;
  uint64_t lo = 0, hi = UINT64_MAX; // the time window
  uint64_t back = UINT64_MAX;       // how far back a time may go
  uint64_t at = 0;                  // records returned
  int thread = -1;                  // -1: unchecked
  bool bad = false, any = false;
  std::string note, path;
  std::unordered_map<uint64_t, std::string> &strings;
};

} // namespace gcg

#endif

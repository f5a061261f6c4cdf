// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Hand-made recordings for the grainchunk-graph engine's unit tests: a
// temporary directory, meta.txt and thread files written record by record
// in the format of tools/grainchunk-record.c (32-byte records, wide
// records, strings).
#ifndef GRAINCHUNK_TEST_GRAPH_RECORDING_H
#define GRAINCHUNK_TEST_GRAPH_RECORDING_H

#include "Recording.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace gcgtest {

/// A fresh temporary directory, removed with its contents at the end.
struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/graph-test.XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { std::system(("rm -rf '" + path + "'").c_str()); }
};

/// One thread's records.
struct Thread {
  std::vector<unsigned char> bytes;
  void put64(uint64_t v) { append(&v, 8); }
  void put32(uint32_t v) { append(&v, 4); }
  void append(const void *p, size_t n) {
    auto *c = static_cast<const unsigned char *>(p);
    bytes.insert(bytes.end(), c, c + n);
  }
  /// A narrow record: c fits 32 bits, d 24 bits, no e.
  Thread &rec(uint32_t kind, uint64_t t, uint64_t a, uint64_t b, uint32_t c = 0,
              uint32_t d = 0) {
    put64(t);
    put64(a);
    put64(b);
    put32(c);
    put32(kind | d << 8);
    return *this;
  }
  /// A wide record: the whole c, e and d in a second half.
  Thread &wide(uint32_t kind, uint64_t t, uint64_t a, uint64_t b, uint64_t c,
               uint64_t e, uint32_t d) {
    put64(t);
    put64(a);
    put64(b);
    put32(0);
    put32(kind | R_WIDE);
    put64(c);
    put64(e);
    put32(d);
    put32(0);
    put32(0);
    put32(0);
    return *this;
  }
  /// A chunk with its making time in whole ticks (NO_TICKS: unmeasured).
  Thread &chunk(uint64_t t, uint64_t lo, uint64_t up, uint32_t ticks,
                uint32_t flags = CH_EXT) {
    return rec(R_CHUNK, t, lo, up, ticks, flags);
  }
  /// A task created with a making time (a double) of creation ticks.
  Thread &task(uint64_t t, uint64_t id, uint64_t parent, uint64_t codeptr,
               double creation) {
    uint64_t bits;
    std::memcpy(&bits, &creation, 8);
    return wide(R_TASK_CREATE, t, id, parent, codeptr, bits, 0);
  }
  Thread &str(uint64_t key, const std::string &s) {
    rec(R_STRING, 0, key, 0, 0, uint32_t(s.size()));
    std::vector<unsigned char> text((s.size() + 31) / 32 * 32, 0);
    std::memcpy(text.data(), s.data(), s.size());
    append(text.data(), text.size());
    return *this;
  }
  void write(const std::string &path, size_t zeroTail = 0) const {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char *>(bytes.data()), bytes.size());
    std::vector<char> z(zeroTail, 0);
    f.write(z.data(), z.size());
  }
};

/// meta.txt of a recording (v3 as today's tool writes it; v4 adds the
/// process and, at a normal end, its thread count and complete 1).
inline std::string meta3(bool ext = true) {
  return std::string(
             "record_version 3\nrecord_bytes 32\nclock tsc\nclock0 0\n"
             "ns0 0\nclock1 2000000\nns1 1000000\ngrainchunk_runtime 1\n") +
         (ext ? "ext_tool_time 1\next_loop 1\next_chunk 1\next_task_create 1\n"
              : "ext_tool_time 0\next_loop 0\next_chunk 0\next_task_create "
                "0\n") +
         "answer_dispatch 5\nanswer_sync_region_wait 5\nthreads 2\n"
         "lost_threads 0\nrecords 10\ndropped 0\n";
}

inline std::string meta4(int pid, int rank, bool complete, int threads = 1) {
  std::string m =
      "record_version 4\nrecord_bytes 32\nclock tsc\nclock0 1000\n"
      "ns0 0\nticks_per_ns 2.0\npid " +
      std::to_string(pid) + "\nppid 1\nhost node1\nrank " +
      (rank >= 0 ? std::to_string(rank) : std::string("NA")) +
      "\nrank_source NA\nsize NA\nexe /bin/app\ngrainchunk_runtime 1\n"
      "ext_tool_time 1\next_loop 1\next_chunk 1\next_task_create 1\n"
      "answer_dispatch 5\nanswer_sync_region_wait 5\n";
  if (complete)
    m += "clock1 2001000\nns1 1000000\nthreads " + std::to_string(threads) +
         "\nlost_threads 0\nrecords 5\ndropped 0\ncomplete 1\n";
  return m;
}

inline void writeFile(const std::string &path, const std::string &text) {
  std::ofstream(path) << text;
}

} // namespace gcgtest

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Recording.cpp - grainchunk-graph's reader of recordings -----------===//
//
// Process-directory discovery, meta.txt parsing and the streaming reader of
// thread files (see Recording.h and tools/grainchunk-record.c).
//
//===----------------------------------------------------------------------===//
#include "Recording.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <sys/stat.h>

namespace gcg {

std::string Meta::get(const std::string &k, const std::string &def) const {
  auto it = kv.find(k);
  return it == kv.end() ? def : it->second;
}

int64_t Meta::num(const std::string &k, int64_t def) const {
  auto it = kv.find(k);
  if (it == kv.end() || it->second.empty())
    return def;
  char *end = nullptr;
  errno = 0;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (errno || *end)
    return def;
  return v;
}

static bool isDir(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}
static bool isFile(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

static std::vector<std::string> listDir(const std::string &d) {
  std::vector<std::string> out;
  DIR *dp = opendir(d.c_str());
  if (!dp)
    return out;
  while (dirent *e = readdir(dp))
    if (e->d_name[0] != '.')
      out.push_back(e->d_name);
  closedir(dp);
  std::sort(out.begin(), out.end());
  return out;
}

ProcessDir readProcessDir(const std::string &dir) {
  ProcessDir p;
  p.dir = dir;
  std::ifstream in(dir + "/meta.txt");
  if (!in)
    throw Error("no " + dir +
                "/meta.txt: the recording tool did not finish (did the "
                "program run under libomp, and exit normally?)");
  std::string line;
  while (std::getline(in, line)) {
    // Python's line.strip().partition(" ").
    size_t b = line.find_first_not_of(" \t\r\n");
    size_t e = line.find_last_not_of(" \t\r\n");
    if (b == std::string::npos)
      continue;
    line = line.substr(b, e - b + 1);
    size_t sp = line.find(' ');
    if (sp == std::string::npos)
      p.meta.kv[line] = "";
    else
      p.meta.kv[line.substr(0, sp)] = line.substr(sp + 1);
  }
  std::string v = p.meta.get("record_version", "None");
  p.version = int(p.meta.num("record_version", -1));
  if (p.version != 3 && p.version != 4)
    throw Error(dir + ": recorded in format " + v +
                ", and this grainchunk-graph reads formats 3 and 4: record "
                "the program again");
  if (p.meta.num("record_bytes", RecordBytes) != RecordBytes)
    throw Error(dir + ": records of " + p.meta.get("record_bytes") +
                " bytes, and this grainchunk-graph reads records of 32 "
                "bytes: record the program again");
  p.complete = p.version == 3 || p.meta.get("complete") == "1";
  p.pid = p.meta.num("pid", -1);
  p.ppid = p.meta.num("ppid", -1);
  p.rank = p.meta.num("rank", -1);
  p.host = p.meta.get("host");
  p.exe = p.meta.get("exe");
  for (const std::string &f : listDir(dir)) {
    if (f.size() < 12 || f.compare(0, 7, "thread-") != 0 ||
        f.compare(f.size() - 4, 4, ".bin") != 0)
      continue;
    std::string n = f.substr(7, f.size() - 11);
    if (n.empty() || n.size() > 9 ||
        n.find_first_not_of("0123456789") != std::string::npos)
      continue;
    p.threads.push_back(std::stoi(n));
  }
  std::sort(p.threads.begin(), p.threads.end());
  return p;
}

std::vector<ProcessDir> findProcesses(const std::string &raw) {
  if (!isDir(raw))
    throw Error("no recording at " + raw + " (not a directory)");
  if (isFile(raw + "/meta.txt"))
    return {readProcessDir(raw)};
  std::vector<ProcessDir> out;
  for (const std::string &d : listDir(raw))
    if (isFile(raw + "/" + d + "/meta.txt"))
      out.push_back(readProcessDir(raw + "/" + d));
  if (out.empty())
    throw Error("no recording in " + raw +
                ": no process of the program started OpenMP with the "
                "recording tool (is it built with -fopenmp and run with "
                "LLVM's libomp, not GCC's libgomp?)");
  // One directory per process, in the order they started (their pids
  // where known, else by name).
  std::stable_sort(
      out.begin(), out.end(), [](const ProcessDir &a, const ProcessDir &b) {
        int64_t ta = a.meta.num("ns0", 0), tb = b.meta.num("ns0", 0);
        return ta < tb;
      });
  return out;
}

double ticksPerNs(const Meta &m) {
  int64_t c0 = m.num("clock0", -1), c1 = m.num("clock1", -1);
  int64_t n0 = m.num("ns0", -1), n1 = m.num("ns1", -1);
  if (c0 >= 0 && c1 >= 0 && n0 >= 0 && n1 >= 0) {
    double dc = double(c1 - c0), dn = double(n1 - n0);
    return dn > 0 && dc > 0 ? dc / dn : 1.0;
  }
  std::string t = m.get("ticks_per_ns");
  if (!t.empty()) {
    char *end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (!*end && v > 0 && std::isfinite(v))
      return v;
  }
  return 1.0;
}

ThreadReader::ThreadReader(const std::string &p,
                           std::unordered_map<uint64_t, std::string> &s)
    : path(p), strings(s) {
  f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw Error("cannot read " + path + ": " + std::strerror(errno));
  buf.resize(1 << 22);
  // Format 4, a process that did not reach finalize: the stream is the
  // .bin file's whole records, then its ring (thread-N.tail: a header
  // record whose t is the stream index of the ring's first record).
  std::string tail = path;
  if (tail.size() > 4 && tail.compare(tail.size() - 4, 4, ".bin") == 0)
    tail.replace(tail.size() - 4, 4, ".tail");
  struct stat st;
  if (tail == path || stat(tail.c_str(), &st) != 0 ||
      st.st_size < static_cast<off_t>(RecordBytes))
    return;
  if (fstat(fileno(f), &st) != 0)
    throw Error("cannot read " + path + ": " + std::strerror(errno));
  uint64_t n = static_cast<uint64_t>(st.st_size) / RecordBytes;
  std::FILE *r = std::fopen(tail.c_str(), "rb");
  unsigned char head[RecordBytes];
  if (!r || std::fread(head, 1, RecordBytes, r) != RecordBytes) {
    if (r)
      std::fclose(r);
    throw Error("cannot read " + tail + ": " + std::strerror(errno));
  }
  uint64_t first;
  std::memcpy(&first, head, 8);
  if (first > n) {
    // The disk filled: the records between are lost; the stream ends
    // with the .bin file.
    note = tail + ": the ring begins at record " + std::to_string(first) +
           " and " + path + " holds " + std::to_string(n) +
           ": the records between were not written (disk full?)";
    std::fclose(r);
    return;
  }
  if (std::fseek(r, static_cast<long>(RecordBytes * (1 + n - first)),
                 SEEK_SET) != 0) {
    std::fclose(r);
    return;
  }
  ring = r;
  binLeft = n * RecordBytes;
}

ThreadReader::~ThreadReader() {
  if (f)
    std::fclose(f);
  if (ring)
    std::fclose(ring);
}

bool ThreadReader::fill(size_t need) {
  if (len - pos >= need)
    return true;
  if (eof)
    return false;
  std::memmove(buf.data(), buf.data() + pos, len - pos);
  len -= pos;
  pos = 0;
  if (buf.size() < need)
    buf.resize(need);
  while (len < buf.size() && !eof) {
    size_t want = buf.size() - len;
    if (ring && binLeft < want)
      want = static_cast<size_t>(binLeft);
    size_t n = want ? std::fread(buf.data() + len, 1, want, f) : 0;
    if (ring)
      binLeft -= n;
    if (n == 0) {
      if (ring) { // the .bin file's records are read: the ring goes on
        std::fclose(f);
        f = ring;
        ring = nullptr;
        continue;
      }
      eof = true;
    }
    len += n;
  }
  return len - pos >= need;
}

const unsigned char *ThreadReader::take(size_t n) {
  const unsigned char *p = buf.data() + pos;
  pos += n;
  return p;
}

static inline uint64_t u64(const unsigned char *p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
static inline uint32_t u32(const unsigned char *p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

bool ThreadReader::next(Record &r) {
  while (!done) {
    if (!fill(RecordBytes)) {
      if (len > pos)
        note += std::string(note.empty() ? "" : "; ") +
                "a record cut short at the end of the file";
      done = true;
      break;
    }
    const unsigned char *p = take(RecordBytes);
    uint32_t kd = u32(p + 28);
    if ((kd & 0xff) == 0) { // the zero-filled tail of a preallocated file
      done = true;
      break;
    }
    r.t = u64(p);
    r.a = u64(p + 8);
    r.b = u64(p + 16);
    uint32_t c32 = u32(p + 24);
    if ((kd & 0xff) == R_CHUNK) { // the common record first
      r.kind = R_CHUNK;
      r.d = kd >> 8;
      r.c = 0;
      r.e = src;
      r.creation = c32 == NO_TICKS ? NAN : double(c32);
      last = std::max(last, r.t);
      return true;
    }
    uint32_t kind = kd & 0x7f;
    if (kd & R_WIDE) {
      if (!fill(RecordBytes)) {
        note += std::string(note.empty() ? "" : "; ") +
                "a wide record cut short at the end of the file";
        done = true;
        break;
      }
      const unsigned char *w = take(RecordBytes);
      r.c = u64(w);
      r.e = u64(w + 8);
      r.d = u32(w + 16);
      if (kind == R_CHUNK) {
        double cr;
        std::memcpy(&cr, &r.c, 8);
        r.creation = r.c == UNMEASURED ? NAN : cr;
        r.kind = R_CHUNK;
        r.c = 0;
        r.e = src;
        last = std::max(last, r.t);
        return true;
      }
    } else {
      r.c = c32;
      r.e = 0;
      r.d = kd >> 8;
    }
    r.kind = kind;
    r.creation = NAN;
    if (kind == R_SOURCE) {
      src = r.a;
      continue;
    }
    if (kind == R_STRING) {
      size_t nrec = (size_t(r.d) + RecordBytes - 1) / RecordBytes;
      if (nrec * RecordBytes > (size_t(1) << 26))
        throw Error("corrupt recording: a string of " + std::to_string(r.d) +
                    " bytes in " + path);
      if (!fill(nrec * RecordBytes)) {
        note += std::string(note.empty() ? "" : "; ") +
                "a string record cut short at the end of the file";
        done = true;
        break;
      }
      const unsigned char *s = take(nrec * RecordBytes);
      // Python decodes with errors="replace"; the bytes are kept as they
      // are (names are ASCII in practice).
      strings[r.a] = std::string(reinterpret_cast<const char *>(s), r.d);
      continue;
    }
    last = std::max(last, r.t);
    return true;
  }
  return false;
}

} // namespace gcg

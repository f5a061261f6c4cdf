// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Recording.cpp - grainchunk-graph's reader of recordings -----------===//
//
// Process-directory discovery, meta.txt parsing and the streaming reader of
// thread files (see Recording.h and tools/grainchunk-record.c). Every file is
// opened without blocking and read only when it is a regular file; meta.txt
// only up to MetaMaxBytes.
//
//===----------------------------------------------------------------------===//
#include "Recording.h"
#include "Names.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace gcg {

std::string printable(const std::string &s) {
  static const char hex[] = "0123456789abcdef";
  std::string o;
  o.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    unsigned char c = s[i];
    if (c >= 0x20 && c < 0x7f) {
      o += char(c);
      i++;
      continue;
    }
    // A whole UTF-8 sequence (no overlong form, surrogate or code point
    // above U+10FFFF) is kept: names and paths in any language.
    size_t n = c >= 0xc2 && c <= 0xdf   ? 2
               : c >= 0xe0 && c <= 0xef ? 3
               : c >= 0xf0 && c <= 0xf4 ? 4
                                        : 0;
    bool ok = n && i + n <= s.size();
    for (size_t k = 1; ok && k < n; k++)
      ok = (static_cast<unsigned char>(s[i + k]) & 0xc0) == 0x80;
    if (ok && n >= 3) {
      unsigned char d = s[i + 1];
      ok = !(c == 0xe0 && d < 0xa0) && !(c == 0xed && d >= 0xa0) &&
           !(c == 0xf0 && d < 0x90) && !(c == 0xf4 && d >= 0x90);
    }
    if (ok) {
      o.append(s, i, n);
      i += n;
      continue;
    }
    o += "\\x";
    o += hex[c >> 4];
    o += hex[c & 15];
    i++;
  }
  return o;
}

/// A value from the input as an error shows it: at most 64 bytes.
static std::string shown(const std::string &v) {
  return v.size() <= 64 ? v : v.substr(0, 64) + "...";
}

static std::string fileKind(mode_t m) {
  return S_ISDIR(m)    ? "a directory"
         : S_ISFIFO(m) ? "a FIFO"
         : S_ISSOCK(m) ? "a socket"
         : S_ISCHR(m)  ? "a character device"
         : S_ISBLK(m)  ? "a block device"
                       : "not a regular file";
}

/// Opens path for reading if it is a regular file (never blocks on a
/// FIFO); -1 with why set otherwise.
static int openRegular(const std::string &path, std::string &why,
                       struct stat &st) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    why = path + ": " + std::strerror(errno);
    return -1;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    why = path + " is " + fileKind(st.st_mode) + ", not a regular file";
    ::close(fd);
    return -1;
  }
  // Blocking reads again (a regular file never blocks; this only keeps
  // stdio's reads plain).
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

bool readSmallFile(const std::string &path, uint64_t max, std::string &out,
                   std::string &why) {
  struct stat st;
  int fd = openRegular(path, why, st);
  if (fd < 0)
    return false;
  out.clear();
  // Read up to one byte more than allowed: the file may have grown.
  char buf[1 << 16];
  bool ok = true;
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      why = path + ": " + std::strerror(errno);
      ok = false;
      break;
    }
    if (n == 0)
      break;
    if (out.size() + size_t(n) > max) {
      why = path + " holds more than " + std::to_string(max) + " bytes (" +
            std::to_string(uint64_t(st.st_size)) + ")";
      ok = false;
      break;
    }
    out.append(buf, size_t(n));
  }
  ::close(fd);
  return ok;
}

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

/// A thread file's number ("thread-<n>.bin", n of 1 to 9 digits), or -1.
static int threadFileNumber(const std::string &f) {
  if (f.size() < 12 || f.compare(0, 7, "thread-") != 0 ||
      f.compare(f.size() - 4, 4, ".bin") != 0)
    return -1;
  std::string n = f.substr(7, f.size() - 11);
  if (n.empty() || n.size() > 9 ||
      n.find_first_not_of("0123456789") != std::string::npos)
    return -1;
  return std::stoi(n);
}

static std::string threadFile(int th) {
  return "thread-" + std::to_string(th) + ".bin";
}

/// The first record's time of the first thread file that has one, or -1.
static int64_t firstRecordTime(const ProcessDir &p) {
  for (int th : p.threads) {
    std::string why;
    struct stat st;
    int fd = openRegular(p.dir + "/" + threadFile(th), why, st);
    if (fd < 0)
      continue;
    unsigned char rec[RecordBytes];
    ssize_t n = ::read(fd, rec, RecordBytes);
    ::close(fd);
    uint64_t t;
    std::memcpy(&t, rec, 8);
    if (n == ssize_t(RecordBytes) && t < ProcessDir::MaxTime)
      return int64_t(t);
  }
  return -1;
}

/// The thread files meta.txt's thread count (a complete format-4 process:
/// its threads are numbered 0 to threads-1) leaves out or does not list:
/// notes, and the files beyond it are not read.
static void checkThreadCount(ProcessDir &p, std::vector<int> unread) {
  int64_t n = p.meta.num("threads", -1);
  if (p.version != 4 || !p.complete || n < 0)
    return;
  std::vector<int> in, beyond;
  for (int th : p.threads)
    (th < n ? in : beyond).push_back(th);
  p.threads = in;
  // Files that are there but not regular are not missing (said already).
  for (int th : unread)
    if (th < n)
      in.push_back(th);
  std::sort(in.begin(), in.end());
  std::string says =
      "meta.txt says the process had " + std::to_string(n) + " threads";
  if (!beyond.empty())
    p.notes.push_back(
        threadFile(beyond[0]) +
        (beyond.size() > 1
             ? " and " + std::to_string(beyond.size() - 1) + " more"
             : std::string()) +
        " not read: " + says);
  int64_t missing = n - int64_t(in.size());
  if (missing > 0) {
    int first = 0; // the first number not in the (ascending) list
    for (int th : in)
      if (th == first)
        first++;
    p.notes.push_back(threadFile(first) +
                      (missing > 1 ? " and " + std::to_string(missing - 1) +
                                         " more thread files"
                                   : std::string()) +
                      " missing: " + says);
  }
}

/// The window record times must lie in (ProcessDir::timeLo, timeHi).
static void timeWindow(ProcessDir &p) {
  double tpn = ticksPerNs(p.meta);
  int64_t c0 = p.meta.num("clock0", -1), c1 = p.meta.num("clock1", -1);
  // A minute of ticks around clock0 and clock1: clocks of different cores
  // may differ a little; a thread may write after the end was taken.
  uint64_t margin = uint64_t(std::min(60e9 * tpn, 1e15));
  int64_t anchor =
      c0 >= 0 && uint64_t(c0) < ProcessDir::MaxTime ? c0 : firstRecordTime(p);
  if (anchor < 0)
    anchor = 0;
  uint64_t a = uint64_t(anchor);
  p.timeLo = a > margin ? a - margin : 0;
  uint64_t hi = p.timeLo + ProcessDir::MaxSpanTicks;
  if (p.complete && c1 >= anchor && anchor == c0 &&
      uint64_t(c1) < ProcessDir::MaxTime)
    hi = std::min(hi, uint64_t(c1) + margin);
  p.timeHi = std::min(hi, ProcessDir::MaxTime);
  p.timeBack = uint64_t(std::min(1e9 * tpn, 1e13));
}

ProcessDir readProcessDir(const std::string &dir) {
  ProcessDir p;
  p.dir = dir;
  std::string text, why;
  struct stat st;
  if (!readSmallFile(dir + "/meta.txt", MetaMaxBytes, text, why)) {
    if (stat((dir + "/meta.txt").c_str(), &st) != 0 && errno == ENOENT)
      throw Error("no " + dir +
                  "/meta.txt: not a recording (the recording tool writes it "
                  "when it starts)");
    throw Error(why + ": not a recording's meta.txt");
  }
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    if (nl == std::string::npos)
      nl = text.size();
    std::string line = text.substr(at, nl - at);
    at = nl + 1;
    // Python's line.strip().partition(" ").
    size_t b = line.find_first_not_of(" \t\r\n");
    size_t e = line.find_last_not_of(" \t\r\n");
    if (b == std::string::npos)
      continue;
    line = printable(line.substr(b, e - b + 1));
    size_t sp = line.find(' ');
    if (sp == std::string::npos)
      p.meta.kv[line] = "";
    else
      p.meta.kv[line.substr(0, sp)] = line.substr(sp + 1);
  }
  if (!p.meta.has("record_version"))
    throw Error(dir + "/meta.txt" +
                (text.empty() ? " is empty" : " names no record_version") +
                ": not a recording of grainchunk-record (cut short, or "
                "another file?)");
  std::string v = p.meta.get("record_version");
  p.version = int(p.meta.num("record_version", -1));
  if (p.version != 3 && p.version != 4)
    throw Error(dir + ": recorded in format " + shown(v) +
                ", and this grainchunk-graph reads formats 3 and 4: record "
                "the program again");
  if (p.meta.num("record_bytes", RecordBytes) != RecordBytes)
    throw Error(dir + ": records of " + shown(p.meta.get("record_bytes")) +
                " bytes, and this grainchunk-graph reads records of 32 "
                "bytes: record the program again");
  p.complete = p.version == 3 || p.meta.get("complete") == "1";
  p.pid = p.meta.num("pid", -1);
  p.ppid = p.meta.num("ppid", -1);
  p.rank = p.meta.num("rank", -1);
  p.host = p.meta.get("host");
  p.exe = p.meta.get("exe");
  std::vector<int> unread;
  for (const std::string &f : listDir(dir)) {
    int th = threadFileNumber(f);
    if (th < 0)
      continue;
    if (stat((dir + "/" + f).c_str(), &st) != 0)
      continue; // removed since listed
    if (!S_ISREG(st.st_mode)) {
      p.notes.push_back(f + " not read: it is " + fileKind(st.st_mode) +
                        ", not a regular file");
      unread.push_back(th);
      continue;
    }
    p.threads.push_back(th);
  }
  std::sort(p.threads.begin(), p.threads.end());
  checkThreadCount(p, unread);
  if (!p.notes.empty())
    p.complete = false, p.contradicts = true;
  timeWindow(p);
  return p;
}

static bool exists(const std::string &p) {
  struct stat st;
  return stat(p.c_str(), &st) == 0;
}

static bool holdsThreadFiles(const std::string &d) {
  for (const std::string &f : listDir(d))
    if (threadFileNumber(f) >= 0)
      return true;
  return false;
}

std::vector<ProcessDir> findProcesses(const std::string &raw) {
  if (!isDir(raw))
    throw Error("no recording at " + raw + " (not a directory)");
  // A meta.txt that is not a regular file is refused by readProcessDir.
  if (exists(raw + "/meta.txt"))
    return {readProcessDir(raw)};
  std::vector<ProcessDir> out;
  std::vector<std::string> entries = listDir(raw);
  std::string noMeta = holdsThreadFiles(raw) ? raw : "";
  for (const std::string &d : entries) {
    std::string sub = raw + "/" + d;
    if (exists(sub + "/meta.txt"))
      out.push_back(readProcessDir(sub));
    else if (noMeta.empty() && isDir(sub) && holdsThreadFiles(sub))
      noMeta = sub;
  }
  if (out.empty() && !noMeta.empty())
    throw Error("no " + noMeta +
                "/meta.txt beside its thread files: not a recording "
                "grainchunk-graph can read (the recording tool writes "
                "meta.txt when it starts)");
  if (out.empty() && !entries.empty())
    throw Error("no recording in " + raw +
                ": no meta.txt in it or in its subdirectories");
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
  // A clock of 1 tick per 1000 ns to 1000 ticks per ns: anything else is
  // a corrupt meta.txt.
  auto sane = [](double v) { return v >= 1e-3 && v <= 1e3; };
  int64_t c0 = m.num("clock0", -1), c1 = m.num("clock1", -1);
  int64_t n0 = m.num("ns0", -1), n1 = m.num("ns1", -1);
  if (c0 >= 0 && c1 >= 0 && n0 >= 0 && n1 >= 0) {
    double dc = double(c1) - double(c0), dn = double(n1) - double(n0);
    return dn > 0 && dc > 0 && sane(dc / dn) ? dc / dn : 1.0;
  }
  std::string t = m.get("ticks_per_ns");
  if (!t.empty()) {
    char *end = nullptr;
    double v = std::strtod(t.c_str(), &end);
    if (!*end && sane(v))
      return v;
  }
  return 1.0;
}

ThreadReader::ThreadReader(const std::string &p,
                           std::unordered_map<uint64_t, std::string> &s)
    : path(p), strings(s) {
  open();
}

ThreadReader::ThreadReader(const ProcessDir &pd, int th,
                           std::unordered_map<uint64_t, std::string> &s)
    : lo(pd.timeLo), hi(pd.timeHi), back(pd.timeBack), thread(th),
      path(pd.dir + "/" + threadFile(th)), strings(s) {
  open();
}

void ThreadReader::open() {
  std::string why;
  struct stat st;
  int fd = openRegular(path, why, st);
  if (fd < 0 || !(f = fdopen(fd, "rb"))) {
    if (fd >= 0)
      ::close(fd);
    throw Error("cannot read " + (why.empty() ? path : why));
  }
  fileBytes = uint64_t(st.st_size);
  // Format 4, a process that did not reach finalize: the stream is the
  // .bin file's whole records, then its ring (thread-N.tail: a header
  // record whose t is the stream index of the ring's first record).
  std::string tail = path;
  if (tail.size() > 4 && tail.compare(tail.size() - 4, 4, ".bin") == 0)
    tail.replace(tail.size() - 4, 4, ".tail");
  if (tail == path || ::stat(tail.c_str(), &st) != 0)
    return;
  if (!S_ISREG(st.st_mode)) {
    stop(baseName(tail) + " not read: it is " + fileKind(st.st_mode) +
         ", not a regular file");
    done = false; // the .bin file's records are read
    return;
  }
  if (st.st_size < static_cast<off_t>(RecordBytes))
    return;
  fileBytes += uint64_t(st.st_size);
  uint64_t n = 0;
  if (fstat(fileno(f), &st) == 0)
    n = static_cast<uint64_t>(st.st_size) / RecordBytes;
  int tfd = openRegular(tail, why, st);
  std::FILE *r = tfd >= 0 ? fdopen(tfd, "rb") : nullptr;
  unsigned char head[RecordBytes];
  if (!r || std::fread(head, 1, RecordBytes, r) != RecordBytes) {
    if (r)
      std::fclose(r);
    else if (tfd >= 0)
      ::close(tfd);
    throw Error("cannot read " + (why.empty() ? tail : why));
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

bool ThreadReader::stop(const std::string &why) {
  note += (note.empty() ? "" : "; ") + why;
  bad = true;
  done = true;
  return false;
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
  // 256 KiB (8,192 records), or what the files hold (at least: a lent
  // buffer may be larger).
  size_t want = size_t(std::min<uint64_t>(fileBytes + RecordBytes, 1 << 18));
  if (buf.size() < want)
    buf.resize(want);
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

/// A record's time for a note: ticks.
static std::string ticks(uint64_t t) { return std::to_string(t) + " ticks"; }

bool ThreadReader::accept(Record &r) {
  if (thread >= 0) {
    if (r.t < lo || r.t > hi)
      return stop("record " + std::to_string(at) + "'s time, " + ticks(r.t) +
                  ", is outside the recording's clock (" + ticks(lo) + " to " +
                  ticks(hi) + "): the thread's records end there");
    if (any && r.t < last && last - r.t > back)
      return stop("record " + std::to_string(at) + "'s time, " + ticks(r.t) +
                  ", is " + ticks(last - r.t) +
                  " before the thread's latest: the thread's records end "
                  "there");
    // A creation time (chunk) or duration (task, its bits in e) is ticks
    // within the window too, or unmeasured.
    double made = r.creation;
    if (r.kind == R_TASK_CREATE && r.e != UNMEASURED)
      std::memcpy(&made, &r.e, 8);
    if ((r.kind == R_CHUNK || r.kind == R_TASK_CREATE) &&
        !(std::isnan(made) && (r.kind == R_CHUNK || r.e == UNMEASURED)) &&
        !(std::fabs(made) <= double(ProcessDir::MaxSpanTicks))) {
      char v[32];
      std::snprintf(v, sizeof v, "%g", made);
      return stop("record " + std::to_string(at) + "'s creation time, " + v +
                  " ticks, is not a time of the recording: the thread's "
                  "records end there");
    }
    if (r.kind == R_THREAD && r.a != uint64_t(thread))
      return stop("record " + std::to_string(at) + " says it is thread " +
                  std::to_string(r.a) + "'s: the thread's records end there");
  }
  last = std::max(last, r.t);
  at++;
  any = true;
  return true;
}

bool ThreadReader::nextRecord(Record &r) {
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
      return accept(r);
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
        return accept(r);
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
      // Never more buffer than the files hold.
      if (nrec * RecordBytes > fileBytes || !fill(nrec * RecordBytes)) {
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
    return accept(r);
  }
  if (!any && thread >= 0 && !bad)
    stop("the thread's file holds no record (empty or zeroed)");
  return false;
}

} // namespace gcg

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- OutFile.cpp - buffered output and the writers' shared formatting ---===//
//
// OutFile (Writers.h), number formatting as Python's str/%.6g/repr gave it,
// escaping for XML, JSON and CSV, and grain ids.
//
//===----------------------------------------------------------------------===//
#include "Writers.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdarg>
#include <cstring>

namespace gcg {

OutFile::OutFile(const std::string &path) : name(path) {
  fp = std::fopen(path.c_str(), "w");
  if (!fp)
    throw Error("cannot write " + path + ": " + std::strerror(errno));
}

OutFile::~OutFile() {
  if (fp)
    std::fclose(fp);
}

void OutFile::flush(size_t) {
  if (len && std::fwrite(buf, 1, len, fp) != len)
    throw Error("cannot write " + name + ": " + std::strerror(errno));
  written += len;
  len = 0;
}

OutFile &OutFile::raw(const char *s, size_t n) {
  if (std::fwrite(s, 1, n, fp) != n)
    throw Error("cannot write " + name + ": " + std::strerror(errno));
  written += n;
  return *this;
}

void OutFile::close() {
  flush(0);
  std::FILE *f = fp;
  fp = nullptr;
  if (std::fflush(f) != 0 || std::ferror(f)) {
    int e = errno;
    std::fclose(f);
    throw Error("cannot write " + name + ": " + std::strerror(e));
  }
  if (std::fclose(f) != 0)
    throw Error("cannot write " + name + ": " + std::strerror(errno));
}

OutFile &OutFile::u(uint64_t v) {
  done(decU(room(20), v));
  return *this;
}

OutFile &OutFile::i(int64_t v) {
  done(decI(room(21), v));
  return *this;
}

static size_t fmtTo(char *b, size_t n, double v) {
  if (std::isnan(v)) {
    std::memcpy(b, "NA", 2);
    return 2;
  }
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) <= 1e15)
    return std::to_chars(b, b + n, int64_t(v)).ptr - b;
  if (std::isinf(v)) {
    const char *s = v > 0 ? "inf" : "-inf";
    std::memcpy(b, s, std::strlen(s));
    return std::strlen(s);
  }
  return std::to_chars(b, b + n, v, std::chars_format::general, 6).ptr - b;
}

namespace {
// Two digits per entry: "00" .. "99".
constexpr char Pairs[] = "0001020304050607080910111213141516171819"
                         "2021222324252627282930313233343536373839"
                         "4041424344454647484950515253545556575859"
                         "6061626364656667686970717273747576777879"
                         "8081828384858687888990919293949596979899";

/// x < 100: its two digits at p.
inline void pair2(char *p, uint32_t x) { std::memcpy(p, Pairs + 2 * x, 2); }

/// x < 10^8 as exactly eight digits (leading zeros) at p; their end.
inline char *eight(char *p, uint32_t x) {
  uint32_t hi = x / 10000, lo = x % 10000;
  pair2(p, hi / 100), pair2(p + 2, hi % 100);
  pair2(p + 4, lo / 100), pair2(p + 6, lo % 100);
  return p + 8;
}

/// x < 10^8 without leading zeros at p; their end.
inline char *upTo8(char *p, uint32_t x) {
  int n = x < 10000
              ? (x < 100 ? (x < 10 ? 1 : 2) : (x < 1000 ? 3 : 4))
              : (x < 1000000 ? (x < 100000 ? 5 : 6) : (x < 10000000 ? 7 : 8));
  char *e = p + n, *q = e;
  while (x >= 100) {
    q -= 2;
    pair2(q, x % 100);
    x /= 100;
  }
  if (x >= 10)
    pair2(q - 2, x);
  else
    q[-1] = char('0' + x);
  return e;
}
} // namespace

// The digits in place, in pieces of eight (32-bit arithmetic, two at a
// time from a table): std::to_chars's text, about twice as fast on the
// instants' 16 digits. 20 bytes hold any 64-bit integer with its sign.
char *OutFile::decU(char *p, uint64_t v) {
  if (v < 100000000)
    return upTo8(p, uint32_t(v));
  uint64_t hi = v / 100000000;
  auto lo = uint32_t(v - hi * 100000000);
  if (hi < 100000000) {
    p = upTo8(p, uint32_t(hi));
  } else {
    auto top = uint32_t(hi / 100000000);
    p = upTo8(p, top);
    p = eight(p, uint32_t(hi - uint64_t(top) * 100000000));
  }
  return eight(p, lo);
}

char *OutFile::decI(char *p, int64_t v) {
  if (v < 0) {
    *p++ = '-';
    return decU(p, 0 - uint64_t(v));
  }
  return decU(p, uint64_t(v));
}

char *OutFile::numAt(char *p, double v) { return p + fmtTo(p, 40, v); }

OutFile &OutFile::num(double v) {
  char b[40];
  return put(b, fmtTo(b, sizeof b, v));
}

std::string fmtNum(double v) {
  char b[40];
  return std::string(b, fmtTo(b, sizeof b, v));
}

OutFile &OutFile::jnum(double v) {
  char b[40];
  if (!std::isfinite(v))
    return *this << "null";
  if (v == std::floor(v) && std::fabs(v) < 1e15 &&
      !(v == 0 && std::signbit(v))) {
    // An integral value (Python's repr: 123.0), without formatting a double.
    i(int64_t(v));
    return put(".0", 2);
  }
  size_t n = std::to_chars(b, b + sizeof b, v).ptr - b;
  if (!std::memchr(b, '.', n) && !std::memchr(b, 'e', n)) {
    b[n++] = '.';
    b[n++] = '0';
  }
  return put(b, n);
}

OutFile &OutFile::jnumRound(double v, int digits) {
  static const double Scale[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
  double x = std::nearbyint(v * Scale[digits]);
  if (!(std::fabs(x) < 1e15))
    return jnum(x / Scale[digits]);
  // The decimal k / 10^digits (at most 15 digits, so it is the shortest
  // that reads back as the double round() gives), trailing zeros dropped.
  int64_t k = int64_t(x);
  char b[48];
  size_t n = 0;
  if (k < 0 || (k == 0 && std::signbit(x)))
    b[n++] = '-';
  uint64_t a = k < 0 ? uint64_t(-k) : uint64_t(k);
  uint64_t p = uint64_t(Scale[digits]);
  n = std::to_chars(b + n, b + sizeof b, a / p).ptr - b;
  b[n++] = '.';
  uint64_t frac = a % p;
  if (!frac) {
    b[n++] = '0';
    return put(b, n);
  }
  for (int d = digits - 1; d >= 0 && frac; d--) {
    uint64_t q = uint64_t(Scale[d]);
    b[n++] = char('0' + frac / q);
    frac %= q;
  }
  return put(b, n);
}

OutFile &OutFile::f(const char *fmt, ...) {
  char b[1024];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(b, sizeof b, fmt, ap);
  va_end(ap);
  if (n < 0)
    return *this;
  if (size_t(n) < sizeof b)
    return put(b, n);
  std::string s(n + 1, '\0');
  va_start(ap, fmt);
  std::vsnprintf(&s[0], s.size(), fmt, ap);
  va_end(ap);
  return put(s.data(), n);
}

std::string htmlEscape(const std::string &s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s)
    switch (c) {
    case '&':
      o += "&amp;";
      break;
    case '<':
      o += "&lt;";
      break;
    case '>':
      o += "&gt;";
      break;
    case '"':
      o += "&quot;";
      break;
    case '\'':
      o += "&#x27;";
      break;
    default:
      o += c;
    }
  return o;
}

std::string jsonString(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += char(c);
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += char(c);
    }
  }
  return o + "\"";
}

std::string csvField(const std::string &s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos)
    return s;
  std::string o = "\"";
  for (char c : s) {
    if (c == '"')
      o += '"';
    o += c;
  }
  return o + "\"";
}

const char *const UnknownTime =
    "unknown: the loop was compiled without the grainchunk plugin, so all "
    "of the thread's chunks were reported before any ran; their span is "
    "the thread's share";

const std::vector<std::string> OutputNames = {
    "csv", "graphml", "trace", "svg", "otf2", "report", "problem-graphs"};

std::string outputFile(const std::string &name) {
  if (name == "csv")
    return "grains.csv";
  if (name == "graphml")
    return "grains.graphml";
  if (name == "trace")
    return "trace.json";
  if (name == "svg")
    return "timeline.svg";
  if (name == "otf2")
    return "trace.otf2";
  if (name == "report")
    return "report.html";
  if (name == "problem-graphs")
    return "problems";
  return name;
}

} // namespace gcg

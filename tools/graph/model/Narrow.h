// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Narrow.h - 64-bit columns held in 32 bits where they fit -----------===//
//
// Columns of 64-bit values (times in ticks, durations, integer counts held
// in doubles) whose rows mostly fit in 32 bits: each row 4 bytes, and the
// rows that do not fit, whole, in a side table (ascending rows, found by a
// binary search). Where the side table would take more than a quarter of
// the rows (from the 4096th row on), the column holds every row whole (8
// bytes), as a plain column would: never more than a plain column and its
// side table of a quarter of the rows. Rows are pushed in order (at most
// 2^32 - 1 of them: more raises an Error).
//
// TickColumn<T> (T: uint64_t or int64_t) holds a row as its difference from
// its block's first row (blocks of 1024 rows, 8 bytes each): times read in
// order, and a task's times, are close to their neighbours'.
// NarrowDoubles holds a double that is an integer of 31 bits (not -0) as
// that integer, NaN (the NAN of <cmath>) as a mark, the others whole.
// ThreadColumn holds 16-bit thread numbers in a byte while they fit.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_NARROW_H
#define GRAINCHUNK_GRAPH_NARROW_H

#include "Recording.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace gcg {

namespace detail {
/// The rows that do not fit in 32 bits, and the switch to whole rows:
/// shared by TickColumn and NarrowDoubles (W: the whole row's type).
template <typename W> class SideRows {
public:
  /// Row r's whole value (r is in the table).
  W find(uint32_t r) const {
    auto it = std::lower_bound(row.begin(), row.end(), r);
    return val[size_t(it - row.begin())];
  }
  void add(size_t r, W v) {
    if (r >= UINT32_MAX)
      throw Error("more than 2^32 - 1 rows in a column: not analysed");
    row.push_back(uint32_t(r));
    val.push_back(v);
  }
  /// Whether rows 0..n-1 (n the next) would take less room whole.
  bool tooMany(size_t n) const { return n >= 4096 && row.size() > n / 4; }
  size_t size() const { return row.size(); }
  void clear() {
    std::vector<uint32_t>().swap(row);
    std::vector<W>().swap(val);
  }
  std::vector<uint32_t> row; // ascending
  std::vector<W> val;
};
} // namespace detail

/// A column of 64-bit integers (Narrow.h): 4 bytes a row where it is within
/// 2^31 of its block's first row (Based), or of 0 (not Based: durations).
template <typename T, bool Based = true> class TickColumn {
public:
  static constexpr unsigned BlockBits = 10;
  __attribute__((always_inline)) T operator[](size_t r) const {
    if (__builtin_expect(isWhole_, 0))
      return whole[r];
    int32_t d = delta[r];
    if (__builtin_expect(d == Side, 0))
      return sideRow(r);
    return T((Based ? base[r >> BlockBits] : 0) + uint64_t(int64_t(d)));
  }
  /// The column read through pointers a caller holds (in registers, in a
  /// loop or a sort's comparison), as long as the column is not changed.
  class View {
  public:
    __attribute__((always_inline)) T operator[](size_t r) const {
      if (__builtin_expect(whole != nullptr, 0))
        return whole[r];
      int32_t d = delta[r];
      if (__builtin_expect(d == Side, 0))
        return col->sideRow(r);
      return T((Based ? base[r >> BlockBits] : 0) + uint64_t(int64_t(d)));
    }

  private:
    friend class TickColumn;
    const int32_t *delta;
    const uint64_t *base;
    const T *whole;
    const TickColumn *col;
  };
  View view() const {
    View v;
    v.delta = delta.data();
    v.base = base.data();
    v.whole = isWhole_ ? whole.data() : nullptr;
    v.col = this;
    return v;
  }
  size_t size() const { return n; }
  bool empty() const { return !n; }
  /// Room for m rows (address space only where the pages are not touched).
  void reserve(size_t m) { delta.reserve(m); }
  __attribute__((always_inline)) void push_back(T x) {
    uint64_t v = uint64_t(x);
    if (__builtin_expect(!isWhole_, 1)) {
      if (Based && !(n & ((size_t(1) << BlockBits) - 1)))
        base.push_back(v);
      int64_t d = int64_t(v - (Based ? base.back() : 0));
      if (__builtin_expect(d > INT32_MIN && d <= INT32_MAX, 1)) {
        delta.push_back(int32_t(d));
        n++;
        return;
      }
    }
    pushSlow(x);
  }
  void clear() { *this = TickColumn(); }
  /// Whether it holds every row whole (8 bytes a row).
  bool isWhole() const { return isWhole_; }
  /// The rows held whole in the side table.
  size_t sideRows() const { return side.size(); }
  /// Its bytes (not its spare room).
  size_t bytes() const {
    return whole.size() * 8 + delta.size() * 4 + base.size() * 8 +
           side.size() * 12;
  }

private:
  static constexpr int32_t Side = INT32_MIN; // held in side
  /// A row held whole: in whole, or in the side table.
  __attribute__((noinline)) void pushSlow(T x) {
    uint64_t v = uint64_t(x);
    if (isWhole_) {
      whole.push_back(x);
      n++;
      return;
    }
    {
      side.add(n, v);
      delta.push_back(Side);
      if (side.tooMany(n + 1)) {
        n++;
        widen();
        return;
      }
    }
    n++;
  }
  __attribute__((noinline)) T sideRow(size_t r) const {
    return T(side.find(uint32_t(r)));
  }
  void widen() {
    std::vector<T> w;
    w.reserve(std::max(delta.capacity(), n));
    for (size_t r = 0; r < n; r++)
      w.push_back((*this)[r]);
    std::vector<int32_t>().swap(delta);
    std::vector<uint64_t>().swap(base);
    side.clear();
    whole.swap(w);
    isWhole_ = true;
  }
  size_t n = 0;
  bool isWhole_ = false;
  std::vector<int32_t> delta;
  std::vector<uint64_t> base; // per block of rows, its first row's value
  detail::SideRows<uint64_t> side;
  std::vector<T> whole;
};

/// A column of doubles (Narrow.h): 4 bytes a row where it is an integer of
/// 31 bits or NaN.
class NarrowDoubles {
public:
  __attribute__((always_inline)) double operator[](size_t r) const {
    if (__builtin_expect(isWhole_, 0))
      return whole[r];
    int32_t v = small[r];
    if (__builtin_expect(v > Side, 1))
      return double(v);
    return v == NaNMark ? NAN : sideRow(r);
  }
  size_t size() const { return n; }
  bool empty() const { return !n; }
  void reserve(size_t m) { small.reserve(m); }
  void push_back(double x) {
    if (isWhole_) {
      whole.push_back(x);
      n++;
      return;
    }
    int32_t v;
    if (fits(x, v)) {
      small.push_back(v);
    } else {
      side.add(n, x);
      small.push_back(Side);
      if (side.tooMany(n + 1)) {
        n++;
        widen();
        return;
      }
    }
    n++;
  }
  void clear() { *this = NarrowDoubles(); }
  /// Row r's bytes asked for ahead of a read.
  void prefetch(size_t r) const {
    if (!isWhole_)
      __builtin_prefetch(small.data() + r);
    else
      __builtin_prefetch(whole.data() + r);
  }
  bool isWhole() const { return isWhole_; }
  size_t sideRows() const { return side.size(); }
  size_t bytes() const {
    return whole.size() * 8 + small.size() * 4 + side.size() * 12;
  }

private:
  static constexpr int32_t NaNMark = INT32_MIN, Side = INT32_MIN + 1;
  __attribute__((noinline)) double sideRow(size_t r) const {
    return side.find(uint32_t(r));
  }
  /// Whether x is held as v: the same bits back.
  static bool fits(double x, int32_t &v) {
    if (std::isnan(x)) {
      double nan = NAN;
      v = NaNMark;
      return std::memcmp(&x, &nan, sizeof x) == 0;
    }
    if (!(x > double(Side) && x <= double(INT32_MAX)))
      return false;
    v = int32_t(x);
    double back = double(v);
    return std::memcmp(&x, &back, sizeof x) == 0;
  }
  void widen() {
    std::vector<double> w;
    w.reserve(std::max(small.capacity(), n));
    for (size_t r = 0; r < n; r++)
      w.push_back((*this)[r]);
    std::vector<int32_t>().swap(small);
    side.clear();
    whole.swap(w);
    isWhole_ = true;
  }
  size_t n = 0;
  bool isWhole_ = false;
  std::vector<int32_t> small;
  detail::SideRows<double> side;
  std::vector<double> whole;
};

/// A column of thread numbers (below 2^16): a byte a row while they are
/// below 256, then 2 bytes (from the first one that is not on).
class ThreadColumn {
public:
  uint16_t operator[](size_t r) const { return isWide ? wide[r] : small[r]; }
  size_t size() const { return isWide ? wide.size() : small.size(); }
  void reserve(size_t m) {
    room = m;
    small.reserve(m);
  }
  void push_back(uint16_t th) {
    if (!isWide && th > UINT8_MAX) {
      wide.reserve(std::max(room, small.size() + 1));
      wide.assign(small.begin(), small.end());
      std::vector<uint8_t>().swap(small);
      isWide = true;
    }
    if (isWide)
      wide.push_back(th);
    else
      small.push_back(uint8_t(th));
  }
  /// Whether the rows are 2 bytes.
  bool wideRows() const { return isWide; }

private:
  std::vector<uint8_t> small;
  std::vector<uint16_t> wide;
  bool isWide = false;
  size_t room = 0;
};

} // namespace gcg

#endif

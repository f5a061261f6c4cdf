// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- Narrow.h - columns held in narrow cells where the values fit -------===//
//
// One family of columns (NarrowColumn<T, Fit, Base>) for the chunks' and
// the tasks' times, iterations and creation times: each row a narrow cell
// (Fit::Cell: 2 or 4 bytes) where its value fits, from a base (Base: none,
// the column's own per-block first row, or another column's row), and the
// rows that do not fit, whole, in a side table (rows ascending, found by a
// binary search: 4 + sizeof(T) bytes each), their cell the mark Fit::Far.
// Where the side table would hold more than a quarter of the rows (from the
// 4096th row on), the column holds every row whole (sizeof(T) bytes), as a
// plain column would: a 4-byte cell and a side table of a quarter of the
// rows is 7 bytes a row, less than 8. A row past 2^32 - 2 that does not
// fit makes it whole too (side rows are 32-bit). Rows are pushed in order;
// set() changes one (in or out of the side table). A row's base is read
// when it is set: it must not change after.
//
// Fits: OffsetFit<Cell> holds a 64-bit value as its difference from the
// base in a signed or unsigned Cell (Far: the cell's limit); IntegerFit a
// double that is an integer of 31 bits (not -0) as that integer, NaN (the
// NAN of <cmath>) as a mark; CreationFit a double that is NaN or a whole
// number of ticks below 65534 (not -0) in 16 bits.
// Bases: NoBase (0), BlockBase<Bits> (per block of 2^Bits rows, its first
// row's value: 8 bytes a block), ColumnBase<Col> (row r of another column).
// Reads: operator[] (one row), view() (the column's pointers held by the
// caller, in registers across a loop or a sort's comparison), rows() (a run
// of rows in order, each block's base read once).
//
// TickColumn<T> (tasks' times: blocks of 1024 rows; TickColumn<T, false>:
// durations, no base) and NarrowDoubles (integers held in doubles) are
// its instances; ThreadColumn holds 16-bit thread numbers in a byte while
// they fit (no side table).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_NARROW_H
#define GRAINCHUNK_GRAPH_NARROW_H

#include "Recording.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <utility>
#include <vector>

namespace gcg {

/// A 64-bit value as its difference from its base in a Cell (signed or
/// not), where that fits and is not Far.
template <typename C> struct OffsetFit {
  using Cell = C;
  static constexpr Cell Far = std::numeric_limits<Cell>::is_signed
                                  ? std::numeric_limits<Cell>::min()
                                  : std::numeric_limits<Cell>::max();
  __attribute__((always_inline)) static uint64_t extend(Cell c) {
    return std::numeric_limits<Cell>::is_signed ? uint64_t(int64_t(c))
                                                : uint64_t(c);
  }
  __attribute__((always_inline)) static bool cell(uint64_t v, uint64_t base,
                                                  Cell &c) {
    uint64_t d = v - base;
    c = Cell(d);
    return extend(c) == d && c != Far;
  }
  __attribute__((always_inline)) static uint64_t value(Cell c, uint64_t base) {
    return base + extend(c);
  }
};

/// A double that is an integer of 31 bits (not -0) as that integer, NaN
/// (NAN's bits) as NaNMark: the same bits back.
struct IntegerFit {
  using Cell = int32_t;
  static constexpr int32_t NaNMark = INT32_MIN, Far = INT32_MIN + 1;
  static bool cell(double x, uint64_t, int32_t &v) {
    if (std::isnan(x)) {
      double nan = NAN;
      v = NaNMark;
      return std::memcmp(&x, &nan, sizeof x) == 0;
    }
    if (!(x > double(Far) && x <= double(INT32_MAX)))
      return false;
    v = int32_t(x);
    double back = double(v);
    return std::memcmp(&x, &back, sizeof x) == 0;
  }
  __attribute__((always_inline)) static double value(int32_t v, uint64_t) {
    return v == NaNMark ? NAN : double(v);
  }
};

/// A creation time (ticks, NaN: unmeasured) in 16 bits: NaN, or a whole
/// number of ticks below NaNCell (not -0).
struct CreationFit {
  using Cell = uint16_t;
  static constexpr uint16_t Far = UINT16_MAX, NaNCell = UINT16_MAX - 1;
  static bool cell(double v, uint64_t, uint16_t &c) {
    if (std::isnan(v)) {
      c = NaNCell;
      return true;
    }
    if (!(v >= 0 && v < double(NaNCell)) || std::signbit(v) ||
        v != std::floor(v))
      return false;
    c = uint16_t(v);
    return true;
  }
  __attribute__((always_inline)) static double value(uint16_t c, uint64_t) {
    return c == NaNCell ? NAN : double(c);
  }
};

/// No base: 0.
struct NoBase {
  static constexpr bool Own = false;
  struct Reader {
    uint64_t operator[](size_t) const { return 0; }
  };
  Reader reader() const { return {}; }
  uint64_t operator[](size_t) const { return 0; }
  void pushed(size_t, uint64_t) {}
  void reserve(size_t) {}
  void clear() {}
  size_t bytes() const { return 0; }
};

/// The column's own base: per block of 2^Bits rows, its first row's value
/// (as pushed: it fits its cell).
template <unsigned Bits> struct BlockBase {
  static constexpr bool Own = true;
  static constexpr size_t Rows = size_t(1) << Bits;
  struct Reader {
    const uint64_t *first;
    __attribute__((always_inline)) uint64_t operator[](size_t r) const {
      return first[r >> Bits];
    }
  };
  Reader reader() const { return {first.data()}; }
  __attribute__((always_inline)) uint64_t operator[](size_t r) const {
    return first[r >> Bits];
  }
  /// Row r is pushed with value v: a block's first row makes its base.
  __attribute__((always_inline)) void pushed(size_t r, uint64_t v) {
    if (!(r & (Rows - 1)))
      first.push_back(v);
  }
  void reserve(size_t m) { first.reserve(m / Rows + 1); }
  void clear() { std::vector<uint64_t>().swap(first); }
  size_t bytes() const { return first.size() * 8; }
  std::vector<uint64_t> first;
};

/// Another column's row as the base (Col: a NarrowColumn): it must hold
/// row r before row r is set here.
template <typename Col> struct ColumnBase {
  static constexpr bool Own = false;
  using Reader = typename Col::View;
  ColumnBase(const Col *col = nullptr) : col(col) {}
  Reader reader() const { return col->view(); }
  __attribute__((always_inline)) uint64_t operator[](size_t r) const {
    return uint64_t((*col)[r]);
  }
  void pushed(size_t, uint64_t) {}
  void reserve(size_t) {}
  void clear() {}
  size_t bytes() const { return 0; }
  const Col *col;
};

/// A column of T in Fit::Cell cells from Base, the rows that do not fit in
/// a side table, or held whole (Narrow.h).
template <typename T, typename Fit, typename Base = NoBase> class NarrowColumn {
public:
  using Cell = typename Fit::Cell;
  NarrowColumn() = default;
  explicit NarrowColumn(Base base) : base(std::move(base)) {}

  __attribute__((always_inline)) T operator[](size_t r) const {
    if (__builtin_expect(isWhole_, 0))
      return whole[r];
    Cell c = cell[r];
    if (__builtin_expect(c == Fit::Far, 0))
      return sideAt(r);
    return T(Fit::value(c, base[r]));
  }
  /// Row r's value less its base's (wrapping): its cell's, where that
  /// holds it, without reading the base (OffsetFit on another column).
  __attribute__((always_inline)) uint64_t fromBase(size_t r) const {
    static_assert(!Base::Own, "a base that goes when whole");
    if (__builtin_expect(!isWhole_, 1)) {
      Cell c = cell[r];
      if (__builtin_expect(c != Fit::Far, 1))
        return uint64_t(Fit::value(c, 0));
    }
    return uint64_t((*this)[r]) - base[r];
  }

  /// The column read through pointers a caller holds (in registers, in a
  /// loop or a sort's comparison), as long as the column is not changed.
  class View {
  public:
    __attribute__((always_inline)) T operator[](size_t r) const {
      if (__builtin_expect(whole != nullptr, 0))
        return whole[r];
      Cell c = cell[r];
      if (__builtin_expect(c == Fit::Far, 0))
        return col->sideAt(r);
      return T(Fit::value(c, base[r]));
    }

  private:
    friend class NarrowColumn;
    const Cell *cell;
    typename Base::Reader base;
    const T *whole;
    const NarrowColumn *col;
  };
  View view() const {
    View v;
    v.cell = cell.data();
    v.base = base.reader();
    v.whole = isWhole_ ? whole.data() : nullptr;
    v.col = this;
    return v;
  }
  /// f(r, value) for rows b..e-1 in order: a block's base read once (the
  /// column's own blocks), else as view() reads them.
  template <typename F>
  __attribute__((always_inline)) void rows(size_t b, size_t e, F &&f) const {
    if (isWhole_ || !Base::Own) {
      View v = view();
      for (size_t r = b; r < e; r++)
        f(r, v[r]);
      return;
    }
    constexpr size_t Rows = OwnRows<Base>::value;
    const Cell *c = cell.data();
    for (size_t r = b; r < e;) {
      size_t stop = std::min(e, (r | (Rows - 1)) + 1);
      uint64_t at = base[r];
      for (; r < stop; r++) {
        Cell x = c[r];
        f(r, __builtin_expect(x == Fit::Far, 0) ? sideAt(r)
                                                : T(Fit::value(x, at)));
      }
    }
  }

  /// Row r's bytes asked for ahead of a read.
  void prefetch(size_t r) const {
    if (!isWhole_)
      __builtin_prefetch(cell.data() + r);
    else
      __builtin_prefetch(whole.data() + r);
  }
  size_t size() const { return isWhole_ ? whole.size() : cell.size(); }
  bool empty() const { return !size(); }
  /// Room for m rows, in cells (and, should it become whole, the column).
  void reserve(size_t m) {
    if (isWhole_) {
      whole.reserve(m);
      return;
    }
    cell.reserve(m);
    base.reserve(m);
  }
  __attribute__((always_inline)) void push_back(T x) {
    if (__builtin_expect(!isWhole_, 1)) {
      size_t r = cell.size();
      if constexpr (Base::Own)
        base.pushed(r, uint64_t(x));
      Cell c;
      if (__builtin_expect(Fit::cell(x, base[r], c), 1)) {
        cell.push_back(c);
        return;
      }
    }
    pushSlow(x);
  }
  __attribute__((always_inline)) void set(size_t r, T x) {
    Cell c;
    if (__builtin_expect(
            !isWhole_ && cell[r] != Fit::Far && Fit::cell(x, base[r], c), 1)) {
      cell[r] = c;
      return;
    }
    setSlow(r, x);
  }
  /// No rows (the base column kept).
  void clear() {
    if constexpr (Base::Own)
      *this = NarrowColumn();
    else
      *this = NarrowColumn(base);
  }
  /// Whether it holds every row whole (sizeof(T) bytes a row).
  bool isWhole() const { return isWhole_; }
  /// The rows held whole in the side table.
  size_t sideRows() const { return sideRow.size(); }
  /// Its bytes (not its spare room).
  size_t bytes() const {
    return whole.size() * sizeof(T) + cell.size() * sizeof(Cell) +
           base.bytes() + sideRow.size() * (4 + sizeof(T));
  }

private:
  template <typename B> struct OwnRows { static constexpr size_t value = 1; };
  template <unsigned Bits> struct OwnRows<BlockBase<Bits>> {
    static constexpr size_t value = BlockBase<Bits>::Rows;
  };
  /// Row r's place in the side table (the first not below it).
  size_t sidePlace(size_t r) const {
    return size_t(
        std::lower_bound(sideRow.begin(), sideRow.end(), uint32_t(r)) -
        sideRow.begin());
  }
  __attribute__((noinline)) T sideAt(size_t r) const {
    return sideVal[sidePlace(r)];
  }
  /// Whether the side table (rows 0..n-1) would take more room than the
  /// rows whole.
  bool tooMany(size_t n) const { return n >= 4096 && sideRow.size() > n / 4; }
  /// Row r (the last pushed, its cell not pushed yet) held whole.
  __attribute__((noinline)) void pushSlow(T x) {
    if (isWhole_) {
      whole.push_back(x);
      return;
    }
    size_t r = cell.size();
    if (r >= UINT32_MAX) { // past the side table's rows
      widen();
      whole.push_back(x);
      return;
    }
    cell.push_back(Fit::Far);
    sideRow.push_back(uint32_t(r));
    sideVal.push_back(x);
    if (tooMany(r + 1))
      widen();
  }
  __attribute__((noinline)) void setSlow(size_t r, T x) {
    if (isWhole_) {
      whole[r] = x;
      return;
    }
    Cell c;
    bool fits = Fit::cell(x, base[r], c);
    if (cell[r] == Fit::Far) {
      size_t p = sidePlace(r);
      if (!fits) {
        sideVal[p] = x;
        return;
      }
      sideRow.erase(sideRow.begin() + long(p));
      sideVal.erase(sideVal.begin() + long(p));
      cell[r] = c;
      return;
    }
    if (r >= UINT32_MAX) {
      widen();
      whole[r] = x;
      return;
    }
    size_t p = sidePlace(r);
    sideRow.insert(sideRow.begin() + long(p), uint32_t(r));
    sideVal.insert(sideVal.begin() + long(p), x);
    cell[r] = Fit::Far;
    if (tooMany(cell.size()))
      widen();
  }
  void widen() {
    std::vector<T> w;
    w.reserve(std::max(cell.capacity(), cell.size()));
    for (size_t r = 0; r < cell.size(); r++)
      w.push_back((*this)[r]);
    std::vector<Cell>().swap(cell);
    if (Base::Own)
      base.clear();
    std::vector<uint32_t>().swap(sideRow);
    std::vector<T>().swap(sideVal);
    whole.swap(w);
    isWhole_ = true;
  }
  bool isWhole_ = false;
  std::vector<Cell> cell;
  Base base;
  std::vector<uint32_t> sideRow; // ascending
  std::vector<T> sideVal;
  std::vector<T> whole;
};

/// A column of 64-bit integers: 4 bytes a row where it is within 2^31 of
/// its block's first row (Based: blocks of 1024 rows), or of 0 (not Based:
/// durations).
template <typename T, bool Based = true>
using TickColumn =
    NarrowColumn<T, OffsetFit<int32_t>,
                 std::conditional_t<Based, BlockBase<10>, NoBase>>;

/// A column of doubles: 4 bytes a row where it is an integer of 31 bits or
/// NaN.
using NarrowDoubles = NarrowColumn<double, IntegerFit, NoBase>;

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

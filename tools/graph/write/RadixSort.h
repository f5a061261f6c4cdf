// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- RadixSort.h - an in-place sort by an unsigned key, a byte at a time ===//
//
// Grains by start (report.html's task segments): an American flag sort (most significant
// byte first, each byte's buckets swapped into place: no second copy of
// the elements), the ranges of one key or of a few elements sorted by
// comparison. less must order by the key first; what it orders within one
// key (or nothing: those end in no particular order) it keeps.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_RADIXSORT_H
#define GRAINCHUNK_GRAPH_RADIXSORT_H

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace gcg {

/// Sorts [b, e) by key(x) (an unsigned offset) a byte at a time from bit
/// shift down, then by less where the keys end equal or few are left.
template <class T, class Key, class Less>
void radixSortFrom(T *b, T *e, const Key &key, const Less &less, int shift) {
  if (e - b <= 32 || shift < 0) {
    std::sort(b, e, less);
    return;
  }
  std::array<size_t, 257> start{};
  for (T *x = b; x != e; ++x)
    start[((key(*x) >> shift) & 255) + 1]++;
  for (size_t d = 0; d < 256; d++)
    start[d + 1] += start[d];
  std::array<size_t, 256> next;
  std::copy(start.begin(), start.end() - 1, next.begin());
  for (size_t d = 0; d < 256; d++)
    while (next[d] < start[d + 1]) {
      T &x = b[next[d]];
      size_t dx = (key(x) >> shift) & 255;
      if (dx == d)
        next[d]++;
      else
        std::swap(x, b[next[dx]++]);
    }
  int below = shift == 0 ? -1 : std::max(shift - 8, 0);
  for (size_t d = 0; d < 256; d++)
    radixSortFrom(b + start[d], b + start[d + 1], key, less, below);
}

/// Sorts [b, e) by start(x) (an integer), then less (which orders by start
/// first): by the offsets from the least start, from their top byte.
template <class T, class Start, class Less>
void radixSortBy(T *b, T *e, const Start &start, const Less &less) {
  if (b == e)
    return;
  auto first = start(*b);
  for (const T *x = b; x != e; ++x)
    first = std::min(first, start(*x));
  auto offset = [&](const T &x) {
    return uint64_t(start(x)) - uint64_t(first);
  };
  uint64_t most = 0;
  for (const T *x = b; x != e; ++x)
    most = std::max(most, offset(*x));
  int top = 63 - __builtin_clzll(most | 1);
  radixSortFrom(b, e, offset, less, std::max(top - 7, 0));
}

} // namespace gcg

#endif

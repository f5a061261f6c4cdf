// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- IdTable.h - values by 64-bit id, flat, in the order inserted -------===//
//
// A map from 64-bit ids to values, for the model's tables looked up by an
// id of the recording (Analysis::implicit, the implicit tasks by task id):
// the entries in one vector, in the order inserted (the order iteration
// gives), found through an open-addressing index of entry numbers (linear
// probing, at most half full). Per entry: its id and value, and 8 to 16
// bytes of index; std::unordered_map adds a node (its pointer and the
// allocator's header, 16 bytes) and a bucket (8) to each, and a pointer to
// follow per lookup. Entries are never erased; an insertion may move the
// entries (references to them last until the next one), and an id given
// again keeps its entry.
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_IDTABLE_H
#define GRAINCHUNK_GRAPH_IDTABLE_H

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcg {

template <class V> class IdTable {
public:
  using value_type = std::pair<uint64_t, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return entries.begin(); }
  iterator end() { return entries.end(); }
  const_iterator begin() const { return entries.begin(); }
  const_iterator end() const { return entries.end(); }
  size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }

  iterator find(uint64_t id) {
    size_t e = lookup(id);
    return e == NotFound ? end() : entries.begin() + e;
  }
  const_iterator find(uint64_t id) const {
    size_t e = lookup(id);
    return e == NotFound ? end() : entries.begin() + e;
  }
  size_t count(uint64_t id) const { return lookup(id) != NotFound; }
  /// Room for n entries (not their index): address space until used.
  void reserve(size_t n) { entries.reserve(n); }

  /// id's value, a value-initialized one inserted if id has none.
  V &operator[](uint64_t id) { return entries[entry(id)].second; }
  /// id's entry number (begin() + it is its entry: entries are never
  /// erased), a value-initialized entry inserted if id has none.
  size_t entry(uint64_t id) {
    if (2 * (entries.size() + 1) > slots.size())
      grow();
    size_t s = slotOf(id);
    for (; slots[s] != Empty; s = (s + 1) & (slots.size() - 1))
      if (entries[slots[s]].first == id)
        return slots[s];
    slots[s] = uint32_t(entries.size());
    entries.emplace_back(id, V());
    return entries.size() - 1;
  }

private:
  static constexpr uint32_t Empty = UINT32_MAX;
  static constexpr size_t NotFound = SIZE_MAX;

  // Fibonacci hashing: the top bits of id times 2^64 / golden ratio.
  size_t slotOf(uint64_t id) const {
    return size_t((id * 0x9E3779B97F4A7C15ull) >> shift);
  }
  size_t lookup(uint64_t id) const {
    if (slots.empty())
      return NotFound;
    for (size_t s = slotOf(id); slots[s] != Empty;
         s = (s + 1) & (slots.size() - 1))
      if (entries[slots[s]].first == id)
        return slots[s];
    return NotFound;
  }
  void grow() {
    size_t n = slots.empty() ? 16 : 2 * slots.size();
    shift = 64;
    for (size_t m = n; m > 1; m >>= 1)
      shift--;
    slots.assign(n, Empty);
    for (size_t e = 0; e < entries.size(); e++) {
      size_t s = slotOf(entries[e].first);
      while (slots[s] != Empty)
        s = (s + 1) & (n - 1);
      slots[s] = uint32_t(e);
    }
  }

  std::vector<value_type> entries;
  std::vector<uint32_t> slots; // entry numbers; a power of two long
  unsigned shift = 64;
};

} // namespace gcg

#endif

// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//===- IdTable.h - values by 64-bit id, flat, in the order inserted -------===//
//
// A map from 64-bit ids to values, for the model's tables looked up by an
// id of the recording (Analysis::implicit, the implicit tasks by task id;
// Analysis::loopKeys while reading): the entries in one vector, in the order
// inserted (the order iteration gives). While the ids come in ascending order
// (a thread hands its ids out in ascending order, (thread + 1) << 40 | counter,
// and threads are read in the order of their numbers: every table of a
// well-formed recording), that order is the ids' and an id is found by
// searching the entries: no index, nothing per entry but its id and value,
// an insertion one append. The search goes to the run of entries whose ids
// share id's top 24 bits (a thread's, up to MaxRuns runs), then guesses
// id's place from its value (a thread's counter: mostly right at once, a
// cache line or two), at most a few times, then halves what is left (a
// binary search alone would touch 20 places in a table of a million).
// Measured on a million ids of two threads, 56-byte entries: a look-up in
// ascending order 11 ns (the index: 17 ns), in random order 92-105 ns
// (the index: 44-66 ns); most of the model's look-ups go in order. The
// first id that comes out of order makes an open-addressing index of entry
// numbers (linear probing, at most half full: 8 to 16 bytes per entry),
// used from then on; std::unordered_map would add a node (its pointer and
// the allocator's header, 16 bytes) and a bucket (8) to each entry, and a
// pointer to follow per lookup. Entries are never erased; an insertion may
// move the entries (references to them last until the next one), and an id
// given again keeps its entry. IdIndex is the same without values: an id's
// entry number is its value (Analysis::regions, whose entry numbers are
// the regions' indices: 8 bytes a region, not 16).
//
//===----------------------------------------------------------------------===//
#ifndef GRAINCHUNK_GRAPH_IDTABLE_H
#define GRAINCHUNK_GRAPH_IDTABLE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gcg {

/// The entries' search and index, for entries of type E whose id is
/// Key::id(e) (a new one Key::make(id)): IdTable's and IdIndex's.
template <class E, class Key> class IdEntries {
public:
  size_t size() const { return entries.size(); }
  bool empty() const { return entries.empty(); }
  /// Room for n entries (not their index): address space until used.
  void reserve(size_t n) { entries.reserve(n); }
  /// Whether the ids are held in ascending order, without an index (every
  /// id so far came after the ones before it).
  bool ascending() const { return slots.empty(); }
  /// id's entry number (entries are never erased), a new entry made if id
  /// has none.
  size_t entry(uint64_t id) {
    if (slots.empty()) {
      if (entries.empty() || Key::id(entries.back()) < id) {
        if (runs.size() < MaxRuns &&
            (runs.empty() || (Key::id(entries.back()) >> 40) != (id >> 40)))
          runs.push_back(entries.size());
        entries.push_back(Key::make(id));
        return entries.size() - 1;
      }
      size_t e = search(id);
      if (e != NotFound)
        return e;
      std::vector<size_t>().swap(runs);
      grow(); // out of order: indexed from now on
    }
    if (2 * (entries.size() + 1) > slots.size())
      grow();
    size_t s = slotOf(id);
    for (; slots[s] != Empty; s = (s + 1) & (slots.size() - 1))
      if (Key::id(entries[slots[s]]) == id)
        return slots[s];
    slots[s] = uint32_t(entries.size());
    entries.push_back(Key::make(id));
    return entries.size() - 1;
  }

protected:
  static constexpr uint32_t Empty = UINT32_MAX;
  static constexpr size_t NotFound = SIZE_MAX;

  // Fibonacci hashing: the top bits of id times 2^64 / golden ratio.
  size_t slotOf(uint64_t id) const {
    return size_t((id * 0x9E3779B97F4A7C15ull) >> shift);
  }
  // The entry of id among entries in ascending order, or NotFound: the
  // last one first (most look-ups while reading ask the newest), then in
  // its run (runs: each one's first entry), a few guesses from the ids at
  // the ends of what is left, then halving it.
  size_t search(uint64_t id) const {
    size_t n = entries.size();
    if (!n || id > Key::id(entries[n - 1]))
      return NotFound;
    if (id == Key::id(entries[n - 1]))
      return n - 1;
    const E *b = entries.data();
    // The last run whose first id is at most id.
    size_t r = size_t(std::upper_bound(runs.begin(), runs.end(), id,
                                       [b](uint64_t x, size_t e) {
                                         return x < Key::id(b[e]);
                                       }) -
                      runs.begin());
    if (!r)
      return NotFound; // below the first id
    size_t lo = runs[r - 1], hi = r < runs.size() ? runs[r] - 1 : n - 1;
    for (int guess = 0; guess < 4 && lo < hi; guess++) {
      uint64_t a = Key::id(b[lo]), z = Key::id(b[hi]);
      if (id <= a)
        return id == a ? lo : NotFound;
      if (id >= z)
        return id == z ? hi : NotFound;
      // a < id < z: lo < at < hi (a guess: a double's rounding is fine).
      size_t at =
          lo + 1 + size_t(double(id - a) / double(z - a) * double(hi - lo - 1));
      if (at >= hi)
        at = hi - 1;
      uint64_t k = Key::id(b[at]);
      if (k == id)
        return at;
      if (k < id)
        lo = at + 1;
      else
        hi = at - 1;
    }
    for (n = hi - lo + 1; n > 1;) {
      size_t half = n / 2;
      lo = Key::id(b[lo + half]) <= id ? lo + half : lo;
      n -= half;
    }
    return Key::id(b[lo]) == id ? lo : NotFound;
  }
  size_t lookup(uint64_t id) const {
    if (slots.empty())
      return search(id);
    for (size_t s = slotOf(id); slots[s] != Empty;
         s = (s + 1) & (slots.size() - 1))
      if (Key::id(entries[slots[s]]) == id)
        return slots[s];
    return NotFound;
  }
  void grow() {
    size_t n = slots.empty() ? 16 : 2 * slots.size();
    while (n < 2 * (entries.size() + 1))
      n *= 2;
    shift = 64;
    for (size_t m = n; m > 1; m >>= 1)
      shift--;
    slots.assign(n, Empty);
    for (size_t e = 0; e < entries.size(); e++) {
      size_t s = slotOf(Key::id(entries[e]));
      while (slots[s] != Empty)
        s = (s + 1) & (n - 1);
      slots[s] = uint32_t(e);
    }
  }

  // Ascending: the runs' first entries (MaxRuns at most: the last one
  // then takes every later id).
  static constexpr size_t MaxRuns = 1024;
  std::vector<size_t> runs;
  std::vector<E> entries;
  std::vector<uint32_t> slots; // entry numbers; a power of two long, or empty
  unsigned shift = 64;
};

/// An entry's id: (id, value) pairs' first.
template <class V> struct PairKey {
  static uint64_t id(const std::pair<uint64_t, V> &e) { return e.first; }
  static std::pair<uint64_t, V> make(uint64_t id) { return {id, V()}; }
};

template <class V>
class IdTable : public IdEntries<std::pair<uint64_t, V>, PairKey<V>> {
  using Base = IdEntries<std::pair<uint64_t, V>, PairKey<V>>;
  using Base::entries;
  using Base::lookup;
  using Base::NotFound;

public:
  using value_type = std::pair<uint64_t, V>;
  using iterator = typename std::vector<value_type>::iterator;
  using const_iterator = typename std::vector<value_type>::const_iterator;

  iterator begin() { return entries.begin(); }
  iterator end() { return entries.end(); }
  const_iterator begin() const { return entries.begin(); }
  const_iterator end() const { return entries.end(); }

  iterator find(uint64_t id) {
    size_t e = lookup(id);
    return e == NotFound ? end() : entries.begin() + e;
  }
  const_iterator find(uint64_t id) const {
    size_t e = lookup(id);
    return e == NotFound ? end() : entries.begin() + e;
  }
  size_t count(uint64_t id) const { return lookup(id) != NotFound; }
  /// id's value, a value-initialized one inserted if id has none.
  V &operator[](uint64_t id) { return entries[this->entry(id)].second; }
};

/// An id is its own entry.
struct SelfKey {
  static uint64_t id(uint64_t e) { return e; }
  static uint64_t make(uint64_t id) { return id; }
};

/// Ids alone, numbered in the order inserted (entry()): an id's number is
/// its value (8 bytes an id).
class IdIndex : public IdEntries<uint64_t, SelfKey> {
public:
  static constexpr size_t None = NotFound;
  /// id's number, or None.
  size_t find(uint64_t id) const { return lookup(id); }
  /// The id numbered e.
  uint64_t operator[](size_t e) const { return entries[e]; }
};

} // namespace gcg

#endif

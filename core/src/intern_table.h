// A table of distinct values, each stored once and named by a uint32 index.
//
// A shape's filter and its material (friction, restitution, density) take
// 48 bytes, and most worlds have a handful of distinct ones: the shape
// records hold two 4-byte indexes into tables of this kind instead (about
// 40 bytes per shape less). Each value counts the records that name it and
// its index is reused once none does.
//
// Which index a value gets depends only on the order of Add and Release
// calls, and an index never reaches a result, the snapshot or the hash:
// those read the values. A world whose shapes all differ pays about 16
// bytes per shape and table more than values kept in the records would
// cost: the record's index, the count and a hash entry of 5-11 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "slot_index.h"

namespace arbiter::internal {

/// `Hash` is a function object uint64_t(const T&); T needs ==.
template <class T, class Hash>
class InternTable {
 public:
  /// The index of `value`, added when new; counts one more user of it.
  uint32_t Add(const T& value) {
    const uint64_t hash = Hash{}(value);
    uint32_t index = index_.Find(hash, [&](uint32_t i) { return values_[i] == value; });
    if (index == SlotIndex::kEmpty) {
      if (free_.empty()) {
        index = static_cast<uint32_t>(values_.size());
        values_.push_back(value);
        counts_.push_back(0);
      } else {
        index = free_.back();
        free_.pop_back();
        values_[index] = value;
      }
      index_.Insert(hash, index, HashOf{values_});
    }
    ++counts_[index];
    return index;
  }

  /// Counts one user of `index` less; at none the index is free for reuse.
  void Release(uint32_t index) {
    if (--counts_[index] != 0) return;
    index_.Erase(Hash{}(values_[index]), index, HashOf{values_});
    free_.push_back(index);
  }

  const T& operator[](uint32_t index) const { return values_[index]; }
  /// The values by index, for a loop that reads many (a free index's entry
  /// is stale); valid until the next Add.
  const T* data() const { return values_.data(); }
  /// Records naming `index` (0 for a free index).
  uint32_t UsersOf(uint32_t index) const { return counts_[index]; }
  /// Distinct values held.
  size_t size() const { return index_.size(); }

  size_t MemoryBytes() const {
    return values_.capacity() * sizeof(T) + (counts_.capacity() + free_.capacity()) * sizeof(uint32_t) +
           index_.MemoryBytes();
  }

 private:
  struct HashOf {
    const std::vector<T>& values;
    uint64_t operator()(uint32_t i) const { return Hash{}(values[i]); }
  };

  std::vector<T> values_;          // a free index's entry is stale
  std::vector<uint32_t> counts_;   // users of each index
  std::vector<uint32_t> free_;     // indexes no record names, the last freed last
  SlotIndex index_;                // the live indexes, by value
};

}  // namespace arbiter::internal

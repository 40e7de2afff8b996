// A hash index of slot numbers whose keys live in the records they index.
//
// An open-addressing table (linear probing, backward-shift deletion) that
// holds only the 4-byte slot number of each record, not its key: a lookup
// asks the caller whether the record in a slot is the one sought, and
// growing or deleting asks the caller for a slot's hash. Against a table of
// (key, slot) pairs this costs a visit to the record per probe, and saves
// the key's bytes in every table entry; the body id map (id_map.h) and the
// world's interned filters and materials (intern_table.h) use it.
//
// Nothing iterates over it, so its order, which depends on the hashes,
// cannot reach a result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace arbiter::internal {

class SlotIndex {
 public:
  static constexpr uint32_t kEmpty = ~uint32_t{0};

  /// The first slot s of the probe run of `hash` with is(s) true, or kEmpty.
  template <class Is>
  uint32_t Find(uint64_t hash, Is&& is) const {
    if (entries_.empty()) return kEmpty;
    for (size_t i = hash & mask_;; i = (i + 1) & mask_) {
      const uint32_t slot = entries_[i];
      if (slot == kEmpty || is(slot)) return slot;
    }
  }

  /// Adds `slot` (not indexed yet, never kEmpty) under `hash`. hash_of(s)
  /// is the hash of any indexed slot s, for when the table grows.
  template <class HashOf>
  void Insert(uint64_t hash, uint32_t slot, HashOf&& hash_of) {
    if ((size_ + 1) * 4 > entries_.size() * 3) Grow(hash_of);
    Place(hash, slot);
    ++size_;
  }

  /// Removes `slot`, indexed under `hash`; hash_of as for Insert.
  template <class HashOf>
  void Erase(uint64_t hash, uint32_t slot, HashOf&& hash_of) {
    if (entries_.empty()) return;
    size_t i = hash & mask_;
    while (entries_[i] != slot) {
      if (entries_[i] == kEmpty) return;
      i = (i + 1) & mask_;
    }
    // Backward shift: pull later entries of the same probe run into the gap.
    size_t gap = i;
    for (size_t j = (gap + 1) & mask_; entries_[j] != kEmpty; j = (j + 1) & mask_) {
      const size_t home = hash_of(entries_[j]) & mask_;
      // Move j into the gap when its home is not cyclically in (gap, j].
      const bool home_in_range = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j);
      if (!home_in_range) {
        entries_[gap] = entries_[j];
        gap = j;
      }
    }
    entries_[gap] = kEmpty;
    --size_;
  }

  size_t size() const { return size_; }
  void Clear() {
    entries_.clear();
    size_ = 0;
    mask_ = 0;
  }
  size_t MemoryBytes() const { return entries_.capacity() * sizeof(uint32_t); }

 private:
  void Place(uint64_t hash, uint32_t slot) {
    size_t i = hash & mask_;
    while (entries_[i] != kEmpty) i = (i + 1) & mask_;
    entries_[i] = slot;
  }

  template <class HashOf>
  void Grow(HashOf& hash_of) {
    std::vector<uint32_t> old = std::move(entries_);
    const size_t capacity = old.empty() ? 16 : old.size() * 2;
    entries_.assign(capacity, kEmpty);
    mask_ = capacity - 1;
    for (uint32_t slot : old) {
      if (slot != kEmpty) Place(hash_of(slot), slot);
    }
  }

  std::vector<uint32_t> entries_;
  size_t size_ = 0;
  size_t mask_ = 0;
};

/// SplitMix64's finaliser: a fixed mixing function (never a per-process
/// seed), so the table's layout is the same on every run.
inline uint64_t MixBits(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace arbiter::internal

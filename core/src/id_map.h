// A flat hash map from body id (uint64, non-zero) to a slot index, with
// linear probing and backward-shift deletion.
//
// It is only ever used for lookups: nothing iterates over it, so its order
// (which depends on the hash) cannot reach a result. The mixing function is
// fixed (SplitMix64's finaliser), never a per-process random seed.
#pragma once

#include <cstdint>
#include <vector>

namespace arbiter::internal {

class IdMap {
 public:
  static constexpr uint32_t kMissing = ~uint32_t{0};

  uint32_t Find(uint64_t id) const {
    if (keys_.empty()) return kMissing;
    // An empty slot ends the probe before its key is compared: id 0 (the
    // empty marker, never a body) would otherwise "find" an empty slot and
    // its stale value, e.g. RemoveBodies({0}) removing another body.
    for (size_t i = Home(id);; i = (i + 1) & mask_) {
      if (keys_[i] == 0) return kMissing;
      if (keys_[i] == id) return values_[i];
    }
  }

  /// Inserts or overwrites.
  void Insert(uint64_t id, uint32_t value) {
    if ((size_ + 1) * 4 > keys_.size() * 3) Grow();
    for (size_t i = Home(id);; i = (i + 1) & mask_) {
      if (keys_[i] == id) {
        values_[i] = value;
        return;
      }
      if (keys_[i] == 0) {
        keys_[i] = id;
        values_[i] = value;
        ++size_;
        return;
      }
    }
  }

  void Erase(uint64_t id) {
    if (id == 0 || keys_.empty()) return;  // 0 marks empty slots: never a key
    size_t i = Home(id);
    while (keys_[i] != id) {
      if (keys_[i] == 0) return;
      i = (i + 1) & mask_;
    }
    // Backward-shift: pull later entries of the same probe run into the gap.
    size_t gap = i;
    for (size_t j = (gap + 1) & mask_; keys_[j] != 0; j = (j + 1) & mask_) {
      const size_t home = Home(keys_[j]);
      // Move j into the gap when its home is not cyclically in (gap, j].
      const bool home_in_range = gap <= j ? (gap < home && home <= j) : (gap < home || home <= j);
      if (!home_in_range) {
        keys_[gap] = keys_[j];
        values_[gap] = values_[j];
        gap = j;
      }
    }
    keys_[gap] = 0;
    --size_;
  }

  size_t size() const { return size_; }
  void Clear() {
    keys_.clear();
    values_.clear();
    size_ = 0;
    mask_ = 0;
  }
  size_t MemoryBytes() const { return keys_.capacity() * sizeof(uint64_t) + values_.capacity() * sizeof(uint32_t); }

 private:
  static uint64_t Mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  size_t Home(uint64_t id) const { return static_cast<size_t>(Mix(id)) & mask_; }

  void Grow() {
    std::vector<uint64_t> old_keys = std::move(keys_);
    std::vector<uint32_t> old_values = std::move(values_);
    const size_t capacity = old_keys.empty() ? 16 : old_keys.size() * 2;
    keys_.assign(capacity, 0);
    values_.assign(capacity, 0);
    mask_ = capacity - 1;
    size_ = 0;
    for (size_t i = 0; i < old_keys.size(); ++i) {
      if (old_keys[i] != 0) Insert(old_keys[i], old_values[i]);
    }
  }

  std::vector<uint64_t> keys_;
  std::vector<uint32_t> values_;
  size_t size_ = 0;
  size_t mask_ = 0;
};

}  // namespace arbiter::internal

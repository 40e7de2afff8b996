// The map from body id (uint64, non-zero) to the body's slot.
//
// A SlotIndex over the body records: the table holds slots only and reads
// a candidate's id from its record (records[slot].id), 4 bytes an entry
// instead of 12 (19 bytes per body less on arena-100k, about 15 at 1M
// bodies, where the table has 2^21 entries). A lookup
// by id visits the body record it returns anyway; the queries and the
// step's hot paths never look ids up. Only slots of live bodies are
// indexed: a record's id must be set before Insert and still be set at
// Erase, and id 0 (a free record) is never found.
//
// Nothing iterates over it, so its order, which depends on the hash, cannot
// reach a result. The hash is fixed (MixBits), never a per-process seed.
#pragma once

#include <cstdint>

#include "slot_index.h"

namespace arbiter::internal {

class IdMap {
 public:
  static constexpr uint32_t kMissing = SlotIndex::kEmpty;

  /// The slot of the body `id` in `records`, or kMissing.
  template <class Records>
  uint32_t Find(uint64_t id, const Records& records) const {
    if (id == 0) return kMissing;
    return index_.Find(MixBits(id), [&](uint32_t slot) { return records[slot].id == id; });
  }

  /// Indexes `slot`, whose record already carries `id` (not indexed yet).
  template <class Records>
  void Insert(uint64_t id, uint32_t slot, const Records& records) {
    index_.Insert(MixBits(id), slot, HashOf<Records>{records});
  }

  /// Drops `id`, whose record still carries it; no effect when missing.
  template <class Records>
  void Erase(uint64_t id, const Records& records) {
    const uint32_t slot = Find(id, records);
    if (slot != kMissing) index_.Erase(MixBits(id), slot, HashOf<Records>{records});
  }

  size_t size() const { return index_.size(); }
  void Clear() { index_.Clear(); }
  size_t MemoryBytes() const { return index_.MemoryBytes(); }

 private:
  template <class Records>
  struct HashOf {
    const Records& records;
    uint64_t operator()(uint32_t slot) const { return MixBits(records[slot].id); }
  };

  SlotIndex index_;
};

}  // namespace arbiter::internal

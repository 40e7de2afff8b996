// The per-shape test of a QueryFilter, shared by every world query (casts,
// overlaps, the mover).
#pragma once

#include <algorithm>
#include <vector>

#include "arbiter/core/world.h"
#include "world_impl.h"

namespace arbiter::internal {

// Exclusion lists longer than this are sorted once and binary-searched.
constexpr size_t kLinearExcludeLimit = 16;

class FilterCheck {
 public:
  FilterCheck(const World::Impl& w, const QueryFilter& f) : w_(w), f_(f), filters_(w.filters.data()) {
    if (f.exclude_bodies.size() > kLinearExcludeLimit) {
      sorted_.assign(f.exclude_bodies.begin(), f.exclude_bodies.end());
      std::sort(sorted_.begin(), sorted_.end());
    }
  }

  bool Passes(const ShapeRecord& s) const {
    if (s.is_sensor && !f_.include_sensors) return false;
    const Filter& filter = filters_[s.filter];
    if ((filter.category_bits & f_.mask_bits) == 0 || (filter.mask_bits & f_.category_bits) == 0) return false;
    // The body record is read only for a body-type rule: it is another
    // cache line, and most queries have no such rule.
    const bool all_types = (f_.body_types & 0b111) == 0b111;
    if (!all_types) {
      const BodyRecord& body = w_.bodies[s.body_slot];
      if ((f_.body_types & (1u << static_cast<unsigned>(body.type))) == 0) return false;
    }
    if (f_.exclude_bodies.empty()) return true;
    if (sorted_.empty()) {
      return std::find(f_.exclude_bodies.begin(), f_.exclude_bodies.end(), s.body_id) == f_.exclude_bodies.end();
    }
    return !std::binary_search(sorted_.begin(), sorted_.end(), s.body_id);
  }

 private:
  const World::Impl& w_;
  const QueryFilter& f_;
  // The world's filter table, read once: a query adds no filter, and the
  // per-candidate test then costs one load more than a filter in the record.
  const Filter* filters_;
  std::vector<uint64_t> sorted_;
};

}  // namespace arbiter::internal

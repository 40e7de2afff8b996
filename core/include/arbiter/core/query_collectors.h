// File: query_collectors.h
//
// What a cast query keeps of the hits it finds, as collector objects (the
// role of Jolt's CastRayCollector / CastShapeCollector): World::CastRay and
// World::CastShape hand every candidate hit to a CastCollector, and the
// collector alone decides what the query answers and how far the traversal
// still has to look. Closest, all and any are three collectors here, and
// nowhere else: the World's named queries (CastRayClosest, ...) are each
// one of these collectors and one cast.
//
// Determinism: candidates arrive in broad-phase order, which depends on the
// history of insertions and must never show in a result. Each collector
// below answers in the canonical order instead: hits by (fraction, body id,
// shape index), the tie in "closest" to the lower (body id, shape index).
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "arbiter/core/fixed.h"
#include "arbiter/core/types.h"

namespace arbiter {

/// The canonical order of cast hits: by fraction, then (body id, shape index).
inline bool CastHitLess(const CastHit& a, const CastHit& b) {
  if (a.fraction != b.fraction) return a.fraction < b.fraction;
  return a.shape < b.shape;
}

/// Receives the candidate hits of one cast at a time. A cast starts with
/// Begin (so one collector serves query after query of a batch), offers
/// each hit it finds at a fraction no greater than early_out_fraction(),
/// and stops once the early-out fraction is negative. After the traversal
/// the world may complete the reported() hits in place (a shape cast
/// computes its contact point for them alone); that never changes their
/// order.
class CastCollector {
 public:
  virtual ~CastCollector() = default;

  /// Forgets the previous query and starts one with `max_fraction` as the
  /// early-out fraction. Called by the world.
  void Begin(Fixed max_fraction) {
    early_out_ = max_fraction;
    Clear();
  }
  /// A candidate hit (hit.fraction <= early_out_fraction()).
  virtual void AddHit(const CastHit& hit) = 0;

  /// Whether the query hit anything.
  virtual bool had_hit() const = 0;
  /// The hits this collector reports, in canonical order (none for "any").
  virtual std::span<CastHit> reported() = 0;

  /// Shapes that cannot be hit at or before this fraction are skipped;
  /// negative: the traversal stops.
  Fixed early_out_fraction() const { return early_out_; }
  bool should_early_out() const { return early_out_ < kFixedZero; }

 protected:
  virtual void Clear() = 0;
  /// Narrows the search to hits at or before `fraction`. Hits at exactly
  /// `fraction` are still offered, so that a tie can go to the lower id.
  void UpdateEarlyOutFraction(Fixed fraction) { early_out_ = fraction; }
  void ForceEarlyOut() { early_out_ = Fixed::FromRaw(-1); }

 private:
  Fixed early_out_;
};

/// The first hit: narrows the search to the best hit so far.
class ClosestHitCollector final : public CastCollector {
 public:
  void AddHit(const CastHit& hit) override {
    if (!best_ || CastHitLess(hit, *best_)) best_ = hit;
    UpdateEarlyOutFraction(best_->fraction);
  }
  bool had_hit() const override { return best_.has_value(); }
  std::span<CastHit> reported() override { return best_ ? std::span<CastHit>(&*best_, 1) : std::span<CastHit>(); }
  const std::optional<CastHit>& hit() const { return best_; }

 private:
  void Clear() override { best_.reset(); }
  std::optional<CastHit> best_;
};

/// Every hit, by (fraction, body id, shape index); never narrows the search.
class AllHitsCollector final : public CastCollector {
 public:
  void AddHit(const CastHit& hit) override {
    hits_.push_back(hit);
    sorted_ = false;
  }
  bool had_hit() const override { return !hits_.empty(); }
  std::span<CastHit> reported() override {
    if (!sorted_) std::sort(hits_.begin(), hits_.end(), CastHitLess);
    sorted_ = true;
    return hits_;
  }
  /// The reported hits, moved out.
  std::vector<CastHit> TakeHits() {
    reported();
    return std::move(hits_);
  }

 private:
  // Keeps the vector's capacity: a batch reuses it from query to query.
  void Clear() override {
    hits_.clear();
    sorted_ = true;
  }
  std::vector<CastHit> hits_;
  bool sorted_ = true;
};

/// Whether anything is hit: stops at the first hit found, reports none.
class AnyHitCollector final : public CastCollector {
 public:
  void AddHit(const CastHit&) override {
    hit_ = true;
    ForceEarlyOut();
  }
  bool had_hit() const override { return hit_; }
  std::span<CastHit> reported() override { return {}; }

 private:
  void Clear() override { hit_ = false; }
  bool hit_ = false;
};

}  // namespace arbiter

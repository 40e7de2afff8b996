// World queries: broad phase for candidates, exact narrow phase for answers,
// canonical order for results.
#include <algorithm>
#include <optional>
#include <type_traits>

#include "arbiter/core/collision.h"
#include "arbiter/core/world.h"
#include "collision_internal.h"
#include "query_filter.h"
#include "world_impl.h"

namespace arbiter {

using internal::FilterCheck;
using internal::RayFrame;
using internal::ShapeRecord;

namespace {

CastHit MakeHit(const World::Impl& w, const ShapeRecord& s, const CastOutput& out) {
  return {{w.bodies[s.body_slot].id, s.index_in_body}, s.user_tag, out.fraction, out.point, out.normal};
}

// The canonical order of cast hits.
bool HitLess(const CastHit& a, const CastHit& b) {
  if (a.fraction != b.fraction) return a.fraction < b.fraction;
  return a.shape < b.shape;
}

// A box as a proxy: a point or a segment when it is degenerate, so that the
// polygon predicates always see a proper convex polygon.
ShapeProxy BoxProxy(const Aabb& box) {
  const Vec2 lo = box.lower, hi = box.upper;
  if (lo.x == hi.x && lo.y == hi.y) {
    const Vec2 p[1] = {lo};
    return MakeProxy(p, kFixedZero);
  }
  if (lo.x == hi.x || lo.y == hi.y) {
    const Vec2 p[2] = {lo, hi};
    return MakeProxy(p, kFixedZero);
  }
  const Vec2 p[4] = {lo, {hi.x, lo.y}, hi, {lo.x, hi.y}};
  return MakeProxy(p, kFixedZero);
}

template <class Visit>
void QueryBothTrees(const World::Impl& w, const Aabb& box, Visit&& visit) {
  bool go_on = true;
  auto guarded = [&](uint32_t shape) {
    go_on = visit(shape);
    return go_on;
  };
  w.static_tree.Query(box, guarded);
  if (go_on) w.movable_tree.Query(box, guarded);
}

std::vector<ShapeRef> SortedRefs(std::vector<ShapeRef> refs) {
  std::sort(refs.begin(), refs.end());
  return refs;
}

// Shared driver of the overlap queries: candidates from both trees, an exact
// per-shape test, results by (body id, shape index).
template <class Test>
std::vector<ShapeRef> Overlap(const World::Impl& w, const Aabb& bounds, const QueryFilter& filter, Test&& test) {
  const FilterCheck check(w, filter);
  std::vector<ShapeRef> refs;
  QueryBothTrees(w, bounds, [&](uint32_t index) {
    const ShapeRecord& s = w.shapes[index];
    if (check.Passes(s) && test(w.ProxyOf(s))) refs.push_back({w.bodies[s.body_slot].id, s.index_in_body});
    return true;
  });
  return SortedRefs(std::move(refs));
}

// What a cast query keeps of the hits it finds. Offer(hit, shape) returns
// the new traversal limit: kClosest clips at the best hit so far (hits at
// the same fraction are still tested: the tie goes to the lower id), kAll
// keeps everything, kAny stops at the first hit (a negative limit).
// Take(complete) calls complete(shape, &hit) for each hit it reports, to
// fill in what the cast left for the reported hits alone (the contact
// point of a shape cast); the order of hits never depends on it.
class ClosestHit {
 public:
  Fixed Offer(const CastHit& hit, uint32_t shape) {
    if (!best_ || HitLess(hit, *best_)) {
      best_ = hit;
      shape_ = shape;
    }
    return best_->fraction;
  }
  template <class Complete>
  std::optional<CastHit> Take(Complete&& complete) {
    if (best_) complete(shape_, &*best_);
    return best_;
  }

 private:
  std::optional<CastHit> best_;
  uint32_t shape_ = 0;
};

class AllHits {
 public:
  Fixed Offer(const CastHit& hit, uint32_t shape, Fixed limit) {
    hits_.push_back(hit);
    shapes_.push_back(shape);
    return limit;
  }
  template <class Complete>
  std::vector<CastHit> Take(Complete&& complete) {
    for (size_t i = 0; i < hits_.size(); ++i) complete(shapes_[i], &hits_[i]);
    std::sort(hits_.begin(), hits_.end(), HitLess);
    return std::move(hits_);
  }

 private:
  std::vector<CastHit> hits_;
  std::vector<uint32_t> shapes_;
};

class AnyHit {
 public:
  Fixed Offer(const CastHit&, uint32_t) {
    hit_ = true;
    return Fixed::FromRaw(-1);
  }
  template <class Complete>
  bool Take(Complete&&) const {
    return hit_;
  }

 private:
  bool hit_ = false;
};

template <class Collector>
Fixed OfferHit(Collector& collector, const CastHit& hit, uint32_t shape, Fixed limit) {
  if constexpr (std::is_same_v<Collector, AllHits>) {
    return collector.Offer(hit, shape, limit);
  } else {
    return collector.Offer(hit, shape);
  }
}

// Shared driver of the cast queries: both trees, the filter, then
// `cast(proxy, max_fraction)` for each candidate shape, hits to `collector`.
template <class Cast, class Collector>
void CastQuery(const World::Impl& w, Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate,
               const QueryFilter& filter, Cast&& cast, Collector& collector, QueryStats* stats,
               bool search_movable = true) {
  const FilterCheck check(w, filter);
  Fixed limit = max_fraction;
  uint64_t tests = 0;
  auto clip = [&](uint32_t index) -> Fixed {
    const ShapeRecord& s = w.shapes[index];
    if (!check.Passes(s)) return limit;
    ++tests;
    const CastOutput out = cast(w.ProxyOf(s), limit);
    if (!out.hit) return limit;
    limit = OfferHit(collector, MakeHit(w, s, out), index, limit);
    return limit;
  };
  uint64_t visits = w.static_tree.RayCast(origin, translation, limit, inflate, clip);
  if (limit >= kFixedZero && search_movable) visits += w.movable_tree.RayCast(origin, translation, limit, inflate, clip);
  if (stats != nullptr) {
    stats->node_visits += visits;
    stats->shape_tests += tests;
  }
}

template <class Collector>
auto CastRayQuery(const World::Impl& w, const RayCastInput& ray, const QueryFilter& filter, QueryStats* stats) {
  Collector collector;
  const RayFrame frame(ray.translation);
  CastQuery(
      w, ray.origin, ray.translation, ray.max_fraction, Vec2{}, filter,
      [&](const ShapeProxy& proxy, Fixed limit) {
        return internal::RayCast(proxy, RayCastInput{ray.origin, ray.translation, limit}, frame);
      },
      collector, stats);
  return collector.Take([](uint32_t, CastHit*) {});
}

template <class Collector>
auto CastShapeQuery(const World::Impl& w, const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
                    bool search_movable = true) {
  const Aabb box = ComputeProxyAabb(moving);
  // Sweep the box's centre with node boxes grown by its half extents (one
  // ulp more, since the centre is rounded).
  const Vec2 center = Center(box);
  const Fixed ulp = Fixed::FromRaw(1);
  const Vec2 inflate{(box.upper.x - box.lower.x).Half() + ulp, (box.upper.y - box.lower.y).Half() + ulp};
  Collector collector;
  const RayFrame frame(translation);
  CastQuery(
      w, center, translation, kFixedOne, inflate, filter,
      [&](const ShapeProxy& target, Fixed limit) {
        return internal::ShapeCastWithoutPoint(ShapeCastInput{moving, target, translation, limit}, frame);
      },
      collector, nullptr, search_movable);
  // The contact point (a whole ShapeDistance) for the reported hits only.
  return collector.Take([&](uint32_t shape, CastHit* hit) {
    hit->point = internal::ShapeCastPoint(ShapeCastInput{moving, w.ProxyOf(w.shapes[shape]), translation, kFixedOne},
                                          hit->fraction);
  });
}

}  // namespace

std::optional<CastHit> World::Impl::CastProxyClosest(const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
                                                     bool search_movable) const {
  return CastShapeQuery<ClosestHit>(*this, moving, translation, filter, search_movable);
}

std::optional<CastHit> World::CastRayClosest(const RayCastInput& ray, const QueryFilter& filter, QueryStats* stats) const {
  return CastRayQuery<ClosestHit>(*impl_, ray, filter, stats);
}

std::vector<CastHit> World::CastRayAll(const RayCastInput& ray, const QueryFilter& filter) const {
  return CastRayQuery<AllHits>(*impl_, ray, filter, nullptr);
}

bool World::CastRayAny(const RayCastInput& ray, const QueryFilter& filter) const {
  return CastRayQuery<AnyHit>(*impl_, ray, filter, nullptr);
}

void World::CastRaysClosest(std::span<const RayCastInput> rays, const QueryFilter& filter,
                            std::span<std::optional<CastHit>> out) const {
  for (size_t i = 0; i < rays.size() && i < out.size(); ++i) out[i] = CastRayClosest(rays[i], filter);
}

std::vector<ShapeRef> World::OverlapPoint(Vec2 point, const QueryFilter& filter) const {
  return Overlap(*impl_, Aabb{point, point}, filter, [&](const ShapeProxy& p) { return ContainsPoint(p, point); });
}

std::vector<ShapeRef> World::OverlapAabb(const Aabb& box, const QueryFilter& filter) const {
  const ShapeProxy query = BoxProxy(box);
  return Overlap(*impl_, box, filter, [&](const ShapeProxy& p) { return TestOverlap(query, p); });
}

std::vector<ShapeRef> World::OverlapShape(const Shape& shape, const Transform& transform, const QueryFilter& filter) const {
  const ShapeProxy query = MakeProxy(shape, transform);
  return Overlap(*impl_, ComputeProxyAabb(query), filter, [&](const ShapeProxy& p) { return TestOverlap(query, p); });
}

std::optional<CastHit> World::CastShapeClosest(const Shape& shape, const Transform& transform, Vec2 translation,
                                               const QueryFilter& filter) const {
  return CastShapeQuery<ClosestHit>(*impl_, MakeProxy(shape, transform), translation, filter);
}

std::vector<CastHit> World::CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                         const QueryFilter& filter) const {
  return CastShapeQuery<AllHits>(*impl_, MakeProxy(shape, transform), translation, filter);
}

bool World::CastShapeAny(const Shape& shape, const Transform& transform, Vec2 translation, const QueryFilter& filter) const {
  return CastShapeQuery<AnyHit>(*impl_, MakeProxy(shape, transform), translation, filter);
}

}  // namespace arbiter

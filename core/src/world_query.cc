// World queries: broad phase for candidates, exact narrow phase for answers,
// canonical order for results.
#include <algorithm>

#include "arbiter/core/collision.h"
#include "arbiter/core/world.h"
#include "world_impl.h"

namespace arbiter {

using internal::BodyRecord;
using internal::ShapeRecord;

namespace {

// Exclusion lists longer than this are sorted once and binary-searched.
constexpr size_t kLinearExcludeLimit = 16;

class FilterCheck {
 public:
  FilterCheck(const World::Impl& w, const QueryFilter& f) : w_(w), f_(f) {
    if (f.exclude_bodies.size() > kLinearExcludeLimit) {
      sorted_.assign(f.exclude_bodies.begin(), f.exclude_bodies.end());
      std::sort(sorted_.begin(), sorted_.end());
    }
  }

  bool Passes(const ShapeRecord& s) const {
    if (s.is_sensor && !f_.include_sensors) return false;
    if ((s.filter.category_bits & f_.mask_bits) == 0 || (s.filter.mask_bits & f_.category_bits) == 0) return false;
    // The body is looked up only when a body-level rule is in force: it is
    // another cache line, and most queries have no such rule.
    const bool all_types = (f_.body_types & 0b111) == 0b111;
    if (all_types && f_.exclude_bodies.empty()) return true;
    const BodyRecord& body = w_.bodies[s.body_slot];
    if ((f_.body_types & (1u << static_cast<unsigned>(body.type))) == 0) return false;
    if (f_.exclude_bodies.empty()) return true;
    if (sorted_.empty()) {
      return std::find(f_.exclude_bodies.begin(), f_.exclude_bodies.end(), body.id) == f_.exclude_bodies.end();
    }
    return !std::binary_search(sorted_.begin(), sorted_.end(), body.id);
  }

 private:
  const World::Impl& w_;
  const QueryFilter& f_;
  std::vector<uint64_t> sorted_;
};

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

// Shared driver of the cast queries. `cast(proxy, max_fraction)` answers one
// shape. Mode kClosest clips the traversal at the best hit so far (hits at
// the same fraction are still tested: the tie goes to the lower id), kAll
// keeps everything, kAny stops at the first hit.
enum class CastMode { kClosest, kAll, kAny };

template <class Cast>
std::vector<CastHit> CastQuery(const World::Impl& w, Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate,
                               const QueryFilter& filter, CastMode mode, Cast&& cast, QueryStats* stats,
                               bool search_movable = true) {
  const FilterCheck check(w, filter);
  std::vector<CastHit> hits;
  Fixed limit = max_fraction;
  bool stop = false;
  uint64_t tests = 0;
  auto clip = [&](uint32_t index) -> Fixed {
    const ShapeRecord& s = w.shapes[index];
    if (!check.Passes(s)) return limit;
    ++tests;
    const CastOutput out = cast(w.ProxyOf(s), limit);
    if (!out.hit) return limit;
    const CastHit hit = MakeHit(w, s, out);
    switch (mode) {
      case CastMode::kClosest:
        if (hits.empty()) {
          hits.push_back(hit);
        } else if (HitLess(hit, hits[0])) {
          hits[0] = hit;
        }
        limit = hits[0].fraction;
        return limit;
      case CastMode::kAll:
        hits.push_back(hit);
        return limit;
      case CastMode::kAny:
        hits.push_back(hit);
        stop = true;
        return Fixed::FromRaw(-1);
    }
    return limit;
  };
  uint64_t visits = w.static_tree.RayCast(origin, translation, limit, inflate, clip);
  if (!stop && search_movable) visits += w.movable_tree.RayCast(origin, translation, limit, inflate, clip);
  if (stats != nullptr) {
    stats->node_visits += visits;
    stats->shape_tests += tests;
  }
  if (mode == CastMode::kAll) std::sort(hits.begin(), hits.end(), HitLess);
  return hits;
}

std::vector<CastHit> CastRayQuery(const World::Impl& w, const RayCastInput& ray, const QueryFilter& filter, CastMode mode,
                                  QueryStats* stats) {
  return CastQuery(
      w, ray.origin, ray.translation, ray.max_fraction, Vec2{}, filter, mode,
      [&](const ShapeProxy& proxy, Fixed limit) {
        return RayCast(proxy, RayCastInput{ray.origin, ray.translation, limit});
      },
      stats);
}

std::vector<CastHit> CastShapeQuery(const World::Impl& w, const ShapeProxy& moving, Vec2 translation,
                                    const QueryFilter& filter, CastMode mode, bool search_movable = true) {
  const Aabb box = ComputeProxyAabb(moving);
  // Sweep the box's centre with node boxes grown by its half extents (one
  // ulp more, since the centre is rounded).
  const Vec2 center = Center(box);
  const Fixed ulp = Fixed::FromRaw(1);
  const Vec2 inflate{(box.upper.x - box.lower.x).Half() + ulp, (box.upper.y - box.lower.y).Half() + ulp};
  return CastQuery(
      w, center, translation, kFixedOne, inflate, filter, mode,
      [&](const ShapeProxy& target, Fixed limit) { return ShapeCast(ShapeCastInput{moving, target, translation, limit}); },
      nullptr, search_movable);
}

}  // namespace

std::optional<CastHit> World::Impl::CastProxyClosest(const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
                                                     bool search_movable) const {
  std::vector<CastHit> hits = CastShapeQuery(*this, moving, translation, filter, CastMode::kClosest, search_movable);
  if (hits.empty()) return std::nullopt;
  return hits[0];
}

std::optional<CastHit> World::CastRayClosest(const RayCastInput& ray, const QueryFilter& filter, QueryStats* stats) const {
  std::vector<CastHit> hits = CastRayQuery(*impl_, ray, filter, CastMode::kClosest, stats);
  if (hits.empty()) return std::nullopt;
  return hits[0];
}

std::vector<CastHit> World::CastRayAll(const RayCastInput& ray, const QueryFilter& filter) const {
  return CastRayQuery(*impl_, ray, filter, CastMode::kAll, nullptr);
}

bool World::CastRayAny(const RayCastInput& ray, const QueryFilter& filter) const {
  return !CastRayQuery(*impl_, ray, filter, CastMode::kAny, nullptr).empty();
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
  std::vector<CastHit> hits = CastShapeQuery(*impl_, MakeProxy(shape, transform), translation, filter, CastMode::kClosest);
  if (hits.empty()) return std::nullopt;
  return hits[0];
}

std::vector<CastHit> World::CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                         const QueryFilter& filter) const {
  return CastShapeQuery(*impl_, MakeProxy(shape, transform), translation, filter, CastMode::kAll);
}

}  // namespace arbiter

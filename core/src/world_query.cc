// World queries: broad phase for candidates, exact narrow phase for answers,
// canonical order for results.
#include <algorithm>
#include <optional>

#include "arbiter/core/collision.h"
#include "arbiter/core/world.h"
#include "collision_internal.h"
#include "query_filter.h"
#include "world_impl.h"

namespace arbiter {

using internal::FilterCheck;
using internal::ProxyView;
using internal::RayFrame;
using internal::ShapeRecord;

namespace {

CastHit MakeHit(const ShapeRecord& s, const CastOutput& out) {
  return {{s.body_id, s.index_in_body}, s.user_tag, out.fraction, out.point, out.normal};
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

// Asks for both cache lines a shape record may straddle (56 bytes each),
// for a leaf the walk will visit: its first read is otherwise a cache miss
// that stalls the walk.
void PrefetchShape(const World::Impl& w, uint32_t index) {
  const char* record = reinterpret_cast<const char*>(&w.shapes[index]);
  internal::PrefetchRead(record);
  internal::PrefetchRead(record + sizeof(ShapeRecord) - 1);
}

template <class Visit>
void QueryBothTrees(const World::Impl& w, const Aabb& box, Visit&& visit) {
  bool go_on = true;
  auto guarded = [&](uint32_t shape) {
    go_on = visit(shape);
    return go_on;
  };
  auto prefetch = [&](uint32_t shape) { PrefetchShape(w, shape); };
  w.static_tree.Query(box, guarded, prefetch);
  if (go_on) w.movable_tree.Query(box, guarded, prefetch);
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
    if (check.Passes(s) && test(w.ViewOf(s))) refs.push_back({s.body_id, s.index_in_body});
    return true;
  });
  return SortedRefs(std::move(refs));
}

// The records of the first shapes a cast offered its collector, so that a
// reported hit finds its shape again without the id map (a body and a
// shape record: two cache misses per hit). Past kCapacity, FindShape.
class OfferedShapes {
 public:
  void Add(const ShapeRecord& s, uint32_t index) {
    if (count_ < kCapacity) items_[count_++] = {s.body_id, s.index_in_body, index};
  }
  const ShapeRecord& Find(const World::Impl& w, const ShapeRef& ref) const {
    for (int i = 0; i < count_; ++i) {
      if (items_[i].body_id == ref.body_id && items_[i].shape_index == ref.shape_index) {
        return w.shapes[items_[i].record];
      }
    }
    return *w.FindShape(ref);
  }

 private:
  static constexpr int kCapacity = 8;
  // No member initializers: a cast with no hit then writes nothing here.
  struct Item {
    uint64_t body_id;
    uint32_t shape_index;
    uint32_t record;
  };
  Item items_[kCapacity];
  int count_ = 0;
};

// Shared driver of the cast queries: both trees, the filter, then
// `cast(proxy, limit)` for each candidate shape, every hit to `collector`
// (and to `offered`, when given), whose early-out fraction is the
// traversal's limit.
template <class Cast>
void CastQuery(const World::Impl& w, Vec2 origin, Vec2 translation, Fixed max_fraction, Vec2 inflate,
               const QueryFilter& filter, Cast&& cast, CastCollector& collector, QueryStats* stats,
               OfferedShapes* offered = nullptr, bool search_movable = true) {
  const FilterCheck check(w, filter);
  collector.Begin(max_fraction);
  uint64_t tests = 0;
  auto clip = [&](uint32_t index) -> Fixed {
    const ShapeRecord& s = w.shapes[index];
    const Fixed limit = collector.early_out_fraction();
    if (!check.Passes(s)) return limit;
    ++tests;
    const CastOutput out = cast(w.ViewOf(s), limit);
    if (!out.hit) return limit;
    collector.AddHit(MakeHit(s, out));
    if (offered != nullptr) offered->Add(s, index);
    return collector.early_out_fraction();
  };
  auto prefetch = [&](uint32_t index) { PrefetchShape(w, index); };
  uint64_t visits = w.static_tree.RayCast(origin, translation, collector.early_out_fraction(), inflate, clip, prefetch);
  if (!collector.should_early_out() && search_movable) {
    visits += w.movable_tree.RayCast(origin, translation, collector.early_out_fraction(), inflate, clip, prefetch);
  }
  if (stats != nullptr) {
    stats->node_visits += visits;
    stats->shape_tests += tests;
  }
}

void CastProxy(const World::Impl& w, const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
               CastCollector& collector, bool search_movable) {
  const Aabb box = ComputeProxyAabb(moving);
  // Sweep the box's centre with node boxes grown by its half extents (one
  // ulp more, since the centre is rounded).
  const Vec2 center = Center(box);
  const Fixed ulp = Fixed::FromRaw(1);
  const Vec2 inflate{(box.upper.x - box.lower.x).Half() + ulp, (box.upper.y - box.lower.y).Half() + ulp};
  const RayFrame frame(translation);
  OfferedShapes offered;
  const ProxyView moving_view = internal::ViewOf(moving);
  CastQuery(
      w, center, translation, kFixedOne, inflate, filter,
      [&](const ProxyView& target, Fixed limit) {
        return internal::ShapeCastWithoutPoint(moving_view, target, translation, limit, frame);
      },
      collector, nullptr, &offered, search_movable);
  // The contact point (a whole ShapeDistance) for the reported hits only.
  for (CastHit& hit : collector.reported()) {
    const ShapeProxy target = w.ProxyOf(offered.Find(w, hit.shape));
    hit.point = internal::ShapeCastPoint(ShapeCastInput{moving, target, translation, kFixedOne}, hit.fraction);
  }
}

}  // namespace

std::optional<CastHit> World::Impl::CastProxyClosest(const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
                                                     bool search_movable) const {
  ClosestHitCollector closest;
  CastProxy(*this, moving, translation, filter, closest, search_movable);
  return closest.hit();
}

void World::CastRay(const RayCastInput& ray, const QueryFilter& filter, CastCollector& collector, QueryStats* stats) const {
  const RayFrame frame(ray.translation);
  CastQuery(
      *impl_, ray.origin, ray.translation, ray.max_fraction, Vec2{}, filter,
      [&](const ProxyView& proxy, Fixed limit) {
        return internal::RayCast(proxy, RayCastInput{ray.origin, ray.translation, limit}, frame);
      },
      collector, stats);
}

void World::CastShape(const Shape& shape, const Transform& transform, Vec2 translation, const QueryFilter& filter,
                      CastCollector& collector) const {
  CastProxy(*impl_, MakeProxy(shape, transform), translation, filter, collector, true);
}

std::optional<CastHit> World::CastRayClosest(const RayCastInput& ray, const QueryFilter& filter, QueryStats* stats) const {
  ClosestHitCollector closest;
  CastRay(ray, filter, closest, stats);
  return closest.hit();
}

std::vector<CastHit> World::CastRayAll(const RayCastInput& ray, const QueryFilter& filter) const {
  AllHitsCollector all;
  CastRay(ray, filter, all);
  return all.TakeHits();
}

bool World::CastRayAny(const RayCastInput& ray, const QueryFilter& filter) const {
  AnyHitCollector any;
  CastRay(ray, filter, any);
  return any.had_hit();
}

std::vector<ShapeRef> World::OverlapPoint(Vec2 point, const QueryFilter& filter) const {
  return Overlap(*impl_, Aabb{point, point}, filter, [&](const ProxyView& p) { return internal::ContainsPoint(p, point); });
}

std::vector<ShapeRef> World::OverlapAabb(const Aabb& box, const QueryFilter& filter) const {
  const ShapeProxy query = BoxProxy(box);
  const ProxyView query_view = internal::ViewOf(query);
  return Overlap(*impl_, box, filter, [&](const ProxyView& p) { return internal::TestOverlap(query_view, p); });
}

std::vector<ShapeRef> World::OverlapShape(const Shape& shape, const Transform& transform, const QueryFilter& filter) const {
  const ShapeProxy query = MakeProxy(shape, transform);
  const ProxyView query_view = internal::ViewOf(query);
  return Overlap(*impl_, ComputeProxyAabb(query), filter,
                 [&](const ProxyView& p) { return internal::TestOverlap(query_view, p); });
}

std::optional<CastHit> World::CastShapeClosest(const Shape& shape, const Transform& transform, Vec2 translation,
                                               const QueryFilter& filter) const {
  ClosestHitCollector closest;
  CastShape(shape, transform, translation, filter, closest);
  return closest.hit();
}

std::vector<CastHit> World::CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                         const QueryFilter& filter) const {
  AllHitsCollector all;
  CastShape(shape, transform, translation, filter, all);
  return all.TakeHits();
}

bool World::CastShapeAny(const Shape& shape, const Transform& transform, Vec2 translation, const QueryFilter& filter) const {
  AnyHitCollector any;
  CastShape(shape, transform, translation, filter, any);
  return any.had_hit();
}

}  // namespace arbiter

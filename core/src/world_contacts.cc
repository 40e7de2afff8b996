// World queries that answer "how deep, which way, how far": overlap with
// contacts (OverlapShapeContacts) and nearest bodies (Distance). Both reuse
// the narrow phase the step and the other queries use (Collide,
// ShapeDistance), so an answer here is the step's own answer for that pair.
#include <algorithm>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "query_filter.h"
#include "world_impl.h"

namespace arbiter {

using internal::FilterCheck;
using internal::ShapeRecord;

namespace {

// Candidates from both trees (static first); the visit's order never shows
// in a result, which is sorted afterwards.
template <class Visit>
void ForEachCandidate(const World::Impl& w, const Aabb& box, Visit&& visit) {
  auto each = [&](uint32_t shape) {
    visit(w.shapes[shape]);
    return true;
  };
  w.static_tree.Query(box, each);
  w.movable_tree.Query(box, each);
}

// Overlap queries see a chain segment as a plain segment (chain.h): so do
// their contacts, or a shape behind a chain would overlap with no contact.
ShapeProxy TwoSided(ShapeProxy proxy) {
  proxy.one_sided = false;
  return proxy;
}

}  // namespace

OverlapContact ContactOfOverlap(const ShapeProxy& query, const ShapeProxy& target) {
  OverlapContact c;
  const Manifold m = Collide(TwoSided(query), TwoSided(target), kFixedZero);
  if (m.point_count == 0) {
    // Touching within rounding, so that clipping kept no point: one point
    // inside both, no direction, no depth.
    const DistanceOutput d = ShapeDistance(query, target);
    c.point_count = 1;
    c.points[0] = d.point_a;
    return c;
  }
  c.normal = m.normal;
  c.depth = Max(kFixedZero, ManifoldDepth(m));
  c.point_count = m.point_count;
  for (int32_t i = 0; i < m.point_count; ++i) c.points[i] = m.points[i].point;
  return c;
}

std::vector<OverlapContact> World::OverlapShapeContacts(const Shape& shape, const Transform& transform,
                                                        const QueryFilter& filter) const {
  const World::Impl& w = *impl_;
  const ShapeProxy query = MakeProxy(shape, transform);
  const FilterCheck check(w, filter);
  std::vector<OverlapContact> out;
  ForEachCandidate(w, ComputeProxyAabb(query), [&](const ShapeRecord& s) {
    if (!check.Passes(s)) return;
    const ShapeProxy target = w.ProxyOf(s);
    if (!TestOverlap(query, target)) return;
    OverlapContact c = ContactOfOverlap(query, target);
    c.shape = {s.body_id, s.index_in_body};
    c.user_tag = s.user_tag;
    out.push_back(c);
  });
  std::sort(out.begin(), out.end(), [](const OverlapContact& a, const OverlapContact& b) { return a.shape < b.shape; });
  return out;
}

std::vector<DistanceHit> World::Distance(const Shape& shape, const Transform& transform, Fixed max_distance,
                                         size_t max_results, const QueryFilter& filter) const {
  const World::Impl& w = *impl_;
  const ShapeProxy query = MakeProxy(shape, transform);
  const FilterCheck check(w, filter);
  // Every shape within max_distance has its box within max_distance of the
  // query's box on each axis, so the grown box finds them all.
  Aabb box = ComputeProxyAabb(query);
  box.lower = box.lower - Vec2{max_distance, max_distance};
  box.upper = box.upper + Vec2{max_distance, max_distance};
  std::vector<DistanceHit> hits;
  ForEachCandidate(w, box, [&](const ShapeRecord& s) {
    if (!check.Passes(s)) return;
    const ShapeProxy target = w.ProxyOf(s);
    const DistanceOutput d = ShapeDistance(query, target);
    if (d.distance > max_distance) return;
    DistanceHit h;
    h.shape = {s.body_id, s.index_in_body};
    h.user_tag = s.user_tag;
    h.distance = d.distance;
    h.point_query = d.point_a;
    h.point_body = d.point_b;
    h.normal = d.normal;
    if (TestOverlap(query, target)) {
      const OverlapContact c = ContactOfOverlap(query, target);
      h.normal = c.normal;
      h.depth = c.depth;
    }
    hits.push_back(h);
  });
  // Nearest first; each body once, at its nearest shape (ties to the lower
  // shape index), then the first max_results bodies.
  std::sort(hits.begin(), hits.end(), [](const DistanceHit& a, const DistanceHit& b) {
    if (a.shape.body_id != b.shape.body_id) return a.shape.body_id < b.shape.body_id;
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.shape.shape_index < b.shape.shape_index;
  });
  hits.erase(std::unique(hits.begin(), hits.end(),
                         [](const DistanceHit& a, const DistanceHit& b) { return a.shape.body_id == b.shape.body_id; }),
             hits.end());
  std::sort(hits.begin(), hits.end(), [](const DistanceHit& a, const DistanceHit& b) {
    if (a.distance != b.distance) return a.distance < b.distance;
    return a.shape < b.shape;
  });
  if (hits.size() > max_results) hits.resize(max_results);
  return hits;
}

}  // namespace arbiter

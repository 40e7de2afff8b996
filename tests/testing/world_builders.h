// Random bodies and a brute-force oracle for world queries: the oracle
// evaluates every shape with the same core functions and no broad phase, so
// any difference from World is a broad-phase or ordering bug.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/world.h"
#include "testing/numbers.h"
#include "testing/random.h"

namespace arbiter::testing {

/// A body of a random type with 1-3 random shapes (all four kinds), placed
/// in [-extent, extent]^2 with a random rotation and filter.
/// A body with one box shape of half extents hx x hy (default material).
inline BodyDef BoxBody(uint64_t id, BodyType type, Vec2 position, double hx, double hy, Rot q = kRotIdentity) {
  Polygon box;
  (void)MakeBox(Fd(hx), Fd(hy), &box);
  BodyDef def;
  def.id = id;
  def.type = type;
  def.transform = {position, q};
  def.shapes.push_back(ShapeDef{});
  def.shapes[0].shape = Shape::FromPolygon(box);
  return def;
}

/// A body with one disk of radius r centred on its origin.
inline BodyDef DiskBody(uint64_t id, BodyType type, Vec2 position, double r) {
  BodyDef def;
  def.id = id;
  def.type = type;
  def.transform.p = position;
  def.shapes.push_back(ShapeDef{});
  def.shapes[0].shape = Shape::FromCircle({Vec2{}, Fd(r)});
  return def;
}

inline BodyDef RandomBody(SplitMix64& rng, uint64_t id, double extent) {
  auto unit = [&rng]() { return rng.Unit(); };
  BodyDef def;
  def.id = id;
  def.type = static_cast<BodyType>(rng.Next() % 3);
  def.transform = {{Fd((unit() * 2 - 1) * extent), Fd((unit() * 2 - 1) * extent)}, MakeRot(Fd(unit() * 6.28))};
  if (def.type != BodyType::kStatic) def.linear_velocity = {Fd(unit() * 4 - 2), Fd(unit() * 4 - 2)};
  const int shapes = 1 + static_cast<int>(rng.Next() % 3);
  for (int i = 0; i < shapes; ++i) {
    ShapeDef sd;
    const Vec2 offset{Fd(unit() * 4 - 2), Fd(unit() * 4 - 2)};
    switch (rng.Next() % 4) {
      case 0:
        sd.shape = Shape::FromCircle({offset, Fd(0.1 + unit() * 3)});
        break;
      case 1:
        sd.shape = Shape::FromCapsule({offset, offset + Vec2{Fd(unit() * 4 + 0.1), Fd(unit() * 2)}, Fd(0.1 + unit())});
        break;
      case 2:
        sd.shape = Shape::FromSegment({offset, offset + Vec2{Fd(unit() * 6 - 3), Fd(unit() * 6 + 0.1)}});
        break;
      default: {
        Polygon polygon;
        if (rng.Bool()) {
          (void)MakeOffsetBox(Fd(0.1 + unit() * 3), Fd(0.1 + unit() * 3), offset, MakeRot(Fd(unit() * 3)), &polygon);
        } else {
          // A regular n-gon, slightly rounded half the time.
          const int n = 3 + static_cast<int>(rng.Next() % 6);
          const double r = 0.5 + unit() * 3;
          std::vector<Vec2> points;
          for (int k = 0; k < n; ++k) {
            const Rot q = MakeRot(Fd(6.283185307179586 * k / n));
            points.push_back(offset + Vec2{Fd(r) * q.c, Fd(r) * q.s});
          }
          (void)MakePolygon(points, rng.Bool() ? Fd(unit() * 0.5) : kFixedZero, &polygon);
        }
        sd.shape = Shape::FromPolygon(polygon);
        break;
      }
    }
    sd.filter.category_bits = uint64_t{1} << (rng.Next() % 3);
    sd.user_tag = rng.Next();
    def.shapes.push_back(sd);
  }
  return def;
}

/// Evaluates queries against every shape of a world snapshot.
class BruteForce {
 public:
  explicit BruteForce(const World& world) {
    for (uint64_t id : world.BodyIds()) {
      const BodyDef def = *world.GetBodyDef(id);
      for (uint32_t i = 0; i < def.shapes.size(); ++i) {
        entries_.push_back({{id, i}, def.type, def.shapes[i], MakeProxy(def.shapes[i].shape, def.transform)});
      }
    }
  }

  std::optional<CastHit> CastRayClosest(const RayCastInput& ray, const QueryFilter& filter) const {
    const std::vector<CastHit> all = CastRayAll(ray, filter);
    if (all.empty()) return std::nullopt;
    return all[0];
  }

  std::vector<CastHit> CastRayAll(const RayCastInput& ray, const QueryFilter& filter) const {
    std::vector<CastHit> hits;
    for (const Entry& e : entries_) {
      if (!Passes(e, filter)) continue;
      const CastOutput out = RayCast(e.proxy, ray);
      if (out.hit) hits.push_back({e.ref, e.def.user_tag, out.fraction, out.point, out.normal});
    }
    std::sort(hits.begin(), hits.end(), HitLess);
    return hits;
  }

  std::vector<ShapeRef> OverlapAabb(const Aabb& box, const QueryFilter& filter) const {
    std::vector<Vec2> corners;
    if (box.lower == box.upper) {
      corners = {box.lower};
    } else if (box.lower.x == box.upper.x || box.lower.y == box.upper.y) {
      corners = {box.lower, box.upper};
    } else {
      corners = {box.lower, {box.upper.x, box.lower.y}, box.upper, {box.lower.x, box.upper.y}};
    }
    const ShapeProxy query = MakeProxy(corners, kFixedZero);
    return Collect(filter, [&](const ShapeProxy& p) { return TestOverlap(query, p); });
  }

  std::vector<ShapeRef> OverlapShape(const Shape& shape, const Transform& xf, const QueryFilter& filter) const {
    const ShapeProxy query = MakeProxy(shape, xf);
    return Collect(filter, [&](const ShapeProxy& p) { return TestOverlap(query, p); });
  }

  std::vector<ShapeRef> OverlapPoint(Vec2 point, const QueryFilter& filter) const {
    return Collect(filter, [&](const ShapeProxy& p) { return ContainsPoint(p, point); });
  }

  std::optional<CastHit> CastShapeClosest(const Shape& shape, const Transform& xf, Vec2 translation,
                                          const QueryFilter& filter) const {
    const ShapeProxy moving = MakeProxy(shape, xf);
    std::optional<CastHit> best;
    for (const Entry& e : entries_) {
      if (!Passes(e, filter)) continue;
      const CastOutput out = ShapeCast({moving, e.proxy, translation, kFixedOne});
      if (!out.hit) continue;
      const CastHit hit{e.ref, e.def.user_tag, out.fraction, out.point, out.normal};
      if (!best || HitLess(hit, *best)) best = hit;
    }
    return best;
  }

 private:
  struct Entry {
    ShapeRef ref;
    BodyType type;
    ShapeDef def;
    ShapeProxy proxy;
  };

  static bool HitLess(const CastHit& a, const CastHit& b) {
    if (a.fraction != b.fraction) return a.fraction < b.fraction;
    return a.shape < b.shape;
  }

  static bool Passes(const Entry& e, const QueryFilter& f) {
    if (e.def.is_sensor && !f.include_sensors) return false;
    if ((e.def.filter.category_bits & f.mask_bits) == 0 || (e.def.filter.mask_bits & f.category_bits) == 0) return false;
    if ((f.body_types & (1u << static_cast<unsigned>(e.type))) == 0) return false;
    return std::find(f.exclude_bodies.begin(), f.exclude_bodies.end(), e.ref.body_id) == f.exclude_bodies.end();
  }

  template <class Test>
  std::vector<ShapeRef> Collect(const QueryFilter& filter, Test&& test) const {
    std::vector<ShapeRef> refs;
    for (const Entry& e : entries_) {
      if (Passes(e, filter) && test(e.proxy)) refs.push_back(e.ref);
    }
    std::sort(refs.begin(), refs.end());
    return refs;
  }

  std::vector<Entry> entries_;
};

}  // namespace arbiter::testing

// arena-10k: the world's answers to the whole standard query set equal, bit
// for bit, a brute-force evaluation with the same core functions and no
// broad phase (only an exact per-shape box reject), and agree with the
// double-precision reference within its tolerance.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"
#include "reference/convert.h"

namespace arbiter {
namespace {

namespace ref = reference;

struct Entry {
  ShapeRef ref;
  ShapeProxy proxy;
  Aabb box;
};

class Arena : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scene_ = new scene::Scene;
    queries_ = new scene::QuerySet;
    ASSERT_TRUE(scene::LoadSceneFile(ARBITER_SCENES_DIR "/arena-10k.scene.json", scene_).ok());
    ASSERT_TRUE(scene::LoadQuerySetFile(ARBITER_SCENES_DIR "/arena-10k.queries.json", queries_).ok());
    world_ = new World(scene_->world);
    ASSERT_TRUE(world_->AddBodies(scene_->bodies).ok());
    entries_ = new std::vector<Entry>;
    for (const BodyDef& body : scene_->bodies) {
      for (uint32_t i = 0; i < body.shapes.size(); ++i) {
        const ShapeProxy proxy = MakeProxy(body.shapes[i].shape, body.transform);
        entries_->push_back({{body.id, i}, proxy, ComputeProxyAabb(proxy)});
      }
    }
    std::sort(entries_->begin(), entries_->end(), [](const Entry& a, const Entry& b) { return a.ref < b.ref; });
  }
  static void TearDownTestSuite() {
    delete world_;
    delete entries_;
    delete queries_;
    delete scene_;
  }

  static bool Earlier(const CastHit& a, const CastHit& b) {
    return a.fraction != b.fraction ? a.fraction < b.fraction : a.shape < b.shape;
  }

  static Aabb SegmentBox(Vec2 o, Vec2 d, Vec2 grow = {}) {
    const Vec2 e = o + d;
    return {{Min(o.x, e.x) - grow.x, Min(o.y, e.y) - grow.y}, {Max(o.x, e.x) + grow.x, Max(o.y, e.y) + grow.y}};
  }

  static inline scene::Scene* scene_ = nullptr;
  static inline scene::QuerySet* queries_ = nullptr;
  static inline World* world_ = nullptr;
  static inline std::vector<Entry>* entries_ = nullptr;
};

TEST_F(Arena, RaysEqualBruteForceBitForBit) {
  ASSERT_EQ(queries_->rays.size(), 40000u);
  for (size_t q = 0; q < queries_->rays.size(); ++q) {
    const RayCastInput& ray = queries_->rays[q];
    std::optional<CastHit> best;
    // A ray that touches a shape touches its box: an exact reject.
    const Aabb reach = SegmentBox(ray.origin, ray.translation);
    for (const Entry& e : *entries_) {
      if (!Overlaps(reach, e.box)) continue;
      const CastOutput out = RayCast(e.proxy, ray);
      if (!out.hit) continue;
      const CastHit hit{e.ref, 0, out.fraction, out.point, out.normal};
      if (!best || Earlier(hit, *best)) best = hit;
    }
    const std::optional<CastHit> got = world_->CastRayClosest(ray);
    ASSERT_EQ(got.has_value(), best.has_value()) << "ray " << q;
    if (!got) continue;
    ASSERT_EQ(got->shape, best->shape) << "ray " << q;
    ASSERT_EQ(got->fraction, best->fraction) << "ray " << q;
    ASSERT_EQ(got->point, best->point) << "ray " << q;
    ASSERT_EQ(got->normal, best->normal) << "ray " << q;
  }
}

TEST_F(Arena, OverlapsEqualBruteForceBitForBit) {
  ASSERT_EQ(queries_->aabbs.size(), 20000u);
  ASSERT_EQ(queries_->disks.size(), 20000u);
  for (size_t q = 0; q < queries_->aabbs.size(); ++q) {
    const Aabb& box = queries_->aabbs[q];
    ASSERT_TRUE(box.lower.x < box.upper.x && box.lower.y < box.upper.y) << "aabb " << q << " is degenerate";
    const Vec2 corners[4] = {box.lower, {box.upper.x, box.lower.y}, box.upper, {box.lower.x, box.upper.y}};
    const ShapeProxy query = MakeProxy(corners, kFixedZero);
    std::vector<ShapeRef> want;
    for (const Entry& e : *entries_) {
      if (Overlaps(box, e.box) && TestOverlap(query, e.proxy)) want.push_back(e.ref);
    }
    ASSERT_EQ(world_->OverlapAabb(box), want) << "aabb " << q;
  }
  for (size_t q = 0; q < queries_->disks.size(); ++q) {
    const scene::DiskQuery& d = queries_->disks[q];
    const Shape disk = Shape::FromCircle({{}, d.radius});
    const ShapeProxy query = MakeProxy(disk, {d.center, kRotIdentity});
    const Aabb box = ComputeProxyAabb(query);
    std::vector<ShapeRef> want;
    for (const Entry& e : *entries_) {
      if (Overlaps(box, e.box) && TestOverlap(query, e.proxy)) want.push_back(e.ref);
    }
    ASSERT_EQ(world_->OverlapShape(disk, {d.center, kRotIdentity}), want) << "disk " << q;
  }
}

TEST_F(Arena, SweepsEqualBruteForceBitForBit) {
  ASSERT_EQ(queries_->sweeps.size(), 10000u);
  for (size_t q = 0; q < queries_->sweeps.size(); ++q) {
    const scene::SweepQuery& s = queries_->sweeps[q];
    const Shape disk = Shape::FromCircle({{}, s.radius});
    const ShapeProxy moving = MakeProxy(disk, {s.center, kRotIdentity});
    const Aabb reach = SegmentBox(s.center, s.translation, {s.radius, s.radius});
    std::optional<CastHit> best;
    for (const Entry& e : *entries_) {
      if (!Overlaps(reach, e.box)) continue;
      const CastOutput out = ShapeCast({moving, e.proxy, s.translation, kFixedOne});
      if (!out.hit) continue;
      const CastHit hit{e.ref, 0, out.fraction, out.point, out.normal};
      if (!best || Earlier(hit, *best)) best = hit;
    }
    const std::optional<CastHit> got = world_->CastShapeClosest(disk, {s.center, kRotIdentity}, s.translation);
    ASSERT_EQ(got.has_value(), best.has_value()) << "sweep " << q;
    if (!got) continue;
    ASSERT_EQ(got->shape, best->shape) << "sweep " << q;
    ASSERT_EQ(got->fraction, best->fraction) << "sweep " << q;
    ASSERT_EQ(got->point, best->point) << "sweep " << q;
    ASSERT_EQ(got->normal, best->normal) << "sweep " << q;
  }
}

// The double reference, brute force over every shape: the first hit agrees
// except where two shapes are hit within the tolerance of each other or the
// reference itself is within a hair of grazing.
TEST_F(Arena, RaysAgreeWithTheDoubleReference) {
  constexpr double kFractionTol = 1e-9;
  int checked = 0, ties = 0;
  double worst = 0;
  for (size_t q = 0; q < queries_->rays.size(); ++q) {
    const RayCastInput& ray = queries_->rays[q];
    const Vec2 origin = ray.origin;
    const ref::DVec2 d = ref::ToD(ray.translation);
    const Aabb reach = SegmentBox(ray.origin, ray.translation);
    double best = 2, second = 2;
    ShapeRef best_ref;
    for (const Entry& e : *entries_) {
      if (!Overlaps(reach, e.box)) continue;
      const ref::CastResult r = ref::RayCast(ref::ToD(e.proxy, origin), {0, 0}, d, 1.0);
      if (!r.hit) continue;
      if (r.fraction < best) {
        second = best;
        best = r.fraction;
        best_ref = e.ref;
      } else if (r.fraction < second) {
        second = r.fraction;
      }
    }
    const std::optional<CastHit> got = world_->CastRayClosest(ray);
    if (!got || best > 1) {
      ASSERT_EQ(got.has_value(), best <= 1) << "ray " << q << " reference fraction " << best;
      continue;
    }
    ++checked;
    // Position errors of a few ulp along the normal become fraction errors
    // of ulp / (|d| cos(angle)): grazing hits get a proportionally wider
    // bound (1e-7 units of position error, ~430 ulp, is far above what the
    // property tests measure for a single shape).
    const double length = std::hypot(d.x, d.y);
    const double cosine = std::fabs(got->normal.x.ToDouble() * d.x + got->normal.y.ToDouble() * d.y) / length;
    const double tolerance = kFractionTol + 1e-7 / (length * std::max(cosine, 1e-3));
    worst = std::max(worst, std::fabs(got->fraction.ToDouble() - best));
    ASSERT_NEAR(got->fraction.ToDouble(), best, tolerance) << "ray " << q;
    if (second - best <= tolerance) {
      ++ties;  // two shapes hit at the same place: either is right
    } else {
      ASSERT_EQ(got->shape, best_ref) << "ray " << q;
    }
  }
  RecordProperty("rays_checked", checked);
  RecordProperty("max_fraction_error_e12", static_cast<int>(worst * 1e12));
  EXPECT_GT(checked, 20000);
}

}  // namespace
}  // namespace arbiter

// World::OverlapShapeContacts and World::Distance: pinned cases, the
// push-out they promise, brute force over every shape (bit for bit) and the
// double reference (error bounds), near the origin and far from it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "reference/convert.h"
#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::BoxBody;
using testing::DiskBody;
using testing::RandomBody;
using testing::SplitMix64;

using testing::Fd;
using testing::Vd;

// Uniform in [lo, hi) (test inputs only).
double U(SplitMix64& rng, double lo, double hi) { return lo + (hi - lo) * rng.Unit(); }

Shape Disk(double r) { return Shape::FromCircle({Vec2{}, Fd(r)}); }

// ---- Pinned cases -----------------------------------------------------------

TEST(OverlapContacts, DiskSunkIntoBox_NormalTowardsTheBodyDepthAndMidwayPoint) {
  World world;
  ASSERT_TRUE(world.AddBody(BoxBody(7, BodyType::kStatic, Vd(0, 0), 2, 1)).ok());
  // The disk's bottom is at y = 0.5, the box's top at y = 1: 0.5 deep.
  const auto contacts = world.OverlapShapeContacts(Disk(1), {Vd(0, 1.5), kRotIdentity});
  ASSERT_EQ(contacts.size(), 1u);
  const OverlapContact& c = contacts[0];
  EXPECT_EQ(c.shape, (ShapeRef{7, 0}));
  EXPECT_EQ(c.normal, Vd(0, -1));  // from the query disk down into the box
  EXPECT_EQ(c.depth, Fd(0.5));
  ASSERT_EQ(c.point_count, 1);
  EXPECT_EQ(c.points[0], Vd(0, 0.75));  // midway between y = 0.5 and y = 1
}

TEST(OverlapContacts, BoxOnBox_TwoPoints) {
  World world;
  ASSERT_TRUE(world.AddBody(BoxBody(1, BodyType::kStatic, Vd(0, 0), 5, 1)).ok());
  Polygon box;
  ASSERT_EQ(MakeBox(Fd(1), Fd(1), &box), ShapeError::kOk);
  const auto contacts = world.OverlapShapeContacts(Shape::FromPolygon(box), {Vd(0, 1.75), kRotIdentity});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].normal, Vd(0, -1));
  EXPECT_EQ(contacts[0].depth, Fd(0.25));
  ASSERT_EQ(contacts[0].point_count, 2);
  EXPECT_EQ(contacts[0].points[0].y, Fd(0.875));
  EXPECT_EQ(contacts[0].points[1].y, Fd(0.875));
}

TEST(OverlapContacts, Touching_ZeroDepth) {
  World world;
  ASSERT_TRUE(world.AddBody(DiskBody(3, BodyType::kStatic, Vd(0, 0), 1)).ok());
  const auto contacts = world.OverlapShapeContacts(Disk(1), {Vd(2, 0), kRotIdentity});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].depth, kFixedZero);
  EXPECT_EQ(contacts[0].normal, Vd(-1, 0));
  EXPECT_EQ(contacts[0].points[0], Vd(1, 0));
}

TEST(OverlapContacts, SameCentre_TheSmallerDiskLeavesAlongPlusY) {
  // The manifold's rule for coincident circle centres (manifold_test.cc,
  // Collide_CoincidentCircles_UseUpNormal): the smaller disk goes up. A
  // small query inside a big body: the normal towards the body is -y, so
  // the push-out (-normal * depth) lifts the query.
  World world;
  ASSERT_TRUE(world.AddBody(DiskBody(3, BodyType::kDynamic, Vd(4, 4), 1)).ok());
  auto contacts = world.OverlapShapeContacts(Disk(0.5), {Vd(4, 4), kRotIdentity});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].normal, Vd(0, -1));
  EXPECT_EQ(contacts[0].depth, Fd(1.5));
  // A big query over a small body: the body goes up, along the normal.
  contacts = world.OverlapShapeContacts(Disk(2), {Vd(4, 4), kRotIdentity});
  ASSERT_EQ(contacts.size(), 1u);
  EXPECT_EQ(contacts[0].normal, Vd(0, 1));
  EXPECT_EQ(contacts[0].depth, Fd(3));
}

TEST(OverlapContacts, SameSetAndOrderAsOverlapShape_FilterHonoured) {
  World world;
  for (uint64_t id = 10; id > 0; --id) {
    ASSERT_TRUE(world.AddBody(DiskBody(id, BodyType::kStatic, Vd(static_cast<double>(id) * 0.5, 0), 1)).ok());
  }
  QueryFilter filter;
  const uint64_t excluded[] = {4};
  filter.exclude_bodies = excluded;
  const Transform at{Vd(2, 0), kRotIdentity};
  const auto refs = world.OverlapShape(Disk(1), at, filter);
  const auto contacts = world.OverlapShapeContacts(Disk(1), at, filter);
  ASSERT_EQ(contacts.size(), refs.size());
  for (size_t i = 0; i < refs.size(); ++i) EXPECT_EQ(contacts[i].shape, refs[i]);
  EXPECT_FALSE(std::any_of(contacts.begin(), contacts.end(), [](const OverlapContact& c) { return c.shape.body_id == 4; }));
}

// Moving the query shape out along -normal by the depth leaves it touching:
// a little less still overlaps, a little more separates.
TEST(OverlapContacts, PushOutByDepthSeparates) {
  SplitMix64 rng(25);
  int checked = 0;
  for (int round = 0; round < 4; ++round) {
    World world;
    std::vector<BodyDef> defs;
    for (uint64_t id = 1; id <= 150; ++id) defs.push_back(RandomBody(rng, id, 40.0));
    ASSERT_TRUE(world.AddBodies(defs).ok());
    for (int q = 0; q < 300; ++q) {
      const Shape disk = Disk(U(rng, 1, 4));
      const Transform at{Vd(U(rng, -40, 40), U(rng, -40, 40)), kRotIdentity};
      for (const OverlapContact& c : world.OverlapShapeContacts(disk, at)) {
        if (c.depth < Fd(1e-3) || c.normal == Vec2{}) continue;
        const BodyDef body = *world.GetBodyDef(c.shape.body_id);
        const ShapeProxy target = MakeProxy(body.shapes[c.shape.shape_index].shape, body.transform);
        auto placed = [&](double extra) {
          const Fixed d = c.depth + Fd(extra);
          return MakeProxy(disk, {at.p - Vec2{c.normal.x * d, c.normal.y * d}, kRotIdentity});
        };
        // Ties between faces may add up to 2^-22 units (manifold.h).
        EXPECT_TRUE(TestOverlap(placed(-1e-5), target)) << c.shape.body_id;
        EXPECT_FALSE(TestOverlap(placed(1e-5), target)) << c.shape.body_id;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 500);
}

// ---- Against brute force and the double reference --------------------------

struct Placed {
  ShapeRef ref;
  uint64_t user_tag;
  ShapeProxy proxy;
};

std::vector<Placed> AllShapes(const World& world) {
  std::vector<Placed> out;
  for (uint64_t id : world.BodyIds()) {
    const BodyDef def = *world.GetBodyDef(id);
    for (uint32_t i = 0; i < def.shapes.size(); ++i) {
      out.push_back({{id, i}, def.shapes[i].user_tag, MakeProxy(def.shapes[i].shape, def.transform)});
    }
  }
  return out;
}

// 200 random bodies within `extent` of `centre`; ids spaced by `stride`
// and offset by the round, so that rounds differ in id order too.
std::vector<BodyDef> BodiesAround(SplitMix64& rng, Vec2 centre, double extent, uint64_t stride, int round) {
  std::vector<BodyDef> defs;
  for (uint64_t id = 1; id <= 200; ++id) {
    BodyDef d = RandomBody(rng, id * stride + static_cast<uint64_t>(round), extent);
    d.transform.p = d.transform.p + centre;
    defs.push_back(d);
  }
  return defs;
}

// A random pose within `extent` of `centre`.
Transform PlaceAround(SplitMix64& rng, Vec2 centre, double extent) {
  return {centre + Vd(U(rng, -extent, extent), U(rng, -extent, extent)), MakeRot(Fd(U(rng, -3, 3)))};
}

// Random worlds around `centre` (near the origin and near 2^28 units).
class ContactsAgainstReference : public ::testing::TestWithParam<double> {};

TEST_P(ContactsAgainstReference, OverlapContactsEqualBruteForceAndReference) {
  const Vec2 centre = Vd(GetParam(), -GetParam());
  SplitMix64 rng(2501);
  double worst_depth = 0, worst_normal = 0;
  int compared = 0;
  for (int round = 0; round < 4; ++round) {
    World world;
    ASSERT_TRUE(world.AddBodies(BodiesAround(rng, centre, 60.0, 5, round)).ok());
    const std::vector<Placed> all = AllShapes(world);
    for (int q = 0; q < 200; ++q) {
      const BodyDef shape_source = RandomBody(rng, 1, 0.0);
      const Shape& shape = shape_source.shapes[0].shape;
      const Transform at = PlaceAround(rng, centre, 60);
      const ShapeProxy query = MakeProxy(shape, at);
      std::vector<OverlapContact> expected;
      for (const Placed& p : all) {
        if (!TestOverlap(query, p.proxy)) continue;
        OverlapContact c = ContactOfOverlap(query, p.proxy);
        c.shape = p.ref;
        c.user_tag = p.user_tag;
        expected.push_back(c);
      }
      const std::vector<OverlapContact> got = world.OverlapShapeContacts(shape, at);
      ASSERT_EQ(got, expected) << "round " << round << " query " << q;
      for (size_t i = 0; i < got.size(); ++i) {
        const OverlapContact& c = got[i];
        ASSERT_GE(c.depth, kFixedZero);
        ASSERT_GE(c.point_count, 1);
        const ShapeProxy& target = std::find_if(all.begin(), all.end(), [&](const Placed& p) { return p.ref == c.shape; })->proxy;
        const reference::Penetration ref =
            reference::SignedSeparation(reference::ToD(query, centre), reference::ToD(target, centre));
        worst_depth = std::max(worst_depth, std::abs(c.depth.ToDouble() - std::max(0.0, -ref.separation)));
        if (c.normal != Vec2{} && ref.gap > 1e-3 && ref.lever > 1e-3 && c.depth > Fd(1e-4)) {
          worst_normal = std::max({worst_normal, std::abs(c.normal.x.ToDouble() - ref.normal.x),
                                   std::abs(c.normal.y.ToDouble() - ref.normal.y)});
        }
        ++compared;
      }
    }
  }
  // The bounds world.h states (the manifold's): depth within 1e-6 units of
  // the exact minimum translation, normal within 1e-6 where it is defined.
  EXPECT_LE(worst_depth, 1e-6);
  EXPECT_LE(worst_normal, 1e-6);
  EXPECT_GT(compared, 300);
  std::printf("[ contacts ] %d compared, worst depth error %.3g, worst normal error %.3g\n", compared, worst_depth,
              worst_normal);
}

TEST_P(ContactsAgainstReference, DistanceEqualsBruteForceAndReference) {
  const Vec2 centre = Vd(GetParam(), GetParam());
  SplitMix64 rng(2502);
  double worst = 0;
  int compared = 0;
  for (int round = 0; round < 4; ++round) {
    World world;
    ASSERT_TRUE(world.AddBodies(BodiesAround(rng, centre, 80.0, 3, round)).ok());
    const std::vector<Placed> all = AllShapes(world);
    for (int q = 0; q < 200; ++q) {
      const BodyDef shape_source = RandomBody(rng, 1, 0.0);
      const Shape& shape = shape_source.shapes[0].shape;
      const Transform at = PlaceAround(rng, centre, 80);
      const Fixed max_distance = Fd(U(rng, 0, 15));
      const size_t max_results = 1 + rng.Next() % 12;
      QueryFilter filter;
      if (q % 4 == 0) filter.mask_bits = 0b011;
      const ShapeProxy query = MakeProxy(shape, at);
      // Brute force: every passing shape, the nearest per body.
      std::map<uint64_t, DistanceHit> per_body;
      for (const Placed& p : all) {
        const BodyDef def = *world.GetBodyDef(p.ref.body_id);
        const Filter& sf = def.shapes[p.ref.shape_index].filter;
        if ((sf.category_bits & filter.mask_bits) == 0 || (sf.mask_bits & filter.category_bits) == 0) continue;
        const DistanceOutput d = ShapeDistance(query, p.proxy);
        if (d.distance > max_distance) continue;
        DistanceHit h{p.ref, p.user_tag, d.distance, d.point_a, d.point_b, d.normal, kFixedZero};
        if (TestOverlap(query, p.proxy)) {
          const OverlapContact c = ContactOfOverlap(query, p.proxy);
          h.normal = c.normal;
          h.depth = c.depth;
        }
        auto it = per_body.find(p.ref.body_id);
        if (it == per_body.end() || h.distance < it->second.distance) per_body[p.ref.body_id] = h;
      }
      std::vector<DistanceHit> expected;
      for (const auto& [id, h] : per_body) expected.push_back(h);
      std::stable_sort(expected.begin(), expected.end(),
                       [](const DistanceHit& a, const DistanceHit& b) { return a.distance < b.distance; });
      if (expected.size() > max_results) expected.resize(max_results);
      const std::vector<DistanceHit> got = world.Distance(shape, at, max_distance, max_results, filter);
      ASSERT_EQ(got, expected) << "round " << round << " query " << q;
      for (const DistanceHit& h : got) {
        const ShapeProxy& target = std::find_if(all.begin(), all.end(), [&](const Placed& p) { return p.ref == h.shape; })->proxy;
        const reference::DistanceResult ref = reference::Distance(reference::ToD(query, centre), reference::ToD(target, centre));
        worst = std::max(worst, std::abs(h.distance.ToDouble() - ref.distance));
        if (h.distance > kFixedZero) {
          // The closest points are on the surfaces and `distance` apart.
          const double gap = reference::Distance(reference::ToD(h.point_query, centre), reference::ToD(h.point_body, centre));
          worst = std::max(worst, std::abs(gap - ref.distance));
        }
        ++compared;
      }
    }
  }
  EXPECT_LE(worst, 1e-6);
  EXPECT_GT(compared, 300);
  std::printf("[ distance ] %d compared, worst error %.3g units\n", compared, worst);
}

INSTANTIATE_TEST_SUITE_P(NearAndFar, ContactsAgainstReference, ::testing::Values(0.0, 268435456.0));

TEST(Distance, PinnedDiskAndBox_NearestFirstOncePerBody) {
  World world;
  ASSERT_TRUE(world.AddBody(BoxBody(5, BodyType::kStatic, Vd(10, 0), 1, 1)).ok());
  ASSERT_TRUE(world.AddBody(DiskBody(2, BodyType::kDynamic, Vd(-4, 0), 1)).ok());
  BodyDef two = DiskBody(9, BodyType::kStatic, Vd(0, 6), 1);
  two.shapes.push_back(two.shapes[0]);
  two.shapes[1].shape = Shape::FromCircle({Vd(0, -2), Fd(1)});  // at (0, 4): nearer
  ASSERT_TRUE(world.AddBody(two).ok());
  const auto hits = world.Distance(Disk(1), {Vd(0, 0), kRotIdentity}, Fd(20), 10);
  ASSERT_EQ(hits.size(), 3u);
  EXPECT_EQ(hits[0].shape, (ShapeRef{2, 0}));
  EXPECT_EQ(hits[0].distance, Fd(2));
  EXPECT_EQ(hits[0].point_query, Vd(-1, 0));
  EXPECT_EQ(hits[0].point_body, Vd(-3, 0));
  EXPECT_EQ(hits[0].normal, Vd(-1, 0));
  EXPECT_EQ(hits[1].shape, (ShapeRef{9, 1}));  // the body once, at its nearer shape
  EXPECT_EQ(hits[1].distance, Fd(2));
  EXPECT_EQ(hits[2].shape, (ShapeRef{5, 0}));
  EXPECT_EQ(hits[2].distance, Fd(8));
  // Ties in distance go to the lower body id; max_results keeps the nearest.
  EXPECT_EQ(world.Distance(Disk(1), {Vd(0, 0), kRotIdentity}, Fd(20), 1).size(), 1u);
  EXPECT_TRUE(world.Distance(Disk(1), {Vd(0, 0), kRotIdentity}, Fd(1.5), 10).empty());
}

TEST(Distance, Overlapping_ZeroDistanceAndTheContact) {
  World world;
  ASSERT_TRUE(world.AddBody(BoxBody(7, BodyType::kStatic, Vd(0, 0), 2, 1)).ok());
  const Transform at{Vd(0, 1.5), kRotIdentity};
  const auto hits = world.Distance(Disk(1), at, Fd(0), 4);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].distance, kFixedZero);
  EXPECT_EQ(hits[0].normal, Vd(0, -1));
  EXPECT_EQ(hits[0].depth, Fd(0.5));
  EXPECT_EQ(hits[0].point_query, hits[0].point_body);
  const auto contact = world.OverlapShapeContacts(Disk(1), at);
  EXPECT_EQ(hits[0].depth, contact[0].depth);
}

TEST(Distance, MaxDistanceRange) {
  EXPECT_TRUE(ValidateMaxDistance(kFixedZero, "max_distance").ok());
  EXPECT_TRUE(ValidateMaxDistance(kMaxQueryTranslation, "max_distance").ok());
  const Status negative = ValidateMaxDistance(Fd(-1), "queries[2].max_distance");
  EXPECT_EQ(negative.code(), StatusCode::kOutOfRange);
  EXPECT_NE(negative.message().find("queries[2].max_distance"), std::string::npos);
  EXPECT_FALSE(ValidateMaxDistance(kMaxQueryTranslation + Fixed::FromRaw(1), "d").ok());
  // The largest query is answered without overflow at the edge of the world.
  World world;
  ASSERT_TRUE(world.AddBody(DiskBody(1, BodyType::kStatic, Vd(-536870000, 0), 1)).ok());
  const auto hits = world.Distance(Disk(1), {Vd(536870000, 0), kRotIdentity}, kMaxQueryTranslation, 1);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].distance, Fd(1073739998));
}

}  // namespace
}  // namespace arbiter

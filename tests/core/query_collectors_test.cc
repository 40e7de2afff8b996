// Each collector answers exactly as the World query built on it, also when
// one collector is reused for a whole batch (as the server does);
// CastShapeAny agrees with the closest cast.
#include "arbiter/core/query_collectors.h"

#include <gtest/gtest.h>

#include <optional>
#include <span>
#include <vector>

#include "testing/numbers.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

using testing::RandomBody;
using testing::SplitMix64;

using testing::Fd;

// What a sink received for one query.
struct Answer {
  bool hit = false;
  std::vector<CastHit> hits;
};

World RandomWorld(SplitMix64& rng) {
  World world;
  std::vector<BodyDef> bodies;
  for (uint64_t id = 1; id <= 150; ++id) bodies.push_back(RandomBody(rng, id, 40.0));
  EXPECT_TRUE(world.AddBodies(bodies).ok());
  return world;
}


Vec2 RandomPoint(SplitMix64& rng, double extent) {
  return {Fd((rng.Unit() * 2 - 1) * extent), Fd((rng.Unit() * 2 - 1) * extent)};
}

// The three collectors behind the one interface the server uses: a batch
// picks one and reuses it from query to query.
struct Collectors {
  ClosestHitCollector closest;
  AllHitsCollector all;
  AnyHitCollector any;
  CastCollector& operator[](int mode) {
    if (mode == 0) return closest;
    if (mode == 1) return all;
    return any;
  }
};

Answer Read(CastCollector& c) {
  const std::span<const CastHit> hits = c.reported();
  return {c.had_hit(), std::vector<CastHit>(hits.begin(), hits.end())};
}

TEST(QueryCollectors, RayCasts_EachCollectorEqualsItsWorldQuery_ReusedAcrossABatch) {
  SplitMix64 rng(13);
  const World world = RandomWorld(rng);
  std::vector<RayCastInput> rays(600);
  for (RayCastInput& r : rays) r = {RandomPoint(rng, 50), RandomPoint(rng, 60)};
  Collectors collectors;
  for (int mode = 0; mode < 3; ++mode) {
    CastCollector& collector = collectors[mode];
    size_t hits = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      world.CastRay(rays[i], {}, collector);
      const Answer answer = Read(collector);
      std::vector<CastHit> expected;
      bool hit = false;
      switch (mode) {
        case 0:
          if (std::optional<CastHit> h = world.CastRayClosest(rays[i])) expected.push_back(*h);
          hit = !expected.empty();
          break;
        case 1:
          expected = world.CastRayAll(rays[i]);
          hit = !expected.empty();
          break;
        default: hit = world.CastRayAny(rays[i]); break;
      }
      EXPECT_EQ(answer.hit, hit) << "ray " << i;
      EXPECT_EQ(answer.hits, expected) << "ray " << i;
      hits += hit ? 1 : 0;
    }
    EXPECT_GT(hits, 50u);  // the rays are not all misses
  }
}

TEST(QueryCollectors, ShapeCasts_EachCollectorEqualsItsWorldQuery_AndAnyAgreesWithClosest) {
  SplitMix64 rng(29);
  const World world = RandomWorld(rng);
  struct Cast {
    Shape shape;
    Transform transform;
    Vec2 translation;
  };
  std::vector<Cast> casts(120);
  for (Cast& c : casts) {
    c.shape = Shape::FromCircle({{}, Fd(0.25 + rng.Unit())});
    c.transform = {RandomPoint(rng, 50), kRotIdentity};
    c.translation = RandomPoint(rng, 30);
  }
  Collectors collectors;
  for (int mode = 0; mode < 3; ++mode) {
    CastCollector& collector = collectors[mode];
    for (size_t i = 0; i < casts.size(); ++i) {
      const Cast& c = casts[i];
      world.CastShape(c.shape, c.transform, c.translation, {}, collector);
      const Answer answer = Read(collector);
      const std::optional<CastHit> closest = world.CastShapeClosest(c.shape, c.transform, c.translation);
      EXPECT_EQ(world.CastShapeAny(c.shape, c.transform, c.translation), closest.has_value()) << "cast " << i;
      EXPECT_EQ(answer.hit, closest.has_value()) << "cast " << i;
      std::vector<CastHit> expected;
      if (mode == 0 && closest) expected.push_back(*closest);
      if (mode == 1) expected = world.CastShapeAll(c.shape, c.transform, c.translation);
      EXPECT_EQ(answer.hits, expected) << "cast " << i;
    }
  }
}

}  // namespace
}  // namespace arbiter

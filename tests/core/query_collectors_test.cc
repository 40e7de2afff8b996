// The collectors answer each mode exactly as the World query it maps to,
// in query order, across the closest batch's chunk boundary; CastShapeAny
// agrees with the closest cast.
#include "arbiter/core/query_collectors.h"

#include <gtest/gtest.h>

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

template <class Input, class Collect>
std::vector<Answer> Collected(std::span<const Input> inputs, Collect collect) {
  std::vector<Answer> answers(inputs.size());
  size_t next = 0;
  collect([&](size_t query, bool hit, std::span<const CastHit> hits) {
    EXPECT_EQ(query, next++) << "answers come in query order";
    answers[query] = {hit, std::vector<CastHit>(hits.begin(), hits.end())};
  });
  EXPECT_EQ(next, inputs.size());
  return answers;
}

TEST(QueryCollectors, RayCasts_EachModeEqualsItsWorldQuery_AcrossBatchBoundaries) {
  SplitMix64 rng(13);
  const World world = RandomWorld(rng);
  std::vector<RayCastInput> rays(600);  // more than two closest batches of 256
  for (RayCastInput& r : rays) r = {RandomPoint(rng, 50), RandomPoint(rng, 60)};
  const std::span<const RayCastInput> span(rays);
  for (CastMode mode : {CastMode::kClosest, CastMode::kAll, CastMode::kAny}) {
    const std::vector<Answer> answers =
        Collected(span, [&](const CastSink& sink) { CollectRayCasts(world, span, {}, mode, sink); });
    size_t hits = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      std::vector<CastHit> expected;
      bool hit = false;
      switch (mode) {
        case CastMode::kClosest:
          if (std::optional<CastHit> h = world.CastRayClosest(rays[i])) expected.push_back(*h);
          hit = !expected.empty();
          break;
        case CastMode::kAll:
          expected = world.CastRayAll(rays[i]);
          hit = !expected.empty();
          break;
        case CastMode::kAny: hit = world.CastRayAny(rays[i]); break;
      }
      EXPECT_EQ(answers[i].hit, hit) << "ray " << i;
      EXPECT_EQ(answers[i].hits, expected) << "ray " << i;
      hits += hit ? 1 : 0;
    }
    EXPECT_GT(hits, 50u);  // the rays are not all misses
  }
}

TEST(QueryCollectors, ShapeCasts_EachModeEqualsItsWorldQuery_AndAnyAgreesWithClosest) {
  SplitMix64 rng(29);
  const World world = RandomWorld(rng);
  std::vector<WorldShapeCast> casts(120);
  for (WorldShapeCast& c : casts) {
    c.shape = Shape::FromCircle({{}, Fd(0.25 + rng.Unit())});
    c.transform = {RandomPoint(rng, 50), kRotIdentity};
    c.translation = RandomPoint(rng, 30);
  }
  const std::span<const WorldShapeCast> span(casts);
  for (CastMode mode : {CastMode::kClosest, CastMode::kAll, CastMode::kAny}) {
    const std::vector<Answer> answers =
        Collected(span, [&](const CastSink& sink) { CollectShapeCasts(world, span, {}, mode, sink); });
    for (size_t i = 0; i < casts.size(); ++i) {
      const WorldShapeCast& c = casts[i];
      const std::optional<CastHit> closest = world.CastShapeClosest(c.shape, c.transform, c.translation);
      EXPECT_EQ(world.CastShapeAny(c.shape, c.transform, c.translation), closest.has_value()) << "cast " << i;
      EXPECT_EQ(answers[i].hit, closest.has_value()) << "cast " << i;
      std::vector<CastHit> expected;
      if (mode == CastMode::kClosest && closest) expected.push_back(*closest);
      if (mode == CastMode::kAll) expected = world.CastShapeAll(c.shape, c.transform, c.translation);
      EXPECT_EQ(answers[i].hits, expected) << "cast " << i;
    }
  }
}

}  // namespace
}  // namespace arbiter

// rain-2k: 2,000 bodies falling through pegs onto a walled floor. Behaviour
// after the scene's 600 ticks, and golden state hashes at ticks 1, 60 and
// 600 (a change to these is a deliberate, noted format or solver change).
#include <gtest/gtest.h>

#include <cinttypes>
#include <algorithm>
#include <cmath>
#include <vector>

#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"

namespace arbiter {
namespace {

class Rain : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scene::Scene scene;
    ASSERT_TRUE(scene::LoadSceneFile(ARBITER_SCENES_DIR "/rain-2k.scene.json", &scene).ok());
    ASSERT_EQ(scene.steps, 600);
    world_ = new World(scene.world);
    ASSERT_TRUE(world_->AddBodies(scene.bodies).ok());
    for (const BodyDef& b : scene.bodies) {
      if (b.type == BodyType::kDynamic) dynamic_ids_.push_back(b.id);
    }
    for (int tick = 1; tick <= scene.steps; ++tick) {
      world_->Step();
      if (tick % 10 == 0) peak_energy_ = std::max(peak_energy_, KineticEnergy());
      if (tick == 1) hash_1_ = world_->StateHash();
      if (tick == 60) hash_60_ = world_->StateHash();
    }
    hash_600_ = world_->StateHash();
    final_energy_ = KineticEnergy();
  }

  static double KineticEnergy() {
    double energy = 0;
    for (uint64_t id : dynamic_ids_) {
      const BodyDef body = *world_->GetBodyDef(id);
      double mass = 0;
      for (const ShapeDef& sd : body.shapes) mass += ComputeMass(sd.shape, sd.density).mass.ToDouble();
      const double vx = body.linear_velocity.x.ToDouble(), vy = body.linear_velocity.y.ToDouble();
      energy += 0.5 * mass * (vx * vx + vy * vy);
    }
    return energy;
  }
  static void TearDownTestSuite() { delete world_; }

  static inline World* world_ = nullptr;
  static inline uint64_t hash_1_ = 0, hash_60_ = 0, hash_600_ = 0;
  static inline std::vector<uint64_t> dynamic_ids_;
  static inline double peak_energy_ = 0, final_energy_ = 0;
};

TEST_F(Rain, GoldenStateHashes) {
  std::printf("rain-2k state hashes: tick 1 0x%016" PRIx64 ", tick 60 0x%016" PRIx64 ", tick 600 0x%016" PRIx64 "\n",
              hash_1_, hash_60_, hash_600_);
  EXPECT_EQ(hash_1_, 0xbc4ba3333ac81cd6ull);
  EXPECT_EQ(hash_60_, 0x4725bb4d4f2588d8ull);
  EXPECT_EQ(hash_600_, 0xc42ff6950552031full);
}

TEST_F(Rain, NobodyLeftTheWallsOrSankIntoStaticGeometry) {
  ASSERT_EQ(dynamic_ids_.size(), 2000u);
  double deepest = 0;
  QueryFilter statics;
  statics.body_types = 1u << static_cast<int>(BodyType::kStatic);
  for (uint64_t id : dynamic_ids_) {
    const BodyDef body = *world_->GetBodyDef(id);
    const Vec2 p = body.transform.p;
    // Inner faces of the walls at x = +-200, floor top at y = 0.
    ASSERT_GT(p.x.ToDouble(), -200) << "body " << id;
    ASSERT_LT(p.x.ToDouble(), 200) << "body " << id;
    ASSERT_GT(p.y.ToDouble(), 0) << "body " << id;
    for (const ShapeDef& sd : body.shapes) {
      const ShapeProxy mine = MakeProxy(sd.shape, body.transform);
      for (const ShapeRef& other : world_->OverlapShape(sd.shape, body.transform, statics)) {
        const BodyDef s = *world_->GetBodyDef(other.body_id);
        const ShapeProxy theirs = MakeProxy(s.shapes[other.shape_index].shape, s.transform);
        deepest = std::max(deepest, ManifoldDepth(Collide(theirs, mine, kFixedZero)).ToDouble());
      }
    }
  }
  RecordProperty("deepest_static_overlap_um", static_cast<int>(deepest * 1e6));
  // Measured 0.049 here: bodies still falling onto pegs at tick 600 sink in
  // by up to their last tick's motion before the contact pushes them out.
  EXPECT_LT(deepest, 0.1);
}

TEST_F(Rain, KineticEnergyHasDecayed) {
  // The scene is not at rest after 600 ticks in any engine (bodies keep
  // rolling off pegs; Box2D 2.4.1 keeps 11% of its peak kinetic energy
  // there, measured on this machine), so the bound is relative to the
  // peak, which comes at about tick 180 when the rain reaches the pegs.
  ASSERT_GT(peak_energy_, 0);
  RecordProperty("kinetic_energy_percent_of_peak", static_cast<int>(100 * final_energy_ / peak_energy_));
  EXPECT_LT(final_energy_, 0.2 * peak_energy_);
}

}  // namespace
}  // namespace arbiter

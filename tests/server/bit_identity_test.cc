// The arena-10k scene and its whole query set answered over RPC equal the
// in-process answers bit for bit: the world built from the scene file on the
// server, and the same bodies uploaded through AddBodies, hash like the
// in-process world; every ray, box, disk and sweep of the query set gets the
// same raw Q32.32 answer; stepping stays identical tick by tick.
#include "arbiter/scene/scene.h"
#include "arbiter/wire/convert.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

constexpr uint32_t kBatch = 10000;

class ArenaTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scene_ = new scene::Scene();
    queries_ = new scene::QuerySet();
    const std::string dir = ARBITER_SCENES_DIR;
    ASSERT_TRUE(scene::LoadSceneFile(dir + "/arena-10k.scene.json", scene_).ok());
    ASSERT_TRUE(scene::LoadQuerySetFile(dir + "/arena-10k.queries.json", queries_).ok());
    scene_->world.max_bodies = TestServerOptions().registry.max_bodies_per_world;
  }
  static void TearDownTestSuite() {
    delete scene_;
    delete queries_;
  }

  void SetUp() override {
    replica_ = std::make_unique<World>(scene_->world);
    ASSERT_TRUE(replica_->AddBodies(scene_->bodies).ok());
    v1::CreateWorldRequest create;
    create.set_world_id("arena");
    create.set_scene("arena-10k.scene.json");
    absl::StatusOr<v1::CreateWorldResponse> reply = server_.client().CreateWorld(create);
    ASSERT_THAT(reply, IsOk());
    ASSERT_EQ(reply->world().state_hash(), replica_->StateHash());
  }

  static scene::Scene* scene_;
  static scene::QuerySet* queries_;
  LiveServer server_;
  std::unique_ptr<World> replica_;
};

scene::Scene* ArenaTest::scene_ = nullptr;
scene::QuerySet* ArenaTest::queries_ = nullptr;

TEST_F(ArenaTest, UploadedBodies_HashLikeTheSceneFile_AndStepIdentically) {
  ASSERT_EQ(scene_->bodies.size(), 11000u);
  v1::CreateWorldRequest create;
  create.set_world_id("uploaded");
  create.set_tick_hz(scene_->world.tick_hz);
  *create.mutable_gravity() = WireVec(scene_->world.gravity);
  ASSERT_THAT(server_.client().CreateWorld(create), IsOk());
  ASSERT_THAT(server_.client().AddBodiesInBatches("uploaded", scene_->bodies, 2500), IsOk());
  v1::GetStateHashRequest hash;
  hash.set_world_id("uploaded");
  absl::StatusOr<v1::GetStateHashResponse> uploaded = server_.client().GetStateHash(hash);
  ASSERT_THAT(uploaded, IsOk());
  EXPECT_EQ(uploaded->state_hash(), replica_->StateHash());

  // 1000 dynamic bodies: every tick's state equal on both server worlds
  // and in process.
  v1::StepRequest step;
  step.set_ticks(20);
  step.set_hash_every_tick(true);
  step.set_omit_events(true);
  step.set_world_id("arena");
  absl::StatusOr<v1::StepResponse> from_file = server_.client().Step(step);
  step.set_world_id("uploaded");
  absl::StatusOr<v1::StepResponse> from_upload = server_.client().Step(step);
  ASSERT_THAT(from_file, IsOk());
  ASSERT_THAT(from_upload, IsOk());
  ASSERT_EQ(from_file->ticks_size(), 20);
  ASSERT_EQ(from_upload->ticks_size(), 20);
  for (int t = 0; t < 20; ++t) {
    replica_->Step();
    EXPECT_EQ(from_file->ticks(t).state_hash(), replica_->StateHash()) << "tick " << t + 1;
    EXPECT_EQ(from_upload->ticks(t).state_hash(), replica_->StateHash()) << "tick " << t + 1;
  }
}

TEST_F(ArenaTest, AllRays_BitIdentical) {
  const std::vector<RayCastInput>& rays = queries_->rays;
  ASSERT_EQ(rays.size(), 40000u);
  size_t hits = 0;
  // Columns, as a high-rate client sends them.
  for (size_t start = 0; start < rays.size(); start += kBatch) {
    v1::CastRaysRequest request;
    request.set_world_id("arena");
    request.set_mode(v1::CAST_MODE_CLOSEST);
    const size_t end = std::min(rays.size(), start + kBatch);
    v1::RayColumns* c = request.mutable_columns();
    for (size_t i = start; i < end; ++i) {
      c->add_origin_x(rays[i].origin.x.raw());
      c->add_origin_y(rays[i].origin.y.raw());
      c->add_translation_x(rays[i].translation.x.raw());
      c->add_translation_y(rays[i].translation.y.raw());
    }
    absl::StatusOr<v1::CastRaysResponse> reply = server_.client().CastRays(request);
    ASSERT_THAT(reply, IsOk());
    const v1::HitColumns& k = reply->columns();
    int row = 0;
    for (size_t i = start; i < end; ++i) {
      const std::optional<CastHit> core = replica_->CastRayClosest(rays[i]);
      const bool wire_hit = row < k.query_index_size() && k.query_index(row) == i - start;
      ASSERT_EQ(wire_hit, core.has_value()) << "ray " << i;
      if (!core) continue;
      v1::Hit h;
      h.set_body_id(k.body_id(row));
      h.set_shape_index(k.shape_index(row));
      h.set_user_tag(k.user_tag(row));
      h.set_fraction(k.fraction(row));
      h.mutable_point()->set_x(k.point_x(row));
      h.mutable_point()->set_y(k.point_y(row));
      h.mutable_normal()->set_x(k.normal_x(row));
      h.mutable_normal()->set_y(k.normal_y(row));
      ASSERT_TRUE(SameHit(h, *core)) << "ray " << i;
      ++row;
      ++hits;
    }
    EXPECT_EQ(row, k.query_index_size());
  }
  EXPECT_GT(hits, rays.size() / 10);

  // One message per ray, for the first 5000.
  v1::CastRaysRequest request;
  request.set_world_id("arena");
  request.set_mode(v1::CAST_MODE_CLOSEST);
  for (size_t i = 0; i < 5000; ++i) *request.add_rays() = WireRay(rays[i]);
  absl::StatusOr<v1::CastRaysResponse> reply = server_.client().CastRays(request);
  ASSERT_THAT(reply, IsOk());
  for (size_t i = 0; i < 5000; ++i) {
    ASSERT_TRUE(SameResult(reply->results(static_cast<int>(i)), replica_->CastRayClosest(rays[i]))) << "ray " << i;
  }
}

TEST_F(ArenaTest, AllBoxesAndDisks_BitIdentical) {
  ASSERT_EQ(queries_->aabbs.size(), 20000u);
  ASSERT_EQ(queries_->disks.size(), 20000u);
  size_t found = 0;
  for (size_t start = 0; start < queries_->aabbs.size(); start += kBatch) {
    v1::OverlapRequest request;
    request.set_world_id("arena");
    const size_t end = std::min(queries_->aabbs.size(), start + kBatch);
    for (size_t i = start; i < end; ++i) {
      v1::Aabb* box = request.add_queries()->mutable_aabb();
      *box->mutable_lower() = WireVec(queries_->aabbs[i].lower);
      *box->mutable_upper() = WireVec(queries_->aabbs[i].upper);
    }
    absl::StatusOr<v1::OverlapResponse> reply = server_.client().Overlap(request);
    ASSERT_THAT(reply, IsOk());
    for (size_t i = start; i < end; ++i) {
      const std::vector<ShapeRef> core = replica_->OverlapAabb(queries_->aabbs[i]);
      ASSERT_TRUE(SameShapes(reply->results(static_cast<int>(i - start)), core)) << "aabb " << i;
      found += core.size();
    }
  }
  for (size_t start = 0; start < queries_->disks.size(); start += kBatch) {
    v1::OverlapRequest request;
    request.set_world_id("arena");
    const size_t end = std::min(queries_->disks.size(), start + kBatch);
    for (size_t i = start; i < end; ++i) {
      v1::ShapeQuery* q = request.add_queries()->mutable_shape();
      q->mutable_shape()->mutable_circle()->set_radius(queries_->disks[i].radius.raw());
      *q->mutable_transform()->mutable_position() = WireVec(queries_->disks[i].center);
    }
    absl::StatusOr<v1::OverlapResponse> reply = server_.client().Overlap(request);
    ASSERT_THAT(reply, IsOk());
    for (size_t i = start; i < end; ++i) {
      const scene::DiskQuery& d = queries_->disks[i];
      const std::vector<ShapeRef> core =
          replica_->OverlapShape(Shape::FromCircle({Vec2{}, d.radius}), {d.center, kRotIdentity});
      ASSERT_TRUE(SameShapes(reply->results(static_cast<int>(i - start)), core)) << "disk " << i;
      found += core.size();
    }
  }
  EXPECT_GT(found, 10000u);
}

TEST_F(ArenaTest, AllSweeps_BitIdentical) {
  const std::vector<scene::SweepQuery>& sweeps = queries_->sweeps;
  ASSERT_EQ(sweeps.size(), 10000u);
  v1::CastShapesRequest request;
  request.set_world_id("arena");
  request.set_mode(v1::CAST_MODE_CLOSEST);
  for (const scene::SweepQuery& s : sweeps) {
    v1::ShapeCast* c = request.add_casts();
    c->mutable_shape()->mutable_circle()->set_radius(s.radius.raw());
    *c->mutable_transform()->mutable_position() = WireVec(s.center);
    *c->mutable_translation() = WireVec(s.translation);
  }
  absl::StatusOr<v1::CastShapesResponse> reply = server_.client().CastShapes(request);
  ASSERT_THAT(reply, IsOk());
  size_t hits = 0;
  for (size_t i = 0; i < sweeps.size(); ++i) {
    const std::optional<CastHit> core = replica_->CastShapeClosest(Shape::FromCircle({Vec2{}, sweeps[i].radius}),
                                                                   {sweeps[i].center, kRotIdentity}, sweeps[i].translation);
    ASSERT_TRUE(SameResult(reply->results(static_cast<int>(i)), core)) << "sweep " << i;
    hits += core ? 1 : 0;
  }
  EXPECT_GT(hits, sweeps.size() / 10);
}

// A batch split across threads (--query_threads) answers byte for byte as
// one thread does: every mode, rays as columns and as messages, sweeps.
TEST(QueryThreads, RepliesAreByteIdenticalForAnyThreadCount) {
  scene::QuerySet queries;
  ASSERT_TRUE(scene::LoadQuerySetFile(std::string(ARBITER_SCENES_DIR) + "/arena-10k.queries.json", &queries).ok());
  server::ServerOptions one = TestServerOptions();
  one.service.query_threads = 1;
  server::ServerOptions four = one;
  four.service.query_threads = 4;
  LiveServer single(one), split(four);
  for (LiveServer* s : {&single, &split}) {
    v1::CreateWorldRequest create;
    create.set_world_id("arena");
    create.set_scene("arena-10k.scene.json");
    ASSERT_THAT(s->client().CreateWorld(create), IsOk());
  }
  constexpr size_t kRays = 6000;  // 24 chunks: every helper thread gets work
  for (const v1::CastMode mode : {v1::CAST_MODE_CLOSEST, v1::CAST_MODE_ALL, v1::CAST_MODE_ANY}) {
    v1::CastRaysRequest messages, columns;
    for (v1::CastRaysRequest* r : {&messages, &columns}) {
      r->set_world_id("arena");
      r->set_mode(mode);
    }
    for (size_t i = 0; i < kRays; ++i) {
      const RayCastInput& ray = queries.rays[i];
      *messages.add_rays() = WireRay(ray);
      v1::RayColumns* c = columns.mutable_columns();
      c->add_origin_x(ray.origin.x.raw());
      c->add_origin_y(ray.origin.y.raw());
      c->add_translation_x(ray.translation.x.raw());
      c->add_translation_y(ray.translation.y.raw());
    }
    for (const v1::CastRaysRequest* r : {&messages, &columns}) {
      absl::StatusOr<v1::CastRaysResponse> a = single.client().CastRays(*r);
      absl::StatusOr<v1::CastRaysResponse> b = split.client().CastRays(*r);
      ASSERT_THAT(a, IsOk());
      ASSERT_THAT(b, IsOk());
      ASSERT_GT(a->ByteSizeLong(), kRays) << "mode " << mode;  // something was hit
      ASSERT_EQ(a->SerializeAsString(), b->SerializeAsString()) << "mode " << mode;
    }
    v1::CastShapesRequest sweeps;
    sweeps.set_world_id("arena");
    sweeps.set_mode(mode);
    for (const scene::SweepQuery& q : queries.sweeps) {
      v1::ShapeCast* c = sweeps.add_casts();
      c->mutable_shape()->mutable_circle()->set_radius(q.radius.raw());
      *c->mutable_transform()->mutable_position() = WireVec(q.center);
      *c->mutable_translation() = WireVec(q.translation);
    }
    absl::StatusOr<v1::CastShapesResponse> a = single.client().CastShapes(sweeps);
    absl::StatusOr<v1::CastShapesResponse> b = split.client().CastShapes(sweeps);
    ASSERT_THAT(a, IsOk());
    ASSERT_THAT(b, IsOk());
    ASSERT_EQ(a->results_size(), static_cast<int>(queries.sweeps.size()));
    ASSERT_EQ(a->SerializeAsString(), b->SerializeAsString()) << "mode " << mode;
  }
}

// --step_threads: the same ticks (state hash and events, byte for byte)
// stepping rain-2k with one thread and with a pool of three.
TEST(StepThreads, StepRepliesAreByteIdenticalForAnyThreadCount) {
  server::ServerOptions one = TestServerOptions();
  one.service.step_threads = 1;
  server::ServerOptions three = one;
  three.service.step_threads = 3;
  LiveServer single(one), pooled(three);
  v1::StepRequest step;
  step.set_world_id("rain");
  step.set_ticks(40);
  step.set_hash_every_tick(true);
  std::string replies[2];
  int i = 0;
  for (LiveServer* s : {&single, &pooled}) {
    v1::CreateWorldRequest create;
    create.set_world_id("rain");
    create.set_scene("rain-2k.scene.json");
    ASSERT_THAT(s->client().CreateWorld(create), IsOk());
    for (int call = 0; call < 3; ++call) {  // into the pile: contacts and events
      absl::StatusOr<v1::StepResponse> reply = s->client().Step(step);
      ASSERT_THAT(reply, IsOk());
      ASSERT_EQ(reply->ticks_size(), 40);
      replies[i] += reply->SerializeAsString();
    }
    ++i;
  }
  EXPECT_EQ(replies[0], replies[1]);
}

}  // namespace
}  // namespace arbiter::testing

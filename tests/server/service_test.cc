// Every RPC of arbiter.v1.Arbiter against a real server on a loopback
// port, each answer checked against an in-process World built from the
// same definitions; every validation rule with a bad request, each followed
// by a check that the world did not change.
#include <grpcpp/generic/generic_stub.h>

#include <functional>
#include <thread>

#include "arbiter/core/fixed_math.h"
#include "arbiter/scene/scene.h"
#include "arbiter/wire/convert.h"
#include "test_support.h"
#include "testing/numbers.h"

namespace arbiter::testing {
namespace {

Shape BoxShape(double hw, double hh) {
  Polygon p;
  EXPECT_EQ(MakeBox(Fd(hw), Fd(hh), &p), ShapeError::kOk);
  return Shape::FromPolygon(p);
}

BodyDef Body(uint64_t id, BodyType type, Vec2 position, std::vector<Shape> shapes) {
  BodyDef b;
  b.id = id;
  b.type = type;
  b.transform = {position, kRotIdentity};
  for (Shape& s : shapes) {
    ShapeDef d;
    d.shape = s;
    d.user_tag = id * 100 + b.shapes.size();
    b.shapes.push_back(d);
  }
  return b;
}

/// A small world with every shape kind, every body type, a sensor and a
/// body with two shapes.
std::vector<BodyDef> SmallWorldBodies() {
  std::vector<BodyDef> bodies;
  bodies.push_back(Body(1, BodyType::kStatic, Vd(0, -1), {BoxShape(40, 1)}));
  bodies.push_back(Body(2, BodyType::kStatic, Vd(-10, 5), {Shape::FromCircle({Vd(0, 0), Fd(1)})}));
  bodies.push_back(Body(3, BodyType::kDynamic, Vd(0, 5), {BoxShape(1, 1)}));
  BodyDef capsule = Body(4, BodyType::kKinematic, Vd(10, 3), {Shape::FromCapsule({Vd(-1, 0), Vd(1, 0), Fd(0.5)})});
  capsule.linear_velocity = Vd(1, 0);
  bodies.push_back(capsule);
  BodyDef sensor = Body(5, BodyType::kStatic, Vd(20, 0), {Shape::FromCircle({Vd(0, 0), Fd(2)})});
  sensor.shapes[0].is_sensor = true;
  bodies.push_back(sensor);
  bodies.push_back(Body(6, BodyType::kDynamic, Vd(20, 4), {Shape::FromCircle({Vd(0, 0), Fd(0.5)})}));
  Polygon triangle;
  const Vec2 points[] = {Vd(-2, 0), Vd(2, 0), Vd(0, 2)};
  EXPECT_EQ(MakePolygon(points, kFixedZero, &triangle), ShapeError::kOk);
  bodies.push_back(Body(7, BodyType::kStatic, Vd(-20, 0), {Shape::FromPolygon(triangle)}));
  BodyDef pair = Body(8, BodyType::kStatic, Vd(30, 5),
                      {Shape::FromCircle({Vd(-1, 0), Fd(0.75)}), Shape::FromSegment({Vd(1, -1), Vd(1, 1)})});
  pair.shapes[1].filter.category_bits = 2;
  bodies.push_back(pair);
  return bodies;
}

constexpr const char* kWorld = "small";

class ServiceTest : public ::testing::Test {
 protected:
  /// Creates `id` on the server from SmallWorldBodies() and returns an
  /// in-process replica built from the same definitions.
  World CreateSmallWorld(const std::string& id) {
    WorldDef def;
    def.gravity = Vd(0, -10);
    def.tick_hz = 60;
    def.max_bodies = TestServerOptions().registry.max_bodies_per_world;
    World replica(def);
    const std::vector<BodyDef> bodies = SmallWorldBodies();
    EXPECT_TRUE(replica.AddBodies(bodies).ok());

    v1::CreateWorldRequest request;
    request.set_world_id(id);
    *request.mutable_gravity() = WireVec(def.gravity);
    request.set_tick_hz(60);
    for (const BodyDef& b : bodies) wire::ToProto(b, request.add_bodies());
    absl::StatusOr<v1::CreateWorldResponse> reply = client().CreateWorld(request);
    EXPECT_THAT(reply, IsOk());
    if (reply.ok()) {
      EXPECT_EQ(reply->world().state_hash(), replica.StateHash());
      EXPECT_EQ(reply->world().body_count(), bodies.size());
    }
    return replica;
  }

  /// (tick, hash) of a world on the server.
  std::pair<int64_t, uint64_t> TickAndHash(const std::string& id) {
    v1::GetStateHashRequest request;
    request.set_world_id(id);
    absl::StatusOr<v1::GetStateHashResponse> reply = client().GetStateHash(request);
    EXPECT_THAT(reply, IsOk());
    return reply.ok() ? std::make_pair(reply->tick(), reply->state_hash()) : std::make_pair(int64_t{-1}, uint64_t{0});
  }

  client::ArbiterClient& client() { return server_.client(); }

  LiveServer server_;
};

// Steps kWorld `ticks` ticks on the server and `replica` as many; their
// state hashes must agree.
void StepLikeReplica(client::ArbiterClient& client, World& replica, int ticks) {
  v1::StepRequest step;
  step.set_world_id(kWorld);
  step.set_ticks(ticks);
  step.set_omit_events(true);
  absl::StatusOr<v1::StepResponse> stepped = client.Step(step);
  ASSERT_THAT(stepped, IsOk());
  for (int i = 0; i < ticks; ++i) replica.Step();
  EXPECT_EQ(stepped->state_hash(), replica.StateHash());
}

// ---- Worlds ---------------------------------------------------------------------------

TEST_F(ServiceTest, CreateWorld_ListDescribeDelete) {
  World replica = CreateSmallWorld("b-world");
  CreateSmallWorld("a-world");

  absl::StatusOr<v1::ListWorldsResponse> list = client().ListWorlds();
  ASSERT_THAT(list, IsOk());
  ASSERT_EQ(list->worlds_size(), 2);
  EXPECT_EQ(list->worlds(0).world_id(), "a-world");  // by id, not by creation
  EXPECT_EQ(list->worlds(1).world_id(), "b-world");
  EXPECT_EQ(list->worlds(1).tick_hz(), 60);
  EXPECT_FALSE(list->worlds(1).has_state_hash());

  v1::DescribeWorldRequest describe;
  describe.set_world_id("b-world");
  describe.set_include_bodies(true);
  absl::StatusOr<v1::DescribeWorldResponse> info = client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->world().state_hash(), replica.StateHash());
  EXPECT_EQ(info->world().gravity().y(), Fd(-10).raw());
  EXPECT_EQ(info->world().max_bodies(), 20000u);
  ASSERT_EQ(info->bodies_size(), 8);
  for (const v1::BodyState& b : info->bodies()) {
    const std::optional<BodyView> view = replica.FindBody(b.id());
    ASSERT_TRUE(view.has_value());
    EXPECT_EQ(b.transform().position().x(), view->transform.p.x.raw());
    EXPECT_EQ(b.transform().position().y(), view->transform.p.y.raw());
    EXPECT_EQ(b.shape_count(), view->shape_count);
    EXPECT_EQ(wire::FromProto(b.type()), view->type);
  }

  v1::DeleteWorldRequest del;
  del.set_world_id("b-world");
  EXPECT_THAT(client().DeleteWorld(del), IsOk());
  EXPECT_THAT(client().DescribeWorld(describe), StatusIs(absl::StatusCode::kNotFound, "no world 'b-world'"));
  EXPECT_THAT(client().DeleteWorld(del), StatusIs(absl::StatusCode::kNotFound, "world_id"));
}

TEST_F(ServiceTest, CreateWorld_FromSceneDirectory_MatchesInProcessLoad) {
  v1::CreateWorldRequest request;
  request.set_world_id("demo");
  request.set_scene("demo.scene.json");
  absl::StatusOr<v1::CreateWorldResponse> reply = client().CreateWorld(request);
  ASSERT_THAT(reply, IsOk());

  scene::Scene loaded;
  ASSERT_TRUE(scene::LoadSceneFile(std::string(ARBITER_SCENES_DIR) + "/demo.scene.json", &loaded).ok());
  loaded.world.max_bodies = 20000;
  World replica(loaded.world);
  ASSERT_TRUE(replica.AddBodies(loaded.bodies).ok());
  EXPECT_EQ(reply->world().state_hash(), replica.StateHash());
  EXPECT_EQ(reply->world().body_count(), loaded.bodies.size());
  EXPECT_EQ(reply->world().gravity().y(), Fd(-10).raw());
}

// ---- Validation: every rule, and nothing changes ---------------------------------------------

struct BadRequest {
  std::string name;
  std::function<absl::Status()> call;
  absl::StatusCode code;
  std::string message;  // a substring naming the field and reason
};

TEST_F(ServiceTest, Validation_EveryRuleRejects_AndNothingChanges) {
  CreateSmallWorld(kWorld);
  const auto [tick0, hash0] = TickAndHash(kWorld);
  client::ArbiterClient& c = client();
  using absl::StatusCode;

  auto create = [&](std::function<void(v1::CreateWorldRequest&)> edit) {
    return [&c, edit] {
      v1::CreateWorldRequest r;
      r.set_world_id("fresh");
      edit(r);
      return StatusOf(c.CreateWorld(r));
    };
  };
  auto add = [&](std::function<void(v1::BodyDef&)> edit) {
    return [&c, edit] {
      v1::AddBodiesRequest r;
      r.set_world_id(kWorld);
      v1::BodyDef* b = r.add_bodies();
      *b = client::MakeBody(100, v1::BODY_TYPE_DYNAMIC, 0, 20, client::MakeCircle(1));
      edit(*b);
      return StatusOf(c.AddBodies(r));
    };
  };
  auto rays = [&](std::function<void(v1::CastRaysRequest&)> edit) {
    return [&c, edit] {
      v1::CastRaysRequest r;
      r.set_world_id(kWorld);
      r.set_mode(v1::CAST_MODE_CLOSEST);
      *r.add_rays() = client::MakeRay(0, 10, 0, -20);
      edit(r);
      return StatusOf(c.CastRays(r));
    };
  };
  auto overlap = [&](v1::OverlapQuery q) {
    return [&c, q] {
      v1::OverlapRequest r;
      r.set_world_id(kWorld);
      *r.add_queries() = q;
      return StatusOf(c.Overlap(r));
    };
  };
  auto cast = [&](std::function<void(v1::CastShapesRequest&)> edit) {
    return [&c, edit] {
      v1::CastShapesRequest r;
      r.set_world_id(kWorld);
      r.set_mode(v1::CAST_MODE_CLOSEST);
      *r.add_casts() = client::MakeShapeCast(client::MakeCircle(0.5), client::MakeTransform(0, 10), 0, -20);
      edit(r);
      return StatusOf(c.CastShapes(r));
    };
  };
  auto update = [&](std::vector<v1::BodyUpdate> updates) {
    return [&c, updates] {
      v1::UpdateBodiesRequest r;
      r.set_world_id(kWorld);
      for (const v1::BodyUpdate& u : updates) *r.add_updates() = u;
      return StatusOf(c.UpdateBodies(r));
    };
  };
  auto step = [&](std::function<void(v1::StepRequest&)> edit) {
    return [&c, edit] {
      v1::StepRequest r;
      r.set_world_id(kWorld);
      r.set_ticks(10);
      edit(r);
      return StatusOf(c.Step(r));
    };
  };
  auto velocity_update = [](uint64_t id, double vx) {
    v1::BodyUpdate u;
    u.set_body_id(id);
    *u.mutable_velocity()->mutable_linear() = client::MakeVec2(vx, 0);
    return u;
  };
  auto move_update = [](uint64_t id, double x) {
    v1::BodyUpdate u;
    u.set_body_id(id);
    *u.mutable_transform() = client::MakeTransform(x, 5);
    return u;
  };
  const v1::Rot not_unit = [] {
    v1::Rot r;
    r.set_c(Fixed::FromInt(2).raw());
    return r;
  }();
  const int64_t beyond_world = (int64_t{1} << 29) * Fixed::kOneRaw + 1;  // 2^29 + 2^-32

  const std::vector<BadRequest> cases = {
      // Worlds
      {"world id empty", create([](auto& r) { r.set_world_id(""); }), StatusCode::kInvalidArgument, "world_id: must not be empty"},
      {"world id bad characters", create([](auto& r) { r.set_world_id("a/b"); }), StatusCode::kInvalidArgument, "world_id: only"},
      {"world id taken", create([](auto& r) { r.set_world_id(kWorld); }), StatusCode::kAlreadyExists, "already exists"},
      {"tick rate", create([](auto& r) { r.set_tick_hz(20000); }), StatusCode::kOutOfRange, "tick_hz"},
      {"gravity", create([](auto& r) { r.mutable_gravity()->set_y(int64_t{1} << 60); }), StatusCode::kOutOfRange, "gravity"},
      {"max bodies", create([](auto& r) { r.set_max_bodies(20001); }), StatusCode::kResourceExhausted, "max_bodies"},
      {"sub steps zero", create([](auto& r) { r.set_sub_steps(0); }), StatusCode::kInvalidArgument, "sub_steps: must be in 1..32"},
      {"sub steps", create([](auto& r) { r.set_sub_steps(33); }), StatusCode::kInvalidArgument, "sub_steps: must be in 1..32"},
      {"contact hertz", create([](auto& r) { r.set_contact_hertz(10001); }), StatusCode::kInvalidArgument,
       "contact_hertz: must be in 1..10000"},
      {"contact hertz with a scene", create([](auto& r) { r.set_scene("demo.scene.json"); r.set_contact_hertz(-1); }),
       StatusCode::kInvalidArgument, "contact_hertz: must be in 1..10000"},
      {"scene escapes", create([](auto& r) { r.set_scene("../scenes/demo.scene.json"); }), StatusCode::kInvalidArgument, "scene: must be a relative path"},
      {"scene absolute", create([](auto& r) { r.set_scene("/etc/passwd"); }), StatusCode::kInvalidArgument, "scene"},
      {"scene missing", create([](auto& r) { r.set_scene("nope.scene.json"); }), StatusCode::kNotFound, "scene: no scene file"},
      {"inline body bad", create([](auto& r) { r.add_bodies()->set_id(1); }), StatusCode::kInvalidArgument, "bodies[0].type: BODY_TYPE_UNSPECIFIED"},
      {"describe unknown", [&c] { v1::DescribeWorldRequest r; r.set_world_id("nope"); return StatusOf(c.DescribeWorld(r)); },
       StatusCode::kNotFound, "world_id: no world 'nope'"},
      // Bodies
      {"add empty", [&c] { v1::AddBodiesRequest r; r.set_world_id(kWorld); return StatusOf(c.AddBodies(r)); },
       StatusCode::kInvalidArgument, "bodies: empty batch"},
      {"add unknown world", [&c] { v1::AddBodiesRequest r; r.set_world_id("nope"); *r.add_bodies() = client::MakeBody(100, v1::BODY_TYPE_STATIC, 0, 0, client::MakeCircle(1)); return StatusOf(c.AddBodies(r)); },
       StatusCode::kNotFound, "no world 'nope'"},
      {"body type unspecified", add([](auto& b) { b.set_type(v1::BODY_TYPE_UNSPECIFIED); }), StatusCode::kInvalidArgument, "bodies[0].type"},
      {"body id zero", add([](auto& b) { b.set_id(0); }), StatusCode::kInvalidArgument, "bodies[0].id: must be non-zero"},
      {"body id taken", add([](auto& b) { b.set_id(3); }), StatusCode::kAlreadyExists, "body 3 already exists"},
      {"body without shapes", add([](auto& b) { b.clear_shapes(); }), StatusCode::kInvalidArgument, "bodies[0].shapes: a body needs"},
      {"shape missing", add([](auto& b) { b.mutable_shapes(0)->clear_shape(); }), StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape: required"},
      {"shape kind unset", add([](auto& b) { b.mutable_shapes(0)->mutable_shape()->Clear(); }), StatusCode::kInvalidArgument, "no shape kind set"},
      {"circle radius zero", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeCircle(0); }), StatusCode::kInvalidArgument, "shape.circle: radius must be positive"},
      {"circle too big", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeCircle(1e8); }), StatusCode::kOutOfRange, "shape.circle: coordinate or radius beyond"},
      {"polygon not convex", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakePolygon({{0, 0}, {2, 0}, {1, 0.5}, {2, 2}, {0, 2}}); }),
       StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape.polygon: not convex"},
      {"polygon clockwise", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakePolygon({{0, 0}, {0, 1}, {1, 0}}); }),
       StatusCode::kInvalidArgument, "polygon: vertices are not counter-clockwise"},
      {"polygon too many", add([](auto& b) { std::vector<std::pair<double, double>> p; for (int i = 0; i < 9; ++i) p.emplace_back(i, i * i); *b.mutable_shapes(0)->mutable_shape() = client::MakePolygon(p); }),
       StatusCode::kInvalidArgument, "polygon: more than 8 vertices"},
      {"box extent", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeBox(0, 1); }), StatusCode::kInvalidArgument, "shape.box: half extent must be positive"},
      {"box rotation", add([&](auto& b) { v1::Shape s = client::MakeBox(1, 1); *s.mutable_box()->mutable_rotation() = not_unit; *b.mutable_shapes(0)->mutable_shape() = s; }),
       StatusCode::kInvalidArgument, "shape.box.rotation: not a unit rotation"},
      {"capsule degenerate", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeCapsule(1, 1, 1, 1, 0.5); }), StatusCode::kInvalidArgument, "capsule: the two points coincide"},
      {"segment degenerate", add([](auto& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeSegment(1, 1, 1, 1); }), StatusCode::kInvalidArgument, "segment: the two points coincide"},
      {"body rotation", add([&](auto& b) { *b.mutable_transform()->mutable_rotation() = not_unit; }), StatusCode::kInvalidArgument, "bodies[0].transform.rotation: not a unit rotation"},
      {"body position", add([&](auto& b) { b.mutable_transform()->mutable_position()->set_x(beyond_world); }), StatusCode::kOutOfRange, "bodies[0].transform.position: beyond +-2^29"},
      {"body speed", add([](auto& b) { *b.mutable_linear_velocity() = client::MakeVec2(1e9, 0); }), StatusCode::kOutOfRange, "bodies[0].linear_velocity"},
      {"friction", add([](auto& b) { b.mutable_shapes(0)->set_friction(-1); }), StatusCode::kOutOfRange, "friction"},
      {"duplicate in batch", [&c] { v1::AddBodiesRequest r; r.set_world_id(kWorld);
         *r.add_bodies() = client::MakeBody(100, v1::BODY_TYPE_STATIC, 0, 0, client::MakeCircle(1));
         *r.add_bodies() = client::MakeBody(100, v1::BODY_TYPE_STATIC, 5, 0, client::MakeCircle(1));
         return StatusOf(c.AddBodies(r)); }, StatusCode::kAlreadyExists, "body 100"},
      {"remove unknown", [&c] { v1::RemoveBodiesRequest r; r.set_world_id(kWorld); r.add_body_ids(3); r.add_body_ids(77); return StatusOf(c.RemoveBodies(r)); },
       StatusCode::kNotFound, "body_ids[1]: no body 77"},
      {"remove empty", [&c] { v1::RemoveBodiesRequest r; r.set_world_id(kWorld); return StatusOf(c.RemoveBodies(r)); },
       StatusCode::kInvalidArgument, "body_ids: empty batch"},
      {"remove repeated", [&c] { v1::RemoveBodiesRequest r; r.set_world_id(kWorld); r.add_body_ids(3); r.add_body_ids(3); return StatusOf(c.RemoveBodies(r)); },
       StatusCode::kInvalidArgument, "body_ids"},
      // Updates: the valid first update must be rolled back too
      {"update unknown body", update({move_update(3, 1), move_update(77, 1)}), StatusCode::kNotFound, "updates[1].body_id: no body 77"},
      {"update static velocity", update({move_update(3, 1), velocity_update(1, 1)}), StatusCode::kFailedPrecondition, "updates[1].velocity: body 1 is static"},
      {"update speed (core check)", update({move_update(3, 1), velocity_update(3, 1), velocity_update(6, 1e9)}), StatusCode::kOutOfRange, "updates[2].velocity.linear_velocity"},
      {"update shape index", update({[] { v1::BodyUpdate u; u.set_body_id(8); u.add_filters()->set_shape_index(2); return u; }()}),
       StatusCode::kNotFound, "updates[0].filters[0].shape_index: body 8 has 2 shape(s)"},
      {"update nothing", update({[] { v1::BodyUpdate u; u.set_body_id(3); return u; }()}), StatusCode::kInvalidArgument, "updates[0]: nothing to update"},
      {"update rotation", update({[&] { v1::BodyUpdate u = move_update(3, 1); *u.mutable_transform()->mutable_rotation() = not_unit; return u; }()}),
       StatusCode::kInvalidArgument, "updates[0].transform.rotation"},
      {"update empty", update({}), StatusCode::kInvalidArgument, "updates: empty batch"},
      // Ray casts
      {"ray mode unspecified", rays([](auto& r) { r.set_mode(v1::CAST_MODE_UNSPECIFIED); }), StatusCode::kInvalidArgument, "mode: CAST_MODE_UNSPECIFIED"},
      {"ray batch empty", rays([](auto& r) { r.clear_rays(); }), StatusCode::kInvalidArgument, "rays: empty batch"},
      {"ray batch too big", rays([](auto& r) { for (int i = 0; i < 20000; ++i) r.add_rays(); }), StatusCode::kResourceExhausted, "--max_batch"},
      {"rays and columns", rays([](auto& r) { r.mutable_columns()->add_origin_x(0); }), StatusCode::kInvalidArgument, "either rays or columns"},
      {"columns ragged", rays([](auto& r) { r.clear_rays(); auto* k = r.mutable_columns(); k->add_origin_x(0); k->add_origin_y(0); k->add_translation_x(1); }),
       StatusCode::kInvalidArgument, "columns: origin_x, origin_y, translation_x and translation_y differ in length"},
      {"columns out of range", rays([&](auto& r) { r.clear_rays(); auto* k = r.mutable_columns(); for (int i = 0; i < 3; ++i) { k->add_origin_x(i == 2 ? beyond_world : 0); k->add_origin_y(0); k->add_translation_x(1); k->add_translation_y(0); } }),
       StatusCode::kOutOfRange, "columns[2].origin: beyond +-2^29"},
      {"ray origin", rays([&](auto& r) { r.add_rays()->mutable_origin()->set_y(-beyond_world); }), StatusCode::kOutOfRange, "rays[1].origin: beyond +-2^29"},
      {"ray translation", rays([](auto& r) { *r.mutable_rays(0)->mutable_translation() = client::MakeVec2(0, -2e9); }), StatusCode::kOutOfRange, "rays[0].translation: beyond +-2^30"},
      {"ray max fraction", rays([](auto& r) { r.mutable_rays(0)->set_max_fraction(Fixed::kOneRaw + 1); }), StatusCode::kOutOfRange, "rays[0].max_fraction"},
      {"filter body type", rays([](auto& r) { r.mutable_filter()->add_body_types(v1::BODY_TYPE_UNSPECIFIED); }), StatusCode::kInvalidArgument, "filter.body_types[0]"},
      {"ray unknown world", rays([](auto& r) { r.set_world_id("nope"); }), StatusCode::kNotFound, "no world 'nope'"},
      // -2^63 has no negation: the core's |v| <= limit checks cannot see it.
      {"ray origin -2^63", rays([](auto& r) { r.mutable_rays(0)->mutable_origin()->set_x(INT64_MIN); }), StatusCode::kOutOfRange, "rays[0].origin: raw value -2^63"},
      {"column -2^63", rays([](auto& r) { r.clear_rays(); auto* k = r.mutable_columns(); k->add_origin_x(0); k->add_origin_y(0); k->add_translation_x(INT64_MIN); k->add_translation_y(0); }),
       StatusCode::kOutOfRange, "columns[0]: raw value -2^63"},
      {"body speed -2^63", add([](auto& b) { b.mutable_linear_velocity()->set_y(INT64_MIN); }), StatusCode::kOutOfRange, "bodies[0].linear_velocity: raw value -2^63"},
      {"body spin -2^63", add([](auto& b) { b.set_angular_velocity(INT64_MIN); }), StatusCode::kOutOfRange, "bodies[0].angular_velocity: raw value -2^63"},
      {"circle center -2^63", add([](auto& b) { b.mutable_shapes(0)->mutable_shape()->mutable_circle()->mutable_center()->set_x(INT64_MIN); }),
       StatusCode::kOutOfRange, "shapes[0].shape.circle.center: raw value -2^63"},
      {"gravity -2^63", create([](auto& r) { r.mutable_gravity()->set_x(INT64_MIN); }), StatusCode::kOutOfRange, "gravity: raw value -2^63"},
      {"update spin -2^63", update({[] { v1::BodyUpdate u; u.set_body_id(3); u.mutable_velocity()->set_angular(INT64_MIN); return u; }()}),
       StatusCode::kOutOfRange, "updates[0].velocity.angular: raw value -2^63"},
      // Overlaps
      {"overlap kind unset", overlap(v1::OverlapQuery()), StatusCode::kInvalidArgument, "queries[0]: no query kind set"},
      {"overlap aabb inverted", overlap(client::MakeAabbQuery(1, 1, 0, 2)), StatusCode::kInvalidArgument, "queries[0].aabb: lower must not exceed upper"},
      {"overlap point", overlap([&] { v1::OverlapQuery q; q.mutable_point()->set_x(beyond_world); return q; }()), StatusCode::kOutOfRange, "queries[0].point: beyond +-2^29"},
      {"overlap shape", overlap(client::MakeShapeQuery(client::MakeCircle(-1), client::MakeTransform(0, 0))), StatusCode::kInvalidArgument, "queries[0].shape.shape.circle: negative radius"},
      {"overlap shape rotation", overlap([&] { v1::OverlapQuery q = client::MakeShapeQuery(client::MakeBox(1, 1), client::MakeTransform(0, 0)); *q.mutable_shape()->mutable_transform()->mutable_rotation() = not_unit; return q; }()),
       StatusCode::kInvalidArgument, "queries[0].shape.transform.rotation"},
      {"overlap empty", [&c] { v1::OverlapRequest r; r.set_world_id(kWorld); return StatusOf(c.Overlap(r)); }, StatusCode::kInvalidArgument, "queries: empty batch"},
      // Shape casts
      {"cast mode", cast([](auto& r) { r.set_mode(v1::CAST_MODE_UNSPECIFIED); }), StatusCode::kInvalidArgument, "mode"},
      {"cast translation", cast([](auto& r) { *r.mutable_casts(0)->mutable_translation() = client::MakeVec2(2e9, 0); }), StatusCode::kOutOfRange, "casts[0].translation: beyond +-2^30"},
      {"cast shape", cast([](auto& r) { *r.mutable_casts(0)->mutable_shape() = client::MakeCapsule(0, 0, 0, 0, 1); }), StatusCode::kInvalidArgument, "casts[0].shape.capsule"},
      {"cast position", cast([&](auto& r) { r.mutable_casts(0)->mutable_transform()->mutable_position()->set_x(beyond_world); }), StatusCode::kOutOfRange, "casts[0].transform.position"},
      {"cast empty", cast([](auto& r) { r.clear_casts(); }), StatusCode::kInvalidArgument, "casts: empty batch"},
      // Steps (a late command failure must roll the earlier ticks back)
      {"step zero ticks", step([](auto& r) { r.set_ticks(0); }), StatusCode::kInvalidArgument, "ticks: must be at least 1"},
      {"step too many ticks", step([](auto& r) { r.set_ticks(2000000); }), StatusCode::kResourceExhausted, "--max_step_ticks"},
      {"step offset", step([&](auto& r) { auto* k = r.add_commands(); k->set_tick_offset(10); *k->mutable_update() = move_update(3, 1); }),
       StatusCode::kOutOfRange, "commands[0].tick_offset: 10 is not below ticks (10)"},
      {"step command without update", step([](auto& r) { r.add_commands()->set_tick_offset(1); }), StatusCode::kInvalidArgument, "commands[0].update: required"},
      {"step unknown body", step([&](auto& r) { auto* k = r.add_commands(); k->set_tick_offset(4); *k->mutable_update() = move_update(77, 1); }),
       StatusCode::kNotFound, "commands[0].update.body_id: no body 77"},
      {"step late core failure", step([&](auto& r) {
         auto* a = r.add_commands(); a->set_tick_offset(0); *a->mutable_update() = velocity_update(3, 2);
         auto* b = r.add_commands(); b->set_tick_offset(6); *b->mutable_update() = velocity_update(6, 1e9); }),
       StatusCode::kOutOfRange, "commands[1].update.velocity.linear_velocity"},
      // State
      {"restore garbage", [&c] { v1::RestoreRequest r; r.set_world_id(kWorld); r.set_snapshot("not a snapshot at all"); return StatusOf(c.Restore(r)); },
       StatusCode::kInvalidArgument, "snapshot: "},
      {"restore empty", [&c] { v1::RestoreRequest r; r.set_world_id(kWorld); return StatusOf(c.Restore(r)); }, StatusCode::kInvalidArgument, "snapshot: empty"},
      {"hash unknown world", [&c] { v1::GetStateHashRequest r; r.set_world_id("nope"); return StatusOf(c.GetStateHash(r)); }, StatusCode::kNotFound, "nope"},
      {"snapshot unknown world", [&c] { v1::GetSnapshotRequest r; r.set_world_id("nope"); return StatusOf(c.GetSnapshot(r)); }, StatusCode::kNotFound, "nope"},
  };

  for (const BadRequest& bad : cases) {
    SCOPED_TRACE(bad.name);
    EXPECT_THAT(bad.call(), StatusIs(bad.code, bad.message));
    const auto [tick, hash] = TickAndHash(kWorld);
    EXPECT_EQ(tick, tick0);
    EXPECT_EQ(hash, hash0);
  }
  // No stray world either.
  absl::StatusOr<v1::ListWorldsResponse> list = client().ListWorlds();
  ASSERT_THAT(list, IsOk());
  EXPECT_EQ(list->worlds_size(), 1);
}

// ---- Bodies ----------------------------------------------------------------------------

TEST_F(ServiceTest, AddRemoveUpdateBodies_MatchInProcess) {
  World replica = CreateSmallWorld(kWorld);

  v1::AddBodiesRequest add;
  add.set_world_id(kWorld);
  const BodyDef extra = Body(50, BodyType::kDynamic, Vd(-5, 12), {Shape::FromCircle({Vd(0, 0), Fd(0.25)})});
  wire::ToProto(extra, add.add_bodies());
  absl::StatusOr<v1::AddBodiesResponse> added = client().AddBodies(add);
  ASSERT_THAT(added, IsOk());
  ASSERT_TRUE(replica.AddBody(extra).ok());
  EXPECT_EQ(added->body_count(), 9u);
  EXPECT_EQ(TickAndHash(kWorld).second, replica.StateHash());

  v1::UpdateBodiesRequest update;
  update.set_world_id(kWorld);
  v1::BodyUpdate* u = update.add_updates();
  u->set_body_id(3);
  *u->mutable_transform() = client::MakeTransform(1.5, 6, 0.25);
  *u->mutable_velocity()->mutable_linear() = client::MakeVec2(3, -1);
  u->mutable_velocity()->set_angular(Fd(0.5).raw());
  v1::BodyUpdate* f = update.add_updates();
  f->set_body_id(8);
  v1::ShapeFilterUpdate* filter = f->add_filters();
  filter->set_shape_index(1);
  filter->mutable_filter()->set_category_bits(4);
  filter->mutable_filter()->set_mask_bits(5);
  filter->mutable_filter()->set_group_index(-2);
  ASSERT_THAT(client().UpdateBodies(update), IsOk());
  ASSERT_TRUE(replica.SetBodyTransform(3, {Vd(1.5, 6), MakeRot(Fd(0.25))}).ok());
  ASSERT_TRUE(replica.SetBodyVelocity(3, Vd(3, -1), Fd(0.5)).ok());
  ASSERT_TRUE(replica.SetShapeFilter(8, 1, Filter{4, 5, -2}).ok());
  EXPECT_EQ(TickAndHash(kWorld).second, replica.StateHash());

  v1::RemoveBodiesRequest remove;
  remove.set_world_id(kWorld);
  remove.add_body_ids(50);
  remove.add_body_ids(2);
  absl::StatusOr<v1::RemoveBodiesResponse> removed = client().RemoveBodies(remove);
  ASSERT_THAT(removed, IsOk());
  const uint64_t ids[] = {50, 2};
  ASSERT_TRUE(replica.RemoveBodies(ids).ok());
  EXPECT_EQ(removed->body_count(), 7u);
  EXPECT_EQ(TickAndHash(kWorld).second, replica.StateHash());
}

// ---- Queries ---------------------------------------------------------------------------

std::vector<RayCastInput> SmallWorldRays() {
  std::vector<RayCastInput> rays;
  for (int i = 0; i <= 60; ++i) {
    const double x = -30 + i;
    rays.push_back({Vd(x, 12), Vd(0.5, -20), kFixedOne});    // downward fan
    rays.push_back({Vd(-40, 0.25 * i - 2), Vd(80, 0.5), kFixedOne});  // sideways through everything
  }
  rays.push_back({Vd(0, 5), Vd(1, 0), kFixedOne});  // starts inside body 3
  rays.push_back({Vd(0, 30), Vd(0, -40), Fd(0.25)}); // stops short
  return rays;
}

TEST_F(ServiceTest, CastRays_EveryModeBothForms_MatchCoreBitForBit) {
  World replica = CreateSmallWorld(kWorld);
  const std::vector<RayCastInput> rays = SmallWorldRays();
  for (v1::CastMode mode : {v1::CAST_MODE_CLOSEST, v1::CAST_MODE_ALL, v1::CAST_MODE_ANY}) {
    SCOPED_TRACE(v1::CastMode_Name(mode));
    v1::CastRaysRequest request;
    request.set_world_id(kWorld);
    request.set_mode(mode);
    request.set_request_tag(42);
    for (const RayCastInput& r : rays) *request.add_rays() = WireRay(r);
    absl::StatusOr<v1::CastRaysResponse> reply = client().CastRays(request);
    ASSERT_THAT(reply, IsOk());
    EXPECT_EQ(reply->tick(), 0);
    EXPECT_EQ(reply->request_tag(), 42u);
    ASSERT_EQ(reply->results_size(), static_cast<int>(rays.size()));
    size_t hits = 0;
    for (size_t i = 0; i < rays.size(); ++i) {
      const v1::CastResult& r = reply->results(static_cast<int>(i));
      if (mode == v1::CAST_MODE_CLOSEST) {
        EXPECT_TRUE(SameResult(r, replica.CastRayClosest(rays[i]))) << "ray " << i;
      } else if (mode == v1::CAST_MODE_ALL) {
        EXPECT_TRUE(SameResult(r, replica.CastRayAll(rays[i]))) << "ray " << i;
      } else {
        EXPECT_EQ(r.hit(), replica.CastRayAny(rays[i])) << "ray " << i;
        EXPECT_EQ(r.hits_size(), 0);
      }
      hits += r.hit() ? 1 : 0;
    }
    EXPECT_GT(hits, rays.size() / 4);  // the set actually hits things

    // The same rays as columns (max_fraction 1 only): the same hits, as rows.
    v1::CastRaysRequest columns;
    columns.set_world_id(kWorld);
    columns.set_mode(mode);
    std::vector<size_t> kept;
    for (size_t i = 0; i < rays.size(); ++i) {
      if (rays[i].max_fraction != kFixedOne) continue;
      kept.push_back(i);
      columns.mutable_columns()->add_origin_x(rays[i].origin.x.raw());
      columns.mutable_columns()->add_origin_y(rays[i].origin.y.raw());
      columns.mutable_columns()->add_translation_x(rays[i].translation.x.raw());
      columns.mutable_columns()->add_translation_y(rays[i].translation.y.raw());
    }
    absl::StatusOr<v1::CastRaysResponse> by_columns = client().CastRays(columns);
    ASSERT_THAT(by_columns, IsOk());
    EXPECT_EQ(by_columns->results_size(), 0);
    const v1::HitColumns& k = by_columns->columns();
    int row = 0;
    for (size_t q = 0; q < kept.size(); ++q) {
      const v1::CastResult& expected = reply->results(static_cast<int>(kept[q]));
      if (mode == v1::CAST_MODE_ANY) {
        if (expected.hit()) {
          ASSERT_LT(row, k.query_index_size());
          EXPECT_EQ(k.query_index(row++), q);
        }
        continue;
      }
      for (const v1::Hit& h : expected.hits()) {
        ASSERT_LT(row, k.query_index_size());
        EXPECT_EQ(k.query_index(row), q);
        EXPECT_EQ(k.body_id(row), h.body_id());
        EXPECT_EQ(k.shape_index(row), h.shape_index());
        EXPECT_EQ(k.user_tag(row), h.user_tag());
        EXPECT_EQ(k.fraction(row), h.fraction());
        EXPECT_EQ(k.point_x(row), h.point().x());
        EXPECT_EQ(k.point_y(row), h.point().y());
        EXPECT_EQ(k.normal_x(row), h.normal().x());
        EXPECT_EQ(k.normal_y(row), h.normal().y());
        ++row;
      }
    }
    EXPECT_EQ(row, k.query_index_size());
  }
}

TEST_F(ServiceTest, CastRays_SameRequestSameTick_ByteIdenticalReply) {
  CreateSmallWorld(kWorld);
  v1::CastRaysRequest request;
  request.set_world_id(kWorld);
  request.set_mode(v1::CAST_MODE_ALL);
  for (const RayCastInput& r : SmallWorldRays()) *request.add_rays() = WireRay(r);
  absl::StatusOr<v1::CastRaysResponse> a = client().CastRays(request);
  absl::StatusOr<v1::CastRaysResponse> b = client().CastRays(request);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(a->SerializeAsString(), b->SerializeAsString());
}

TEST_F(ServiceTest, QueryFilter_ExcludesTypesCategoriesAndBodies_AsCoreDoes) {
  World replica = CreateSmallWorld(kWorld);
  const std::vector<RayCastInput> rays = SmallWorldRays();
  struct Case {
    std::string name;
    std::function<void(v1::QueryFilter&)> wire;
    std::function<void(QueryFilter&)> core;
  };
  const uint64_t excluded[] = {1, 3};
  const std::vector<Case> cases = {
      {"static only", [](auto& f) { f.add_body_types(v1::BODY_TYPE_STATIC); }, [](auto& f) { f.body_types = 1; }},
      {"movable only", [](auto& f) { f.add_body_types(v1::BODY_TYPE_DYNAMIC); f.add_body_types(v1::BODY_TYPE_KINEMATIC); },
       [](auto& f) { f.body_types = 0b110; }},
      {"mask 2", [](auto& f) { f.set_mask_bits(2); }, [](auto& f) { f.mask_bits = 2; }},
      {"sensors", [](auto& f) { f.set_include_sensors(true); }, [](auto& f) { f.include_sensors = true; }},
      {"exclude", [](auto& f) { f.add_exclude_bodies(3); f.add_exclude_bodies(1); f.add_exclude_bodies(999); },
       [&](auto& f) { f.exclude_bodies = excluded; }},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    v1::CastRaysRequest request;
    request.set_world_id(kWorld);
    request.set_mode(v1::CAST_MODE_ALL);
    c.wire(*request.mutable_filter());
    QueryFilter filter;
    c.core(filter);
    for (const RayCastInput& r : rays) *request.add_rays() = WireRay(r);
    absl::StatusOr<v1::CastRaysResponse> reply = client().CastRays(request);
    ASSERT_THAT(reply, IsOk());
    for (size_t i = 0; i < rays.size(); ++i) {
      EXPECT_TRUE(SameResult(reply->results(static_cast<int>(i)), replica.CastRayAll(rays[i], filter))) << "ray " << i;
    }
  }
}

TEST_F(ServiceTest, Overlap_PointsBoxesShapes_MatchCore) {
  World replica = CreateSmallWorld(kWorld);
  v1::OverlapRequest request;
  request.set_world_id(kWorld);
  request.mutable_filter()->set_include_sensors(true);
  QueryFilter filter;
  filter.include_sensors = true;
  std::vector<std::function<std::vector<ShapeRef>()>> expected;
  for (int i = 0; i < 30; ++i) {
    const double x = -32 + 2.2 * i, y = (i % 5) - 0.5;
    *request.add_queries() = client::MakePointQuery(x, y);
    expected.push_back([&replica, &filter, x, y] { return replica.OverlapPoint(Vd(x, y), filter); });
    *request.add_queries() = client::MakeAabbQuery(x - 1, y - 1, x + 1.5, y + 6);
    expected.push_back([&replica, &filter, x, y] { return replica.OverlapAabb({Vd(x - 1, y - 1), Vd(x + 1.5, y + 6)}, filter); });
    *request.add_queries() = client::MakeShapeQuery(client::MakeBox(1.5, 0.5), client::MakeTransform(x, y + 2, 0.3));
    expected.push_back([&replica, &filter, x, y] {
      return replica.OverlapShape(BoxShape(1.5, 0.5), {Vd(x, y + 2), MakeRot(Fd(0.3))}, filter);
    });
  }
  absl::StatusOr<v1::OverlapResponse> reply = client().Overlap(request);
  ASSERT_THAT(reply, IsOk());
  ASSERT_EQ(reply->results_size(), static_cast<int>(expected.size()));
  size_t found = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    const std::vector<ShapeRef> core = expected[i]();
    EXPECT_TRUE(SameShapes(reply->results(static_cast<int>(i)), core)) << "query " << i;
    found += core.size();
  }
  EXPECT_GT(found, 10u);
}

TEST_F(ServiceTest, CastShapes_ClosestAllAny_MatchCore) {
  World replica = CreateSmallWorld(kWorld);
  const Shape disk = Shape::FromCircle({Vd(0, 0), Fd(0.5)});
  for (v1::CastMode mode : {v1::CAST_MODE_CLOSEST, v1::CAST_MODE_ALL, v1::CAST_MODE_ANY}) {
    SCOPED_TRACE(v1::CastMode_Name(mode));
    v1::CastShapesRequest request;
    request.set_world_id(kWorld);
    request.set_mode(mode);
    std::vector<std::pair<Vec2, Vec2>> casts;
    for (int i = 0; i < 30; ++i) {
      casts.emplace_back(Vd(-31 + 2 * i, 15), Vd(0.25 * i - 3, -25));
      *request.add_casts() = client::MakeShapeCast(client::MakeCircle(0.5), client::MakeTransform(-31 + 2 * i, 15),
                                                   0.25 * i - 3, -25);
    }
    absl::StatusOr<v1::CastShapesResponse> reply = client().CastShapes(request);
    ASSERT_THAT(reply, IsOk());
    for (size_t i = 0; i < casts.size(); ++i) {
      const Transform at{casts[i].first, kRotIdentity};
      const v1::CastResult& r = reply->results(static_cast<int>(i));
      if (mode == v1::CAST_MODE_ALL) {
        EXPECT_TRUE(SameResult(r, replica.CastShapeAll(disk, at, casts[i].second))) << i;
      } else if (mode == v1::CAST_MODE_CLOSEST) {
        EXPECT_TRUE(SameResult(r, replica.CastShapeClosest(disk, at, casts[i].second))) << i;
      } else {
        EXPECT_EQ(r.hit(), replica.CastShapeClosest(disk, at, casts[i].second).has_value()) << i;
      }
    }
  }
}

// ---- Stepping --------------------------------------------------------------------------

// Compares a wire tick with the core's events of that tick.
::testing::AssertionResult SameEvents(const v1::TickEvents& wire, const TickEvents& core) {
  v1::TickEvents expected;
  wire::ToProto(core, wire.tick(), &expected);
  if (wire.has_state_hash()) expected.set_state_hash(wire.state_hash());
  if (wire.SerializeAsString() == expected.SerializeAsString()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "wire {" << wire.ShortDebugString() << "} vs core {"
                                       << expected.ShortDebugString() << "}";
}

TEST_F(ServiceTest, Step_CommandsAtTickBoundaries_MatchInProcessTickByTick) {
  World replica = CreateSmallWorld(kWorld);
  v1::StepRequest request;
  request.set_world_id(kWorld);
  request.set_ticks(90);
  request.set_hash_every_tick(true);
  auto command = [&](uint32_t offset, uint64_t id, std::function<void(v1::BodyUpdate&)> edit) {
    v1::StepCommand* c = request.add_commands();
    c->set_tick_offset(offset);
    c->mutable_update()->set_body_id(id);
    edit(*c->mutable_update());
  };
  // Given out of order on purpose: the server orders by offset, stably.
  command(40, 6, [](auto& u) { *u.mutable_velocity()->mutable_linear() = client::MakeVec2(0, 8); });
  command(0, 3, [](auto& u) { *u.mutable_velocity()->mutable_linear() = client::MakeVec2(2, 0); });
  command(40, 6, [](auto& u) { *u.mutable_velocity()->mutable_linear() = client::MakeVec2(-1, 9); });
  command(25, 4, [](auto& u) { *u.mutable_transform() = client::MakeTransform(12, 3.5); });

  absl::StatusOr<v1::StepResponse> reply = client().Step(request);
  ASSERT_THAT(reply, IsOk());
  ASSERT_EQ(reply->ticks_size(), 90);

  size_t events = 0;
  for (uint32_t t = 0; t < 90; ++t) {
    if (t == 0) {
      ASSERT_TRUE(replica.SetBodyVelocity(3, Vd(2, 0), kFixedZero).ok());
    }
    if (t == 25) {
      ASSERT_TRUE(replica.SetBodyTransform(4, {Vd(12, 3.5), kRotIdentity}).ok());
    }
    if (t == 40) {
      ASSERT_TRUE(replica.SetBodyVelocity(6, Vd(0, 8), kFixedZero).ok());
      ASSERT_TRUE(replica.SetBodyVelocity(6, Vd(-1, 9), kFixedZero).ok());
    }
    TickEvents core;
    replica.Step(&core);
    const v1::TickEvents& wire = reply->ticks(static_cast<int>(t));
    ASSERT_EQ(wire.tick(), replica.tick());
    ASSERT_EQ(wire.state_hash(), replica.StateHash()) << "tick " << replica.tick();
    EXPECT_TRUE(SameEvents(wire, core)) << "tick " << replica.tick();
    events += core.contact_begin.size() + core.contact_end.size() + core.sensor_enter.size() + core.sensor_exit.size();
  }
  EXPECT_GT(events, 0u);  // the scenario produces contacts and sensor traffic
  EXPECT_EQ(reply->tick(), 90);
  EXPECT_EQ(reply->state_hash(), replica.StateHash());
}

TEST_F(ServiceTest, Step_OmitEvents_ReturnsOnlyTickAndHash) {
  World replica = CreateSmallWorld(kWorld);
  v1::StepRequest request;
  request.set_world_id(kWorld);
  request.set_ticks(5);
  request.set_omit_events(true);
  absl::StatusOr<v1::StepResponse> reply = client().Step(request);
  ASSERT_THAT(reply, IsOk());
  for (int i = 0; i < 5; ++i) replica.Step();
  EXPECT_EQ(reply->ticks_size(), 0);
  EXPECT_EQ(reply->tick(), 5);
  EXPECT_EQ(reply->state_hash(), replica.StateHash());
}

TEST_F(ServiceTest, CreateWorld_AllowSleep_BodiesSleepAsTheCoreSays) {
  WorldDef def;
  def.gravity = Vd(0, -10);
  def.tick_hz = 60;
  def.max_bodies = TestServerOptions().registry.max_bodies_per_world;
  def.allow_sleep = true;
  World replica(def);
  const std::vector<BodyDef> bodies = {Body(1, BodyType::kStatic, Vd(0, -1), {BoxShape(40, 1)}),
                                       Body(3, BodyType::kDynamic, Vd(0, 1), {BoxShape(1, 1)})};
  ASSERT_TRUE(replica.AddBodies(bodies).ok());
  v1::CreateWorldRequest create;
  create.set_world_id(kWorld);
  *create.mutable_gravity() = WireVec(def.gravity);
  create.set_tick_hz(60);
  create.set_allow_sleep(true);
  for (const BodyDef& b : bodies) wire::ToProto(b, create.add_bodies());
  absl::StatusOr<v1::CreateWorldResponse> created = client().CreateWorld(create);
  ASSERT_THAT(created, IsOk());
  EXPECT_TRUE(created->world().allow_sleep());
  EXPECT_EQ(created->world().state_hash(), replica.StateHash());
  ASSERT_NO_FATAL_FAILURE(StepLikeReplica(client(), replica, 60));
  ASSERT_FALSE(replica.FindBody(3)->awake);
  v1::DescribeWorldRequest describe;
  describe.set_world_id(kWorld);
  describe.set_include_bodies(true);
  absl::StatusOr<v1::DescribeWorldResponse> info = client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  EXPECT_TRUE(info->world().allow_sleep());
  ASSERT_EQ(info->bodies_size(), 2);
  EXPECT_FALSE(info->bodies(0).asleep());  // static
  EXPECT_TRUE(info->bodies(1).asleep());
}

// Solver settings: kept, described, in the hash as the core has them; a
// world without them describes the defaults.
TEST_F(ServiceTest, CreateWorld_SolverSettings_AsTheCoreSteps_AndDescribed) {
  WorldDef def;
  def.gravity = Vd(0, -10);
  def.tick_hz = 60;
  def.max_bodies = TestServerOptions().registry.max_bodies_per_world;
  def.sub_steps = 8;
  def.contact_hertz = 120;
  World replica(def);
  std::vector<BodyDef> bodies = {Body(1, BodyType::kStatic, Vd(0, -1), {BoxShape(40, 1)})};
  for (uint64_t i = 0; i < 6; ++i) bodies.push_back(Body(2 + i, BodyType::kDynamic, Vd(0, 0.5 + i), {BoxShape(0.5, 0.5)}));
  ASSERT_TRUE(replica.AddBodies(bodies).ok());
  v1::CreateWorldRequest create;
  create.set_world_id(kWorld);
  *create.mutable_gravity() = WireVec(def.gravity);
  create.set_tick_hz(60);
  create.set_sub_steps(8);
  create.set_contact_hertz(120);
  for (const BodyDef& b : bodies) wire::ToProto(b, create.add_bodies());
  absl::StatusOr<v1::CreateWorldResponse> created = client().CreateWorld(create);
  ASSERT_THAT(created, IsOk());
  EXPECT_EQ(created->world().sub_steps(), 8);
  EXPECT_EQ(created->world().contact_hertz(), 120);
  EXPECT_EQ(created->world().state_hash(), replica.StateHash());
  ASSERT_NO_FATAL_FAILURE(StepLikeReplica(client(), replica, 30));
  v1::DescribeWorldRequest describe;
  describe.set_world_id(kWorld);
  absl::StatusOr<v1::DescribeWorldResponse> info = client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->world().sub_steps(), 8);
  EXPECT_EQ(info->world().contact_hertz(), 120);

  v1::CreateWorldRequest plain;
  plain.set_world_id("plain");
  ASSERT_THAT(client().CreateWorld(plain), IsOk());
  describe.set_world_id("plain");
  info = client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->world().sub_steps(), 4);
  EXPECT_EQ(info->world().contact_hertz(), 30);
}

TEST_F(ServiceTest, Step_PastDeadline_LeavesWorldAtItsTick) {
  v1::CreateWorldRequest create;
  create.set_world_id("arena");
  create.set_scene("arena-10k.scene.json");
  ASSERT_THAT(client().CreateWorld(create), IsOk());
  const auto before = TickAndHash("arena");

  // A step far longer than the deadline: the server stops between ticks
  // and returns to the snapshot it took.
  client::ClientOptions hurried;
  hurried.timeout = std::chrono::milliseconds(300);
  std::unique_ptr<client::ArbiterClient> impatient = client::ArbiterClient::Connect(server_.address(), hurried);
  v1::StepRequest request;
  request.set_world_id("arena");
  request.set_ticks(1000000);
  request.set_omit_events(true);
  EXPECT_THAT(impatient->Step(request), StatusIs(absl::StatusCode::kDeadlineExceeded, ""));

  // Waits for the rollback (it holds the world's lock) and sees the old state.
  EXPECT_EQ(TickAndHash("arena"), before);
}

TEST_F(ServiceTest, WatchEvents_StreamsEveryTick_EndsWhenWorldDeleted) {
  CreateSmallWorld(kWorld);
  std::unique_ptr<client::EventWatch> watch = client().WatchEvents(kWorld);
  // Wait until the server has subscribed the stream, so no tick is missed.
  std::shared_ptr<server::WorldEntry> entry = *server_.server().registry().Find(kWorld);
  while (!entry->events().HasSubscribers()) std::this_thread::yield();

  v1::StepRequest request;
  request.set_world_id(kWorld);
  request.set_ticks(30);
  request.set_hash_every_tick(true);
  absl::StatusOr<v1::StepResponse> first = client().Step(request);
  request.set_ticks(5);
  absl::StatusOr<v1::StepResponse> second = client().Step(request);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  for (const absl::StatusOr<v1::StepResponse>* reply : {&first, &second}) {
    for (const v1::TickEvents& expected : (*reply)->ticks()) {
      std::optional<v1::TickEvents> got = watch->Next();
      ASSERT_TRUE(got.has_value());
      EXPECT_EQ(got->SerializeAsString(), expected.SerializeAsString()) << "tick " << expected.tick();
    }
  }

  v1::DeleteWorldRequest del;
  del.set_world_id(kWorld);
  ASSERT_THAT(client().DeleteWorld(del), IsOk());
  EXPECT_FALSE(watch->Next().has_value());
  EXPECT_THAT(watch->Finish(), StatusIs(absl::StatusCode::kAborted, "was deleted"));

  std::unique_ptr<client::EventWatch> unknown = client().WatchEvents("nope");
  EXPECT_FALSE(unknown->Next().has_value());
  EXPECT_THAT(unknown->Finish(), StatusIs(absl::StatusCode::kNotFound, "no world 'nope'"));
}

// ---- State ------------------------------------------------------------------------------

TEST_F(ServiceTest, SnapshotRestore_RoundTripsBitForBit) {
  World replica = CreateSmallWorld(kWorld);
  v1::StepRequest step;
  step.set_world_id(kWorld);
  step.set_ticks(20);
  ASSERT_THAT(client().Step(step), IsOk());
  for (int i = 0; i < 20; ++i) replica.Step();

  v1::GetSnapshotRequest get;
  get.set_world_id(kWorld);
  absl::StatusOr<v1::GetSnapshotResponse> snapshot = client().GetSnapshot(get);
  ASSERT_THAT(snapshot, IsOk());
  const std::vector<uint8_t> expected = replica.Snapshot();
  EXPECT_EQ(snapshot->snapshot(), std::string(expected.begin(), expected.end()));
  EXPECT_EQ(snapshot->tick(), 20);
  EXPECT_EQ(snapshot->state_hash(), replica.StateHash());

  ASSERT_THAT(client().Step(step), IsOk());
  EXPECT_EQ(TickAndHash(kWorld).first, 40);

  v1::RestoreRequest restore;
  restore.set_world_id(kWorld);
  restore.set_snapshot(snapshot->snapshot());
  absl::StatusOr<v1::RestoreResponse> restored = client().Restore(restore);
  ASSERT_THAT(restored, IsOk());
  EXPECT_EQ(restored->world().tick(), 20);
  EXPECT_EQ(TickAndHash(kWorld), std::make_pair(int64_t{20}, replica.StateHash()));

  // Into another world: a copy that then steps in lockstep.
  CreateSmallWorld("copy");
  restore.set_world_id("copy");
  ASSERT_THAT(client().Restore(restore), IsOk());
  step.set_world_id("copy");
  absl::StatusOr<v1::StepResponse> copy = client().Step(step);
  step.set_world_id(kWorld);
  absl::StatusOr<v1::StepResponse> original = client().Step(step);
  ASSERT_THAT(copy, IsOk());
  ASSERT_THAT(original, IsOk());
  EXPECT_EQ(copy->state_hash(), original->state_hash());
}

// ---- Safe retries ---------------------------------------------------------------------

// Every change sent for another tick than the world's is refused, naming
// the world's tick, and changes nothing; sent for the right tick it
// applies, and the same step resent after it applied is refused.
TEST_F(ServiceTest, ExpectedTick_EveryChange_RefusedAtAnotherTick_AndAStepResentCannotApplyTwice) {
  CreateSmallWorld(kWorld);
  v1::StepRequest step;
  step.set_world_id(kWorld);
  step.set_ticks(5);
  ASSERT_THAT(client().Step(step), IsOk());
  v1::GetSnapshotRequest get;
  get.set_world_id(kWorld);
  absl::StatusOr<v1::GetSnapshotResponse> snapshot = client().GetSnapshot(get);
  ASSERT_THAT(snapshot, IsOk());
  const std::pair<int64_t, uint64_t> before = TickAndHash(kWorld);
  ASSERT_EQ(before.first, 5);

  const char* refused = "expected_tick: 4, but world 'small' is at tick 5";
  step.set_ticks(1);
  step.set_expected_tick(4);
  EXPECT_THAT(client().Step(step), StatusIs(absl::StatusCode::kFailedPrecondition, refused));
  v1::AddBodiesRequest add;
  add.set_world_id(kWorld);
  wire::ToProto(Body(50, BodyType::kDynamic, Vd(0, 20), {BoxShape(1, 1)}), add.add_bodies());
  add.set_expected_tick(4);
  EXPECT_THAT(client().AddBodies(add), StatusIs(absl::StatusCode::kFailedPrecondition, refused));
  v1::RemoveBodiesRequest remove;
  remove.set_world_id(kWorld);
  remove.add_body_ids(3);
  remove.set_expected_tick(4);
  EXPECT_THAT(client().RemoveBodies(remove), StatusIs(absl::StatusCode::kFailedPrecondition, refused));
  v1::UpdateBodiesRequest update;
  update.set_world_id(kWorld);
  v1::BodyUpdate* u = update.add_updates();
  u->set_body_id(3);
  *u->mutable_transform()->mutable_position() = WireVec(Vd(1, 7));
  update.set_expected_tick(4);
  EXPECT_THAT(client().UpdateBodies(update), StatusIs(absl::StatusCode::kFailedPrecondition, refused));
  v1::RestoreRequest restore;
  restore.set_world_id(kWorld);
  restore.set_snapshot(snapshot->snapshot());
  restore.set_expected_tick(4);
  EXPECT_THAT(client().Restore(restore), StatusIs(absl::StatusCode::kFailedPrecondition, refused));
  EXPECT_EQ(TickAndHash(kWorld), before);

  // At the right tick each applies.
  add.set_expected_tick(5);
  EXPECT_THAT(client().AddBodies(add), IsOk());
  remove.set_expected_tick(5);
  EXPECT_THAT(client().RemoveBodies(remove), IsOk());
  restore.set_expected_tick(5);
  EXPECT_THAT(client().Restore(restore), IsOk());
  EXPECT_EQ(TickAndHash(kWorld), before);
  update.mutable_updates(0)->set_body_id(6);
  update.set_expected_tick(5);
  EXPECT_THAT(client().UpdateBodies(update), IsOk());
  step.set_expected_tick(5);
  absl::StatusOr<v1::StepResponse> stepped = client().Step(step);
  ASSERT_THAT(stepped, IsOk());
  EXPECT_EQ(stepped->tick(), 6);
  // The same step again, as a client resends after a lost reply: refused.
  EXPECT_THAT(client().Step(step),
              StatusIs(absl::StatusCode::kFailedPrecondition, "expected_tick: 5, but world 'small' is at tick 6"));
  EXPECT_EQ(TickAndHash(kWorld), std::make_pair(int64_t{6}, stepped->state_hash()));
}

// The client's chunked stepping names each chunk's start tick: a step by
// someone else between two chunks ends it with FAILED_PRECONDITION rather
// than stepping past the count asked for.
TEST_F(ServiceTest, StepInChunks_NamesEachChunksTick_SoAStepInBetweenIsCaught) {
  CreateSmallWorld(kWorld);
  absl::StatusOr<v1::StepResponse> first = client().StepInChunks(kWorld, 30, 10);
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->tick(), 30);
  EXPECT_EQ(TickAndHash(kWorld), std::make_pair(int64_t{30}, first->state_hash()));

  std::unique_ptr<client::ArbiterClient> other = client::ArbiterClient::Connect(server_.address());
  bool interleaved = false;
  absl::StatusOr<v1::StepResponse> second = client().StepInChunks(kWorld, 30, 10, [&](uint64_t, uint64_t) {
    if (interleaved) return;
    v1::StepRequest step;
    step.set_world_id(kWorld);
    step.set_ticks(1);
    interleaved = other->Step(step).ok();
  });
  ASSERT_TRUE(interleaved);
  EXPECT_THAT(second, StatusIs(absl::StatusCode::kFailedPrecondition, "expected_tick: 40, but world 'small' is at tick 41"));
  EXPECT_EQ(TickAndHash(kWorld).first, 41);
}

// ---- QueryStream ------------------------------------------------------------------------

TEST_F(ServiceTest, QueryStream_AnswersInOrder_AsUnaryCalls) {
  CreateSmallWorld(kWorld);
  CreateSmallWorld("other");
  const std::vector<RayCastInput> rays = SmallWorldRays();
  std::vector<v1::CastRaysRequest> requests;
  for (int i = 0; i < 24; ++i) {
    v1::CastRaysRequest r;
    r.set_world_id(i % 3 == 0 ? "other" : kWorld);
    r.set_mode(i % 2 == 0 ? v1::CAST_MODE_CLOSEST : v1::CAST_MODE_ALL);
    r.set_request_tag(1000 + static_cast<uint64_t>(i));
    for (size_t k = static_cast<size_t>(i); k < rays.size(); k += 5) {
      if (i % 4 == 1) {
        r.mutable_columns()->add_origin_x(rays[k].origin.x.raw());
        r.mutable_columns()->add_origin_y(rays[k].origin.y.raw());
        r.mutable_columns()->add_translation_x(rays[k].translation.x.raw());
        r.mutable_columns()->add_translation_y(rays[k].translation.y.raw());
      } else {
        *r.add_rays() = WireRay(rays[k]);
      }
    }
    requests.push_back(r);
  }
  std::unique_ptr<client::RayStream> stream = client().OpenQueryStream();
  // Write all first, then read: the server answers in order regardless.
  for (const v1::CastRaysRequest& r : requests) ASSERT_TRUE(stream->Write(r));
  for (const v1::CastRaysRequest& r : requests) {
    std::optional<v1::CastRaysResponse> got = stream->Read();
    ASSERT_TRUE(got.has_value());
    absl::StatusOr<v1::CastRaysResponse> unary = client().CastRays(r);
    ASSERT_THAT(unary, IsOk());
    EXPECT_EQ(got->request_tag(), r.request_tag());
    EXPECT_EQ(got->SerializeAsString(), unary->SerializeAsString()) << "tag " << r.request_tag();
  }
  EXPECT_THAT(stream->Finish(), IsOk());

  // The first invalid request ends the stream with its status.
  std::unique_ptr<client::RayStream> bad = client().OpenQueryStream();
  ASSERT_TRUE(bad->Write(requests[0]));
  v1::CastRaysRequest invalid = requests[0];
  invalid.set_mode(v1::CAST_MODE_UNSPECIFIED);
  bad->Write(invalid);
  EXPECT_TRUE(bad->Read().has_value());
  EXPECT_FALSE(bad->Read().has_value());
  EXPECT_THAT(bad->Finish(), StatusIs(absl::StatusCode::kInvalidArgument, "mode"));
}

// ---- Health and reflection ---------------------------------------------------------------

TEST_F(ServiceTest, Health_ReportsServing) {
  absl::StatusOr<bool> serving = client().CheckHealth();
  ASSERT_THAT(serving, IsOk());
  EXPECT_TRUE(*serving);
}

TEST_F(ServiceTest, Reflection_ListsTheArbiterService) {
  // ServerReflectionRequest{list_services: ""} by hand (field 7, empty
  // string): Debian ships the reflection server but not its client stubs.
  auto channel = grpc::CreateChannel(server_.address(), grpc::InsecureChannelCredentials());
  grpc::GenericStub stub(channel);
  grpc::ClientContext context;
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo", &cq);
  void* tag = nullptr;
  bool ok = false;
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  const char request_bytes[] = {0x3a, 0x00};
  grpc::Slice slice(request_bytes, sizeof(request_bytes));
  grpc::ByteBuffer request(&slice, 1);
  call->Write(request, reinterpret_cast<void*>(2));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  grpc::ByteBuffer reply;
  call->Read(&reply, reinterpret_cast<void*>(3));
  ASSERT_TRUE(cq.Next(&tag, &ok) && ok);
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(reply.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& s : slices) bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  EXPECT_NE(bytes.find("arbiter.v1.Arbiter"), std::string::npos);
  EXPECT_NE(bytes.find("grpc.health.v1.Health"), std::string::npos);
  context.TryCancel();
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(4));
  cq.Next(&tag, &ok);
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }
}

// ---- Limits ------------------------------------------------------------------------------

class LimitsTest : public ::testing::Test {
 protected:
  static server::ServerOptions Tight() {
    server::ServerOptions o = TestServerOptions();
    o.registry.max_worlds = 2;
    o.registry.max_bodies_per_world = 8;
    o.service.max_batch = 4;
    o.service.max_message_bytes = 4096;
    o.max_watch_backlog = 4;
    return o;
  }
  LiveServer server_{Tight()};
};

TEST_F(LimitsTest, EveryLimit_ResourceExhausted_AndNothingChanges) {
  client::ArbiterClient& c = server_.client();
  v1::CreateWorldRequest create;
  create.set_world_id("one");
  ASSERT_THAT(c.CreateWorld(create), IsOk());
  create.set_world_id("two");
  ASSERT_THAT(c.CreateWorld(create), IsOk());
  create.set_world_id("three");
  EXPECT_THAT(c.CreateWorld(create), StatusIs(absl::StatusCode::kResourceExhausted, "--max_worlds"));

  // Batch size.
  v1::CastRaysRequest rays;
  rays.set_world_id("one");
  rays.set_mode(v1::CAST_MODE_ANY);
  for (int i = 0; i < 5; ++i) *rays.add_rays() = client::MakeRay(0, 0, 1, 1);
  EXPECT_THAT(c.CastRays(rays), StatusIs(absl::StatusCode::kResourceExhausted, "rays: 5 items exceed the batch limit of 4"));

  // Bodies per world: two full batches fit, the third would pass 8.
  auto batch = [](uint64_t first) {
    v1::AddBodiesRequest r;
    r.set_world_id("one");
    for (uint64_t id = first; id < first + 4; ++id) {
      *r.add_bodies() = client::MakeBody(id, v1::BODY_TYPE_STATIC, static_cast<double>(id) * 3, 0, client::MakeCircle(1));
    }
    return r;
  };
  ASSERT_THAT(c.AddBodies(batch(1)), IsOk());
  ASSERT_THAT(c.AddBodies(batch(5)), IsOk());
  v1::GetStateHashRequest hash;
  hash.set_world_id("one");
  const uint64_t full = c.GetStateHash(hash)->state_hash();
  EXPECT_THAT(c.AddBodies(batch(9)), StatusIs(absl::StatusCode::kResourceExhausted, "limit of 8"));
  EXPECT_EQ(c.GetStateHash(hash)->state_hash(), full);

  // Request size: gRPC refuses it before it reaches the service.
  v1::RestoreRequest big;
  big.set_world_id("one");
  big.set_snapshot(std::string(8192, 'x'));
  EXPECT_THAT(c.Restore(big), StatusIs(absl::StatusCode::kResourceExhausted, ""));
  EXPECT_EQ(c.GetStateHash(hash)->state_hash(), full);

  // Reply size: a body with 60 shapes snapshots to more than 4096 bytes.
  v1::AddBodiesRequest wide;
  wide.set_world_id("two");
  v1::BodyDef* body = wide.add_bodies();
  *body = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, 0, client::MakeCircle(1));
  for (int i = 1; i < 60; ++i) *body->add_shapes()->mutable_shape() = client::MakeCircle(1, i, 0);
  ASSERT_LT(wide.ByteSizeLong(), 4096u);
  ASSERT_THAT(c.AddBodies(wide), IsOk());
  v1::GetSnapshotRequest snapshot;
  snapshot.set_world_id("two");
  EXPECT_THAT(c.GetSnapshot(snapshot), StatusIs(absl::StatusCode::kResourceExhausted, "reply: "));
}

TEST_F(LimitsTest, WatchEvents_WatcherFallingBehind_IsDropped) {
  client::ArbiterClient& c = server_.client();
  v1::CreateWorldRequest create;
  create.set_world_id("one");
  ASSERT_THAT(c.CreateWorld(create), IsOk());
  std::unique_ptr<client::EventWatch> watch = c.WatchEvents("one");
  std::shared_ptr<server::WorldEntry> entry = *server_.server().registry().Find("one");
  while (!entry->events().HasSubscribers()) std::this_thread::yield();
  // One Step publishes 10000 ticks at once; the watcher's queue holds 4.
  v1::StepRequest step;
  step.set_world_id("one");
  step.set_ticks(10000);
  step.set_omit_events(true);
  ASSERT_THAT(c.Step(step), IsOk());
  int delivered = 0;
  while (watch->Next().has_value()) ++delivered;
  EXPECT_LT(delivered, 10000);
  EXPECT_THAT(watch->Finish(), StatusIs(absl::StatusCode::kResourceExhausted, "fell more than 4 ticks behind"));
  // The world itself is unaffected.
  v1::GetStateHashRequest hash;
  hash.set_world_id("one");
  EXPECT_EQ(c.GetStateHash(hash)->tick(), 10000);
}

TEST_F(LimitsTest, SceneLoading_DisabledWithoutSceneDir) {
  server::ServerOptions o = Tight();
  o.service.scene_dir.clear();
  LiveServer bare(o);
  v1::CreateWorldRequest create;
  create.set_world_id("x");
  create.set_scene("demo.scene.json");
  EXPECT_THAT(bare.client().CreateWorld(create), StatusIs(absl::StatusCode::kFailedPrecondition, "--scene_dir"));
}

}  // namespace
}  // namespace arbiter::testing

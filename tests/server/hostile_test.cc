// Hostile requests against a real server on a loopback port (issue 8):
// values at and just past every range limit, polygons that are concave,
// self-intersecting, collinear or 10,000 vertices long, zero and negative
// radii, batches past --max_batch, a message past --max_message_bytes,
// nested, truncated and garbage bytes sent as raw request bodies, unknown
// enum values, unknown worlds and bodies. Each rejection is checked for its
// gRPC code and for a message naming the field, and the world's tick and
// state hash must be unchanged afterwards.
//
// service_test.cc already covers, and this file does not repeat: the
// generic just-past-2^29 body position, ray origin and column cases, the
// -2^63 raw value, a concave polygon ("polygon not convex"), clockwise and
// nine-vertex polygons, a zero circle radius, a negative overlap radius,
// a ray batch past --max_batch, unknown worlds for AddBodies, DescribeWorld,
// CastRays, GetStateHash, GetSnapshot and WatchEvents, unknown bodies for
// RemoveBodies, UpdateBodies and Step, and unspecified enums.
// LimitsTest covers a typed request past the message size limit.
#include <grpcpp/generic/generic_stub.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "arbiter/wire/convert.h"
#include "test_support.h"

namespace arbiter::testing {
namespace {

constexpr const char* kWorld = "hostile";
constexpr uint32_t kMaxBatch = 64;
constexpr size_t kMaxMessageBytes = size_t{256} << 10;

constexpr int64_t kOne = Fixed::kOneRaw;
constexpr int64_t kWorldLimit = (int64_t{1} << 29) * kOne;        // 2^29 units, raw
constexpr int64_t kTranslationLimit = (int64_t{1} << 30) * kOne;  // 2^30 units
constexpr int64_t kShapeLimit = (int64_t{1} << 24) * kOne;        // 2^24 units
constexpr int64_t kSpeedLimit = (int64_t{1} << 24) * kOne;        // units/s
constexpr int64_t kSpinLimit = (int64_t{1} << 16) * kOne;         // rad/s

server::ServerOptions HostileOptions() {
  server::ServerOptions o = TestServerOptions();
  o.service.max_batch = kMaxBatch;
  o.service.max_message_bytes = kMaxMessageBytes;
  return o;
}

v1::Vec2 RawVec(int64_t x, int64_t y) {
  v1::Vec2 v;
  v.set_x(x);
  v.set_y(y);
  return v;
}

v1::Shape RawCircle(int64_t radius) {
  v1::Shape s;
  s.mutable_circle()->set_radius(radius);
  return s;
}

v1::Shape Polygon(const std::vector<std::pair<double, double>>& points, double radius = 0) {
  return client::MakePolygon(points, radius);
}

// The outcome of one call: its code and message, whichever API made it.
struct Outcome {
  absl::StatusCode code;
  std::string message;
};

class HostileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    v1::CreateWorldRequest create;
    create.set_world_id(kWorld);
    *create.mutable_gravity() = client::MakeVec2(0, -10);
    *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, -1, client::MakeBox(20, 1));
    *create.add_bodies() = client::MakeBody(2, v1::BODY_TYPE_DYNAMIC, 0, 1, client::MakeBox(1, 1));
    *create.add_bodies() = client::MakeBody(3, v1::BODY_TYPE_DYNAMIC, 4, 1, client::MakeCircle(0.5));
    ASSERT_THAT(client().CreateWorld(create), IsOk());
    before_ = TickAndHash();
  }

  client::ArbiterClient& client() { return server_.client(); }

  std::pair<int64_t, uint64_t> TickAndHash() {
    v1::GetStateHashRequest request;
    request.set_world_id(kWorld);
    absl::StatusOr<v1::GetStateHashResponse> reply = client().GetStateHash(request);
    EXPECT_THAT(reply, IsOk());
    return reply.ok() ? std::make_pair(reply->tick(), reply->state_hash()) : std::make_pair(int64_t{-1}, uint64_t{0});
  }

  /// The call fails with `code` and a message containing `text`, and the
  /// world is exactly as before (same tick, same hash, no other world).
  void ExpectRejected(const absl::Status& status, absl::StatusCode code, const std::string& text) {
    EXPECT_THAT(status, StatusIs(code, text));
    ExpectUnchanged();
  }
  template <class T>
  void ExpectRejected(const absl::StatusOr<T>& status, absl::StatusCode code, const std::string& text) {
    ExpectRejected(status.status(), code, text);
  }

  void ExpectUnchanged() {
    EXPECT_EQ(TickAndHash(), before_);
    absl::StatusOr<v1::ListWorldsResponse> list = client().ListWorlds();
    ASSERT_THAT(list, IsOk());
    EXPECT_EQ(list->worlds_size(), 1);
  }

  /// AddBodies with one dynamic disk at (0, 20), edited.
  absl::Status AddOne(const std::function<void(v1::BodyDef&)>& edit) {
    v1::AddBodiesRequest r;
    r.set_world_id(kWorld);
    v1::BodyDef* b = r.add_bodies();
    *b = client::MakeBody(100, v1::BODY_TYPE_DYNAMIC, 0, 20, client::MakeCircle(1));
    edit(*b);
    return client().AddBodies(r).status();
  }

  /// Adds a body that must be accepted, then removes it: the hash must come
  /// back (it is a function of the canonical state only).
  void ExpectAcceptedAndRemovable(const std::function<void(v1::BodyDef&)>& edit) {
    ASSERT_THAT(AddOne(edit), IsOk());
    v1::RemoveBodiesRequest remove;
    remove.set_world_id(kWorld);
    remove.add_body_ids(100);
    ASSERT_THAT(client().RemoveBodies(remove), IsOk());
    ExpectUnchanged();
  }

  absl::Status CastRays(const std::function<void(v1::CastRaysRequest&)>& edit) {
    v1::CastRaysRequest r;
    r.set_world_id(kWorld);
    r.set_mode(v1::CAST_MODE_CLOSEST);
    *r.add_rays() = client::MakeRay(0, 10, 0, -20);
    edit(r);
    return client().CastRays(r).status();
  }

  absl::Status CastShapes(const std::function<void(v1::CastShapesRequest&)>& edit) {
    v1::CastShapesRequest r;
    r.set_world_id(kWorld);
    r.set_mode(v1::CAST_MODE_CLOSEST);
    *r.add_casts() = client::MakeShapeCast(client::MakeCircle(0.5), client::MakeTransform(0, 10), 0, -20);
    edit(r);
    return client().CastShapes(r).status();
  }

  /// Sends `bytes` as the request body of `method`, bypassing the typed
  /// stubs (so that the server's deserialisation sees them as they are).
  Outcome RawCall(const std::string& method, const std::string& bytes) {
    auto channel = grpc::CreateChannel(server_.address(), grpc::InsecureChannelCredentials());
    grpc::GenericStub stub(channel);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    grpc::Slice slice(bytes.data(), bytes.size());
    grpc::ByteBuffer request(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &request, &response,
                   [&done](grpc::Status s) { done.set_value(std::move(s)); });
    const grpc::Status status = done.get_future().get();
    return {static_cast<absl::StatusCode>(status.error_code()), status.error_message()};
  }

  LiveServer server_{HostileOptions()};
  std::pair<int64_t, uint64_t> before_;
};

// ---- Range limits: at the limit accepted, one ulp past OUT_OF_RANGE ----------------

TEST_F(HostileTest, BodyPositionAtTheLimit_Accepted) {
  // One ulp past is service_test's "body position".
  for (const auto& [x, y] : {std::pair{kWorldLimit, -kWorldLimit}, std::pair{-kWorldLimit, kWorldLimit}}) {
    ExpectAcceptedAndRemovable([x, y](v1::BodyDef& b) {
      b.set_type(v1::BODY_TYPE_STATIC);
      *b.mutable_transform()->mutable_position() = RawVec(x, y);
    });
  }
}

TEST_F(HostileTest, ShapeCoordinatesAtAndPastTheLimit) {
  ExpectAcceptedAndRemovable([](v1::BodyDef& b) {
    b.set_type(v1::BODY_TYPE_STATIC);
    *b.mutable_shapes(0)->mutable_shape() = RawCircle(kShapeLimit);
  });
  ExpectAcceptedAndRemovable([](v1::BodyDef& b) {
    b.set_type(v1::BODY_TYPE_STATIC);
    v1::Shape s;
    *s.mutable_segment()->mutable_point1() = RawVec(-kShapeLimit, -kShapeLimit);
    *s.mutable_segment()->mutable_point2() = RawVec(kShapeLimit, kShapeLimit);
    *b.mutable_shapes(0)->mutable_shape() = s;
  });

  ExpectRejected(AddOne([](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = RawCircle(kShapeLimit + 1); }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0].shape.circle: coordinate or radius beyond");
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   v1::Shape s = RawCircle(kOne);
                   *s.mutable_circle()->mutable_center() = RawVec(0, -kShapeLimit - 1);
                   *b.mutable_shapes(0)->mutable_shape() = s;
                 }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0].shape.circle: coordinate or radius beyond");
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   v1::Shape s;
                   *s.mutable_capsule()->mutable_center1() = RawVec(0, 0);
                   *s.mutable_capsule()->mutable_center2() = RawVec(kShapeLimit + 1, 0);
                   s.mutable_capsule()->set_radius(kOne);
                   *b.mutable_shapes(0)->mutable_shape() = s;
                 }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0].shape.capsule: coordinate or radius beyond");
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   v1::Shape s = Polygon({{0, 0}, {1, 0}, {0, 1}});
                   s.mutable_polygon()->mutable_points(1)->set_x(kShapeLimit + 1);
                   *b.mutable_shapes(0)->mutable_shape() = s;
                 }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0].shape.polygon: coordinate or radius beyond");
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   v1::Shape s = client::MakeBox(1, 1);
                   *s.mutable_box()->mutable_half_extents() = RawVec(kShapeLimit + 1, kOne);
                   *b.mutable_shapes(0)->mutable_shape() = s;
                 }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0].shape.box: coordinate or radius beyond");
}

TEST_F(HostileTest, SpeedsAtAndPastTheLimit) {
  ExpectAcceptedAndRemovable([](v1::BodyDef& b) {
    *b.mutable_linear_velocity() = RawVec(kSpeedLimit, -kSpeedLimit);
    b.set_angular_velocity(-kSpinLimit);
  });
  ExpectRejected(AddOne([](v1::BodyDef& b) { *b.mutable_linear_velocity() = RawVec(0, -kSpeedLimit - 1); }),
                 absl::StatusCode::kOutOfRange, "bodies[0].linear_velocity: beyond +-2^24 units/s");
  ExpectRejected(AddOne([](v1::BodyDef& b) { b.set_angular_velocity(kSpinLimit + 1); }),
                 absl::StatusCode::kOutOfRange, "bodies[0].angular_velocity: beyond +-2^16 rad/s");
}

TEST_F(HostileTest, QueryCoordinatesAtAndPastTheLimit) {
  // Rays: origin at +-2^29 and translation at +-2^30 are in range.
  EXPECT_THAT(CastRays([](v1::CastRaysRequest& r) {
                *r.mutable_rays(0)->mutable_origin() = RawVec(kWorldLimit, -kWorldLimit);
                *r.mutable_rays(0)->mutable_translation() = RawVec(-kTranslationLimit, kTranslationLimit);
              }),
              IsOk());
  ExpectRejected(CastRays([](v1::CastRaysRequest& r) {
                   *r.mutable_rays(0)->mutable_translation() = RawVec(kTranslationLimit + 1, 0);
                 }),
                 absl::StatusCode::kOutOfRange, "rays[0].translation: beyond +-2^30 units");
  ExpectRejected(CastRays([](v1::CastRaysRequest& r) { r.mutable_rays(0)->set_max_fraction(-1); }),
                 absl::StatusCode::kOutOfRange, "rays[0].max_fraction: must be in [0, 1]");

  // Overlap: a point and a box spanning the whole world are in range.
  v1::OverlapRequest overlap;
  overlap.set_world_id(kWorld);
  *overlap.add_queries()->mutable_point() = RawVec(-kWorldLimit, kWorldLimit);
  v1::Aabb* world_box = overlap.add_queries()->mutable_aabb();
  *world_box->mutable_lower() = RawVec(-kWorldLimit, -kWorldLimit);
  *world_box->mutable_upper() = RawVec(kWorldLimit, kWorldLimit);
  absl::StatusOr<v1::OverlapResponse> all = client().Overlap(overlap);
  ASSERT_THAT(all, IsOk());
  EXPECT_EQ(all->results(1).shapes_size(), 3);
  overlap.mutable_queries(1)->mutable_aabb()->mutable_upper()->set_y(kWorldLimit + 1);
  ExpectRejected(client().Overlap(overlap), absl::StatusCode::kOutOfRange, "queries[1].aabb.upper: beyond +-2^29 units");

  // Shape casts: translation and placement limits.
  EXPECT_THAT(CastShapes([](v1::CastShapesRequest& r) {
                *r.mutable_casts(0)->mutable_transform()->mutable_position() = RawVec(kWorldLimit, 0);
                *r.mutable_casts(0)->mutable_translation() = RawVec(-kTranslationLimit, 0);
              }),
              IsOk());
  ExpectRejected(CastShapes([](v1::CastShapesRequest& r) {
                   *r.mutable_casts(0)->mutable_translation() = RawVec(0, -kTranslationLimit - 1);
                 }),
                 absl::StatusCode::kOutOfRange, "casts[0].translation: beyond +-2^30 units");
  ExpectRejected(CastShapes([](v1::CastShapesRequest& r) {
                   *r.mutable_casts(0)->mutable_transform()->mutable_position() = RawVec(0, kWorldLimit + 1);
                 }),
                 absl::StatusCode::kOutOfRange, "casts[0].transform.position: beyond +-2^29 units");
}

// ---- Polygons --------------------------------------------------------------------

TEST_F(HostileTest, BadPolygons_Rejected) {
  // Concave is service_test's "polygon not convex".
  struct Case {
    const char* name;
    v1::Shape shape;
    std::string message;
  };
  v1::Shape many;
  for (int i = 0; i < 10000; ++i) {
    const double angle = 2 * M_PI * i / 10000;
    *many.mutable_polygon()->add_points() = client::MakeVec2(100 * std::cos(angle), 100 * std::sin(angle));
  }
  const std::vector<Case> cases = {
      {"self-intersecting bow tie", Polygon({{0, 0}, {2, 2}, {2, 0}, {0, 2}}), "polygon: not convex"},
      // Every turn is a left turn, but the boundary winds around twice.
      {"pentagram", Polygon({{0, 3}, {-1.76, -2.43}, {2.85, 0.93}, {-2.85, 0.93}, {1.76, -2.43}}), "polygon: not convex"},
      {"collinear", Polygon({{0, 0}, {1, 0}, {2, 0}, {1, 1}}), "polygon: collinear (or nearly collinear) vertices"},
      {"all on one line", Polygon({{0, 0}, {1, 1}, {3, 3}}), "polygon: collinear (or nearly collinear) vertices"},
      // 2^-20 below the chord (a left turn): inside the 2^-16 minimum offset.
      {"nearly collinear", Polygon({{0, 0}, {1, -0.00000095367431640625}, {2, 0}, {1, 1}}), "polygon: collinear (or nearly collinear) vertices"},
      {"duplicate vertex", Polygon({{0, 0}, {1, 0}, {1, 0}, {0, 1}}), "polygon: duplicate consecutive vertices"},
      {"two vertices", Polygon({{0, 0}, {1, 0}}), "polygon: fewer than 3 vertices"},
      {"10,000 vertices", many, "polygon: more than 8 vertices"},
      {"negative radius", Polygon({{0, 0}, {1, 0}, {0, 1}}, -0.5), "polygon: negative radius"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ExpectRejected(AddOne([&](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = c.shape; }),
                   absl::StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape." + c.message);
    // The same shape as a query is rejected the same way.
    v1::OverlapRequest overlap;
    overlap.set_world_id(kWorld);
    *overlap.add_queries() = client::MakeShapeQuery(c.shape, client::MakeTransform(0, 0));
    ExpectRejected(client().Overlap(overlap), absl::StatusCode::kInvalidArgument, "queries[0].shape.shape." + c.message);
  }
}

// ---- Radii -------------------------------------------------------------------------

TEST_F(HostileTest, ZeroAndNegativeRadii_Rejected) {
  // A zero circle radius is service_test's "circle radius zero".
  auto capsule = [](double radius) { return client::MakeCapsule(-1, 0, 1, 0, radius); };
  ExpectRejected(AddOne([](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = RawCircle(-1); }),
                 absl::StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape.circle: negative radius");
  ExpectRejected(AddOne([&](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = capsule(0); }),
                 absl::StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape.capsule: radius must be positive");
  ExpectRejected(AddOne([&](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = capsule(-2); }),
                 absl::StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape.capsule: negative radius");
  ExpectRejected(CastShapes([&](v1::CastShapesRequest& r) { *r.mutable_casts(0)->mutable_shape() = RawCircle(0); }),
                 absl::StatusCode::kInvalidArgument, "casts[0].shape.circle: radius must be positive");
  ExpectRejected(CastShapes([&](v1::CastShapesRequest& r) { *r.mutable_casts(0)->mutable_shape() = capsule(-0.25); }),
                 absl::StatusCode::kInvalidArgument, "casts[0].shape.capsule: negative radius");
  // A negative box extent is a box's "radius".
  ExpectRejected(AddOne([](v1::BodyDef& b) { *b.mutable_shapes(0)->mutable_shape() = client::MakeBox(-1, 1); }),
                 absl::StatusCode::kInvalidArgument, "bodies[0].shapes[0].shape.box: half extent must be positive");
}

TEST_F(HostileTest, DynamicCapsuleTooHeavyForQ32_Rejected) {
  // Its mass (2.46e9) is the sum of two terms that each fit; the sum used to
  // wrap to a negative mass that was accepted (found by fuzz_narrow).
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   *b.mutable_shapes(0)->mutable_shape() = client::MakeCapsule(-15000, 0, 15000, 0, 20000);
                 }),
                 absl::StatusCode::kOutOfRange, "bodies[0].shapes[0]: mass or inertia too large");
}

// ---- Batches and message size ------------------------------------------------------

TEST_F(HostileTest, BatchesPastMaxBatch_ResourceExhausted) {
  // A ray batch is service_test's "ray batch too big"; every other batch here.
  const std::string limit = " items exceed the batch limit of 64 (--max_batch)";
  v1::AddBodiesRequest add;
  add.set_world_id(kWorld);
  for (uint64_t id = 100; id < 100 + kMaxBatch + 1; ++id) {
    *add.add_bodies() = client::MakeBody(id, v1::BODY_TYPE_STATIC, static_cast<double>(id), 50, client::MakeCircle(0.25));
  }
  ExpectRejected(client().AddBodies(add), absl::StatusCode::kResourceExhausted, "bodies: 65" + limit);

  v1::CreateWorldRequest create;
  create.set_world_id("crowded");
  *create.mutable_bodies() = add.bodies();
  ExpectRejected(client().CreateWorld(create), absl::StatusCode::kResourceExhausted, "bodies: 65" + limit);

  v1::RemoveBodiesRequest remove;
  remove.set_world_id(kWorld);
  for (uint32_t i = 0; i < kMaxBatch + 1; ++i) remove.add_body_ids(1 + i % 3);
  ExpectRejected(client().RemoveBodies(remove), absl::StatusCode::kResourceExhausted, "body_ids: 65" + limit);

  v1::UpdateBodiesRequest update;
  update.set_world_id(kWorld);
  for (uint32_t i = 0; i < kMaxBatch + 1; ++i) {
    v1::BodyUpdate* u = update.add_updates();
    u->set_body_id(2);
    *u->mutable_transform() = client::MakeTransform(i, 5);
  }
  ExpectRejected(client().UpdateBodies(update), absl::StatusCode::kResourceExhausted, "updates: 65" + limit);

  v1::OverlapRequest overlap;
  overlap.set_world_id(kWorld);
  for (uint32_t i = 0; i < kMaxBatch + 1; ++i) *overlap.add_queries() = client::MakePointQuery(i, 0);
  ExpectRejected(client().Overlap(overlap), absl::StatusCode::kResourceExhausted, "queries: 65" + limit);

  ExpectRejected(CastShapes([](v1::CastShapesRequest& r) {
                   for (uint32_t i = 0; i < kMaxBatch; ++i) *r.add_casts() = r.casts(0);
                 }),
                 absl::StatusCode::kResourceExhausted, "casts: 65" + limit);
  ExpectRejected(CastRays([](v1::CastRaysRequest& r) {
                   r.clear_rays();
                   for (uint32_t i = 0; i < kMaxBatch + 1; ++i) {
                     r.mutable_columns()->add_origin_x(0);
                     r.mutable_columns()->add_origin_y(0);
                     r.mutable_columns()->add_translation_x(kOne);
                     r.mutable_columns()->add_translation_y(0);
                   }
                 }),
                 absl::StatusCode::kResourceExhausted, "columns: 65" + limit);

  v1::StepRequest step;
  step.set_world_id(kWorld);
  step.set_ticks(2);
  for (uint32_t i = 0; i < kMaxBatch + 1; ++i) {
    v1::StepCommand* c = step.add_commands();
    c->mutable_update()->set_body_id(2);
    *c->mutable_update()->mutable_transform() = client::MakeTransform(0, 5);
  }
  ExpectRejected(client().Step(step), absl::StatusCode::kResourceExhausted, "commands: 65" + limit);

  // A body with more shapes than a body may have.
  ExpectRejected(AddOne([](v1::BodyDef& b) {
                   for (int i = 0; i < 64; ++i) *b.add_shapes()->mutable_shape() = client::MakeCircle(0.5, i, 0);
                 }),
                 absl::StatusCode::kResourceExhausted, "bodies[0].shapes: more than 64 shapes");
}

TEST_F(HostileTest, RawMessagePastMaxMessageBytes_ResourceExhausted) {
  // gRPC refuses it before any handler runs, whatever the bytes are.
  const std::string huge(kMaxMessageBytes + 1, '\0');
  const Outcome out = RawCall("/arbiter.v1.Arbiter/AddBodies", huge);
  EXPECT_EQ(out.code, absl::StatusCode::kResourceExhausted) << out.message;
  EXPECT_NE(out.message.find("larger than max"), std::string::npos) << out.message;
  ExpectUnchanged();
}

// ---- Raw bytes: what gRPC 1.51 answers when the request does not parse ---------------

TEST_F(HostileTest, UndecodableRequestBodies_RejectedBeforeTheHandler) {
  v1::AddBodiesRequest valid;
  valid.set_world_id(kWorld);
  *valid.add_bodies() = client::MakeBody(100, v1::BODY_TYPE_STATIC, 0, 30, client::MakePolygon({{0, 0}, {1, 0}, {0, 1}}));
  const std::string bytes = valid.SerializeAsString();

  // Unknown groups (field 15, wire type 3) nested 5,000 deep: protobuf
  // refuses anything past its recursion limit of 100.
  std::string nested;
  for (int i = 0; i < 5000; ++i) nested += '\x7b';   // start group 15
  for (int i = 0; i < 5000; ++i) nested += '\x7c';   // end group 15
  // Known sub-messages, each length prefix claiming more bytes than follow.
  const std::string truncated = bytes.substr(0, bytes.size() - 3);
  const std::string garbage(64, '\xff');  // a varint tag that never ends
  // A length-delimited field whose length runs past the end of the buffer.
  const std::string overlong = std::string("\x0a\xff\xff\xff\x0f", 5) + "w";

  struct Case {
    const char* name;
    std::string method;
    std::string bytes;
  };
  const std::vector<Case> cases = {
      {"deeply nested AddBodies", "/arbiter.v1.Arbiter/AddBodies", nested},
      {"truncated AddBodies", "/arbiter.v1.Arbiter/AddBodies", truncated},
      {"garbage AddBodies", "/arbiter.v1.Arbiter/AddBodies", garbage},
      {"overlong length Step", "/arbiter.v1.Arbiter/Step", overlong},
      {"garbage CastRays (answered inline)", "/arbiter.v1.Arbiter/CastRays", garbage},
      {"deeply nested Restore", "/arbiter.v1.Arbiter/Restore", nested},
      {"truncated CreateWorld", "/arbiter.v1.Arbiter/CreateWorld", truncated},
  };
  ASSERT_TRUE(v1::AddBodiesRequest().ParseFromString(bytes));
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    ASSERT_FALSE(v1::AddBodiesRequest().ParseFromString(c.bytes));  // the bytes really are undecodable
    const Outcome out = RawCall(c.method, c.bytes);
    // Pinned for gRPC 1.51 (Debian 12). The service uses the callback API,
    // whose unary handler answers a request that fails to deserialise with
    // UNIMPLEMENTED and an empty message (UnimplementedUnaryReactor in
    // grpcpp/impl/codegen/server_callback_handlers.h), not INTERNAL: the
    // service never sees the bytes, so it cannot name a field. A newer gRPC
    // may change this; the pin shows it.
    EXPECT_EQ(out.code, absl::StatusCode::kUnimplemented) << out.message;
    EXPECT_EQ(out.message, "");
    ExpectUnchanged();
  }
  // The valid bytes through the same raw path are accepted.
  const Outcome ok = RawCall("/arbiter.v1.Arbiter/AddBodies", bytes);
  EXPECT_EQ(ok.code, absl::StatusCode::kOk) << ok.message;
}

// ---- Unknown enum values ---------------------------------------------------------------

TEST_F(HostileTest, UnknownEnumValues_InvalidArgument) {
  // proto3 enums are open: 99 arrives as 99 and the server must refuse it.
  ExpectRejected(AddOne([](v1::BodyDef& b) { b.set_type(static_cast<v1::BodyType>(99)); }),
                 absl::StatusCode::kInvalidArgument, "bodies[0].type: unknown body type 99");
  ExpectRejected(CastRays([](v1::CastRaysRequest& r) { r.set_mode(static_cast<v1::CastMode>(99)); }),
                 absl::StatusCode::kInvalidArgument, "mode: unknown cast mode 99");
  ExpectRejected(CastShapes([](v1::CastShapesRequest& r) { r.set_mode(static_cast<v1::CastMode>(99)); }),
                 absl::StatusCode::kInvalidArgument, "mode: unknown cast mode 99");
  ExpectRejected(CastRays([](v1::CastRaysRequest& r) { r.mutable_filter()->add_body_types(static_cast<v1::BodyType>(-7)); }),
                 absl::StatusCode::kInvalidArgument, "filter.body_types[0]: unknown body type -7");
  v1::CreateWorldRequest create;
  create.set_world_id("typed");
  *create.add_bodies() = client::MakeBody(5, static_cast<v1::BodyType>(99), 0, 0, client::MakeCircle(1));
  ExpectRejected(client().CreateWorld(create), absl::StatusCode::kInvalidArgument, "bodies[0].type: unknown body type 99");
}

// ---- Unknown worlds and bodies -------------------------------------------------------

TEST_F(HostileTest, UnknownWorld_NotFound_ForEveryRpcNotCoveredElsewhere) {
  const std::string nope = "world_id: no world 'nope'";
  v1::RemoveBodiesRequest remove;
  remove.set_world_id("nope");
  remove.add_body_ids(1);
  ExpectRejected(client().RemoveBodies(remove), absl::StatusCode::kNotFound, nope);
  v1::UpdateBodiesRequest update;
  update.set_world_id("nope");
  update.add_updates()->set_body_id(1);
  *update.mutable_updates(0)->mutable_transform() = client::MakeTransform(0, 0);
  ExpectRejected(client().UpdateBodies(update), absl::StatusCode::kNotFound, nope);
  v1::OverlapRequest overlap;
  overlap.set_world_id("nope");
  *overlap.add_queries() = client::MakePointQuery(0, 0);
  ExpectRejected(client().Overlap(overlap), absl::StatusCode::kNotFound, nope);
  ExpectRejected(CastShapes([](v1::CastShapesRequest& r) { r.set_world_id("nope"); }), absl::StatusCode::kNotFound, nope);
  v1::StepRequest step;
  step.set_world_id("nope");
  step.set_ticks(1);
  ExpectRejected(client().Step(step), absl::StatusCode::kNotFound, nope);
  v1::RestoreRequest restore;
  restore.set_world_id("nope");
  restore.set_snapshot("x");
  ExpectRejected(client().Restore(restore), absl::StatusCode::kNotFound, nope);
  // An id that could never name a world (65 characters) is simply unknown.
  v1::DeleteWorldRequest del;
  del.set_world_id(std::string(65, 'a'));
  ExpectRejected(client().DeleteWorld(del), absl::StatusCode::kNotFound, "world_id");
}

TEST_F(HostileTest, UnknownBodies_NotFound) {
  // RemoveBodies / UpdateBodies / Step with an unknown id are in
  // service_test; these are the variants it does not have.
  v1::RemoveBodiesRequest remove;
  remove.set_world_id(kWorld);
  remove.add_body_ids(1);
  remove.add_body_ids(UINT64_MAX);
  ExpectRejected(client().RemoveBodies(remove), absl::StatusCode::kNotFound, "body_ids[1]: no body 18446744073709551615");

  v1::UpdateBodiesRequest update;
  update.set_world_id(kWorld);
  v1::BodyUpdate* u = update.add_updates();
  u->set_body_id(UINT64_MAX);
  u->add_filters()->set_shape_index(0);
  ExpectRejected(client().UpdateBodies(update), absl::StatusCode::kNotFound, "updates[0].body_id: no body 18446744073709551615");

  v1::UpdateBodiesRequest zero;
  zero.set_world_id(kWorld);
  *zero.add_updates()->mutable_transform() = client::MakeTransform(0, 0);
  ExpectRejected(client().UpdateBodies(zero), absl::StatusCode::kInvalidArgument, "updates[0].body_id: must be non-zero");

  // Unknown ids in a query filter's exclusions are documented as ignored.
  EXPECT_THAT(CastRays([](v1::CastRaysRequest& r) { r.mutable_filter()->add_exclude_bodies(UINT64_MAX); }), IsOk());
  ExpectUnchanged();
}

}  // namespace
}  // namespace arbiter::testing

// Chains over the wire (proto/arbiter/v1/geometry.proto, Chain and
// ChainSegment): AddBodies with a `chain` expands into chain segments
// exactly as the core's MakeChain does (same state hash as an in-process
// replica, the segments back out of a snapshot), rays see their front
// only, and bad chains are refused with the field named and nothing changed.
#include "arbiter/core/chain.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/wire/convert.h"
#include "test_support.h"
#include "testing/numbers.h"

namespace arbiter::testing {
namespace {

constexpr const char* kWorld = "chains";

const std::vector<Vec2> kFloor = {Vd(10, 0), Vd(5, 1), Vd(0, 0), Vd(-5, 1), Vd(-10, 0)};

v1::Shape WireChain(const std::vector<Vec2>& points, bool loop) {
  v1::Shape s;
  for (const Vec2& p : points) *s.mutable_chain()->add_points() = WireVec(p);
  s.mutable_chain()->set_loop(loop);
  return s;
}

class ChainServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    v1::CreateWorldRequest request;
    request.set_world_id(kWorld);
    *request.mutable_gravity() = WireVec(Vd(0, -10));
    request.set_tick_hz(60);
    ASSERT_THAT(client().CreateWorld(request), IsOk());
  }

  // A static body `id` holding a circle, then the chain, then a capsule.
  v1::AddBodiesRequest AddChainBody(uint64_t id, v1::BodyType type, const v1::Shape& chain) {
    v1::AddBodiesRequest r;
    r.set_world_id(kWorld);
    v1::BodyDef* b = r.add_bodies();
    *b = client::MakeBody(id, type, 0, 0, client::MakeCircle(0.5, 0, 5));
    v1::ShapeDef* s = b->add_shapes();
    *s->mutable_shape() = chain;
    s->set_friction(Fd(0.25).raw());
    s->set_user_tag(77);
    *b->add_shapes()->mutable_shape() = client::MakeCircle(0.5, 3, 5);
    return r;
  }

  uint64_t Hash() {
    v1::GetStateHashRequest r;
    r.set_world_id(kWorld);
    absl::StatusOr<v1::GetStateHashResponse> reply = client().GetStateHash(r);
    EXPECT_THAT(reply, IsOk());
    return reply.ok() ? reply->state_hash() : 0;
  }

  client::ArbiterClient& client() { return server_.client(); }

  LiveServer server_;
};

TEST_F(ChainServiceTest, AddBodiesExpandsAChainLikeMakeChain) {
  ASSERT_THAT(client().AddBodies(AddChainBody(1, v1::BODY_TYPE_STATIC, WireChain(kFloor, false))), IsOk());

  // The replica: the same body built in process.
  WorldDef def;
  def.gravity = Vd(0, -10);
  def.tick_hz = 60;
  def.max_bodies = TestServerOptions().registry.max_bodies_per_world;
  World replica(def);
  BodyDef body;
  body.id = 1;
  body.shapes.resize(1);
  body.shapes[0].shape = Shape::FromCircle({Vd(0, 5), Fd(0.5)});
  std::vector<Shape> segments;
  ASSERT_EQ(MakeChain(kFloor, false, &segments), ShapeError::kOk);
  for (const Shape& s : segments) {
    ShapeDef sd;
    sd.shape = s;
    sd.friction = Fd(0.25);
    sd.user_tag = 77;
    body.shapes.push_back(sd);
  }
  body.shapes.emplace_back();
  body.shapes.back().shape = Shape::FromCircle({Vd(3, 5), Fd(0.5)});
  ASSERT_TRUE(replica.AddBody(body).ok());
  EXPECT_EQ(Hash(), replica.StateHash());

  v1::DescribeWorldRequest describe;
  describe.set_world_id(kWorld);
  describe.set_include_bodies(true);
  absl::StatusOr<v1::DescribeWorldResponse> info = client().DescribeWorld(describe);
  ASSERT_THAT(info, IsOk());
  ASSERT_EQ(info->bodies_size(), 1);
  EXPECT_EQ(info->bodies(0).shape_count(), 6u) << "circle, 4 chain segments, circle";

  // The snapshot carries the segments with their ghosts.
  v1::GetSnapshotRequest snap;
  snap.set_world_id(kWorld);
  absl::StatusOr<v1::GetSnapshotResponse> bytes = client().GetSnapshot(snap);
  ASSERT_THAT(bytes, IsOk());
  World restored;
  const std::string& image = bytes->snapshot();
  ASSERT_TRUE(World::Restore(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(image.data()), image.size()), &restored).ok());
  const BodyDef back = *restored.GetBodyDef(1);
  ASSERT_EQ(back.shapes.size(), 6u);
  for (size_t i = 0; i < segments.size(); ++i) {
    const ChainSegment& got = back.shapes[i + 1].shape.chain_segment;
    const ChainSegment& want = segments[i].chain_segment;
    EXPECT_EQ(back.shapes[i + 1].shape.type, ShapeType::kChainSegment);
    EXPECT_TRUE(got.ghost1 == want.ghost1 && got.point1 == want.point1 && got.point2 == want.point2 &&
                got.ghost2 == want.ghost2) << "segment " << i;
    // And the wire form of a stored segment parses back to itself.
    v1::Shape wire_segment;
    wire::ToProto(back.shapes[i + 1].shape, &wire_segment);
    ASSERT_TRUE(wire_segment.has_chain_segment());
    Shape parsed;
    ASSERT_TRUE(wire::ParseShape(wire_segment, "shape", &parsed).ok());
    EXPECT_TRUE(parsed.chain_segment.ghost2 == want.ghost2 && parsed.chain_segment.point1 == want.point1);
  }

  // Rays: from above the floor hits shape 3 ((0,0) -> (-5,1)), from below nothing.
  absl::StatusOr<std::optional<CastHit>> down = client().CastRayClosest(kWorld, {Vd(-2.5, 3), Vd(0, -6), kFixedOne});
  ASSERT_THAT(down, IsOk());
  ASSERT_TRUE(down->has_value());
  EXPECT_EQ((*down)->shape.shape_index, 3u);
  absl::StatusOr<std::optional<CastHit>> up = client().CastRayClosest(kWorld, {Vd(-2.5, -3), Vd(0, 6), kFixedOne});
  ASSERT_THAT(up, IsOk());
  EXPECT_FALSE(up->has_value());
}

TEST_F(ChainServiceTest, BadChainsNameTheFieldAndChangeNothing) {
  const uint64_t before = Hash();
  struct Bad {
    v1::AddBodiesRequest request;
    absl::StatusCode code;
    std::string text;
  };
  const std::vector<Bad> bad = {
      {AddChainBody(2, v1::BODY_TYPE_DYNAMIC, WireChain(kFloor, false)), absl::StatusCode::kInvalidArgument,
       "bodies[0].shapes[1].chain_segment: a chain has no mass"},
      {AddChainBody(2, v1::BODY_TYPE_STATIC, WireChain({Vd(0, 0)}, false)), absl::StatusCode::kInvalidArgument,
       "bodies[0].shapes[1].shape.chain: a chain needs at least 2 points"},
      {AddChainBody(2, v1::BODY_TYPE_STATIC, WireChain({Vd(0, 0), Vd(1, 0), Vd(1, 0)}, false)),
       absl::StatusCode::kInvalidArgument, "bodies[0].shapes[1].shape.chain: duplicate consecutive vertices"},
      {AddChainBody(2, v1::BODY_TYPE_STATIC, WireChain({Vd(0, 0), Vd(1e8, 0)}, true)), absl::StatusCode::kInvalidArgument,
       "shape.chain: a chain needs at least 2 points (3 for a loop)"},
      {AddChainBody(2, v1::BODY_TYPE_STATIC, WireChain({Vd(0, 0), Vd(1e8, 0)}, false)), absl::StatusCode::kOutOfRange,
       "bodies[0].shapes[1].shape.chain: coordinate or radius beyond"},
  };
  for (const Bad& b : bad) {
    EXPECT_THAT(client().AddBodies(b.request), StatusIs(b.code, b.text));
    EXPECT_EQ(Hash(), before);
  }
  // A chain is not a query shape: it is several.
  v1::OverlapRequest overlap;
  overlap.set_world_id(kWorld);
  v1::ShapeQuery* q = overlap.add_queries()->mutable_shape();
  *q->mutable_shape() = WireChain(kFloor, false);
  EXPECT_THAT(client().Overlap(overlap), StatusIs(absl::StatusCode::kInvalidArgument, "accepted only among a body's shapes"));
}

}  // namespace
}  // namespace arbiter::testing

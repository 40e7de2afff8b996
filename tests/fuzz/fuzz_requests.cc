// libFuzzer target: request validation and execution on arbitrary bytes,
// without the network. The first byte picks the arbiter.v1 request type
// (low five bits) and whether to aim it at the world "w" regardless of its
// world_id (high bit, so mutations of the body keep hitting a real world);
// the rest is parsed as that message, as gRPC would, and run through the
// server's Operations against a fresh registry holding one small world,
// stepped 3 ticks so that past-tick queries and hash reports find data.
//
// Checks (operations.h, arbiter.proto):
//  - a rejection is a documented code (INVALID_ARGUMENT, OUT_OF_RANGE,
//    NOT_FOUND, ALREADY_EXISTS, FAILED_PRECONDITION, RESOURCE_EXHAUSTED)
//    with a non-empty message;
//  - a rejected request changes nothing: every world keeps its tick and
//    StateHash, and no world appears or disappears;
//  - queries never change anything;
//  - whatever a successful request leaves behind is a valid world: its
//    snapshot restores to the same hash.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "arbiter/core/shapes.h"
#include "arbiter/core/world.h"
#include "fuzz_check.h"
#include "ops/operations.h"
#include "ops/world_registry.h"
#include "testing/numbers.h"

namespace arbiter::server {
namespace {

constexpr const char* kWorld = "w";

using testing::Fi;

BodyDef Body(uint64_t id, BodyType type, int64_t x, int64_t y, Shape shape) {
  BodyDef b;
  b.id = id;
  b.type = type;
  b.transform = {{Fi(x), Fi(y)}, kRotIdentity};
  ShapeDef s;
  s.shape = shape;
  s.user_tag = id;
  b.shapes.push_back(s);
  return b;
}

// Every shape kind and body type, a sensor, and bodies already touching,
// so that steps produce events and updates have something to move.
std::vector<BodyDef> SmallWorld() {
  Polygon ground, crate, wedge;
  FUZZ_CHECK(MakeBox(Fi(20), Fi(1), &ground) == ShapeError::kOk);
  FUZZ_CHECK(MakeBox(Fi(1), Fi(1), &crate) == ShapeError::kOk);
  const Vec2 wedge_points[] = {{Fi(-1), Fi(0)}, {Fi(1), Fi(0)}, {Fi(0), Fi(1)}};
  FUZZ_CHECK(MakePolygon(wedge_points, kFixedZero, &wedge) == ShapeError::kOk);
  std::vector<BodyDef> bodies = {
      Body(1, BodyType::kStatic, 0, -1, Shape::FromPolygon(ground)),
      Body(2, BodyType::kDynamic, 0, 1, Shape::FromPolygon(crate)),
      Body(3, BodyType::kDynamic, 3, 1, Shape::FromCircle({{}, Fi(1)})),
      Body(4, BodyType::kKinematic, -5, 2, Shape::FromCapsule({{Fi(-1), Fi(0)}, {Fi(1), Fi(0)}, Fi(1) / Fi(2)})),
      Body(5, BodyType::kStatic, 8, 1, Shape::FromSegment({{Fi(0), Fi(0)}, {Fi(0), Fi(2)}})),
      Body(6, BodyType::kStatic, -9, 0, Shape::FromPolygon(wedge)),
      Body(7, BodyType::kStatic, 12, 1, Shape::FromCircle({{}, Fi(2)})),
  };
  bodies[6].shapes[0].is_sensor = true;
  bodies[3].linear_velocity = {Fi(1), Fi(0)};
  return bodies;
}

struct Fixture {
  Fixture() : registry(Limits()), ops(&registry, Service()) {
    WorldDef def;
    def.gravity = {Fi(0), Fi(-10)};
    def.max_bodies = registry.limits().max_bodies_per_world;
    World world(def);
    FUZZ_CHECK(world.AddBodies(SmallWorld()).ok());
    FUZZ_CHECK(registry.Insert(kWorld, std::move(world), /*history_ticks=*/4).ok());
    // A few recorded ticks, so that `at` and ReportHashes reach real data.
    v1::StepRequest step;
    step.set_world_id(kWorld);
    step.set_ticks(3);
    step.set_omit_events(true);
    v1::StepResponse reply;
    FUZZ_CHECK(ops.Step(step, &reply, [] { return false; }).ok());
  }
  static RegistryLimits Limits() {
    RegistryLimits l;
    l.max_worlds = 3;
    l.max_bodies_per_world = 64;
    return l;
  }
  // Small limits keep every input fast and let the fuzzer reach each one.
  static ServiceLimits Service() {
    ServiceLimits l;
    l.max_batch = 16;
    l.max_message_bytes = size_t{1} << 20;
    l.max_step_ticks = 8;
    l.scene_dir.clear();  // scene files are fuzz_scene's job
    return l;
  }

  WorldRegistry registry;
  Operations ops;
};

// (id, tick, state hash) of every world, by id.
using State = std::vector<std::tuple<std::string, int64_t, uint64_t>>;

State StateOf(WorldRegistry& registry) {
  State state;
  for (const std::shared_ptr<WorldEntry>& entry : registry.List()) {
    entry->Read([&](const World& world) { state.emplace_back(entry->id(), world.tick(), world.StateHash()); });
  }
  return state;
}

bool Documented(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kOutOfRange:
    case absl::StatusCode::kNotFound:
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kResourceExhausted: return true;
    default: return false;
  }
}

const CancelFn kNeverCancelled = [] { return false; };

absl::Status RunRead(const absl::StatusOr<ReadOp>& op) {
  if (!op.ok()) return op.status();
  return op->entry->Read([&](const World& world) { return op->run(world, kNeverCancelled); });
}

template <class Request>
bool Parse(const uint8_t* data, size_t size, bool aim, Request* request) {
  if (!request->ParseFromArray(data, static_cast<int>(size))) return false;
  if (aim) request->set_world_id(kWorld);
  return true;
}

// Parses the bytes as one request type and runs it. Returns false when the
// bytes are not that message (gRPC would have refused them already).
bool Run(int kind, const uint8_t* data, size_t size, bool aim, Operations& ops, absl::Status* status,
         bool* is_query, std::string* shown) {
  *is_query = false;
  switch (kind) {
    case 0: {
      v1::CreateWorldRequest r;
      if (!Parse(data, size, false, &r)) return false;
      // Aimed: a new world, so that the bodies get validated and built.
      if (aim) r.set_world_id("fresh");
      *shown = r.ShortDebugString();
      v1::CreateWorldResponse reply;
      *status = ops.CreateWorld(r, &reply, kNeverCancelled);
      if (status->ok()) {
        const absl::StatusOr<std::shared_ptr<WorldEntry>> entry = ops.registry().Find(r.world_id());
        FUZZ_CHECK(entry.ok());
        (*entry)->Read([&](const World& world) { FUZZ_CHECK(world.StateHash() == reply.world().state_hash()); });
      }
      return true;
    }
    case 1: {
      v1::DeleteWorldRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::DeleteWorldResponse reply;
      *status = ops.DeleteWorld(r, &reply);
      return true;
    }
    case 2: {
      v1::ListWorldsRequest r;
      if (!r.ParseFromArray(data, static_cast<int>(size))) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::ListWorldsResponse reply;
      *status = ops.ListWorlds(r, &reply);
      return true;
    }
    case 3: {
      v1::DescribeWorldRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::DescribeWorldResponse reply;
      *status = RunRead(ops.PrepareDescribeWorld(r, &reply));
      return true;
    }
    case 4: {
      v1::AddBodiesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::AddBodiesResponse reply;
      *status = ops.AddBodies(r, &reply);
      return true;
    }
    case 5: {
      v1::RemoveBodiesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::RemoveBodiesResponse reply;
      *status = ops.RemoveBodies(r, &reply);
      return true;
    }
    case 6: {
      v1::UpdateBodiesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::UpdateBodiesResponse reply;
      *status = ops.UpdateBodies(r, &reply);
      return true;
    }
    case 7: {
      v1::CastRaysRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::CastRaysResponse reply;
      *status = RunRead(ops.PrepareCastRays(r, &reply));
      return true;
    }
    case 8: {
      v1::OverlapRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::OverlapResponse reply;
      *status = RunRead(ops.PrepareOverlap(r, &reply));
      return true;
    }
    case 9: {
      v1::CastShapesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::CastShapesResponse reply;
      *status = RunRead(ops.PrepareCastShapes(r, &reply));
      return true;
    }
    case 10: {
      v1::StepRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::StepResponse reply;
      *status = ops.Step(r, &reply, kNeverCancelled);
      return true;
    }
    case 11: {
      v1::GetStateHashRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::GetStateHashResponse reply;
      *status = RunRead(ops.PrepareGetStateHash(r, &reply));
      return true;
    }
    case 12: {
      v1::GetSnapshotRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::GetSnapshotResponse reply;
      *status = RunRead(ops.PrepareGetSnapshot(r, &reply));
      return true;
    }
    case 13: {
      v1::RestoreRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      v1::RestoreResponse reply;
      *status = ops.Restore(r, &reply);
      return true;
    }
    case 14: {
      v1::ValidateHitRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::ValidateHitResponse reply;
      *status = RunRead(ops.PrepareValidateHit(r, &reply));
      if (status->ok()) FUZZ_CHECK(reply.verdict() != v1::HIT_VERDICT_UNSPECIFIED);
      return true;
    }
    case 15: {
      v1::ReportHashesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::ReportHashesResponse reply;
      *status = RunRead(ops.PrepareReportHashes(r, &reply));
      return true;
    }
    case 16: {
      v1::ValidateMoveRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::ValidateMoveResponse reply;
      *status = RunRead(ops.PrepareValidateMove(r, &reply));
      if (status->ok()) FUZZ_CHECK(reply.judgements_size() == r.claims_size());
      return true;
    }
    case 17: {
      v1::MoveShapesRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::MoveShapesResponse reply;
      *status = RunRead(ops.PrepareMoveShapes(r, &reply));
      if (status->ok()) FUZZ_CHECK(reply.results_size() == r.moves_size());
      return true;
    }
    case 18: {
      v1::DistanceRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::DistanceResponse reply;
      *status = RunRead(ops.PrepareDistance(r, &reply));
      if (status->ok()) {
        FUZZ_CHECK(reply.results_size() == r.queries_size());
        for (int i = 0; i < reply.results_size(); ++i) {
          const uint32_t cap = std::max<uint32_t>(1, r.queries(i).max_results());
          FUZZ_CHECK(static_cast<uint32_t>(reply.results(i).hits_size()) <= cap);
          for (const v1::DistanceHit& h : reply.results(i).hits()) {
            FUZZ_CHECK(h.distance() >= 0 && h.distance() <= r.queries(i).max_distance() && h.depth() >= 0);
          }
        }
      }
      return true;
    }
    case 19: {
      v1::OverlapRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      r.set_want_contacts(true);
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::OverlapResponse reply;
      *status = RunRead(ops.PrepareOverlap(r, &reply));
      if (status->ok()) {
        FUZZ_CHECK(reply.results_size() == r.queries_size());
        for (const v1::OverlapResult& result : reply.results()) {
          FUZZ_CHECK(result.contacts_size() == result.shapes_size());
          for (const v1::OverlapContact& c : result.contacts()) {
            FUZZ_CHECK(c.depth() >= 0 && c.points_size() >= 1 && c.points_size() <= 2);
          }
        }
      }
      return true;
    }
    case 20: {
      v1::ValidateShotsRequest r;
      if (!Parse(data, size, aim, &r)) return false;
      *shown = r.ShortDebugString();
      *is_query = true;
      v1::ValidateShotsResponse reply;
      *status = RunRead(ops.PrepareValidateShots(r, std::nullopt, &reply));
      if (status->ok()) {
        FUZZ_CHECK(reply.judgements_size() == r.shots_size());
        for (const v1::ShotJudgement& j : reply.judgements()) {
          FUZZ_CHECK(j.verdict() != v1::SHOT_VERDICT_UNSPECIFIED);
          FUZZ_CHECK(j.has_hit() == (j.end() == v1::FLIGHT_END_HIT));
        }
      }
      return true;
    }
    default: return false;
  }
}

}  // namespace
}  // namespace arbiter::server

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace arbiter;
  using namespace arbiter::server;
  if (size == 0) return 0;
  Fixture fixture;
  const State before = StateOf(fixture.registry);
  absl::Status status;
  bool is_query = false;
  std::string shown;
  const FuzzContext context([&] {
    std::fprintf(stderr, "request kind %d: %s\nstatus: %s\n", data[0] & 0x1f, shown.c_str(), status.ToString().c_str());
  });
  if (!Run(data[0] & 0x1f, data + 1, size - 1, (data[0] & 0x80) != 0, fixture.ops, &status, &is_query, &shown)) return 0;

  const State after = StateOf(fixture.registry);
  if (!status.ok()) {
    FUZZ_CHECK(Documented(status.code()));
    FUZZ_CHECK(!status.message().empty());
    FUZZ_CHECK(after == before);
    return 0;
  }
  if (is_query) FUZZ_CHECK(after == before);
  for (const std::shared_ptr<WorldEntry>& entry : fixture.registry.List()) {
    entry->Read([](const World& world) {
      World copy;
      FUZZ_CHECK(World::Restore(world.Snapshot(), &copy).ok());
      FUZZ_CHECK(copy.StateHash() == world.StateHash());
    });
  }
  return 0;
}

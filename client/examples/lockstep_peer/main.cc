// A lockstep peer: it runs its own copy of the world with the arbiter core
// (the same fixed-point code as the server, so the same bits on any
// machine), steps it in step with the server and reports its per-tick
// state hashes (ReportHashes). Then it cheats (moves a body only in its
// own copy) and the server names the tick it diverged at.
//
//   lockstep_peer [HOST:PORT]      (default 127.0.0.1:50051)
//
// Exit 0 when the honest hashes are in sync and the cheat is caught at
// the tick it happened.
#include <cstdio>
#include <vector>

#include "arbiter/client/client.h"
#include "arbiter/core/world.h"

using namespace arbiter;

namespace {

const char* kWorld = "lockstep-peer-example";

// The shared starting state: a floor and a few falling disks.
std::vector<BodyDef> Bodies() {
  std::vector<BodyDef> bodies;
  BodyDef floor;
  floor.id = 1;
  floor.type = BodyType::kStatic;
  Polygon box;
  if (MakeBox(Fixed::FromInt(20), Fixed::FromInt(1), &box) != ShapeError::kOk) return {};
  floor.shapes.push_back({.shape = Shape::FromPolygon(box)});
  bodies.push_back(floor);
  for (uint64_t i = 0; i < 5; ++i) {
    BodyDef disk;
    disk.id = 10 + i;
    disk.type = BodyType::kDynamic;
    disk.transform.p = {Fixed::FromInt(static_cast<int64_t>(i) * 3 - 6), Fixed::FromInt(5 + static_cast<int64_t>(i))};
    disk.shapes.push_back({.shape = Shape::FromCircle({Vec2{}, Fixed::FromRatio(1, 2)})});
    bodies.push_back(disk);
  }
  return bodies;
}

// Steps the local world `ticks` times, recording the hash after each.
std::vector<uint64_t> StepLocally(World& world, int ticks) {
  std::vector<uint64_t> hashes;
  for (int i = 0; i < ticks; ++i) {
    world.Step();
    hashes.push_back(world.StateHash());
  }
  return hashes;
}

}  // namespace

int main(int argc, char** argv) {
  auto arbiter = client::ArbiterClient::Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");

  WorldDef def;
  def.gravity = {Fixed::FromInt(0), Fixed::FromInt(-10)};
  def.tick_hz = 60;
  def.max_bodies = 1024;  // part of the state: the server's world gets the same
  World local(def);
  const std::vector<BodyDef> bodies = Bodies();
  if (!local.AddBodies(bodies).ok()) return 1;

  v1::CreateWorldRequest create;
  create.set_world_id(kWorld);
  create.mutable_gravity()->set_x(def.gravity.x.raw());
  create.mutable_gravity()->set_y(def.gravity.y.raw());
  create.set_tick_hz(def.tick_hz);
  create.set_max_bodies(def.max_bodies);
  if (auto created = arbiter->CreateWorld(create); !created.ok()) {
    std::fprintf(stderr, "CreateWorld: %s\n", created.status().ToString().c_str());
    return 1;
  }
  if (auto added = arbiter->AddBodiesInBatches(kWorld, bodies, 256); !added.ok()) {
    std::fprintf(stderr, "AddBodies: %s\n", added.ToString().c_str());
    return 1;
  }

  // 60 honest ticks on both sides.
  const std::vector<uint64_t> honest = StepLocally(local, 60);
  if (!arbiter->StepInChunks(kWorld, 60, 60).ok()) return 1;
  auto first = arbiter->ReportHashes(kWorld, 1, honest);
  if (!first.ok()) {
    std::fprintf(stderr, "ReportHashes: %s\n", first.status().ToString().c_str());
    return 1;
  }
  std::printf("ticks 1..60: %s\n", first->in_sync() ? "in sync" : "DIVERGED");

  // The peer cheats before tick 61: a disk jumps up in its copy only.
  if (!local.SetBodyTransform(10, {{Fixed::FromInt(-6), Fixed::FromInt(9)}, kRotIdentity}).ok()) return 1;
  const std::vector<uint64_t> cheating = StepLocally(local, 10);
  if (!arbiter->StepInChunks(kWorld, 10, 10).ok()) return 1;
  auto second = arbiter->ReportHashes(kWorld, 61, cheating);
  if (!second.ok()) return 1;
  const long long diverged = second->has_first_divergent_tick() ? second->first_divergent_tick() : -1;
  std::printf("ticks 61..70: %s (first divergent tick %lld)\n", second->in_sync() ? "in sync" : "diverged", diverged);

  v1::DeleteWorldRequest done;
  done.set_world_id(kWorld);
  const bool ok = first->in_sync() && !second->in_sync() && diverged == 61 && arbiter->DeleteWorld(done).ok();
  std::printf("%s\n", ok ? "lockstep check as expected" : "UNEXPECTED result");
  return ok ? 0 : 1;
}

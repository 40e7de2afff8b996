// libFuzzer target: arbitrary bytes as scene JSON and as query-set JSON
// through the loader (scene/scene.h), and a loaded scene's bodies into a
// World.
//
// Checks: a rejection has a message and leaves *out untouched (scene.h);
// what loads is in the ranges the loader documents (tick rate, steps, query
// ranges as the world's own validators see them); World::AddBodies accepts
// the bodies or rejects them with a message and no change; an accepted
// world snapshots and restores to the same hash and, when small, steps.
#include <cstdint>
#include <string>
#include <string_view>

#include "arbiter/core/world.h"
#include "arbiter/scene/scene.h"
#include "fuzz_check.h"

namespace arbiter {
namespace {

void CheckScene(std::string_view text) {
  scene::Scene out;
  out.name = "untouched";
  out.steps = -7;
  const Status s = scene::ParseScene(text, &out);
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty());
    FUZZ_CHECK(out.name == "untouched" && out.steps == -7 && out.bodies.empty());
    return;
  }
  FUZZ_CHECK(out.world.tick_hz >= 1 && out.world.tick_hz <= 10000);
  FUZZ_CHECK(out.steps >= 0);
  FUZZ_CHECK(IsInWorldRange(out.world.gravity));

  WorldDef def = out.world;
  def.max_bodies = 1 << 16;
  World world(def);
  const uint64_t empty = world.StateHash();
  const Status added = world.AddBodies(out.bodies);
  if (!added.ok()) {
    FUZZ_CHECK(!added.message().empty());
    FUZZ_CHECK(world.body_count() == 0 && world.StateHash() == empty);
    return;
  }
  FUZZ_CHECK(world.body_count() == out.bodies.size());
  World copy;
  FUZZ_CHECK(World::Restore(world.Snapshot(), &copy).ok());
  FUZZ_CHECK(copy.StateHash() == world.StateHash());
  // A few ticks of a small scene: the solver on whatever the loader let in.
  if (out.bodies.size() <= 16) {
    for (int i = 0; i < 3; ++i) {
      TickEvents events;
      world.Step(&events);
    }
    FUZZ_CHECK(world.tick() == 3);
  }
}

void CheckQueries(std::string_view text) {
  scene::QuerySet out;
  out.rays.resize(1);
  const Status s = scene::ParseQuerySet(text, &out);
  if (!s.ok()) {
    FUZZ_CHECK(!s.message().empty());
    FUZZ_CHECK(out.rays.size() == 1 && out.aabbs.empty() && out.disks.empty() && out.sweeps.empty());
    return;
  }
  // The loader's ranges are the world's query ranges.
  for (const RayCastInput& ray : out.rays) FUZZ_CHECK(ValidateRay(ray, "ray").ok());
  for (const Aabb& box : out.aabbs) FUZZ_CHECK(ValidateAabb(box, "aabb").ok());
  for (const scene::DiskQuery& disk : out.disks) {
    FUZZ_CHECK(ValidatePoint(disk.center, "disk").ok());
    FUZZ_CHECK(disk.radius >= kFixedZero && disk.radius <= kFixedMaxShapeExtent);
  }
  for (const scene::SweepQuery& sweep : out.sweeps) {
    FUZZ_CHECK(ValidateRay({sweep.center, sweep.translation, kFixedOne}, "sweep").ok());
    FUZZ_CHECK(sweep.radius >= kFixedZero && sweep.radius <= kFixedMaxShapeExtent);
  }
}

}  // namespace
}  // namespace arbiter

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  arbiter::CheckScene(text);
  arbiter::CheckQueries(text);
  return 0;
}

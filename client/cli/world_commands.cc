#include "world_commands.h"

#include <cinttypes>
#include <cstdio>

#include "arbiter/scene/scene.h"
#include "confirm.h"
#include "fleet_commands.h"
#include "output.h"
#include "progress.h"
#include "shape_text.h"
#include "units.h"

namespace arbiter::cli {
namespace {

using client::ToDouble;

absl::StatusOr<v1::DescribeWorldResponse> Describe(const Context& c, bool bodies) {
  v1::DescribeWorldRequest request;
  request.set_world_id(c.world);
  request.set_include_bodies(bodies);
  return c.client->DescribeWorld(request);
}

// "world 'demo' (tick 150, 12 bodies)": what a destructive command names.
std::string WorldText(const v1::WorldInfo& w) {
  return "world '" + w.world_id() + "' (tick " + std::to_string(w.tick()) + ", " + std::to_string(w.body_count()) +
         " bodies)";
}

Json WorldJson(const v1::WorldInfo& w) {
  return {{"world_id", w.world_id()},     {"tick", w.tick()},
          {"body_count", w.body_count()}, {"tick_hz", w.tick_hz()},
          {"gravity", VecJson(w.gravity())}, {"max_bodies", w.max_bodies()},
          {"history_ticks", w.history_ticks()}, {"oldest_tick", w.oldest_tick()},
          {"allow_sleep", w.allow_sleep()}, {"sub_steps", w.sub_steps()},
          {"contact_hertz", w.contact_hertz()}};
}

// A scene's world settings as a CreateWorldRequest's (create and load).
void SetSceneSettings(const scene::Scene& loaded, v1::CreateWorldRequest* request) {
  request->mutable_gravity()->set_x(loaded.world.gravity.x.raw());
  request->mutable_gravity()->set_y(loaded.world.gravity.y.raw());
  request->set_tick_hz(loaded.world.tick_hz);
  if (loaded.world.allow_sleep) request->set_allow_sleep(true);
  if (loaded.world.sub_steps != kDefaultSubSteps) request->set_sub_steps(loaded.world.sub_steps);
  if (loaded.world.contact_hertz != kDefaultContactHertz) request->set_contact_hertz(loaded.world.contact_hertz);
}

// Creates c.world from `request` plus `bodies` (uploaded in batches after
// the creation, so big scenes stay inside the message limit), then prints
// the world's tick and hash.
int CreateAndUpload(const Context& c, v1::CreateWorldRequest request, const std::vector<BodyDef>& bodies,
                    uint64_t batch, const std::string& source) {
  request.set_world_id(c.world);
  absl::StatusOr<v1::CreateWorldResponse> created = c.client->CreateWorld(request);
  if (!created.ok()) return Fail(c, created.status());
  const bool show = bodies.size() > batch;
  const absl::Status s = c.client->AddBodiesInBatches(c.world, bodies, batch, [&](uint64_t done, uint64_t total) {
    if (show) Progress((c.name + ": bodies").c_str(), done, total);
  });
  if (!s.ok()) return Fail(c, s);
  absl::StatusOr<v1::DescribeWorldResponse> now = Describe(c, false);
  if (!now.ok()) return Fail(c, now.status());
  const v1::WorldInfo& w = now->world();
  if (c.json) {
    Json j = WorldJson(w);
    j["world"] = c.world;
    j["bodies"] = w.body_count();
    j["state_hash"] = Hex(w.state_hash());
    PrintJson(j);
  } else {
    std::printf("created world %s%s: %" PRIu64 " bodies, %d Hz, gravity (%g, %g), tick %" PRId64 ", state hash %s\n",
                c.world.c_str(), source.c_str(), w.body_count(), w.tick_hz(), ToDouble(w.gravity().x()),
                ToDouble(w.gravity().y()), w.tick(), Hex(w.state_hash()).c_str());
  }
  return 0;
}

std::optional<uint64_t> BatchFlag(const Context& c) {
  const std::optional<uint64_t> batch = ParseUint(c.args->Get("batch", "4096"));
  if (!batch || *batch == 0) return std::nullopt;
  return batch;
}

int LoadSceneInto(const Context& c, const std::string& path, scene::Scene* out) {
  if (const arbiter::Status s = scene::LoadSceneFile(path, out); !s.ok()) {
    std::fprintf(stderr, "arbiter %s: %s\n  fix the scene file (format: scenes/FORMAT.md)\n", c.name.c_str(),
                 s.message().c_str());
    return 1;
  }
  return 0;
}

// A CreateWorldRequest field set from an unsigned integer flag.
template <class T>
struct IntegerFlag {
  const char* flag;
  void (v1::CreateWorldRequest::*set)(T);
};

// Sets each present flag of `flags` on *request; the usage error naming
// the first that is not an integer in [0, max] (`must` says the range).
template <class T, size_t N>
std::optional<std::string> SetIntegerFlags(const Context& c, const IntegerFlag<T> (&flags)[N], uint64_t max,
                                           const char* must, v1::CreateWorldRequest* request) {
  for (const IntegerFlag<T>& f : flags) {
    if (!c.args->Has(f.flag)) continue;
    const std::optional<uint64_t> v = ParseUint(c.args->Get(f.flag, ""));
    if (!v || *v > max) return std::string("--") + f.flag + ": " + must;
    (request->*f.set)(static_cast<T>(*v));
  }
  return std::nullopt;
}

}  // namespace

int RunWorlds(const Context& c) {
  if (c.args->Has("instances")) return RunWorldsAcross(c);
  absl::StatusOr<v1::ListWorldsResponse> reply = c.client->ListWorlds();
  if (!reply.ok()) return Fail(c, reply.status());
  if (c.json) {
    Json worlds = Json::array();
    for (const v1::WorldInfo& w : reply->worlds()) worlds.push_back(WorldJson(w));
    PrintJson({{"worlds", worlds}});
    return 0;
  }
  if (reply->worlds_size() == 0) {
    std::printf("no worlds (create one with `arbiter create --world ID`)\n");
    return 0;
  }
  std::printf("%-24s %10s %10s %6s  %s\n", "WORLD", "TICK", "BODIES", "HZ", "GRAVITY");
  for (const v1::WorldInfo& w : reply->worlds()) {
    std::printf("%-24s %10" PRId64 " %10" PRIu64 " %6d  (%g, %g)\n", w.world_id().c_str(), w.tick(), w.body_count(),
                w.tick_hz(), ToDouble(w.gravity().x()), ToDouble(w.gravity().y()));
  }
  return 0;
}

int RunDescribe(const Context& c) {
  const bool shapes = c.args->Has("shapes");
  absl::StatusOr<v1::DescribeWorldResponse> reply = Describe(c, c.args->Has("bodies") || shapes);
  if (!reply.ok()) return Fail(c, reply.status());
  // Shapes are not in DescribeWorld: they come from the world's snapshot,
  // read back into a core World here.
  std::optional<World> world;
  if (shapes) {
    absl::StatusOr<World> restored = FetchWorld(*c.client, c.world);
    if (!restored.ok()) return Fail(c, restored.status());
    world = std::move(*restored);
  }
  const v1::WorldInfo& w = reply->world();
  if (c.json) {
    Json bodies = Json::array();
    for (const v1::BodyState& b : reply->bodies()) {
      Json body = {{"id", b.id()},
                   {"type", v1::BodyType_Name(b.type())},
                   {"position", VecJson(b.transform().position())},
                   {"linear_velocity", VecJson(b.linear_velocity())},
                   {"shape_count", b.shape_count()},
                   {"asleep", b.asleep()}};
      if (world) body["shapes"] = ShapesJson(*world, b.id());
      bodies.push_back(std::move(body));
    }
    Json j = WorldJson(w);
    j["state_hash"] = Hex(w.state_hash());
    j["bodies"] = bodies;
    PrintJson(j);
    return 0;
  }
  std::printf("world %s: tick %" PRId64 " (oldest queryable %" PRId64 "), %" PRIu64
              " bodies (max %u), %d Hz, gravity (%g, %g), %d sub-steps, contact %d Hz%s, state hash %s\n",
              w.world_id().c_str(), w.tick(), w.oldest_tick(), w.body_count(), w.max_bodies(), w.tick_hz(),
              ToDouble(w.gravity().x()), ToDouble(w.gravity().y()), w.sub_steps(), w.contact_hertz(),
              w.allow_sleep() ? ", sleeping on" : "", Hex(w.state_hash()).c_str());
  for (const v1::BodyState& b : reply->bodies()) {
    std::printf("  body %-8" PRIu64 " %-20s at (%.6g, %.6g) velocity (%.6g, %.6g), %u shape(s)%s\n", b.id(),
                v1::BodyType_Name(b.type()).c_str(), ToDouble(b.transform().position().x()),
                ToDouble(b.transform().position().y()), ToDouble(b.linear_velocity().x()),
                ToDouble(b.linear_velocity().y()), b.shape_count(), b.asleep() ? ", asleep" : "");
    if (world) PrintShapes(*world, b.id());
  }
  return 0;
}

int RunCreate(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() > 1) return Usage(c, "unexpected argument '" + p[1] + "' (at most one SCENE.json)");
  const std::optional<uint64_t> batch = BatchFlag(c);
  if (!batch) return Usage(c, "--batch: must be a positive integer");
  v1::CreateWorldRequest request;
  std::vector<BodyDef> bodies;
  std::string source;
  if (!p.empty()) {
    scene::Scene loaded;
    if (int rc = LoadSceneInto(c, p[0], &loaded); rc != 0) return rc;
    SetSceneSettings(loaded, &request);
    bodies = std::move(loaded.bodies);
    source = " from " + p[0];
  }
  if (c.args->Has("scene")) {
    request.set_scene(c.args->Get("scene", ""));
    source = " from the server's scene " + request.scene();
  }
  if (c.args->Has("gravity")) {
    double x = 0, y = 0;
    if (auto e = ParsePair("--gravity", c.args->Get("gravity", ""), kCoordinate, &x, &y)) return Usage(c, *e);
    *request.mutable_gravity() = client::MakeVec2(x, y);
  }
  const IntegerFlag<uint32_t> counts[] = {{"max_bodies", &v1::CreateWorldRequest::set_max_bodies},
                                          {"history_ticks", &v1::CreateWorldRequest::set_history_ticks}};
  if (auto e = SetIntegerFlags<uint32_t>(c, counts, UINT32_MAX, "must be an integer in [0, 2^32)", &request)) {
    return Usage(c, *e);
  }
  if (c.args->Has("sleep")) request.set_allow_sleep(true);
  if (c.args->Has("tick_hz")) {
    const std::optional<uint64_t> hz = ParseUint(c.args->Get("tick_hz", ""));
    if (!hz || *hz == 0 || *hz > 10000) return Usage(c, "--tick_hz: must be an integer in [1, 10000]");
    request.set_tick_hz(static_cast<int32_t>(*hz));
  }
  // Range-checked by the server (INVALID_ARGUMENT naming the field), which
  // owns the limits; here only that each is an integer.
  const IntegerFlag<int32_t> solver[] = {{"sub_steps", &v1::CreateWorldRequest::set_sub_steps},
                                         {"contact_hertz", &v1::CreateWorldRequest::set_contact_hertz}};
  if (auto e = SetIntegerFlags<int32_t>(c, solver, INT32_MAX, "must be a non-negative integer", &request)) {
    return Usage(c, *e);
  }
  return CreateAndUpload(c, std::move(request), bodies, *batch, source);
}

int RunLoad(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage(c, p.empty() ? "missing SCENE.json" : "unexpected argument '" + p[1] + "'");
  const std::optional<uint64_t> batch = BatchFlag(c);
  if (!batch) return Usage(c, "--batch: must be a positive integer");
  scene::Scene loaded;
  if (int rc = LoadSceneInto(c, p[0], &loaded); rc != 0) return rc;
  Context named = c;
  named.world = c.args->Get("world", loaded.name);
  if (c.args->Has("replace")) {
    absl::StatusOr<v1::DescribeWorldResponse> old = Describe(named, false);
    if (old.ok()) {
      if (!Confirm(named, "replace", WorldText(old->world()))) return 1;
      v1::DeleteWorldRequest del;
      del.set_world_id(named.world);
      if (absl::StatusOr<v1::DeleteWorldResponse> d = c.client->DeleteWorld(del); !d.ok()) return Fail(c, d.status());
    } else if (old.status().code() != absl::StatusCode::kNotFound) {
      return Fail(c, old.status());
    }
  }
  v1::CreateWorldRequest request;
  SetSceneSettings(loaded, &request);
  return CreateAndUpload(named, std::move(request), loaded.bodies, *batch, " from " + p[0]);
}

int RunDelete(const Context& c) {
  if (!c.args->positional().empty()) return Usage(c, "unexpected argument '" + c.args->positional()[0] + "' (name the world with --world)");
  absl::StatusOr<v1::DescribeWorldResponse> old = Describe(c, false);
  if (!old.ok()) return Fail(c, old.status());
  if (!Confirm(c, "delete", WorldText(old->world()))) return 1;
  v1::DeleteWorldRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::DeleteWorldResponse> reply = c.client->DeleteWorld(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (c.json) {
    PrintJson({{"world", c.world}, {"deleted", true}, {"tick", reply->tick()}});
  } else {
    std::printf("deleted world %s (it was at tick %" PRId64 ")\n", c.world.c_str(), reply->tick());
  }
  return 0;
}

}  // namespace arbiter::cli

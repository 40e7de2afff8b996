// World lifecycle: create (from a request or a --scene file), adopt (recovery,
// replay), list and delete. A new world is visible only once journaled.
#include "ops/operations.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "arbiter/wire/convert.h"
#include <filesystem>

#include "arbiter/scene/scene.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"
#include "ops/world_records.h"

namespace arbiter::server {
namespace {

// Gravity and tick rate are bounded by the core's table (limits.h) and
// checked by its ValidateWorldDef.
constexpr int32_t kDefaultTickHz = 60;

absl::StatusOr<std::string> ResolveScenePath(const std::string& scene_dir, const std::string& name) {
  namespace fs = std::filesystem;
  if (scene_dir.empty()) {
    return absl::FailedPreconditionError("scene: this server loads no scene files (start it with --scene_dir)");
  }
  const fs::path rel(name);
  bool escapes = rel.is_absolute() || rel.has_root_name();
  for (const fs::path& part : rel) escapes = escapes || part == "..";
  if (escapes) return absl::InvalidArgumentError("scene: must be a relative path inside the scene directory, without '..'");
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(scene_dir, ec);
  const fs::path full = fs::weakly_canonical(base / rel, ec);
  // A symbolic link inside the directory may still point out of it.
  const auto [mismatch, unused] = std::mismatch(base.begin(), base.end(), full.begin(), full.end());
  if (ec || mismatch != base.end()) {
    return absl::InvalidArgumentError("scene: '" + name + "' resolves outside the scene directory");
  }
  if (!fs::is_regular_file(full, ec)) return absl::NotFoundError("scene: no scene file '" + name + "'");
  return full.string();
}

absl::Status LoadScene(const std::string& path, const std::string& shown_name, scene::Scene* out) {
  const arbiter::Status s = scene::LoadSceneFile(path, out);
  if (s.ok()) return absl::OkStatus();
  // The loader prefixes its messages with the server-side path; callers
  // named the file relative to the scene directory.
  std::string message = s.message();
  if (message.rfind(path, 0) == 0) message.erase(0, path.size());
  return FromCore(arbiter::Status(s.code(), "scene '" + shown_name + "'" + message));
}

// The file a CreateWorld names, loaded once it is known to lie inside
// --scene_dir and to be no larger than --max_scene_bytes.
absl::Status LoadRequestedScene(const ServiceLimits& limits, const std::string& name, scene::Scene* out) {
  absl::StatusOr<std::string> path = ResolveScenePath(limits.scene_dir, name);
  if (!path.ok()) return path.status();
  // Checked before parsing: the parser would hold the whole file (and a
  // DOM several times its size) in memory.
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(*path, ec);
  if (!ec && bytes > limits.max_scene_bytes) {
    return absl::ResourceExhaustedError("scene: '" + name + "' has " + std::to_string(bytes) +
                                        " bytes, more than --max_scene_bytes (" +
                                        std::to_string(limits.max_scene_bytes) + ")");
  }
  return LoadScene(*path, name, out);
}

// A CreateWorld's own settings (tick rate, gravity, capacity), checked
// before anything is parsed or loaded; *gravity is the parsed gravity.
absl::Status CheckWorldSettings(const v1::CreateWorldRequest& request, uint32_t body_limit, Vec2* gravity) {
  if (request.tick_hz() < 0 || request.tick_hz() > kMaxTickHz) {
    return absl::OutOfRangeError("tick_hz: must be in 1..10000 (0 for the default)");
  }
  if (absl::Status s = wire::ParseVec2(request.gravity(), "gravity", gravity); !s.ok()) return s;
  if (request.has_gravity()) {
    WorldDef probe;
    probe.gravity = *gravity;
    if (absl::Status s = FromCore(ValidateWorldDef(probe)); !s.ok()) return s;
  }
  // The solver settings are checked before anything is loaded or made.
  WorldDef solver;
  if (request.has_sub_steps()) solver.sub_steps = request.sub_steps();
  if (request.has_contact_hertz()) solver.contact_hertz = request.contact_hertz();
  if (absl::Status s = FromCore(ValidateWorldDef(solver)); !s.ok()) return s;
  if (request.max_bodies() > body_limit) {
    return absl::ResourceExhaustedError("max_bodies: " + std::to_string(request.max_bodies()) +
                                        " exceeds the server's limit of " + std::to_string(body_limit) +
                                        " (--max_bodies_per_world)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::shared_ptr<WorldEntry>> Operations::InsertNewWorld(const std::string& id, World world,
                                                                       uint32_t history_ticks) {
  // The id is reserved first (the entry stays invisible while kCreating), so
  // that two creations of one id can never both write a live journal row.
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry =
      registry_->Insert(id, std::move(world), history_ticks, {}, WorldEntry::State::kCreating);
  if (!entry.ok()) return entry.status();
  const absl::Status journaled = (*entry)->Write([&](World& created) {
    int64_t key = -1;
    if (absl::Status s = JournalNewWorld(id, created, history_ticks, &key); !s.ok()) return s;
    (*entry)->journal() = JournalCursor{key, 1};
    (*entry)->SetState(WorldEntry::State::kLive);
    return absl::OkStatus();
  });
  if (!journaled.ok()) {
    (void)registry_->Remove(id);
    return journaled;
  }
  return entry;
}

absl::Status Operations::CreateWorld(const v1::CreateWorldRequest& request, v1::CreateWorldResponse* reply,
                                     const CancelFn& cancelled) {
  if (absl::Status s = ValidateWorldId(request.world_id()); !s.ok()) return s;
  if (absl::Status s = registry_->CheckCanInsert(request.world_id()); !s.ok()) return s;
  if (request.bodies_size() > 0) {
    if (absl::Status s = CheckBatch(static_cast<size_t>(request.bodies_size()), "bodies"); !s.ok()) return s;
  }
  const uint32_t limit = registry_->limits().max_bodies_per_world;
  Vec2 gravity;
  if (absl::Status s = CheckWorldSettings(request, limit, &gravity); !s.ok()) return s;
  // Parse the inline bodies before the (possibly slow) scene load, so a bad
  // request fails fast.
  std::vector<BodyDef> bodies(static_cast<size_t>(request.bodies_size()));
  for (size_t i = 0; i < bodies.size(); ++i) {
    const absl::Status s = wire::ParseBodyDef(request.bodies(static_cast<int>(i)), Indexed("bodies", i), &bodies[i]);
    if (!s.ok()) return s;
  }

  WorldDef def;
  def.tick_hz = kDefaultTickHz;
  scene::Scene loaded;
  if (!request.scene().empty()) {
    if (absl::Status s = LoadRequestedScene(limits_, request.scene(), &loaded); !s.ok()) return s;
    def = loaded.world;
  }
  if (request.has_gravity()) def.gravity = gravity;
  if (request.tick_hz() != 0) def.tick_hz = request.tick_hz();
  if (request.has_allow_sleep()) def.allow_sleep = request.allow_sleep();
  if (request.has_sub_steps()) def.sub_steps = request.sub_steps();
  if (request.has_contact_hertz()) def.contact_hertz = request.contact_hertz();
  def.max_bodies = request.max_bodies() != 0 ? request.max_bodies() : limit;
  if (absl::Status s = FromCore(ValidateWorldDef(def)); !s.ok()) return s;
  absl::StatusOr<uint32_t> history_ticks = HistoryTicks(request.history_ticks(), def.tick_hz);
  if (!history_ticks.ok()) return history_ticks.status();

  if (cancelled()) return Cancelled();
  World world(def);
  if (!loaded.bodies.empty()) {
    if (absl::Status s = FromCore(world.AddBodies(loaded.bodies)); !s.ok()) {
      return WithPrefix(s, "scene '" + request.scene() + "': ");
    }
  }
  if (!bodies.empty()) {
    if (absl::Status s = FromCore(world.AddBodies(bodies)); !s.ok()) return s;
  }
  if (cancelled()) return Cancelled();
  if (absl::Status s = registry_->CheckCanInsert(request.world_id()); !s.ok()) return s;
  FillWorldInfo(request.world_id(), *history_ticks, world.tick(), world, true, reply->mutable_world());
  return InsertNewWorld(request.world_id(), std::move(world), *history_ticks).status();
}

absl::StatusOr<std::shared_ptr<WorldEntry>> Operations::AdoptWorld(const std::string& id, uint32_t history_ticks,
                                                                   const std::string& snapshot) {
  if (absl::Status s = ValidateWorldId(id); !s.ok()) return s;
  World world;
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(snapshot.data()), snapshot.size());
  if (absl::Status s = FromCore(World::Restore(bytes, &world)); !s.ok()) return WithPrefix(s, "snapshot: ");
  return registry_->Insert(id, std::move(world), std::max<uint32_t>(history_ticks, 1));
}

absl::StatusOr<std::string> Operations::PreloadScene(const std::string& path) {
  scene::Scene loaded;
  if (absl::Status s = FromCore(scene::LoadSceneFile(path, &loaded)); !s.ok()) return s;
  if (absl::Status s = ValidateWorldId(loaded.name, path + ": name"); !s.ok()) return s;
  // A world recovered from the journal (or still being recovered) is newer
  // than its scene file.
  if (registry_->Holds(loaded.name)) return loaded.name;
  WorldDef def = loaded.world;
  def.max_bodies = registry_->limits().max_bodies_per_world;
  World world;
  if (absl::Status s = FromCore(World::Create(def, &world)); !s.ok()) return WithPrefix(s, path + ": ");
  if (absl::Status s = FromCore(world.AddBodies(loaded.bodies)); !s.ok()) return WithPrefix(s, path + ": ");
  absl::StatusOr<uint32_t> history_ticks = HistoryTicks(0, def.tick_hz);
  if (!history_ticks.ok()) return history_ticks.status();
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = InsertNewWorld(loaded.name, std::move(world), *history_ticks);
  if (!entry.ok()) return WithPrefix(entry.status(), path + ": ");
  return loaded.name;
}

absl::Status Operations::DeleteWorld(const v1::DeleteWorldRequest& request, v1::DeleteWorldResponse* reply) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> found = registry_->Find(request.world_id());
  if (!found.ok()) return found.status();
  // A frozen world is being moved: its delete ends the move on this
  // instance and leaves a tombstone naming where it went.
  const auto [key, moved_to, epoch] = (*found)->Read([&](const World&) {
    return std::make_tuple((*found)->journal().key,
                           (*found)->frozen() ? (*found)->destination() : std::string(), (*found)->epoch());
  });
  if (durability_.journal != nullptr && key >= 0) {
    // The tombstone goes in the delete's transaction: a restart either
    // still has the frozen world or knows where it went.
    const int64_t until = std::chrono::duration_cast<std::chrono::seconds>(
                              (std::chrono::system_clock::now() + registry_->limits().moved_tombstone)
                                  .time_since_epoch())
                              .count();
    const MovedAway moved{request.world_id(), moved_to, epoch, until};
    if (absl::Status s = durability_.journal->DeleteWorld(key, moved_to.empty() ? nullptr : &moved); !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Remove(request.world_id(), moved_to);
  if (!entry.ok()) return entry.status();
  reply->set_tick((*entry)->Read([](const World& world) { return world.tick(); }));
  return absl::OkStatus();
}

absl::Status Operations::ListWorlds(const v1::ListWorldsRequest&, v1::ListWorldsResponse* reply) {
  for (const std::shared_ptr<WorldEntry>& entry : registry_->List()) {
    // Skipped if it went offline since List().
    (void)entry->ReadLive([&](const World& world) {
      FillWorldInfo(*entry, world, false, reply->add_worlds());
      return absl::OkStatus();
    });
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server

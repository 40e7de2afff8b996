// File: world_registry.h
//
// The worlds a server holds, by id, each behind its own readers-writer
// lock. This layer knows nothing of gRPC: it returns absl::Status.
//
// Concurrency model: queries run World's const methods under the world's
// shared lock, in parallel with each other; Step and every mutation take it
// exclusively, so a query sees the world at tick k or k + 1, never in the
// middle of a step. Worlds are independent: the registry's own mutex guards
// only the id -> world map and is never held while a world is locked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/core/world.h"
#include "event_broadcaster.h"
#include "rw_lock.h"

namespace arbiter::server {

/// One world and its lock and event fan-out.
class WorldEntry {
 public:
  WorldEntry(std::string id, World world) : id_(std::move(id)), world_(std::move(world)) {}
  WorldEntry(const WorldEntry&) = delete;
  WorldEntry& operator=(const WorldEntry&) = delete;

  const std::string& id() const { return id_; }

  /// Runs fn(const World&) under the shared lock if it is free right now
  /// (no writer holds or awaits it); returns false without running fn
  /// otherwise. Lets callers on threads that must not block try first.
  template <class Fn>
  bool TryRead(Fn&& fn) const {
    std::shared_lock<RwLock> lock(lock_, std::try_to_lock);
    if (!lock.owns_lock()) return false;
    fn(static_cast<const World&>(world_));
    return true;
  }

  /// Runs fn(const World&) under the shared lock, waiting for it.
  template <class Fn>
  decltype(auto) Read(Fn&& fn) const {
    std::shared_lock<RwLock> lock(lock_);
    return fn(static_cast<const World&>(world_));
  }

  /// Runs fn(World&) under the exclusive lock.
  template <class Fn>
  decltype(auto) Write(Fn&& fn) {
    std::unique_lock<RwLock> lock(lock_);
    return fn(world_);
  }

  EventBroadcaster& events() { return events_; }

 private:
  const std::string id_;
  mutable RwLock lock_;
  World world_;
  EventBroadcaster events_;
};

struct RegistryLimits {
  size_t max_worlds = 64;
  uint32_t max_bodies_per_world = uint32_t{1} << 20;
};

/// INVALID_ARGUMENT unless `id` has 1..64 characters from [A-Za-z0-9._-].
absl::Status ValidateWorldId(std::string_view id, std::string_view field = "world_id");

class WorldRegistry {
 public:
  explicit WorldRegistry(const RegistryLimits& limits) : limits_(limits) {}

  const RegistryLimits& limits() const { return limits_; }

  /// ALREADY_EXISTS if `id` is taken, RESOURCE_EXHAUSTED at --max_worlds.
  /// A cheap check before building a world; Insert checks again.
  absl::Status CheckCanInsert(std::string_view id) const;
  /// Adds a built world. Fails as CheckCanInsert (another caller may have
  /// taken the id since), or UNAVAILABLE once CloseAll was called.
  absl::StatusOr<std::shared_ptr<WorldEntry>> Insert(std::string id, World world);
  /// NOT_FOUND for an unknown id.
  absl::StatusOr<std::shared_ptr<WorldEntry>> Find(std::string_view id) const;
  /// Takes the world out of the registry and closes its watchers (ABORTED);
  /// calls already holding it finish on it. NOT_FOUND for an unknown id.
  absl::StatusOr<std::shared_ptr<WorldEntry>> Remove(std::string_view id);
  /// Every world, by id.
  std::vector<std::shared_ptr<WorldEntry>> List() const;
  /// Server shutdown: ends every watcher with `status` and refuses new worlds.
  void CloseAll(const absl::Status& status);

 private:
  absl::Status CheckCanInsertLocked(std::string_view id) const;

  const RegistryLimits limits_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WorldEntry>, std::less<>> worlds_;
  bool closed_ = false;
};

}  // namespace arbiter::server

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

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
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
#include "arbiter/core/history.h"
#include "arbiter/core/world.h"
#include "ops/event_broadcaster.h"
#include "ops/metrics.h"
#include "ops/rw_lock.h"
#include "ops/shot_ledger.h"

namespace arbiter::server {

/// The state hash after the step into each recent tick (and at creation
/// or restore), for lockstep peers' ReportHashes. Guarded by the world lock.
class TickHashes {
 public:
  explicit TickHashes(size_t capacity) : capacity_(capacity > 0 ? capacity : 1) {}
  /// Starts over at `tick` (creation, restore).
  void Reset(int64_t tick, uint64_t hash) {
    hashes_.clear();
    first_tick_ = tick;
    hashes_.push_back(hash);
  }
  /// The hash after the step into `tick` (== newest() + 1).
  void Push(uint64_t hash) {
    hashes_.push_back(hash);
    if (hashes_.size() > capacity_) {
      hashes_.pop_front();
      ++first_tick_;
    }
  }
  int64_t oldest() const { return first_tick_; }
  int64_t newest() const { return first_tick_ + static_cast<int64_t>(hashes_.size()) - 1; }
  /// Only for oldest() <= tick <= newest().
  uint64_t At(int64_t tick) const { return hashes_[static_cast<size_t>(tick - first_tick_)]; }

 private:
  const size_t capacity_;
  int64_t first_tick_ = 0;
  std::deque<uint64_t> hashes_;
};

/// Where a world's records go in the journal; guarded by the world lock.
struct JournalCursor {
  int64_t key = -1;   ///< the world's key in the journal; -1: not journaled
  uint64_t seq = 0;   ///< the last record written
};

/// One world and its lock, event fan-out, recent past and journal cursor.
class WorldEntry {
 public:
  /// Whether the world may be shown. kCreating: inserted to reserve its id
  /// while its creation is journaled, invisible (NOT_FOUND) until then.
  /// kOffline: a change could not be journaled; the world's state is no
  /// longer the durable one, so nobody may see or change it (UNAVAILABLE)
  /// until a restart recovers the durable state. It keeps its id, so no
  /// new world can take it and write a second live journal row for it.
  /// kRecovering: a placeholder that holds the id of a journaled world while
  /// a starting server replays it (UNAVAILABLE, with a retry hint), for the
  /// same reason; WorldRegistry::Install puts the replayed world in its place.
  /// kImporting: a placeholder holding the id of a world arriving from
  /// another instance (ImportWorld) while it is replayed (UNAVAILABLE).
  enum class State { kLive, kCreating, kOffline, kRecovering, kImporting };

  WorldEntry(std::string id, World world, uint32_t history_ticks, size_t hash_window, JournalCursor journal = {},
             State state = State::kLive)
      : id_(std::move(id)),
        state_(state),
        world_(std::move(world)),
        history_(history_ticks),
        hashes_(hash_window),
        journal_(journal) {
    hashes_.Reset(world_.tick(), world_.StateHash());
  }
  WorldEntry(const WorldEntry&) = delete;
  WorldEntry& operator=(const WorldEntry&) = delete;

  const std::string& id() const { return id_; }

  /// OK while live; NOT_FOUND while being created; UNAVAILABLE while
  /// offline or being recovered.
  absl::Status Availability() const;
  State state() const { return state_.load(); }
  /// Only under the exclusive lock (so that every call queued on the lock
  /// sees the new state before it sees the world).
  void SetState(State state) { state_.store(state); }
  /// Takes the world offline (under the exclusive lock) and ends its watch
  /// streams with UNAVAILABLE; `why` says what failed.
  void TakeOffline(const std::string& why);

  /// Frozen for a move to another instance (FreezeWorld): reads go on,
  /// every write (WriteLive) gets UNAVAILABLE naming `destination`. Both
  /// only under the exclusive lock; the destination cannot change while
  /// frozen (FAILED_PRECONDITION).
  absl::Status Freeze(const std::string& destination);
  void Thaw() { frozen_.store(false); }
  bool frozen() const { return frozen_.load(); }
  /// Where a frozen world is going; under the world lock.
  const std::string& destination() const { return destination_; }
  /// The world's ownership generation (WorldInfo.epoch): raised by each
  /// freeze and thaw, journaled with them and in every snapshot record.
  /// Under the world lock.
  uint64_t epoch() const { return epoch_; }
  void set_epoch(uint64_t epoch) { epoch_ = epoch; }

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

  // The same for calls that show or change the world on a client's behalf:
  // fn returns absl::Status and runs only while the world is live, checked
  // under the lock, so a call queued behind the write that took the world
  // offline gets UNAVAILABLE, never that write's unjournaled state.
  template <class Fn>
  bool TryReadLive(Fn&& fn, absl::Status* status) const {
    return TryRead([&](const World& world) { *status = RunIfLive(fn, world); });
  }
  template <class Fn>
  absl::Status ReadLive(Fn&& fn) const {
    return Read([&](const World& world) { return RunIfLive(fn, world); });
  }
  // Writes are refused while the world is frozen (Freeze).
  template <class Fn>
  absl::Status WriteLive(Fn&& fn) {
    return Write([&](World& world) -> absl::Status {
      if (absl::Status s = Availability(); !s.ok()) return s;
      if (frozen()) return Moving();
      return fn(world);
    });
  }

  EventBroadcaster& events() { return events_; }

  // Each of these is guarded by the world lock: read under the shared lock,
  // change under the exclusive one. (WorldHistory::At is safe to call from
  // many readers at once.)
  WorldHistory& history() { return history_; }
  const WorldHistory& history() const { return history_; }
  TickHashes& hashes() { return hashes_; }
  const TickHashes& hashes() const { return hashes_; }
  JournalCursor& journal() { return journal_; }
  const JournalCursor& journal() const { return journal_; }
  /// Step counters for /metrics: atomics, updated and read without the lock.
  WorldCounters& counters() const { return counters_; }
  /// The world as at `tick` + `fraction` (WorldHistory::At), never null on
  /// success: for the live tick the live world itself, held, not owned (the
  /// caller holds its shared lock while it uses it).
  arbiter::Status ViewAt(const World& live, int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) const {
    std::shared_ptr<const World> past;
    if (arbiter::Status s = history_.At(live, tick, fraction, &past); !s.ok()) return s;
    *out = past != nullptr ? std::move(past) : std::shared_ptr<const World>(std::shared_ptr<const World>(), &live);
    return arbiter::OkStatus();
  }
  /// The shots judged on this world (ValidateShots); its own lock.
  ShotLedger& shots() const { return shots_; }
  /// The oldest tick a query may name.
  int64_t oldest_tick(const World& world) const { return history_.empty() ? world.tick() : history_.oldest_tick(); }

 private:
  template <class Fn, class W>
  absl::Status RunIfLive(Fn& fn, W& world) const {
    if (absl::Status s = Availability(); !s.ok()) return s;
    return fn(world);
  }

  /// The refusal of a write to a frozen world.
  absl::Status Moving() const;

  const std::string id_;
  // Atomic so that Find can refuse without the world lock; changed only
  // under the exclusive lock.
  std::atomic<State> state_;
  std::atomic<bool> frozen_{false};
  std::string destination_;  // set under the exclusive lock, with frozen_
  uint64_t epoch_ = 0;       // under the world lock
  std::string offline_reason_;  // set before state_ becomes kOffline
  mutable RwLock lock_;
  World world_;
  EventBroadcaster events_;
  WorldHistory history_;
  TickHashes hashes_;
  JournalCursor journal_;
  mutable WorldCounters counters_;
  mutable ShotLedger shots_;
};

struct RegistryLimits {
  size_t max_worlds = 64;
  uint32_t max_bodies_per_world = uint32_t{1} << 20;
  /// Ticks of state hashes kept per world for ReportHashes.
  size_t hash_window_ticks = 36000;
  /// How long a world moved away (a frozen world deleted) is remembered:
  /// calls naming it get UNAVAILABLE "moved to ..." instead of NOT_FOUND.
  std::chrono::seconds moved_tombstone{600};
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
  /// `history_ticks`: the lag-compensation window (WorldHistory capacity).
  /// `journal`: where its changes are journaled (set before anyone can
  /// change it).
  absl::StatusOr<std::shared_ptr<WorldEntry>> Insert(std::string id, World world, uint32_t history_ticks,
                                                     JournalCursor journal = {},
                                                     WorldEntry::State state = WorldEntry::State::kLive);
  /// NOT_FOUND for an unknown id (or one still being created),
  /// UNAVAILABLE for an offline world.
  absl::StatusOr<std::shared_ptr<WorldEntry>> Find(std::string_view id) const;
  /// Inserts a placeholder for `id` (kRecovering or kImporting, see
  /// WorldEntry::State); fails as Insert.
  absl::Status Reserve(std::string id, WorldEntry::State state = WorldEntry::State::kRecovering);
  /// Puts `entry` (a world replayed elsewhere, live) in place of its id's
  /// placeholder. FAILED_PRECONDITION when there is none.
  absl::Status Install(std::shared_ptr<WorldEntry> entry);
  /// Removes the placeholder of an import that failed (no-op otherwise).
  void Unreserve(std::string_view id);
  /// Whether `id` is taken, in whatever state.
  bool Holds(std::string_view id) const;
  /// Takes the world out of the registry and closes its watchers (ABORTED);
  /// calls already holding it finish on it. NOT_FOUND for an unknown id.
  /// With `moved_to`, leaves a tombstone (RegistryLimits::moved_tombstone)
  /// and closes the watchers with the UNAVAILABLE "moved" status instead.
  absl::StatusOr<std::shared_ptr<WorldEntry>> Remove(std::string_view id, const std::string& moved_to = "");
  /// A tombstone read back from the journal at start (Journal::Tombstones):
  /// calls naming `id` get the "moved" status for `remaining` more.
  void RestoreTombstone(const std::string& id, const std::string& moved_to, std::chrono::seconds remaining);
  /// Every live world, by id.
  std::vector<std::shared_ptr<WorldEntry>> List() const;
  /// Server shutdown: ends every watcher with `status` and refuses new worlds.
  void CloseAll(const absl::Status& status);

 private:
  absl::Status CheckCanInsertLocked(std::string_view id) const;
  /// NOT_FOUND, or UNAVAILABLE "moved" while a tombstone for `id` lasts.
  absl::Status MissingLocked(std::string_view id) const;

  struct Tombstone {
    std::string moved_to;
    std::chrono::steady_clock::time_point until;
  };

  const RegistryLimits limits_;
  mutable std::mutex mu_;
  std::map<std::string, std::shared_ptr<WorldEntry>, std::less<>> worlds_;
  std::map<std::string, Tombstone, std::less<>> tombstones_;
  bool closed_ = false;
};

}  // namespace arbiter::server

// File: operations.h
//
// What each RPC does, without gRPC: validate the request, then read or
// change a world, then fill the reply. The service (arbiter_service.h)
// only schedules these and converts their status at its one seam.
//
// Every request is validated completely before any world is touched, and
// every change is all or nothing:
//  - AddBodies / RemoveBodies rely on the core's all-or-nothing batches;
//  - UpdateBodies applies updates in order with an undo log and rolls back
//    on the first failure;
//  - Step checks every command against the world first, snapshots the world
//    when it runs more than one tick, and restores that snapshot if a
//    command fails at a later tick or the caller cancels.
//
// Reads are split in two: Prepare* validates without any lock and returns a
// ReadOp that the service runs under the world's shared lock, on whatever
// thread can take it (see ArbiterService).
//
// One file per capability: operations_queries.cc (reads),
// operations_worlds.cc (create, adopt, list, delete), operations_bodies.cc
// (AddBodies, RemoveBodies, UpdateBodies through one path, Change; Restore),
// operations_step.cc (Step), operations_journal.cc (records, compaction,
// export); request_checks.h, body_updates.h and world_records.h hold what
// they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/core/step_thread_pool.h"
#include "arbiter/core/world.h"
#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/v1/journal.pb.h"
#include "journal/journal_store.h"
#include "ops/world_registry.h"

namespace arbiter::server {

/// Per-request limits (the server's flags).
struct ServiceLimits {
  uint32_t max_batch = 65536;                 ///< items per batch request
  size_t max_message_bytes = size_t{64} << 20;  ///< request and reply size
  uint32_t max_step_ticks = 100000;           ///< ticks per Step call
  uint32_t query_threads = 1;                 ///< threads one cast batch may use (replies identical for any)
  /// Threads a Step's ticks may use (World::Step with a StepThreadPool;
  /// state and events identical for any). One pool serves every world: a
  /// Step that finds it busy with another world's tick runs on its own
  /// thread.
  uint32_t step_threads = 1;
  std::string scene_dir;                      ///< CreateWorld.scene root; empty disables
  uint32_t history_seconds = 2;               ///< default lag-compensation window
  uint32_t max_history_ticks = 36000;         ///< CreateWorld.history_ticks limit
  uint64_t max_scene_bytes = uint64_t{256} << 20;  ///< largest scene file CreateWorld loads
  uint64_t max_import_bytes = uint64_t{64} << 20;  ///< largest ImportWorld export file
  uint32_t max_judged_shots = 65536;          ///< ValidateShots: judged shots each world remembers
  uint32_t max_rewind_ms = 0;                 ///< ValidateShots: furthest rewind any caller gets; 0: the history
};

/// Where accepted changes go before they are acknowledged (journal_store.h).
struct Durability {
  JournalStore* journal = nullptr;         ///< null: nowhere (in memory only)
  uint32_t snapshot_every_ticks = 600;  ///< a checkpoint whenever tick % this == 0
  bool record_queries = false;        ///< also journal queries and their answers
  /// Ticks of records kept beyond each world's history window: a
  /// checkpoint compacts the journal up to the newest snapshot at or before
  /// (tick - history_ticks - retain_ticks).
  int64_t retain_ticks = 216000;
};

class JournalExport;

/// Where verdicts go as they are given (the viewer's feed, http/hit_feed.h):
/// ValidateHit publishes each answered verdict and ValidateShots each first
/// judgement, with the flight's path, when somebody watches the world.
/// Called under the world's shared lock: implementations only queue.
class VerdictObserver {
 public:
  virtual ~VerdictObserver() = default;
  /// Whether anyone watches `world_id`: nothing is copied otherwise.
  virtual bool Watched(std::string_view world_id) const = 0;
  virtual void OnHit(const v1::ValidateHitRequest& request, const v1::ValidateHitResponse& reply) = 0;
  /// `path`: the projectile's positions at its fire time, at each tick
  /// boundary it crossed and where its traced flight ended.
  virtual void OnShot(const std::string& world_id, const v1::Shot& shot, const v1::ShotJudgement& judgement,
                      const std::vector<Vec2>& path) = 0;
};

/// Polled between batch items and between ticks; true once the caller has
/// cancelled or its deadline has passed.
using CancelFn = std::function<bool()>;

/// A validated read, bound to its world, to run under the shared lock. It
/// may refer to the request and the reply it was prepared from: both must
/// outlive the run.
struct ReadOp {
  std::shared_ptr<WorldEntry> entry;
  std::function<absl::Status(const World&, const CancelFn&)> run;
};

class Operations {
 public:
  Operations(WorldRegistry* registry, ServiceLimits limits, Durability durability = {});

  const ServiceLimits& limits() const { return limits_; }
  /// Set once at start, before any call (null: nobody is told).
  void set_verdict_observer(VerdictObserver* observer) { verdict_observer_ = observer; }
  WorldRegistry& registry() { return *registry_; }
  const Durability& durability() const { return durability_; }

  // ---- Reads: validate now, run later under the shared lock -------------------
  absl::StatusOr<ReadOp> PrepareDescribeWorld(const v1::DescribeWorldRequest& request, v1::DescribeWorldResponse* reply);
  absl::StatusOr<ReadOp> PrepareCastRays(const v1::CastRaysRequest& request, v1::CastRaysResponse* reply);
  absl::StatusOr<ReadOp> PrepareOverlap(const v1::OverlapRequest& request, v1::OverlapResponse* reply);
  absl::StatusOr<ReadOp> PrepareCastShapes(const v1::CastShapesRequest& request, v1::CastShapesResponse* reply);
  absl::StatusOr<ReadOp> PrepareDistance(const v1::DistanceRequest& request, v1::DistanceResponse* reply);
  absl::StatusOr<ReadOp> PrepareGetStateHash(const v1::GetStateHashRequest& request, v1::GetStateHashResponse* reply);
  absl::StatusOr<ReadOp> PrepareGetSnapshot(const v1::GetSnapshotRequest& request, v1::GetSnapshotResponse* reply);
  absl::StatusOr<ReadOp> PrepareValidateHit(const v1::ValidateHitRequest& request, v1::ValidateHitResponse* reply);
  absl::StatusOr<ReadOp> PrepareValidateMove(const v1::ValidateMoveRequest& request, v1::ValidateMoveResponse* reply);
  absl::StatusOr<ReadOp> PrepareMoveShapes(const v1::MoveShapesRequest& request, v1::MoveShapesResponse* reply);
  /// `caller_rewind_ms`: the calling token's rewind cap, if it has one.
  absl::StatusOr<ReadOp> PrepareValidateShots(const v1::ValidateShotsRequest& request,
                                              std::optional<uint32_t> caller_rewind_ms,
                                              v1::ValidateShotsResponse* reply);
  absl::StatusOr<ReadOp> PrepareReportHashes(const v1::ReportHashesRequest& request, v1::ReportHashesResponse* reply);

  // ---- Everything else: may block on world locks (run on a worker) --------------
  absl::Status CreateWorld(const v1::CreateWorldRequest& request, v1::CreateWorldResponse* reply,
                           const CancelFn& cancelled);
  absl::Status DeleteWorld(const v1::DeleteWorldRequest& request, v1::DeleteWorldResponse* reply);
  absl::Status ListWorlds(const v1::ListWorldsRequest& request, v1::ListWorldsResponse* reply);
  absl::Status AddBodies(const v1::AddBodiesRequest& request, v1::AddBodiesResponse* reply);
  absl::Status RemoveBodies(const v1::RemoveBodiesRequest& request, v1::RemoveBodiesResponse* reply);
  absl::Status UpdateBodies(const v1::UpdateBodiesRequest& request, v1::UpdateBodiesResponse* reply);
  absl::Status Step(const v1::StepRequest& request, v1::StepResponse* reply, const CancelFn& cancelled);
  absl::Status Restore(const v1::RestoreRequest& request, v1::RestoreResponse* reply);
  /// A journal export file (journal.proto), to be read chunk by chunk
  /// (journal_export.h).
  absl::StatusOr<std::unique_ptr<JournalExport>> OpenExport(const v1::ExportJournalRequest& request);

  // ---- Moving a world to another instance (operations_migration.cc) -----------
  /// Refuses (or, with thaw, accepts again) every write to the world,
  /// durably (a move record in its journal), raising its epoch; replies
  /// with the tick and state hash it froze at and the epoch.
  absl::Status FreezeWorld(const v1::FreezeWorldRequest& request, v1::FreezeWorldResponse* reply);
  /// Inserts a world rebuilt from a journal snapshot (recovery and replay),
  /// not journaled again.
  absl::StatusOr<std::shared_ptr<WorldEntry>> AdoptWorld(const std::string& id, uint32_t history_ticks,
                                                         const std::string& snapshot);

  /// Drops the journal records of `entry` that no recovery or retained
  /// export needs (Journal::Compact); after each checkpoint and at start.
  void CompactJournal(const WorldEntry& entry, const World& world);

  /// Loads a scene file named by the operator (--scene) as a world called
  /// after the scene's "name"; returns that name.
  absl::StatusOr<std::string> PreloadScene(const std::string& path);

 private:
  /// RESOURCE_EXHAUSTED past --max_batch, INVALID_ARGUMENT when empty.
  absl::Status CheckBatch(size_t size, const char* field) const;
  /// The default or requested lag-compensation window of a new world.
  absl::StatusOr<uint32_t> HistoryTicks(uint32_t requested, int32_t tick_hz) const;
  /// Journals a new world before it is inserted (no-op without a journal).
  absl::Status JournalNewWorld(const std::string& id, const World& world, uint32_t history_ticks, int64_t* key);
  /// Inserts a new world, visible only once its creation is journaled.
  absl::StatusOr<std::shared_ptr<WorldEntry>> InsertNewWorld(const std::string& id, World world,
                                                             uint32_t history_ticks);
  /// Journals `records` (seq assigned here) for a change already applied to
  /// `world` under its exclusive lock. On failure the world is taken
  /// offline (WorldEntry::TakeOffline), so nobody sees the unacknowledged
  /// change; a restart recovers the last acknowledged state.
  absl::Status JournalChange(WorldEntry& entry, std::vector<v1::JournalRecord*> records);
  /// Journals a step run from `start_tick` (its request and every tick's
  /// hash), with a checkpoint when it crossed one (operations_step.cc).
  absl::Status JournalStep(WorldEntry& entry, const World& world, const v1::StepRequest& request, int64_t start_tick,
                           const std::vector<uint64_t>& tick_hashes);
  /// Whether `entry`'s changes go to a journal (records are built only then).
  bool Journaled(const WorldEntry& entry) const;
  /// The one path of a change to bodies: under the exclusive lock of a live
  /// world, expected_tick, apply(world), then `request` journaled in
  /// `field` at the world's tick (operations_bodies.cc).
  template <class Request, class Apply>
  absl::Status Change(WorldEntry& entry, const Request& request, Request* (v1::JournalRecord::*field)(), Apply apply);
  /// FreezeWorld's two ways, under the exclusive lock of a live world: the
  /// move record journaled first (a restart must find the world as it was
  /// acknowledged), then the freeze or thaw and its new epoch. Idempotent.
  absl::Status FreezeLocked(WorldEntry& entry, const World& world, const std::string& destination);
  absl::Status ThawLocked(WorldEntry& entry, const World& world);
  /// Journals one record that takes effect only once it is durable (a
  /// move step): on failure nothing changed, so the world stays live.
  absl::Status JournalMarker(WorldEntry& entry, v1::JournalRecord* record);
  /// Tells the shot observer (if it watches the world) of each shot judged now.
  void PublishShots(const WorldEntry& entry, const World& live, const v1::ValidateShotsRequest& request,
                    const v1::ValidateShotsResponse& reply) const;
  /// Appends a query and its reply when --journal_queries is on.
  void JournalQuery(const WorldEntry& entry, const World& live, v1::JournalRecord record) const;
  /// Wraps a read so it runs on the world as at `at` (when set) and, when
  /// queries are journaled, records it with its reply.
  template <class Request, class Reply>
  ReadOp MakeRead(std::shared_ptr<WorldEntry> entry, const Request& request, Reply* reply,
                  std::function<absl::Status(const World&, const CancelFn&)> run);

  WorldRegistry* registry_;
  VerdictObserver* verdict_observer_ = nullptr;
  const ServiceLimits limits_;
  const Durability durability_;
  /// --step_threads: null for one thread.
  std::unique_ptr<StepThreadPool> step_pool_;
};

}  // namespace arbiter::server

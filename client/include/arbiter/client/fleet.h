// File: fleet.h
//
// Working with a fleet of arbiter-server instances behind a proxy that
// routes by world id (issue 16; docker/nginx/, docs/fleet.md):
//  - MigrateWorld moves one world from one instance to another
//    (FreezeWorld, ExportJournal, ImportWorld, DeleteWorld: arbiter.proto
//    "Moving a world"); ResumeMigration finishes a move that was cut
//    short, and ThawWorld undoes one that did not happen;
//  - ListWorldsAcross asks every instance of a known list (ListWorlds goes
//    to one instance, so through the proxy it would show one instance's);
//  - ConsistentHashRing says which instance nginx's
//    `hash $http_x_arbiter_world consistent` routes a world id to.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/client/client.h"

namespace arbiter::client {

/// What one move did.
struct MigrationReport {
  int64_t tick = 0;         ///< the tick the world was frozen at (and serves at on the destination)
  uint64_t state_hash = 0;  ///< its state hash there
  uint64_t epoch = 0;       ///< the epoch it was frozen at (and serves at on the destination)
  /// ResumeMigration only: the destination held the world already, so
  /// only the source's copy had to go.
  bool resumed_after_import = false;
  uint64_t records = 0;     ///< journal records replayed on the destination
  uint64_t export_bytes = 0;
  /// From the freeze on the source to the destination serving: the window
  /// in which writes to the world were refused (UNAVAILABLE, retryable).
  std::chrono::microseconds write_refusal{0};
  /// The export streamed into the destination's import (ImportWorldStream),
  /// which replays each record as it arrives.
  std::chrono::microseconds export_time{0};
  /// From the export's end to the import's answer (the last records, the
  /// checks and the commit on the destination).
  std::chrono::microseconds import_time{0};
  /// Set when the world serves on the destination but could not be deleted
  /// on the source (which stays frozen, refusing writes): what to run.
  std::string warning;
};

/// Moves `world_id` from `from` to `to` (admin on both). `to_address` is
/// named in the source's refusals and tombstone. Before anything changes:
/// ALREADY_EXISTS when the destination holds the world already. After the
/// freeze (durable on the source, at a new epoch E):
///  - an export that fails, or an import the destination refused
///    (validation, limits, roles: nothing changed there), thaws the source
///    again, so the world keeps serving there;
///  - an import whose outcome is unknown (UNAVAILABLE, DEADLINE_EXCEEDED,
///    INTERNAL, ...) asks the destination: the world live there at epoch E
///    means it arrived, and the move goes on; otherwise the source stays
///    frozen (refusing writes, never serving twice) and the error says to
///    run ResumeMigration (`arbiter migrate ... --resume`).
/// If the source's copy cannot be deleted at the end the report's warning
/// says so (the source stays frozen; ResumeMigration deletes it).
absl::StatusOr<MigrationReport> MigrateWorld(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                                             const std::string& to_address);

/// Finishes a move cut short (a crash of either instance or of the client
/// after the freeze): the source must hold the world frozen, moving to
/// `to_address` (FAILED_PRECONDITION otherwise). If the destination holds it
/// at the freeze's epoch only the source's copy goes; if it does not hold
/// it, the export and import run again first; at another epoch, nothing
/// changes (FAILED_PRECONDITION: two copies, keep one by hand).
absl::StatusOr<MigrationReport> ResumeMigration(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                                                const std::string& to_address);

/// Undoes a freeze (FreezeWorld with thaw). With `to` (the destination),
/// first checks that it does not serve the world at the epoch frozen on
/// the source (FAILED_PRECONDITION: the move happened, resume it instead)
/// and that it answers at all; null thaws without asking.
absl::StatusOr<v1::FreezeWorldResponse> ThawWorld(ArbiterClient& from, ArbiterClient* to,
                                                  const std::string& world_id);

/// One instance's answer to ListWorlds, within a fleet listing.
struct FleetWorld {
  std::string instance;  ///< the address it was listed by
  v1::WorldInfo info;
};
struct FleetListing {
  /// Every world listed, by (world id, instance): a world listed twice is
  /// mid-move (or on two instances by mistake) and shows both.
  std::vector<FleetWorld> worlds;
  /// Instances that did not answer, with why; the others are still listed.
  std::vector<std::pair<std::string, absl::Status>> unreachable;
};

/// ListWorlds on each of `instances` ("host:port"), merged.
FleetListing ListWorldsAcross(const std::vector<std::string>& instances, const ClientOptions& options = {});

/// nginx's `hash KEY consistent` (ngx_http_upstream_hash_module, ketama):
/// each server (weight 1) gets 160 points on a 32-bit ring, point k being
/// crc32 of host, "\0", port and point k-1 (4 bytes, little-endian; 0 for
/// the first); a key goes to the first point >= crc32(key), wrapping.
/// `servers` are spelt exactly as in the nginx `server` lines ("host:port").
/// Servers marked down or failing are not modelled (nginx then tries the
/// next point): this is the owner while every instance is up.
class ConsistentHashRing {
 public:
  explicit ConsistentHashRing(std::vector<std::string> servers);
  /// The index in `servers` (which must not be empty) of the server `key`
  /// routes to.
  size_t OwnerIndex(const std::string& key) const;
  const std::string& Owner(const std::string& key) const { return servers_[OwnerIndex(key)]; }
  const std::vector<std::string>& servers() const { return servers_; }

 private:
  std::vector<std::string> servers_;
  std::vector<std::pair<uint32_t, size_t>> points_;  // (hash, server index), sorted, unique hashes
};

/// CRC-32 (IEEE 802.3, reflected, as zlib's and nginx's ngx_crc32_long).
uint32_t Crc32(const void* data, size_t size);

}  // namespace arbiter::client

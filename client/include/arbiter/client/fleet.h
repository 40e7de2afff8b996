// File: fleet.h
//
// Working with a fleet of arbiter-server instances behind a proxy that
// routes by world id (issue 16; docker/nginx/, docs/fleet.md):
//  - MigrateWorld moves one world from one instance to another
//    (FreezeWorld, ExportJournal, ImportWorld, DeleteWorld: arbiter.proto
//    "Moving a world");
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
  uint64_t records = 0;     ///< journal records replayed on the destination
  uint64_t export_bytes = 0;
  /// From the freeze on the source to the destination serving: the window
  /// in which writes to the world were refused (UNAVAILABLE, retryable).
  std::chrono::microseconds write_refusal{0};
  std::chrono::microseconds export_time{0};  ///< ExportJournal on the source
  std::chrono::microseconds import_time{0};  ///< ImportWorld on the destination
  /// Set when the world serves on the destination but could not be deleted
  /// on the source (which stays frozen, refusing writes): what to run.
  std::string warning;
};

/// Moves `world_id` from `from` to `to` (admin on both). `to_address` is
/// named in the source's refusals and tombstone. Before anything changes:
/// ALREADY_EXISTS when the destination holds the world already. A failure
/// after the freeze thaws the source again, so the world keeps serving
/// there; if even that fails the message says how to thaw it by hand
/// (`arbiter migrate --world W --from A --thaw`).
absl::StatusOr<MigrationReport> MigrateWorld(ArbiterClient& from, ArbiterClient& to, const std::string& world_id,
                                             const std::string& to_address);

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

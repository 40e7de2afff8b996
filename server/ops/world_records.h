// File: world_records.h
//
// What leaves the server about a whole world: its WorldInfo (ListWorlds,
// DescribeWorld, CreateWorld, Restore) and its snapshot as a journal
// record (creation, checkpoints, restores).
#pragma once

#include <cstdint>
#include <string>

#include "arbiter/core/world.h"
#include "arbiter/v1/arbiter.pb.h"
#include "arbiter/v1/journal.pb.h"
#include "ops/world_registry.h"

namespace arbiter::server {

/// The world's settings, tick and body count (and state hash).
void FillWorldInfo(const std::string& id, uint32_t history_ticks, int64_t oldest_tick, const World& world,
                   bool with_hash, v1::WorldInfo* out);
void FillWorldInfo(const WorldEntry& entry, const World& world, bool with_hash, v1::WorldInfo* out);
/// A snapshot record of `world` at its tick (`restored`: made by Restore),
/// with the world's epoch (WorldEntry::epoch).
v1::JournalRecord SnapshotRecord(const World& world, bool restored, uint64_t epoch);
/// The journal record of a move step (FreezeWorld, thaw, ImportWorld).
v1::JournalRecord MoveRecord(const World& world, v1::WorldMove::Kind kind, const std::string& destination,
                             uint64_t epoch);

}  // namespace arbiter::server

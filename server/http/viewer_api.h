// File: viewer_api.h
//
// The JSON the viewer page reads (GET /api/...), built from the same world
// state the gRPC reads see. Geometric numbers are JSON numbers written as
// exact decimals of the Q32.32 values (render/exact_decimal.h), so the
// text is the same bytes on every machine; body ids are strings (they may
// exceed 2^53, which JavaScript numbers cannot hold).
//
//   GET /api/worlds            {"worlds":[{"world_id","tick","body_count","tick_hz",
//                                          "history_ticks","oldest_tick"}...]}
//   GET /api/worlds/W[?at=T]   {"world_id","tick","live_tick","oldest_tick","tick_hz",
//                               "bodies":[{"id","type","x","y","c","s","vx","vy","w",
//                                          "shapes":[{"kind","sensor",...}]}]}
// Shapes in the body frame: circle {cx,cy,r}; polygon {points:[[x,y]...],r};
// capsule {x1,y1,x2,y2,r}; segment {x1,y1,x2,y2}.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "arbiter/core/world.h"
#include "ops/world_registry.h"

namespace arbiter::server {

/// The live worlds `visible` admits, by id.
std::string WorldsJson(WorldRegistry& registry, const std::function<bool(std::string_view)>& visible);

/// One world with every body, live or as at past tick `at` through the
/// same history path as past-tick queries (WorldHistory::At): OUT_OF_RANGE
/// naming "at" outside the retained window; NOT_FOUND / UNAVAILABLE as
/// WorldRegistry::Find.
absl::StatusOr<std::string> WorldJson(WorldRegistry& registry, std::string_view world_id, std::optional<int64_t> at);

/// The bodies of `world` as a JSON array (also sent on the event stream).
std::string BodiesJson(const World& world);

}  // namespace arbiter::server

// File: shot_judge.h
//
// The verdict behind ValidateShots (proto/arbiter/v1/arbiter.proto states
// the rules a client sees): a projectile's traced flight
// (core/include/arbiter/core/projectile.h) held against what the shooter
// claims. No gRPC here, so the rules are tested on plain flights.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arbiter/core/projectile.h"

namespace arbiter::server {

enum class ShotVerdict : uint8_t { kConfirmed, kBlocked, kMissed, kMismatched, kTooOld };
inline constexpr int kShotVerdictCount = 5;

/// What the shooter says its shot did.
struct ShotClaim {
  uint64_t target_body_id = 0;
  int64_t impact_tick = 0;
  std::optional<Vec2> impact_point;
};

/// How far a claim may be from the traced flight and still be CONFIRMED.
struct ShotTolerance {
  uint32_t ticks = 0;      ///< |traced impact tick - claimed tick| <= ticks
  Fixed point = kFixedZero;  ///< |traced impact point - claimed point| <= point (units, exact)
};

/// The verdict of `flight` for `claim`, and a one-line reason for logs.
/// CONFIRMED: the flight's first hit is on the claimed target within the
/// tolerances; MISMATCHED: on the target but outside them; BLOCKED: on
/// another body first; MISSED: no hit. (TOO_OLD is decided before tracing.)
ShotVerdict JudgeFlight(const ProjectileFlight& flight, const ShotClaim& claim, const ShotTolerance& tolerance,
                        std::string* reason);

/// The verdict's name for logs and metrics labels: "confirmed", "too_old", ...
const char* ShotVerdictName(ShotVerdict verdict);

}  // namespace arbiter::server

// World-unit arguments of the `arbiter` tool: numbers typed in world units
// (doubles), checked against the range the service accepts for that kind
// of value before anything is sent, so that a mistyped `-1e300` is named as
// the argument that is out of range instead of reaching the server as a
// saturated raw value. Conversion is Fixed::FromDouble (exact and the same
// on every machine), as in the client library's Make* helpers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::cli {

/// A kind of world-unit value and the service's bound on it: |v| <= 2^log2.
struct UnitRange {
  const char* kind;  // "a coordinate", for messages
  int log2;
};
inline constexpr UnitRange kCoordinate{"a coordinate", 29};   // positions, ray origins (limits.h)
inline constexpr UnitRange kTranslation{"a translation", 30}; // ray and sweep translations
inline constexpr UnitRange kExtent{"a shape size", 24};       // radii, half extents (kMaxShapeExtent)
inline constexpr UnitRange kSpeed{"a velocity", 24};          // units/s (BodyDef.linear_velocity)

/// Parses `text`, the argument `name`, as world units within `range`.
/// Returns the error to print (naming the argument, the value and the
/// range), or nullopt with *out set.
std::optional<std::string> ParseUnits(const std::string& name, const std::string& text, UnitRange range,
                                      double* out);

/// Parses "X,Y" (the argument `name`) as two world-unit values in `range`.
std::optional<std::string> ParsePair(const std::string& name, const std::string& text, UnitRange range,
                                     double* x, double* y);

/// Parses `--at TICK[:FRACTION]`: a tick, and optionally how far towards
/// the next tick (a number in [0, 1), converted exactly to Q32.32 as the
/// wire's PastTick.fraction). Returns the error to print, or nullopt.
std::optional<std::string> ParseAt(const std::string& text, v1::PastTick* out);

}  // namespace arbiter::cli

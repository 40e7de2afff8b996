#include "ops/shot_judge.h"

#include <string>

#include "arbiter/core/wide.h"

namespace arbiter::server {
namespace {

std::string Moment(int64_t tick, Fixed fraction) {
  if (fraction == kFixedZero) return "tick " + std::to_string(tick);
  // For people: rounded to thousandths of a tick; the evidence carries it raw.
  int64_t thousandths = (fraction.raw() * 1000 + (int64_t{1} << 31)) >> 32;  // fraction in [0, 1): no overflow
  if (thousandths == 1000) {
    ++tick;
    thousandths = 0;
  }
  std::string frac = std::to_string(thousandths);
  return "tick " + std::to_string(tick) + "." + std::string(3 - frac.size(), '0') + frac;
}

const char* EndText(FlightEnd end) {
  switch (end) {
    case FlightEnd::kHit: return "hit";
    case FlightEnd::kFlightOver: return "the flight ended";
    case FlightEnd::kLiveTick: return "it reached the current tick";
    case FlightEnd::kLeftWorld: return "it left the world";
  }
  return "?";
}

// Exact: |a - b| <= limit, compared squared in 128 bits. Both points lie
// within +-2^29, so every difference fits a Fixed.
bool Near(Vec2 a, Vec2 b, Fixed limit) { return LengthSquaredWide(a - b) <= MulWide(limit, limit); }

}  // namespace

const char* ShotVerdictName(ShotVerdict verdict) {
  switch (verdict) {
    case ShotVerdict::kConfirmed: return "confirmed";
    case ShotVerdict::kBlocked: return "blocked";
    case ShotVerdict::kMissed: return "missed";
    case ShotVerdict::kMismatched: return "mismatched";
    case ShotVerdict::kTooOld: return "too_old";
  }
  return "unknown";
}

ShotVerdict JudgeFlight(const ProjectileFlight& flight, const ShotClaim& claim, const ShotTolerance& tolerance,
                        std::string* reason) {
  const std::string when = Moment(flight.end_tick, flight.end_fraction);
  if (!flight.hit) {
    *reason = "no hit: " + std::string(EndText(flight.end)) + " at " + when;
    return ShotVerdict::kMissed;
  }
  const uint64_t body = flight.hit->shape.body_id;
  if (body != claim.target_body_id) {
    *reason = "body " + std::to_string(body) + " is met first, at " + when;
    return ShotVerdict::kBlocked;
  }
  // Compared without forming the difference (ticks may be far apart).
  const int64_t t = flight.end_tick;
  const int64_t c = claim.impact_tick;
  const uint64_t apart = t >= c ? static_cast<uint64_t>(t) - static_cast<uint64_t>(c)
                                : static_cast<uint64_t>(c) - static_cast<uint64_t>(t);
  if (apart > tolerance.ticks) {
    *reason = "the target is met at " + when + ", not at the claimed tick " + std::to_string(c);
    return ShotVerdict::kMismatched;
  }
  if (claim.impact_point && !Near(flight.hit->point, *claim.impact_point, tolerance.point)) {
    *reason = "the target is met at " + when + ", away from the claimed point";
    return ShotVerdict::kMismatched;
  }
  *reason = "the target is met at " + when;
  return ShotVerdict::kConfirmed;
}

}  // namespace arbiter::server

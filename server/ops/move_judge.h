// File: move_judge.h
//
// The judgement behind ValidateMove (proto/arbiter/v1/arbiter.proto states
// the rules a client sees): one player's claimed path, tick by tick,
// against the world as it was at each tick. No gRPC here: the worlds come
// from a callback (the server passes its history), so the rules are tested
// on plain worlds.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "arbiter/core/status.h"
#include "arbiter/core/world.h"

namespace arbiter::server {

/// The rules of one ValidateMove request, parsed and checked.
struct MoveRules {
  Fixed max_speed;  ///< units per second, > 0
  Fixed tolerance;  ///< reach slack, units, >= 0
  Fixed skin = Fixed::FromRaw(int64_t{1} << 26);
  int32_t max_iterations = 4;
  QueryFilter filter;  ///< the player's body is added to exclude_bodies per claim
};

struct ClaimedPath {
  uint64_t body_id = 0;
  uint32_t shape_index = 0;
  int64_t tick = 0;             ///< the path starts from the body's position at this tick
  std::vector<Vec2> positions;  ///< at tick + 1, tick + 2, ...
};

enum class MoveVerdict : uint8_t { kValid, kCorrected, kRejected };

struct MoveJudgement {
  MoveVerdict verdict = MoveVerdict::kValid;
  int64_t judged_tick = 0;
  Vec2 accepted_position;
  Vec2 claimed_position;
  std::string reason;
  Fixed step_length;  ///< kRejected
  Fixed max_step;     ///< kRejected
  MoveResult move;    ///< kCorrected: the server's move at judged_tick
};

/// The world as at `tick` (never null on success); the caller keeps it
/// alive for the judgement. Errors (a tick outside the history) pass through.
using WorldAtTick = std::function<Status(int64_t tick, std::shared_ptr<const World>* out)>;

/// max_speed / tick_hz rounded to Q32.32, capped at kMaxMoveTranslation:
/// the longest step a tick allows.
Fixed MaxStep(Fixed max_speed, int32_t tick_hz);

/// Judges one path. NOT_FOUND naming `field`.body_id when the body is
/// missing at a judged tick, OUT_OF_RANGE naming `field`.shape_index when
/// the body has no such shape; errors of `world_at` are returned as they
/// are. Deterministic: a function of the worlds, the path and the rules.
Status JudgeMove(const WorldAtTick& world_at, const ClaimedPath& path, const MoveRules& rules,
                 const std::string& field, MoveJudgement* out);

}  // namespace arbiter::server

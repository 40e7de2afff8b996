#include "ops/move_judge.h"

#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "arbiter/core/limits.h"

namespace arbiter::server {
namespace {

// Exact: |v| > limit, compared squared in 128 bits.
bool Longer(Vec2 v, Fixed limit) { return LengthSquaredWide(v) > MulWide(limit, limit); }

std::string Units(Fixed f) {
  // Reasons are for people; the evidence fields carry the exact raw values.
  const int64_t raw = f.raw();
  const uint64_t mag = raw < 0 ? uint64_t{0} - static_cast<uint64_t>(raw) : static_cast<uint64_t>(raw);
  const uint64_t whole = mag >> 32;
  const uint64_t thousandths = ((mag & 0xffffffffu) * 1000 + (uint64_t{1} << 31)) >> 32;
  std::string s = (raw < 0 ? "-" : "") + std::to_string(whole + thousandths / 1000) + ".";
  const std::string frac = std::to_string(thousandths % 1000);
  return s + std::string(3 - frac.size(), '0') + frac;
}

// The moving shape and the body's rotation at one tick.
Status BodyAt(const World& world, const ClaimedPath& path, const std::string& field, Shape* shape, Rot* rotation) {
  const std::optional<BodyDef> def = world.GetBodyDef(path.body_id);
  if (!def) {
    return NotFoundError(field + ".body_id: no body " + std::to_string(path.body_id) + " at tick " +
                         std::to_string(world.tick()));
  }
  if (path.shape_index >= def->shapes.size()) {
    return OutOfRangeError(field + ".shape_index: body " + std::to_string(path.body_id) + " has " +
                           std::to_string(def->shapes.size()) + " shapes");
  }
  *shape = def->shapes[path.shape_index].shape;
  *rotation = def->transform.q;
  return OkStatus();
}

}  // namespace

Fixed MaxStep(Fixed max_speed, int32_t tick_hz) {
  // Rounded to nearest without forming raw + hz / 2 (raw may be 2^63 - 1).
  const int64_t hz = tick_hz;
  const int64_t raw = max_speed.raw();
  const Fixed step = Fixed::FromRaw(raw / hz + (raw % hz >= hz - raw % hz ? 1 : 0));
  return Min(step, kMaxMoveTranslation);
}

Status JudgeMove(const WorldAtTick& world_at, const ClaimedPath& path, const MoveRules& rules,
                 const std::string& field, MoveJudgement* out) {
  std::shared_ptr<const World> world;
  if (Status s = world_at(path.tick, &world); !s.ok()) return s;
  const std::optional<BodyView> start = world->FindBody(path.body_id);
  if (!start) {
    return NotFoundError(field + ".body_id: no body " + std::to_string(path.body_id) + " at tick " +
                         std::to_string(path.tick));
  }
  const Fixed max_step = MaxStep(rules.max_speed, world->def().tick_hz);
  QueryFilter filter = rules.filter;
  std::vector<uint64_t> excluded(filter.exclude_bodies.begin(), filter.exclude_bodies.end());
  excluded.push_back(path.body_id);
  filter.exclude_bodies = excluded;

  MoveJudgement j;
  Vec2 accepted = start->transform.p;
  for (size_t i = 0; i < path.positions.size(); ++i) {
    const int64_t from_tick = path.tick + static_cast<int64_t>(i);
    if (i > 0) {
      if (Status s = world_at(from_tick, &world); !s.ok()) return s;
    }
    MoveInput in;
    Rot rotation;
    if (Status s = BodyAt(*world, path, field, &in.shape, &rotation); !s.ok()) return s;
    const Vec2 claim = path.positions[i];
    const Vec2 step = claim - accepted;
    j.judged_tick = from_tick + 1;
    j.claimed_position = claim;
    if (Longer(step, max_step)) {
      j.verdict = MoveVerdict::kRejected;
      j.accepted_position = accepted;
      j.step_length = Length(step);
      j.max_step = max_step;
      j.reason = "step of " + Units(j.step_length) + " units into tick " + std::to_string(j.judged_tick) +
                 " exceeds the " + Units(max_step) + " a tick allows";
      *out = std::move(j);
      return OkStatus();
    }
    in.start = {accepted, rotation};
    in.translation = step;
    in.skin = rules.skin;
    in.max_iterations = rules.max_iterations;
    MoveResult moved = world->MoveAndSlide(in, filter);
    if (Longer(moved.position - claim, rules.tolerance)) {
      j.verdict = MoveVerdict::kCorrected;
      j.accepted_position = moved.position;
      j.reason = "claimed position at tick " + std::to_string(j.judged_tick) + " is " +
                 Units(Length(moved.position - claim)) + " units from the reachable one" +
                 (moved.planes.empty() ? std::string()
                                       : " (met body " + std::to_string(moved.planes.back().body_id) + ")");
      j.move = std::move(moved);
      *out = std::move(j);
      return OkStatus();
    }
    accepted = claim;
  }
  j.verdict = MoveVerdict::kValid;
  j.accepted_position = accepted;
  *out = std::move(j);
  return OkStatus();
}

}  // namespace arbiter::server

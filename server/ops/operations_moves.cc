// Movement: ValidateMove (each claimed path parsed and checked without a
// lock, then judged (move_judge.h) under the world's shared lock against its
// history) and MoveShapes (World::MoveAndSlide as a query, live or at a past
// tick).
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/wire/convert.h"
#include "ops/move_judge.h"
#include "ops/operations.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"

namespace arbiter::server {
namespace {

using wire::OwnedQueryFilter;

struct ParsedMoves {
  std::vector<ClaimedPath> paths;
  MoveRules rules;
  OwnedQueryFilter filter;
};

struct ParsedShapeMoves {
  std::vector<MoveInput> moves;
  OwnedQueryFilter filter;
};

// The mover's settings as requests carry them (0: the default), checked by
// the mover's own checks on a stand-in move: with no field prefix they name
// skin and max_iterations the way the request does.
absl::Status ParseMoverSettings(int64_t skin, int32_t max_iterations, MoveInput* out) {
  if (skin != 0) out->skin = Fixed::FromRaw(skin);
  if (max_iterations != 0) out->max_iterations = max_iterations;
  MoveInput probe = *out;
  probe.shape = Shape::FromCircle({Vec2{}, kFixedOne});
  probe.start = kTransformIdentity;
  probe.translation = Vec2{};
  return FromCore(ValidateMoveInput(probe, ""));
}

absl::Status ParseRules(const v1::ValidateMoveRequest& request, ParsedMoves* out) {
  MoveRules& r = out->rules;
  if (request.max_speed() <= 0) return absl::InvalidArgumentError("max_speed: required (> 0 units per second, raw)");
  r.max_speed = Fixed::FromRaw(request.max_speed());
  if (request.tolerance() < 0) return absl::OutOfRangeError("tolerance: must not be negative");
  r.tolerance = Fixed::FromRaw(request.tolerance());
  MoveInput settings;
  settings.skin = r.skin;
  settings.max_iterations = r.max_iterations;
  if (absl::Status s = ParseMoverSettings(request.skin(), request.max_iterations(), &settings); !s.ok()) return s;
  r.skin = settings.skin;
  r.max_iterations = settings.max_iterations;
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &out->filter); !s.ok()) return s;
  r.filter = out->filter.Get();  // views out->filter, which lives as long as *out
  return absl::OkStatus();
}

absl::Status ParseClaim(const v1::MoveClaim& claim, const std::string& field, ClaimedPath* out) {
  if (claim.body_id() == 0) return absl::InvalidArgumentError(field + ".body_id: required (non-zero)");
  if (claim.tick() < 0) return absl::OutOfRangeError(field + ".tick: must not be negative");
  out->body_id = claim.body_id();
  out->shape_index = claim.shape_index();
  out->tick = claim.tick();
  out->positions.resize(static_cast<size_t>(claim.positions_size()));
  for (int i = 0; i < claim.positions_size(); ++i) {
    const absl::Status s = wire::ParsePoint(claim.positions(i), "", &out->positions[static_cast<size_t>(i)]);
    if (!s.ok()) return WithPrefix(s, field + "." + Indexed("positions", static_cast<size_t>(i)));
  }
  return absl::OkStatus();
}

// One move of a MoveShapes request, its settings already in *out.
absl::Status ParseShapeMove(const v1::ShapeMove& move, const std::string& field, MoveInput* out) {
  if (absl::Status s = ParseShapeAt(move.shape(), move.transform(), move.has_shape(), field, &out->shape, &out->start);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = wire::ParsePoint(move.translation(), field + ".translation", &out->translation);
      !s.ok()) {
    return s;
  }
  // The mover's own limits (the translation's 2^28 first of all).
  return FromCore(ValidateMoveInput(*out, field.c_str()));
}

v1::MoveVerdict ToProto(MoveVerdict v) {
  switch (v) {
    case MoveVerdict::kValid: return v1::MOVE_VERDICT_VALID;
    case MoveVerdict::kCorrected: return v1::MOVE_VERDICT_CORRECTED;
    case MoveVerdict::kRejected: return v1::MOVE_VERDICT_REJECTED;
  }
  return v1::MOVE_VERDICT_UNSPECIFIED;
}

void ToProto(const MovePlane& p, v1::MovePlaneHit* out) {
  out->set_body_id(p.body_id);
  out->set_shape_index(p.shape_index);
  wire::ToProto(p.normal, out->mutable_normal());
  wire::ToProto(p.point, out->mutable_point());
  out->set_pushed_out(p.pushed_out);
}

void ToProto(const MoveResult& m, v1::MoveOutcome* out) {
  wire::ToProto(m.position, out->mutable_position());
  out->set_fraction(m.fraction.raw());
  out->set_blocked(m.blocked);
  for (const MovePlane& p : m.planes) ToProto(p, out->add_planes());
  out->set_iterations(m.iterations);
}

void ToProto(const MoveJudgement& j, uint64_t body_id, v1::MoveJudgement* out) {
  out->set_body_id(body_id);
  out->set_verdict(ToProto(j.verdict));
  out->set_judged_tick(j.judged_tick);
  wire::ToProto(j.accepted_position, out->mutable_accepted_position());
  wire::ToProto(j.claimed_position, out->mutable_claimed_position());
  out->set_reason(j.reason);
  out->set_step_length(j.step_length.raw());
  out->set_max_step(j.max_step.raw());
  if (j.verdict != MoveVerdict::kCorrected) return;
  out->set_blocked(j.move.blocked);
  for (const MovePlane& p : j.move.planes) ToProto(p, out->add_planes());
}

// The history as a WorldAtTick: the live world itself for the live tick
// (held, not owned: the caller holds its shared lock throughout).
WorldAtTick HistoryOf(const WorldEntry& entry, const World& live, const std::string& field) {
  return [&entry, &live, field](int64_t tick, std::shared_ptr<const World>* out) -> arbiter::Status {
    const arbiter::Status s = entry.ViewAt(live, tick, kFixedZero, out);
    if (!s.ok()) return {s.code(), field + ".tick: " + s.message()};
    return arbiter::OkStatus();
  };
}

// Judges every claimed path under the world's shared lock, in request order.
absl::Status JudgeClaims(const WorldEntry& entry, const World& live, const ParsedMoves& parsed,
                         const CancelFn& cancelled, v1::ValidateMoveResponse* reply) {
  reply->set_tick(live.tick());
  for (size_t i = 0; i < parsed.paths.size(); ++i) {
    if (cancelled()) return Cancelled();
    const ClaimedPath& path = parsed.paths[i];
    const std::string field = Indexed("claims", i);
    // Compared without forming tick + count (tick may be near 2^63).
    const int64_t count = static_cast<int64_t>(path.positions.size());
    if (path.tick > live.tick() - count) {
      return absl::OutOfRangeError(field + ".positions: " + std::to_string(count) + " positions from tick " +
                                   std::to_string(path.tick) + " reach past the current tick " +
                                   std::to_string(live.tick()));
    }
    MoveJudgement j;
    const arbiter::Status s = JudgeMove(HistoryOf(entry, live, field), path, parsed.rules, field, &j);
    if (!s.ok()) return FromCore(s);
    ToProto(j, path.body_id, reply->add_judgements());
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ReadOp> Operations::PrepareValidateMove(const v1::ValidateMoveRequest& request,
                                                       v1::ValidateMoveResponse* reply) {
  if (absl::Status s = CheckBatch(static_cast<size_t>(request.claims_size()), "claims"); !s.ok()) return s;
  auto parsed = std::make_shared<ParsedMoves>();
  if (absl::Status s = ParseRules(request, parsed.get()); !s.ok()) return s;
  // Every judged step is a move-and-slide: the batch limit bounds the steps
  // of the whole request, not just the number of players.
  size_t steps = 0;
  parsed->paths.resize(static_cast<size_t>(request.claims_size()));
  for (int i = 0; i < request.claims_size(); ++i) {
    const std::string field = Indexed("claims", static_cast<size_t>(i));
    steps += static_cast<size_t>(request.claims(i).positions_size());
    if (absl::Status s = CheckBatch(static_cast<size_t>(request.claims(i).positions_size()), (field + ".positions").c_str());
        !s.ok()) {
      return s;
    }
    if (absl::Status s = ParseClaim(request.claims(i), field, &parsed->paths[static_cast<size_t>(i)]); !s.ok()) return s;
  }
  if (absl::Status s = CheckBatch(steps, "claims[*].positions (all claims together)"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  // --journal_queries: the request and its verdicts, for `arbiter replay verify`.
  std::shared_ptr<const v1::ValidateMoveRequest> recorded;
  if (durability_.journal != nullptr && durability_.record_queries) {
    recorded = std::make_shared<v1::ValidateMoveRequest>(request);
  }
  const WorldEntry* e = entry->get();
  return ReadOp{*entry, [this, parsed, reply, e, recorded](const World& live, const CancelFn& cancelled) -> absl::Status {
                  if (absl::Status s = JudgeClaims(*e, live, *parsed, cancelled, reply); !s.ok()) return s;
                  if (recorded != nullptr) {
                    v1::JournalRecord r;
                    *r.mutable_query()->mutable_validate_move() = *recorded;
                    *r.mutable_query()->mutable_validate_move_reply() = *reply;
                    JournalQuery(*e, live, std::move(r));
                  }
                  return absl::OkStatus();
                }};
}

absl::StatusOr<ReadOp> Operations::PrepareMoveShapes(const v1::MoveShapesRequest& request,
                                                     v1::MoveShapesResponse* reply) {
  const size_t count = static_cast<size_t>(request.moves_size());
  if (absl::Status s = CheckBatch(count, "moves"); !s.ok()) return s;
  if (absl::Status s = CheckPastTick(request.has_at(), request.at()); !s.ok()) return s;
  MoveInput settings;
  if (absl::Status s = ParseMoverSettings(request.skin(), request.max_iterations(), &settings); !s.ok()) return s;
  auto parsed = std::make_shared<ParsedShapeMoves>();
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  parsed->moves.assign(count, settings);
  for (size_t i = 0; i < count; ++i) {
    const std::string field = Indexed("moves", i);
    if (absl::Status s = ParseShapeMove(request.moves(static_cast<int>(i)), field, &parsed->moves[i]); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  return MakeRead(*entry, request, reply, [parsed, reply](const World& world, const CancelFn& cancelled) -> absl::Status {
    reply->set_tick(world.tick());
    const QueryFilter filter = parsed->filter.Get();
    reply->mutable_results()->Reserve(static_cast<int>(parsed->moves.size()));
    for (const MoveInput& move : parsed->moves) {
      if (cancelled()) return Cancelled();
      ToProto(world.MoveAndSlide(move, filter), reply->add_results());
    }
    return absl::OkStatus();
  });
}

}  // namespace arbiter::server

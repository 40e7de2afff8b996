// ValidateMove: each claimed path parsed and checked without a lock, then
// judged (move_judge.h) under the world's shared lock against its history.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/wire/convert.h"
#include "move_judge.h"
#include "operations.h"
#include "request_checks.h"
#include "status_convert.h"

namespace arbiter::server {
namespace {

using wire::OwnedQueryFilter;

struct ParsedMoves {
  std::vector<ClaimedPath> paths;
  MoveRules rules;
  OwnedQueryFilter filter;
};

absl::Status ParseRules(const v1::ValidateMoveRequest& request, ParsedMoves* out) {
  MoveRules& r = out->rules;
  if (request.max_speed() <= 0) return absl::InvalidArgumentError("max_speed: required (> 0 units per second, raw)");
  r.max_speed = Fixed::FromRaw(request.max_speed());
  if (request.tolerance() < 0) return absl::OutOfRangeError("tolerance: must not be negative");
  r.tolerance = Fixed::FromRaw(request.tolerance());
  if (request.skin() != 0) r.skin = Fixed::FromRaw(request.skin());
  if (request.max_iterations() != 0) r.max_iterations = request.max_iterations();
  // The mover's own checks, on a stand-in move: with no field prefix they
  // name skin and max_iterations the way the request does.
  MoveInput probe;
  probe.shape = Shape::FromCircle({Vec2{}, kFixedOne});
  probe.skin = r.skin;
  probe.max_iterations = r.max_iterations;
  if (absl::Status s = FromCore(ValidateMoveInput(probe, "")); !s.ok()) return s;
  if (absl::Status s = FromCore(wire::ParseQueryFilter(request.filter(), "filter", &out->filter)); !s.ok()) return s;
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
    const arbiter::Status s = wire::ParsePoint(claim.positions(i), "", &out->positions[static_cast<size_t>(i)]);
    if (!s.ok()) return WithPrefix(FromCore(s), field + "." + Indexed("positions", static_cast<size_t>(i)));
  }
  return absl::OkStatus();
}

v1::MoveVerdict ToProto(MoveVerdict v) {
  switch (v) {
    case MoveVerdict::kValid: return v1::MOVE_VERDICT_VALID;
    case MoveVerdict::kCorrected: return v1::MOVE_VERDICT_CORRECTED;
    case MoveVerdict::kRejected: return v1::MOVE_VERDICT_REJECTED;
  }
  return v1::MOVE_VERDICT_UNSPECIFIED;
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
  for (const MovePlane& p : j.move.planes) {
    v1::MovePlaneHit* h = out->add_planes();
    h->set_body_id(p.body_id);
    h->set_shape_index(p.shape_index);
    wire::ToProto(p.normal, h->mutable_normal());
    wire::ToProto(p.point, h->mutable_point());
    h->set_pushed_out(p.pushed_out);
  }
}

// The history as a WorldAtTick: the live world itself for the live tick
// (held, not owned: the caller holds its shared lock throughout).
WorldAtTick HistoryOf(const WorldEntry& entry, const World& live, const std::string& field) {
  return [&entry, &live, field](int64_t tick, std::shared_ptr<const World>* out) -> arbiter::Status {
    std::shared_ptr<const World> past;
    const arbiter::Status s = entry.history().At(live, tick, kFixedZero, &past);
    if (!s.ok()) return {s.code(), field + ".tick: " + s.message()};
    *out = past != nullptr ? std::move(past) : std::shared_ptr<const World>(std::shared_ptr<const World>(), &live);
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

}  // namespace arbiter::server

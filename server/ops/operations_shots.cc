// Projectiles: ValidateShots. Each shot is parsed and checked without a
// lock; then, under the world's shared lock and its shot ledger's lock
// (shot_ledger.h), a shot already judged gets its first judgement again and
// a new one is traced through the history (core projectile.h), judged
// (shot_judge.h), remembered and, with --journal_queries, journaled.
#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/projectile.h"
#include "arbiter/wire/convert.h"
#include "ops/operations.h"
#include "ops/request_checks.h"
#include "ops/shot_judge.h"
#include "ops/status_convert.h"

namespace arbiter::server {
namespace {

using wire::OwnedQueryFilter;

/// Ticks beyond the history window for which a judged shot is remembered.
constexpr int64_t kShotLedgerMarginTicks = 60;

struct ParsedShot {
  ShotLedger::Key key;
  Projectile projectile;
  ShotClaim claim;
};

struct ParsedShots {
  std::vector<ParsedShot> shots;
  OwnedQueryFilter filter;
  ShotTolerance tolerance;
  std::optional<uint32_t> cap_ticks;  ///< the request's own rewind cap
};

absl::Status ParseClaim(const v1::Shot& shot, const std::string& field, ParsedShot* out) {
  if (shot.target_body_id() == 0) return absl::InvalidArgumentError(field + ".target_body_id: required (non-zero)");
  if (shot.target_body_id() == shot.shooter_body_id()) {
    return absl::InvalidArgumentError(field + ".target_body_id: the shooter cannot be its own target");
  }
  out->claim.target_body_id = shot.target_body_id();
  out->claim.impact_tick = shot.impact_tick();
  if (!shot.has_impact_point()) return absl::OkStatus();
  Vec2 point;
  if (absl::Status s = wire::ParsePoint(shot.impact_point(), field + ".impact_point", &point); !s.ok()) {
    return s;
  }
  out->claim.impact_point = point;
  return absl::OkStatus();
}

absl::Status ParseShot(const v1::Shot& shot, const std::string& field, ParsedShot* out) {
  if (shot.shooter_body_id() == 0) return absl::InvalidArgumentError(field + ".shooter_body_id: required (non-zero)");
  if (shot.shot_id() == 0) return absl::InvalidArgumentError(field + ".shot_id: required (non-zero)");
  if (!shot.has_fire()) return absl::InvalidArgumentError(field + ".fire: required");
  out->key = {shot.shooter_body_id(), shot.shot_id()};
  Projectile& p = out->projectile;
  if (absl::Status s = wire::ParsePoint(shot.origin(), field + ".origin", &p.origin); !s.ok()) return s;
  p.velocity = wire::FromProto(shot.velocity());
  p.acceleration = wire::FromProto(shot.acceleration());
  p.radius = Fixed::FromRaw(shot.radius());
  p.fire_tick = shot.fire().tick();
  p.fire_fraction = Fixed::FromRaw(shot.fire().fraction());
  p.flight_ticks = shot.flight_ticks();
  if (absl::Status s = FromCore(ValidateProjectile(p, field.c_str())); !s.ok()) return s;
  return ParseClaim(shot, field, out);
}

v1::ShotVerdict ToProto(ShotVerdict v) {
  switch (v) {
    case ShotVerdict::kConfirmed: return v1::SHOT_VERDICT_CONFIRMED;
    case ShotVerdict::kBlocked: return v1::SHOT_VERDICT_BLOCKED;
    case ShotVerdict::kMissed: return v1::SHOT_VERDICT_MISSED;
    case ShotVerdict::kMismatched: return v1::SHOT_VERDICT_MISMATCHED;
    case ShotVerdict::kTooOld: return v1::SHOT_VERDICT_TOO_OLD;
  }
  return v1::SHOT_VERDICT_UNSPECIFIED;
}

v1::FlightEnd ToProto(FlightEnd e) {
  switch (e) {
    case FlightEnd::kHit: return v1::FLIGHT_END_HIT;
    case FlightEnd::kFlightOver: return v1::FLIGHT_END_FLIGHT_OVER;
    case FlightEnd::kLiveTick: return v1::FLIGHT_END_CURRENT_TICK;
    case FlightEnd::kLeftWorld: return v1::FLIGHT_END_LEFT_WORLD;
  }
  return v1::FLIGHT_END_UNSPECIFIED;
}

void SetMoment(int64_t tick, Fixed fraction, v1::PastTick* out) {
  out->set_tick(tick);
  out->set_fraction(fraction.raw());
}

void ToProto(const ProjectileFlight& f, v1::ShotJudgement* out) {
  if (f.hit) {
    wire::ToProto(*f.hit, out->mutable_hit());
    SetMoment(f.end_tick, f.end_fraction, out->mutable_impact());
  }
  out->set_end(ToProto(f.end));
  SetMoment(f.end_tick, f.end_fraction, out->mutable_end_at());
  wire::ToProto(f.end_position, out->mutable_end_position());
  out->set_ticks_traced(f.segments);
}

// The history as WorldAtTime (the caller holds the live world's shared lock throughout).
WorldAtTime HistoryAt(const WorldEntry& entry, const World& live) {
  return [&entry, &live](int64_t tick, Fixed fraction, std::shared_ptr<const World>* out) {
    return entry.ViewAt(live, tick, fraction, out);
  };
}

// The smallest of the rewind caps that are set, in ticks of this world.
std::optional<int64_t> RewindCapTicks(std::optional<uint32_t> request_ticks, std::optional<uint32_t> caller_ms,
                                      uint32_t server_ms, int32_t tick_hz) {
  std::optional<int64_t> cap;
  auto take = [&cap](int64_t ticks) { cap = cap ? std::min(*cap, ticks) : ticks; };
  if (request_ticks) take(*request_ticks);
  if (caller_ms) take(int64_t{*caller_ms} * tick_hz / 1000);
  if (server_ms != 0) take(int64_t{server_ms} * tick_hz / 1000);
  return cap;
}

// The parts of a first judgement known before any tracing.
v1::ShotJudgement Untraced(const ParsedShot& shot, int64_t oldest_allowed, int64_t live_tick) {
  v1::ShotJudgement j;
  j.set_shooter_body_id(shot.key.shooter);
  j.set_shot_id(shot.key.shot);
  j.set_oldest_allowed_tick(oldest_allowed);
  j.set_judged_at_tick(live_tick);
  if (shot.projectile.fire_tick < oldest_allowed) {
    j.set_verdict(v1::SHOT_VERDICT_TOO_OLD);
    j.set_reason("fired at tick " + std::to_string(shot.projectile.fire_tick) + ", before the oldest tick allowed, " +
                 std::to_string(oldest_allowed));
  }
  return j;
}

// Traces the shots at `indices` together (each tick's past world rebuilt
// once for all of them) and completes their judgements.
absl::Status TraceAndJudge(const WorldEntry& entry, const World& live, const ParsedShots& parsed,
                           const std::vector<size_t>& indices, std::vector<v1::ShotJudgement>* judgements) {
  const QueryFilter base = parsed.filter.Get();
  std::vector<std::vector<uint64_t>> excluded(indices.size());
  std::vector<QueryFilter> filters(indices.size(), base);
  std::vector<Projectile> projectiles(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    const ParsedShot& shot = parsed.shots[indices[k]];
    excluded[k].assign(base.exclude_bodies.begin(), base.exclude_bodies.end());
    excluded[k].push_back(shot.key.shooter);
    filters[k].exclude_bodies = excluded[k];
    projectiles[k] = shot.projectile;
  }
  std::vector<ProjectileFlight> flights(indices.size());
  if (absl::Status s = FromCore(TraceProjectiles(HistoryAt(entry, live), projectiles, filters, live.def().tick_hz,
                                                 live.tick(), flights));
      !s.ok()) {
    return WithPrefix(s, "shots: ");
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    v1::ShotJudgement& j = (*judgements)[indices[k]];
    std::string reason;
    j.set_verdict(ToProto(JudgeFlight(flights[k], parsed.shots[indices[k]].claim, parsed.tolerance, &reason)));
    j.set_reason(std::move(reason));
    ToProto(flights[k], &j);
  }
  return absl::OkStatus();
}

ShotVerdict FromProto(v1::ShotVerdict v) {
  switch (v) {
    case v1::SHOT_VERDICT_BLOCKED: return ShotVerdict::kBlocked;
    case v1::SHOT_VERDICT_MISSED: return ShotVerdict::kMissed;
    case v1::SHOT_VERDICT_MISMATCHED: return ShotVerdict::kMismatched;
    case v1::SHOT_VERDICT_TOO_OLD: return ShotVerdict::kTooOld;
    default: return ShotVerdict::kConfirmed;
  }
}

// Shots whose key the ledger does not hold yet, each key counted once.
size_t NewShots(const ShotLedger& ledger, const std::vector<ParsedShot>& shots) {
  std::set<ShotLedger::Key> fresh;
  for (const ParsedShot& s : shots) {
    if (ledger.Find(s.key) == nullptr) fresh.insert(s.key);
  }
  return fresh.size();
}

// Every shot of a request, in order, under the ledger's lock (held by the
// caller until the request is journaled too). Errors come before any shot
// is remembered, so a refused request changes nothing.
absl::Status JudgeShots(const WorldEntry& entry, const World& live, const ParsedShots& parsed,
                        std::optional<int64_t> cap_ticks, uint32_t max_judged_shots, const CancelFn& cancelled,
                        v1::ValidateShotsResponse* reply) {
  reply->set_tick(live.tick());
  for (size_t i = 0; i < parsed.shots.size(); ++i) {
    const int64_t fire = parsed.shots[i].projectile.fire_tick;
    if (fire > live.tick()) {
      return absl::OutOfRangeError(Indexed("shots", i) + ".fire.tick: " + std::to_string(fire) +
                                   " is after the current tick " + std::to_string(live.tick()));
    }
  }
  int64_t oldest_allowed = entry.oldest_tick(live);
  if (cap_ticks) oldest_allowed = std::max(oldest_allowed, live.tick() - *cap_ticks);
  ShotLedger& ledger = entry.shots();
  ledger.Expire(live.tick() - static_cast<int64_t>(entry.history().capacity()) - kShotLedgerMarginTicks);
  if (ledger.size() + NewShots(ledger, parsed.shots) > max_judged_shots) {
    return absl::ResourceExhaustedError("shots: world '" + entry.id() + "' remembers " + std::to_string(ledger.size()) +
                                        " judged shots inside its history window, and " +
                                        std::to_string(max_judged_shots) +
                                        " at most (--max_judged_shots); retry once older shots leave the window");
  }
  // Judged into copies first, so that a failure half way leaves the ledger
  // as it was. A shot is answered from the ledger (earlier[i]), from the
  // first of its key in this batch (in_batch), or judged now: traced with
  // every other new shot at once, unless it is too old.
  if (cancelled()) return Cancelled();
  const size_t n = parsed.shots.size();
  std::vector<v1::ShotJudgement> judgements(n);
  std::vector<size_t> fresh;
  std::vector<const v1::ShotJudgement*> earlier(n, nullptr);
  std::map<ShotLedger::Key, size_t> in_batch;
  for (size_t i = 0; i < n; ++i) {
    const ParsedShot& shot = parsed.shots[i];
    earlier[i] = ledger.Find(shot.key);
    if (earlier[i] != nullptr) continue;
    if (!in_batch.emplace(shot.key, i).second) continue;
    judgements[i] = Untraced(shot, oldest_allowed, live.tick());
    if (judgements[i].verdict() != v1::SHOT_VERDICT_TOO_OLD) fresh.push_back(i);
  }
  if (absl::Status s = TraceAndJudge(entry, live, parsed, fresh, &judgements); !s.ok()) return s;
  WorldCounters& counters = entry.counters();
  for (size_t i = 0; i < n; ++i) {
    const ParsedShot& shot = parsed.shots[i];
    v1::ShotJudgement* out = reply->add_judgements();
    const size_t first = in_batch.count(shot.key) != 0 ? in_batch.at(shot.key) : i;
    if (earlier[i] != nullptr || first != i) {
      *out = earlier[i] != nullptr ? *earlier[i] : judgements[first];
      out->set_duplicate(true);
      counters.duplicate_shots.fetch_add(1, std::memory_order_relaxed);
      continue;
    }
    *out = judgements[i];
    counters.shots[static_cast<size_t>(FromProto(out->verdict()))].fetch_add(1, std::memory_order_relaxed);
  }
  for (const auto& [key, i] : in_batch) ledger.Record(key, parsed.shots[i].projectile.fire_tick, std::move(judgements[i]));
  return absl::OkStatus();
}

// The projectile's positions for the viewer: at its fire time, at each
// tick boundary before its traced flight ended, and where it ended.
std::vector<Vec2> FlightPath(const Projectile& shot, int32_t tick_hz, const v1::ShotJudgement& j) {
  std::vector<Vec2> path{shot.origin};
  if (j.verdict() == v1::SHOT_VERDICT_TOO_OLD) return path;
  for (int64_t tick = shot.fire_tick + 1; tick <= j.end_at().tick(); ++tick) {
    if (tick == j.end_at().tick() && j.end_at().fraction() == 0) break;
    const std::optional<Vec2> p = ProjectilePosition(shot, tick_hz, Fixed::FromInt(tick - shot.fire_tick) - shot.fire_fraction);
    if (!p) break;
    path.push_back(*p);
  }
  path.push_back(wire::FromProto(j.end_position()));
  return path;
}

}  // namespace

void Operations::PublishShots(const WorldEntry& entry, const World& live, const v1::ValidateShotsRequest& request,
                              const v1::ValidateShotsResponse& reply) const {
  if (verdict_observer_ == nullptr || !verdict_observer_->Watched(entry.id())) return;
  for (int i = 0; i < reply.judgements_size() && i < request.shots_size(); ++i) {
    const v1::ShotJudgement& j = reply.judgements(i);
    if (j.duplicate()) continue;
    ParsedShot parsed;
    if (!ParseShot(request.shots(i), "", &parsed).ok()) continue;  // parsed once already: cannot fail
    verdict_observer_->OnShot(entry.id(), request.shots(i), j, FlightPath(parsed.projectile, live.def().tick_hz, j));
  }
}

absl::StatusOr<ReadOp> Operations::PrepareValidateShots(const v1::ValidateShotsRequest& request,
                                                        std::optional<uint32_t> caller_rewind_ms,
                                                        v1::ValidateShotsResponse* reply) {
  if (absl::Status s = CheckBatch(static_cast<size_t>(request.shots_size()), "shots"); !s.ok()) return s;
  auto parsed = std::make_shared<ParsedShots>();
  if (request.point_tolerance() < 0) return absl::OutOfRangeError("point_tolerance: must not be negative");
  parsed->tolerance = {request.tick_tolerance(), Fixed::FromRaw(request.point_tolerance())};
  if (request.has_max_rewind_ticks()) parsed->cap_ticks = request.max_rewind_ticks();
  if (absl::Status s = wire::ParseQueryFilter(request.filter(), "filter", &parsed->filter); !s.ok()) return s;
  // Every traced tick is a cast: the batch limit bounds them all together.
  size_t flight_ticks = 0;
  parsed->shots.resize(static_cast<size_t>(request.shots_size()));
  for (int i = 0; i < request.shots_size(); ++i) {
    const std::string field = Indexed("shots", static_cast<size_t>(i));
    if (absl::Status s = ParseShot(request.shots(i), field, &parsed->shots[static_cast<size_t>(i)]); !s.ok()) return s;
    flight_ticks += request.shots(i).flight_ticks();
  }
  if (absl::Status s = CheckBatch(flight_ticks, "shots[*].flight_ticks (all shots together)"); !s.ok()) return s;
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  // A copy for the journal (--journal_queries) or the viewer, only when one wants it.
  std::shared_ptr<v1::ValidateShotsRequest> recorded;
  const bool journaled = durability_.journal != nullptr && durability_.record_queries;
  if (journaled || (verdict_observer_ != nullptr && verdict_observer_->Watched(request.world_id()))) {
    recorded = std::make_shared<v1::ValidateShotsRequest>(request);
  }
  const WorldEntry* e = entry->get();
  return ReadOp{*entry, [this, parsed, reply, e, recorded, journaled, caller_rewind_ms](const World& live,
                                                                            const CancelFn& cancelled) -> absl::Status {
                  const std::optional<int64_t> cap = RewindCapTicks(parsed->cap_ticks, caller_rewind_ms,
                                                                    limits_.max_rewind_ms, live.def().tick_hz);
                  const std::unique_lock<std::mutex> lock = e->shots().Lock();
                  if (absl::Status s = JudgeShots(*e, live, *parsed, cap, limits_.max_judged_shots, cancelled, reply);
                      !s.ok()) {
                    return s;
                  }
                  if (recorded == nullptr) return absl::OkStatus();
                  PublishShots(*e, live, *recorded, *reply);
                  if (!journaled) return absl::OkStatus();
                  // The cap applied, so that a replay (which has no caller) judges the same.
                  v1::JournalRecord r;
                  *r.mutable_query()->mutable_validate_shots() = *recorded;
                  if (cap) {
                    r.mutable_query()->mutable_validate_shots()->set_max_rewind_ticks(
                        static_cast<uint32_t>(std::min<int64_t>(*cap, UINT32_MAX)));
                  }
                  *r.mutable_query()->mutable_validate_shots_reply() = *reply;
                  JournalQuery(*e, live, std::move(r));
                  return absl::OkStatus();
                }};
}

}  // namespace arbiter::server

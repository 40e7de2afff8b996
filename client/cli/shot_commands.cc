#include "shot_commands.h"

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "output.h"
#include "units.h"

namespace arbiter::cli {
namespace {

// The flags that name the shot and what it claims.
std::optional<std::string> ParseClaim(const Args& a, v1::Shot* shot) {
  for (const char* required : {"shooter", "shot", "fire", "target", "impact_tick"}) {
    if (!a.Has(required)) return std::string("missing --") + required;
  }
  constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();
  uint64_t v = 0;
  if (auto e = WholeFlag(a, "shooter", 1, kMax, "a body id", &v)) return e;
  shot->set_shooter_body_id(v);
  if (auto e = WholeFlag(a, "shot", 1, kMax, "a shot id", &v)) return e;
  shot->set_shot_id(v);
  if (auto e = WholeFlag(a, "target", 1, kMax, "a body id", &v)) return e;
  shot->set_target_body_id(v);
  if (auto e = WholeFlag(a, "impact_tick", 0, std::numeric_limits<int64_t>::max(), "a tick number", &v)) return e;
  shot->set_impact_tick(static_cast<int64_t>(v));
  if (auto e = ParseAt(a.Get("fire", ""), shot->mutable_fire())) return "--fire" + e->substr(sizeof("--at") - 1);
  if (a.Has("impact_point")) {
    double x = 0;
    double y = 0;
    if (auto e = ParsePair("--impact_point", a.Get("impact_point", ""), kCoordinate, &x, &y)) return e;
    *shot->mutable_impact_point() = client::MakeVec2(x, y);
  }
  return std::nullopt;
}

// OX OY VX VY and the flight's flags.
std::optional<std::string> ParseFlight(const Args& a, v1::Shot* shot) {
  const auto& p = a.positional();
  const char* names[] = {"OX", "OY", "VX", "VY"};
  const UnitRange ranges[] = {kCoordinate, kCoordinate, kSpeed, kSpeed};
  double v[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < 4; ++i) {
    if (p.size() <= i) return std::string("missing ") + names[i];
    if (auto e = ParseUnits(names[i], p[i], ranges[i], &v[i])) return e;
  }
  if (p.size() > 4) return "unexpected argument '" + p[4] + "'";
  *shot->mutable_origin() = client::MakeVec2(v[0], v[1]);
  *shot->mutable_velocity() = client::MakeVec2(v[2], v[3]);
  if (a.Has("gravity")) {
    double x = 0;
    double y = 0;
    if (auto e = ParsePair("--gravity", a.Get("gravity", ""), kSpeed, &x, &y)) return e;
    *shot->mutable_acceleration() = client::MakeVec2(x, y);
  }
  if (a.Has("radius")) {
    double r = 0;
    if (auto e = ParseUnits("--radius", a.Get("radius", ""), kExtent, &r)) return e;
    shot->set_radius(client::ToRaw(r));
  }
  uint64_t ticks = 60;
  if (a.Has("flight_ticks")) {
    if (auto e = WholeFlag(a, "flight_ticks", 1, 4096, "a flight time in ticks", &ticks)) return e;
  }
  shot->set_flight_ticks(static_cast<uint32_t>(ticks));
  return std::nullopt;
}

std::optional<std::string> ParseRequest(const Context& c, v1::ValidateShotsRequest* request) {
  const Args& a = *c.args;
  v1::Shot* shot = request->add_shots();
  if (auto e = ParseClaim(a, shot)) return e;
  if (auto e = ParseFlight(a, shot)) return e;
  uint64_t v = 0;
  if (a.Has("tick_tolerance")) {
    if (auto e = WholeFlag(a, "tick_tolerance", 0, std::numeric_limits<uint32_t>::max(), "a number of ticks", &v)) return e;
    request->set_tick_tolerance(static_cast<uint32_t>(v));
  }
  if (a.Has("point_tolerance")) {
    double d = 0;
    if (auto e = ParseUnits("--point_tolerance", a.Get("point_tolerance", ""), kExtent, &d)) return e;
    if (d < 0) return "--point_tolerance: " + a.Get("point_tolerance", "") + " is negative";
    request->set_point_tolerance(client::ToRaw(d));
  }
  if (a.Has("max_rewind_ticks")) {
    if (auto e = WholeFlag(a, "max_rewind_ticks", 0, std::numeric_limits<uint32_t>::max(), "a number of ticks", &v)) {
      return e;
    }
    request->set_max_rewind_ticks(static_cast<uint32_t>(v));
  }
  request->set_world_id(c.world);
  return std::nullopt;
}

std::string EndName(v1::FlightEnd end) { return v1::FlightEnd_Name(end).substr(sizeof("FLIGHT_END_") - 1); }

void PrintText(const Context& c, const v1::ValidateShotsResponse& reply, const v1::Shot& shot) {
  const v1::ShotJudgement& j = reply.judgements(0);
  const std::string verdict = v1::ShotVerdict_Name(j.verdict()).substr(sizeof("SHOT_VERDICT_") - 1);
  std::printf("world %s, tick %" PRId64 ": shot %" PRIu64 " of body %" PRIu64 " fired at %s: %s%s\n", c.world.c_str(),
              reply.tick(), j.shot_id(), j.shooter_body_id(), TickText(shot.fire().tick(), shot.fire().fraction()).c_str(),
              verdict.c_str(), j.duplicate() ? "  (judged before: the first judgement)" : "");
  if (j.has_hit()) {
    std::printf("  met:      %s at %s\n", HitText(j.hit()).c_str(), TickText(j.impact().tick(), j.impact().fraction()).c_str());
  }
  if (j.verdict() != v1::SHOT_VERDICT_TOO_OLD) {
    std::printf("  flight:   %s at %s, at %s, %u tick(s) traced\n", EndName(j.end()).c_str(),
                TickText(j.end_at().tick(), j.end_at().fraction()).c_str(), VecText(j.end_position()).c_str(),
                j.ticks_traced());
  }
  if (!j.reason().empty()) std::printf("  reason:   %s\n", j.reason().c_str());
}

}  // namespace

int RunValidateShot(const Context& c) {
  v1::ValidateShotsRequest request;
  if (auto e = ParseRequest(c, &request)) return Usage(c, *e);
  absl::StatusOr<v1::ValidateShotsResponse> reply = c.client->ValidateShots(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (reply->judgements_size() != 1) {
    return Fail(c, absl::InternalError("the server sent " + std::to_string(reply->judgements_size()) +
                                       " judgements for one shot"));
  }
  if (!c.json) {
    PrintText(c, *reply, request.shots(0));
    return 0;
  }
  const v1::ShotJudgement& j = reply->judgements(0);
  Json out = {{"world", c.world},
              {"tick", reply->tick()},
              {"shooter", j.shooter_body_id()},
              {"shot", j.shot_id()},
              {"verdict", v1::ShotVerdict_Name(j.verdict()).substr(sizeof("SHOT_VERDICT_") - 1)},
              {"duplicate", j.duplicate()},
              {"end", EndName(j.end())},
              {"end_at", {{"tick", j.end_at().tick()}, {"fraction", client::ToDouble(j.end_at().fraction())}}},
              {"end_position", VecJson(j.end_position())},
              {"ticks_traced", j.ticks_traced()},
              {"oldest_allowed_tick", j.oldest_allowed_tick()},
              {"judged_at_tick", j.judged_at_tick()},
              {"reason", j.reason()},
              {"raw", {{"end_position", VecRaw(j.end_position())}, {"end_fraction", j.end_at().fraction()}}}};
  if (j.has_hit()) {
    out["hit"] = HitJson(j.hit());
    out["impact"] = {{"tick", j.impact().tick()}, {"fraction", client::ToDouble(j.impact().fraction())},
                     {"fraction_raw", j.impact().fraction()}};
  }
  PrintJson(out);
  return 0;
}

}  // namespace arbiter::cli

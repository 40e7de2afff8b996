#include "move_commands.h"

#include <cinttypes>
#include <cstdio>
#include <limits>
#include <optional>
#include <string>

#include "output.h"
#include "shape_flags.h"
#include "units.h"

namespace arbiter::cli {
namespace {

// Move rules in world units: the tolerance and skin are distances.
constexpr UnitRange kDistance{"a distance", 24};
// A move's translation (kMaxMoveTranslation).
constexpr UnitRange kMoveTranslation{"a move translation", 28};

// --NAME as world units within `range` into *raw (Fixed::FromDouble).
std::optional<std::string> UnitsFlag(const Args& args, const std::string& name, UnitRange range, int64_t* raw) {
  double v = 0;
  if (auto e = ParseUnits("--" + name, args.Get(name, ""), range, &v)) return e;
  *raw = client::ToRaw(v);
  return std::nullopt;
}

// --skin and --max_iterations into a ValidateMove or MoveShapes request.
template <class Request>
std::optional<std::string> MoverFlags(const Args& a, Request* request) {
  if (a.Has("skin")) {
    int64_t raw = 0;
    if (auto e = UnitsFlag(a, "skin", kDistance, &raw)) return e;
    request->set_skin(raw);  // the server names a skin outside [2^-16, 1]
  }
  if (a.Has("max_iterations")) {
    uint64_t v = 0;
    if (auto e = WholeFlag(a, "max_iterations", 1, 16, "an iteration limit", &v)) return e;
    request->set_max_iterations(static_cast<int32_t>(v));
  }
  return std::nullopt;
}

// Parses the flags and the positions into `request`.
std::optional<std::string> ParseRequest(const Context& c, v1::ValidateMoveRequest* request) {
  const Args& a = *c.args;
  for (const char* required : {"body", "tick", "max_speed"}) {
    if (!a.Has(required)) return std::string("missing --") + required;
  }
  v1::MoveClaim* claim = request->add_claims();
  uint64_t v = 0;
  if (auto e = WholeFlag(a, "body", 1, std::numeric_limits<uint64_t>::max(), "a body id", &v)) return e;
  claim->set_body_id(v);
  if (auto e = WholeFlag(a, "tick", 0, std::numeric_limits<int64_t>::max(), "a tick number", &v)) return e;
  claim->set_tick(static_cast<int64_t>(v));
  if (a.Has("shape_index")) {
    if (auto e = WholeFlag(a, "shape_index", 0, std::numeric_limits<uint32_t>::max(), "a shape index", &v)) return e;
    claim->set_shape_index(static_cast<uint32_t>(v));
  }
  int64_t raw = 0;
  if (auto e = UnitsFlag(a, "max_speed", kSpeed, &raw)) return e;
  if (raw <= 0) return "--max_speed: " + a.Get("max_speed", "") + " is not a speed above 0 (units per second)";
  request->set_max_speed(raw);
  if (a.Has("tolerance")) {
    if (auto e = UnitsFlag(a, "tolerance", kDistance, &raw)) return e;
    if (raw < 0) return "--tolerance: " + a.Get("tolerance", "") + " is negative";
    request->set_tolerance(raw);
  }
  if (auto e = MoverFlags(a, request)) return e;
  const auto& p = a.positional();
  if (p.empty()) return std::string("missing X1 Y1 (the claimed position at tick --tick + 1)");
  if (p.size() % 2 != 0) return "missing Y" + std::to_string(p.size() / 2 + 1);
  for (size_t i = 0; i < p.size(); i += 2) {
    const std::string n = std::to_string(i / 2 + 1);
    double x = 0;
    double y = 0;
    if (auto e = ParseUnits("X" + n, p[i], kCoordinate, &x)) return e;
    if (auto e = ParseUnits("Y" + n, p[i + 1], kCoordinate, &y)) return e;
    *claim->add_positions() = client::MakeVec2(x, y);
  }
  request->set_world_id(c.world);
  return std::nullopt;
}

Json PlanesJson(const google::protobuf::RepeatedPtrField<v1::MovePlaneHit>& planes) {
  Json out = Json::array();
  for (const v1::MovePlaneHit& h : planes) {
    out.push_back({{"body_id", h.body_id()},
                   {"shape_index", h.shape_index()},
                   {"normal", VecJson(h.normal())},
                   {"point", VecJson(h.point())},
                   {"pushed_out", h.pushed_out()},
                   {"raw", {{"normal", VecRaw(h.normal())}, {"point", VecRaw(h.point())}}}});
  }
  return out;
}

void PrintPlanes(const google::protobuf::RepeatedPtrField<v1::MovePlaneHit>& planes) {
  for (const v1::MovePlaneHit& h : planes) {
    std::printf("  met:      body %" PRIu64 " shape %u  normal %s  point %s%s\n", h.body_id(), h.shape_index(),
                VecText(h.normal()).c_str(), VecText(h.point()).c_str(), h.pushed_out() ? "  (pushed out)" : "");
  }
}

// `arbiter move X Y TX TY (--circle R | --box HW,HH | --capsule ...)` into `request`.
std::optional<std::string> ParseMove(const Context& c, v1::MoveShapesRequest* request) {
  const Args& a = *c.args;
  const auto& p = a.positional();
  const char* names[] = {"X", "Y", "TX", "TY"};
  const UnitRange ranges[] = {kCoordinate, kCoordinate, kMoveTranslation, kMoveTranslation};
  double v[4] = {0, 0, 0, 0};
  for (size_t i = 0; i < 4; ++i) {
    if (p.size() <= i) return std::string("missing ") + names[i];
    if (auto e = ParseUnits(names[i], p[i], ranges[i], &v[i])) return e;
  }
  if (p.size() > 4) return "unexpected argument '" + p[4] + "'";
  v1::ShapeMove* move = request->add_moves();
  if (auto e = ShapeFromFlags(a, move->mutable_shape())) return e;
  *move->mutable_transform() = client::MakeTransform(v[0], v[1]);
  *move->mutable_translation() = client::MakeVec2(v[2], v[3]);
  if (auto e = MoverFlags(a, request)) return e;
  if (a.Has("at")) {
    if (auto e = ParseAt(a.Get("at", ""), request->mutable_at())) return e;
  }
  request->set_world_id(c.world);
  return std::nullopt;
}

}  // namespace

int RunValidateMove(const Context& c) {
  v1::ValidateMoveRequest request;
  if (auto e = ParseRequest(c, &request)) return Usage(c, *e);
  absl::StatusOr<v1::ValidateMoveResponse> reply = c.client->ValidateMove(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (reply->judgements_size() != 1) {
    return Fail(c, absl::InternalError("the server sent " + std::to_string(reply->judgements_size()) +
                                       " judgements for one claim"));
  }
  const v1::MoveClaim& claim = request.claims(0);
  const v1::MoveJudgement& j = reply->judgements(0);
  const std::string verdict = v1::MoveVerdict_Name(j.verdict()).substr(sizeof("MOVE_VERDICT_") - 1);
  const bool rejected = j.verdict() == v1::MOVE_VERDICT_REJECTED;
  const bool corrected = j.verdict() == v1::MOVE_VERDICT_CORRECTED;
  if (c.json) {
    PrintJson({{"world", c.world},
               {"tick", reply->tick()},
               {"body_id", j.body_id()},
               {"from_tick", claim.tick()},
               {"verdict", verdict},
               {"judged_tick", j.judged_tick()},
               {"accepted_position", VecJson(j.accepted_position())},
               {"claimed_position", VecJson(j.claimed_position())},
               {"reason", j.reason()},
               {"step_length", client::ToDouble(j.step_length())},
               {"max_step", client::ToDouble(j.max_step())},
               {"planes", PlanesJson(j.planes())},
               {"blocked", j.blocked()},
               {"raw",
                {{"accepted_position", VecRaw(j.accepted_position())},
                 {"claimed_position", VecRaw(j.claimed_position())},
                 {"step_length", j.step_length()},
                 {"max_step", j.max_step()}}}});
    return 0;
  }
  std::printf("world %s, tick %" PRId64 ": body %" PRIu64 " from tick %" PRId64 ", %d position(s): %s at tick %" PRId64
              "\n",
              c.world.c_str(), reply->tick(), j.body_id(), claim.tick(), claim.positions_size(), verdict.c_str(),
              j.judged_tick());
  std::printf("  claimed:  %s\n", VecText(j.claimed_position()).c_str());
  std::printf("  accepted: %s%s\n", VecText(j.accepted_position()).c_str(),
              corrected ? "  (snap the player back here)" : rejected ? "  (the last accepted position)" : "");
  if (rejected) {
    std::printf("  step:     %.10g units, at most %.10g a tick\n", client::ToDouble(j.step_length()),
                client::ToDouble(j.max_step()));
  }
  if (!j.reason().empty()) std::printf("  reason:   %s\n", j.reason().c_str());
  PrintPlanes(j.planes());
  if (j.blocked()) std::printf("  the server's move was blocked\n");
  return 0;
}

int RunMove(const Context& c) {
  v1::MoveShapesRequest request;
  if (auto e = ParseMove(c, &request)) return Usage(c, *e);
  absl::StatusOr<v1::MoveShapesResponse> reply = c.client->MoveShapes(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (reply->results_size() != 1) {
    return Fail(c, absl::InternalError("the server sent " + std::to_string(reply->results_size()) + " results for one move"));
  }
  const v1::ShapeMove& move = request.moves(0);
  const v1::MoveOutcome& m = reply->results(0);
  if (c.json) {
    PrintJson({{"world", c.world},
               {"tick", reply->tick()},
               {"tick_fraction", reply->tick_fraction()},
               {"start", VecJson(move.transform().position())},
               {"translation", VecJson(move.translation())},
               {"position", VecJson(m.position())},
               {"fraction", client::ToDouble(m.fraction())},
               {"blocked", m.blocked()},
               {"iterations", m.iterations()},
               {"planes", PlanesJson(m.planes())},
               {"raw", {{"position", VecRaw(m.position())}, {"fraction", m.fraction()}}}});
    return 0;
  }
  std::printf("world %s, tick %" PRId64 ": from %s by %s\n", c.world.c_str(), reply->tick(),
              VecText(move.transform().position()).c_str(), VecText(move.translation()).c_str());
  std::printf("  ends at:  %s  (%.10g of the way, %d cast(s))%s\n", VecText(m.position()).c_str(),
              client::ToDouble(m.fraction()), m.iterations(), m.blocked() ? "  blocked" : "");
  PrintPlanes(m.planes());
  return 0;
}

}  // namespace arbiter::cli

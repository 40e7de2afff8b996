#include "query_commands.h"

#include <cinttypes>
#include <cstdio>

#include <cstdlib>
#include <string>

#include "arbiter/core/limits.h"
#include "output.h"
#include "shape_flags.h"
#include "units.h"

namespace arbiter::cli {
namespace {

// A positional argument: its name in the synopsis and its range.
struct Operand {
  const char* name;
  UnitRange range;
};

// Parses positionals [first, first + operands.size()) as world units;
// the error names the first argument that is missing, extra or wrong.
std::optional<std::string> Numbers(const Args& args, size_t first, std::initializer_list<Operand> operands,
                                   std::vector<double>* out) {
  const auto& p = args.positional();
  const size_t want = first + operands.size();
  if (p.size() < want) return std::string("missing ") + operands.begin()[p.size() - first].name;
  if (p.size() > want) return "unexpected argument '" + p[want] + "'";
  for (const Operand& o : operands) {
    double v = 0;
    if (auto e = ParseUnits(o.name, p[first + out->size()], o.range, &v)) return e;
    out->push_back(v);
  }
  return std::nullopt;
}

v1::CastMode ModeOf(const Args& args) {
  if (args.Has("all")) return v1::CAST_MODE_ALL;
  if (args.Has("any")) return v1::CAST_MODE_ANY;
  return v1::CAST_MODE_CLOSEST;
}

// The --at flag into the request's `at`, which stays absent (the current
// tick) without it: a present but zero `at` would mean tick 0. Returns an
// error to print.
template <class Request>
std::optional<std::string> AtFlag(const Args& args, Request* request) {
  if (!args.Has("at")) return std::nullopt;
  return ParseAt(args.Get("at", ""), request->mutable_at());
}

void PrintCastResult(const Context& c, int64_t tick, int64_t fraction, const v1::CastResult& r, const char* what) {
  if (c.json) {
    Json hits = Json::array();
    for (const v1::Hit& h : r.hits()) hits.push_back(HitJson(h));
    PrintJson({{"world", c.world}, {"tick", tick}, {"tick_fraction", fraction}, {"hit", r.hit()}, {"hits", hits}});
    return;
  }
  std::printf("world %s, %s: %s %s\n", c.world.c_str(), TickText(tick, fraction).c_str(), what,
              r.hit() ? "hit" : "missed");
  for (const v1::Hit& h : r.hits()) std::printf("  %s\n", HitText(h).c_str());
}

// Moving the query shape by this much (-normal * depth) leaves it touching.
v1::Vec2 PushOut(const v1::OverlapContact& k) {
  const double depth = client::ToDouble(k.depth());
  return client::MakeVec2(-client::ToDouble(k.normal().x()) * depth, -client::ToDouble(k.normal().y()) * depth);
}

void PrintContacts(const Context& c, int64_t tick, int64_t fraction, const v1::OverlapResult& r) {
  if (c.json) {
    Json list = Json::array();
    for (int i = 0; i < r.shapes_size() && i < r.contacts_size(); ++i) {
      const v1::OverlapContact& k = r.contacts(i);
      Json points = Json::array(), raw_points = Json::array();
      for (const v1::Vec2& p : k.points()) {
        points.push_back(VecJson(p));
        raw_points.push_back(VecRaw(p));
      }
      list.push_back({{"body_id", r.shapes(i).body_id()},
                      {"shape_index", r.shapes(i).shape_index()},
                      {"normal", VecJson(k.normal())},
                      {"depth", client::ToDouble(k.depth())},
                      {"points", points},
                      {"push_out", VecJson(PushOut(k))},
                      {"raw", {{"normal", VecRaw(k.normal())}, {"depth", k.depth()}, {"points", raw_points}}}});
    }
    PrintJson({{"world", c.world}, {"tick", tick}, {"tick_fraction", fraction}, {"contacts", list}});
    return;
  }
  std::printf("world %s, %s: %d shape(s) overlap\n", c.world.c_str(), TickText(tick, fraction).c_str(), r.shapes_size());
  for (int i = 0; i < r.shapes_size() && i < r.contacts_size(); ++i) {
    const v1::OverlapContact& k = r.contacts(i);
    std::string points;
    for (const v1::Vec2& p : k.points()) points += " " + VecText(p);
    std::printf("  body %" PRIu64 " shape %u  depth %.10g  normal %s  push-out %s  point(s)%s\n", r.shapes(i).body_id(),
                r.shapes(i).shape_index(), client::ToDouble(k.depth()), VecText(k.normal()).c_str(),
                VecText(PushOut(k)).c_str(), points.c_str());
  }
}

void PrintDistances(const Context& c, int64_t tick, int64_t fraction, const v1::DistanceResult& r) {
  if (c.json) {
    Json list = Json::array();
    for (const v1::DistanceHit& h : r.hits()) {
      list.push_back({{"body_id", h.body_id()},
                      {"shape_index", h.shape_index()},
                      {"user_tag", h.user_tag()},
                      {"distance", client::ToDouble(h.distance())},
                      {"point_query", VecJson(h.point_query())},
                      {"point_body", VecJson(h.point_body())},
                      {"normal", VecJson(h.normal())},
                      {"depth", client::ToDouble(h.depth())},
                      {"raw",
                       {{"distance", h.distance()},
                        {"point_query", VecRaw(h.point_query())},
                        {"point_body", VecRaw(h.point_body())},
                        {"normal", VecRaw(h.normal())},
                        {"depth", h.depth()}}}});
    }
    PrintJson({{"world", c.world}, {"tick", tick}, {"tick_fraction", fraction}, {"hits", list}});
    return;
  }
  std::printf("world %s, %s: %d body(ies) near\n", c.world.c_str(), TickText(tick, fraction).c_str(), r.hits_size());
  for (const v1::DistanceHit& h : r.hits()) {
    std::printf("  body %" PRIu64 " shape %u  distance %.10g  from %s to %s  normal %s", h.body_id(), h.shape_index(),
                client::ToDouble(h.distance()), VecText(h.point_query()).c_str(), VecText(h.point_body()).c_str(),
                VecText(h.normal()).c_str());
    if (h.depth() != 0) std::printf("  overlapping, depth %.10g", client::ToDouble(h.depth()));
    std::printf("\n");
  }
}

}  // namespace

int RunDistance(const Context& c) {
  std::vector<double> v;
  if (auto e = Numbers(*c.args, 0, {{"X", kCoordinate}, {"Y", kCoordinate}}, &v)) return Usage(c, *e);
  v1::DistanceRequest request;
  if (auto e = AtFlag(*c.args, &request)) return Usage(c, *e);
  request.set_world_id(c.world);
  v1::DistanceQuery* q = request.add_queries();
  if (auto e = ShapeFromFlags(*c.args, q->mutable_shape()->mutable_shape())) return Usage(c, *e);
  *q->mutable_shape()->mutable_transform() = client::MakeTransform(v[0], v[1]);
  double max_distance = 100;
  if (c.args->Has("max_distance")) {
    if (auto e = ParseUnits("--max_distance", c.args->Get("max_distance", ""), kTranslation, &max_distance)) {
      return Usage(c, *e);
    }
  }
  q->set_max_distance(client::ToRaw(max_distance));
  if (c.args->Has("max_results")) {
    const std::string text = c.args->Get("max_results", "");
    char* end = nullptr;
    const unsigned long n = std::strtoul(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || n < 1 || n > kMaxDistanceResults) {
      return Usage(c, "--max_results must be a whole number in 1.." + std::to_string(kMaxDistanceResults));
    }
    q->set_max_results(static_cast<uint32_t>(n));
  } else {
    q->set_max_results(8);
  }
  absl::StatusOr<v1::DistanceResponse> reply = c.client->Distance(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (reply->results_size() != 1) {
    return Fail(c, absl::InternalError("the server sent " + std::to_string(reply->results_size()) + " results for one query"));
  }
  PrintDistances(c, reply->tick(), reply->tick_fraction(), reply->results(0));
  return 0;
}

int RunRay(const Context& c) {
  std::vector<double> v;
  if (auto e = Numbers(*c.args, 0, {{"OX", kCoordinate}, {"OY", kCoordinate}, {"TX", kTranslation}, {"TY", kTranslation}},
                       &v)) {
    return Usage(c, *e);
  }
  v1::CastRaysRequest request;
  if (auto e = AtFlag(*c.args, &request)) return Usage(c, *e);
  request.set_world_id(c.world);
  request.set_mode(ModeOf(*c.args));
  *request.add_rays() = client::MakeRay(v[0], v[1], v[2], v[3]);
  absl::StatusOr<v1::CastRaysResponse> reply = c.client->CastRays(request);
  if (!reply.ok()) return Fail(c, reply.status());
  PrintCastResult(c, reply->tick(), reply->tick_fraction(), reply->results(0), "ray");
  return 0;
}

int RunOverlap(const Context& c) {
  const auto& p = c.args->positional();
  if (p.empty()) return Usage(c, "missing the query kind: point, aabb or circle");
  std::vector<double> v;
  v1::OverlapRequest request;
  if (auto e = AtFlag(*c.args, &request)) return Usage(c, *e);
  request.set_world_id(c.world);
  std::optional<std::string> e;
  if (p[0] == "point") {
    if (!(e = Numbers(*c.args, 1, {{"X", kCoordinate}, {"Y", kCoordinate}}, &v))) {
      *request.add_queries() = client::MakePointQuery(v[0], v[1]);
    }
  } else if (p[0] == "aabb") {
    if (!(e = Numbers(*c.args, 1, {{"X0", kCoordinate}, {"Y0", kCoordinate}, {"X1", kCoordinate}, {"Y1", kCoordinate}}, &v))) {
      *request.add_queries() = client::MakeAabbQuery(v[0], v[1], v[2], v[3]);
    }
  } else if (p[0] == "circle") {
    if (!(e = Numbers(*c.args, 1, {{"X", kCoordinate}, {"Y", kCoordinate}, {"R", kExtent}}, &v))) {
      *request.add_queries() = client::MakeShapeQuery(client::MakeCircle(v[2]), client::MakeTransform(v[0], v[1]));
    }
  } else {
    e = "'" + p[0] + "' is not a query kind: point, aabb or circle";
  }
  if (e) return Usage(c, *e);
  const bool contacts = c.args->Has("contacts");
  if (contacts && p[0] != "circle") return Usage(c, "--contacts needs a shape: circle X Y R");
  request.set_want_contacts(contacts);
  absl::StatusOr<v1::OverlapResponse> reply = c.client->Overlap(request);
  if (!reply.ok()) return Fail(c, reply.status());
  const v1::OverlapResult& r = reply->results(0);
  if (contacts) {
    PrintContacts(c, reply->tick(), reply->tick_fraction(), r);
    return 0;
  }
  if (c.json) {
    Json shapes = Json::array();
    for (const v1::ShapeRef& s : r.shapes()) shapes.push_back({{"body_id", s.body_id()}, {"shape_index", s.shape_index()}});
    PrintJson({{"world", c.world}, {"tick", reply->tick()}, {"tick_fraction", reply->tick_fraction()}, {"shapes", shapes}});
    return 0;
  }
  std::printf("world %s, %s: %d shape(s) overlap\n", c.world.c_str(), TickText(reply->tick(), reply->tick_fraction()).c_str(),
              r.shapes_size());
  for (const v1::ShapeRef& s : r.shapes()) std::printf("  body %" PRIu64 " shape %u\n", s.body_id(), s.shape_index());
  return 0;
}

int RunSweep(const Context& c) {
  std::vector<double> v;
  if (auto e = Numbers(*c.args, 0,
                       {{"X", kCoordinate}, {"Y", kCoordinate}, {"R", kExtent}, {"TX", kTranslation}, {"TY", kTranslation}},
                       &v)) {
    return Usage(c, *e);
  }
  v1::CastShapesRequest request;
  if (auto e = AtFlag(*c.args, &request)) return Usage(c, *e);
  request.set_world_id(c.world);
  request.set_mode(ModeOf(*c.args));
  *request.add_casts() = client::MakeShapeCast(client::MakeCircle(v[2]), client::MakeTransform(v[0], v[1]), v[3], v[4]);
  absl::StatusOr<v1::CastShapesResponse> reply = c.client->CastShapes(request);
  if (!reply.ok()) return Fail(c, reply.status());
  PrintCastResult(c, reply->tick(), reply->tick_fraction(), reply->results(0), "disk sweep");
  return 0;
}

int RunValidate(const Context& c) {
  const auto& p = c.args->positional();
  const char* ids[] = {"SHOOTER", "TARGET"};
  uint64_t body[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    if (p.size() <= i) return Usage(c, std::string("missing ") + ids[i] + " (a body id)");
    const std::optional<uint64_t> id = ParseUint(p[i]);
    if (!id || *id == 0) return Usage(c, std::string(ids[i]) + ": '" + p[i] + "' is not a body id (a positive integer)");
    body[i] = *id;
  }
  std::vector<double> v;
  if (auto e = Numbers(*c.args, 2, {{"OX", kCoordinate}, {"OY", kCoordinate}, {"TX", kTranslation}, {"TY", kTranslation}},
                       &v)) {
    return Usage(c, *e);
  }
  v1::ValidateHitRequest request;
  if (auto e = AtFlag(*c.args, &request)) return Usage(c, *e);
  request.set_world_id(c.world);
  request.set_shooter_body_id(body[0]);
  request.set_target_body_id(body[1]);
  *request.mutable_ray() = client::MakeRay(v[0], v[1], v[2], v[3]);
  absl::StatusOr<v1::ValidateHitResponse> reply = c.client->ValidateHit(request);
  if (!reply.ok()) return Fail(c, reply.status());
  const std::string verdict = v1::HitVerdict_Name(reply->verdict()).substr(sizeof("HIT_VERDICT_") - 1);
  if (c.json) {
    Json j = {{"world", c.world},    {"tick", reply->tick()}, {"tick_fraction", reply->tick_fraction()},
              {"verdict", verdict}, {"shooter", body[0]},    {"target", body[1]}};
    if (reply->has_first_hit()) j["first_hit"] = HitJson(reply->first_hit());
    if (reply->has_target_hit()) j["target_hit"] = HitJson(reply->target_hit());
    PrintJson(j);
    return 0;
  }
  std::printf("world %s, %s: shot by body %" PRIu64 " at body %" PRIu64 ": %s\n", c.world.c_str(),
              TickText(reply->tick(), reply->tick_fraction()).c_str(), body[0], body[1], verdict.c_str());
  if (reply->has_first_hit()) std::printf("  first hit:  %s\n", HitText(reply->first_hit()).c_str());
  if (reply->has_target_hit()) std::printf("  target hit: %s\n", HitText(reply->target_hit()).c_str());
  if (!reply->has_first_hit()) std::printf("  the ray hits nothing\n");
  return 0;
}

}  // namespace arbiter::cli

#include "body_commands.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "arbiter/scene/scene.h"
#include "arbiter/wire/convert.h"
#include "output.h"
#include "shape_flags.h"
#include "units.h"

namespace arbiter::cli {
namespace {

// The single body of `add --id N --type T --position X,Y --circle R ...`.
std::optional<std::string> BodyFromFlags(const Args& a, v1::BodyDef* out) {
  const std::optional<uint64_t> id = ParseUint(a.Get("id", ""));
  if (!id || *id == 0) return "--id: a positive body id is required (or give a FILE.json)";
  const std::string type = a.Get("type", "dynamic");
  const std::pair<const char*, v1::BodyType> types[] = {
      {"static", v1::BODY_TYPE_STATIC}, {"kinematic", v1::BODY_TYPE_KINEMATIC}, {"dynamic", v1::BODY_TYPE_DYNAMIC}};
  v1::BodyType t = v1::BODY_TYPE_UNSPECIFIED;
  for (const auto& [name, value] : types) {
    if (type == name) t = value;
  }
  if (t == v1::BODY_TYPE_UNSPECIFIED) return "--type: '" + type + "' is not one of static, kinematic, dynamic";
  double x = 0, y = 0;
  if (a.Has("position")) {
    if (auto e = ParsePair("--position", a.Get("position", ""), kCoordinate, &x, &y)) return e;
  }
  v1::Shape shape;
  if (auto e = ShapeFromFlags(a, &shape)) return e;
  *out = client::MakeBody(*id, t, x, y, shape);
  if (a.Has("velocity")) {
    double vx = 0, vy = 0;
    if (auto e = ParsePair("--velocity", a.Get("velocity", ""), kSpeed, &vx, &vy)) return e;
    *out->mutable_linear_velocity() = client::MakeVec2(vx, vy);
  }
  out->mutable_shapes(0)->set_is_sensor(a.Has("sensor"));
  return std::nullopt;
}

// One update from flags or a JSON item; `field` prefixes messages.
struct UpdateFields {
  std::optional<std::pair<double, double>> position, velocity;
  std::optional<double> angle, angular_velocity;
};

std::optional<std::string> MakeUpdate(uint64_t id, const UpdateFields& f, const std::string& field, v1::BodyUpdate* out) {
  if (!f.position && !f.velocity && !f.angle && !f.angular_velocity) {
    return field + ": nothing to change (give a position, angle, velocity or angular velocity)";
  }
  out->set_body_id(id);
  if (f.position || f.angle) {
    // A transform is set whole: an angle alone keeps the origin, a position
    // alone the identity rotation (the wire has no partial transform).
    const auto [x, y] = f.position.value_or(std::pair<double, double>{0, 0});
    *out->mutable_transform() = client::MakeTransform(x, y, f.angle.value_or(0));
  }
  if (f.velocity || f.angular_velocity) {
    const auto [vx, vy] = f.velocity.value_or(std::pair<double, double>{0, 0});
    *out->mutable_velocity()->mutable_linear() = client::MakeVec2(vx, vy);
    out->mutable_velocity()->set_angular(client::ToRaw(f.angular_velocity.value_or(0)));
  }
  return std::nullopt;
}

constexpr UnitRange kAngle{"an angle (radians)", 16};  // |w| <= 2^16 (BodyDef.angular_velocity)

// Reads {"updates": [{"id", "position", "angle", "velocity", "angular_velocity"}]}.
std::optional<std::string> UpdatesFromJson(const std::string& text, v1::UpdateBodiesRequest* out) {
  const Json root = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (root.is_discarded() || !root.is_object() || !root.contains("updates") || !root["updates"].is_array()) {
    return "expected {\"updates\": [{\"id\": N, \"position\": {\"x\": X, \"y\": Y}, ...}]}";
  }
  const Json& list = root["updates"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string field = "updates[" + std::to_string(i) + "]";
    const Json& item = list[i];
    if (!item.is_object()) return field + ": expected an object";
    UpdateFields f;
    uint64_t id = 0;
    for (auto it = item.begin(); it != item.end(); ++it) {
      const std::string key = field + "." + it.key();
      const Json& v = it.value();
      auto number = [&](const Json& n, const std::string& name, UnitRange range, double* d) -> std::optional<std::string> {
        if (!n.is_number()) return name + ": expected a number";
        return ParseUnits(name, n.dump(), range, d);
      };
      auto pair = [&](UnitRange range) -> std::optional<std::string> {
        if (!v.is_object() || !v.contains("x") || !v.contains("y") || v.size() != 2) return key + ": expected {\"x\": X, \"y\": Y}";
        std::pair<double, double> p;
        if (auto e = number(v["x"], key + ".x", range, &p.first)) return e;
        if (auto e = number(v["y"], key + ".y", range, &p.second)) return e;
        (it.key() == "position" ? f.position : f.velocity) = p;
        return std::nullopt;
      };
      std::optional<std::string> e;
      double d = 0;
      if (it.key() == "id") {
        if (!v.is_number_unsigned() || v.get<uint64_t>() == 0) return key + ": expected a positive integer";
        id = v.get<uint64_t>();
      } else if (it.key() == "position") {
        e = pair(kCoordinate);
      } else if (it.key() == "velocity") {
        e = pair(kSpeed);
      } else if (it.key() == "angle" || it.key() == "angular_velocity") {
        e = number(v, key, kAngle, &d);
        (it.key() == "angle" ? f.angle : f.angular_velocity) = d;
      } else {
        return key + ": unknown key; expected one of id, position, angle, velocity, angular_velocity";
      }
      if (e) return e;
    }
    if (id == 0) return field + ".id: missing";
    if (auto e = MakeUpdate(id, f, field, out->add_updates())) return e;
  }
  if (out->updates_size() == 0) return "updates: empty (nothing to change)";
  return std::nullopt;
}

std::optional<std::string> UpdateFromFlags(const Args& a, uint64_t id, v1::UpdateBodiesRequest* out) {
  UpdateFields f;
  double x = 0, y = 0, d = 0;
  if (a.Has("position")) {
    if (auto e = ParsePair("--position", a.Get("position", ""), kCoordinate, &x, &y)) return e;
    f.position = {x, y};
  }
  if (a.Has("velocity")) {
    if (auto e = ParsePair("--velocity", a.Get("velocity", ""), kSpeed, &x, &y)) return e;
    f.velocity = {x, y};
  }
  if (a.Has("angle")) {
    if (auto e = ParseUnits("--angle", a.Get("angle", ""), kAngle, &d)) return e;
    f.angle = d;
  }
  if (a.Has("angular_velocity")) {
    if (auto e = ParseUnits("--angular_velocity", a.Get("angular_velocity", ""), kAngle, &d)) return e;
    f.angular_velocity = d;
  }
  return MakeUpdate(id, f, "body " + std::to_string(id), out->add_updates());
}

bool IsJsonFile(const std::string& arg) { return arg.size() > 5 && arg.compare(arg.size() - 5, 5, ".json") == 0; }

void PrintChange(const Context& c, const char* what, size_t n, int64_t tick, std::optional<uint64_t> body_count) {
  if (c.json) {
    Json j = {{"world", c.world}, {what, n}, {"tick", tick}};
    if (body_count) j["body_count"] = *body_count;
    PrintJson(j);
    return;
  }
  std::printf("world %s: %s %zu bod%s at tick %" PRId64, c.world.c_str(), what, n, n == 1 ? "y" : "ies", tick);
  if (body_count) std::printf(", %" PRIu64 " bodies now", *body_count);
  std::printf("\n");
}

}  // namespace

int RunAdd(const Context& c) {
  const auto& p = c.args->positional();
  v1::AddBodiesRequest request;
  request.set_world_id(c.world);
  if (p.size() > 1) return Usage(c, "unexpected argument '" + p[1] + "' (one FILE.json, or flags for one body)");
  if (p.size() == 1) {
    std::vector<BodyDef> bodies;
    if (const arbiter::Status s = scene::LoadBodyListFile(p[0], &bodies); !s.ok()) {
      std::fprintf(stderr, "arbiter add: %s\n  fix the file: bodies as in scenes/FORMAT.md, {\"bodies\": [...]} or a whole scene\n",
                   s.message().c_str());
      return 1;
    }
    for (const BodyDef& b : bodies) wire::ToProto(b, request.add_bodies());
  } else if (auto e = BodyFromFlags(*c.args, request.add_bodies())) {
    return Usage(c, *e);
  }
  absl::StatusOr<v1::AddBodiesResponse> reply = c.client->AddBodies(request);
  if (!reply.ok()) return Fail(c, reply.status());
  PrintChange(c, "added", static_cast<size_t>(request.bodies_size()), reply->tick(), reply->body_count());
  return 0;
}

int RunRemove(const Context& c) {
  const auto& p = c.args->positional();
  if (p.empty()) return Usage(c, "missing ID (the ids of the bodies to remove)");
  v1::RemoveBodiesRequest request;
  request.set_world_id(c.world);
  for (size_t i = 0; i < p.size(); ++i) {
    const std::optional<uint64_t> id = ParseUint(p[i]);
    if (!id || *id == 0) return Usage(c, "ID " + std::to_string(i + 1) + ": '" + p[i] + "' is not a body id (a positive integer)");
    request.add_body_ids(*id);
  }
  absl::StatusOr<v1::RemoveBodiesResponse> reply = c.client->RemoveBodies(request);
  if (!reply.ok()) return Fail(c, reply.status());
  PrintChange(c, "removed", p.size(), reply->tick(), reply->body_count());
  return 0;
}

int RunUpdate(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage(c, p.empty() ? "missing ID or FILE.json" : "unexpected argument '" + p[1] + "'");
  v1::UpdateBodiesRequest request;
  request.set_world_id(c.world);
  if (IsJsonFile(p[0])) {
    std::ifstream in(p[0], std::ios::binary);
    if (!in) return FileError(c, "read", p[0]);
    std::stringstream text;
    text << in.rdbuf();
    if (auto e = UpdatesFromJson(text.str(), &request)) {
      std::fprintf(stderr, "arbiter update: %s: %s\n  fix the file (see `arbiter help update`)\n", p[0].c_str(), e->c_str());
      return 1;
    }
  } else {
    const std::optional<uint64_t> id = ParseUint(p[0]);
    if (!id || *id == 0) return Usage(c, "ID: '" + p[0] + "' is neither a body id nor a FILE.json");
    if (auto e = UpdateFromFlags(*c.args, *id, &request)) return Usage(c, *e);
  }
  absl::StatusOr<v1::UpdateBodiesResponse> reply = c.client->UpdateBodies(request);
  if (!reply.ok()) return Fail(c, reply.status());
  PrintChange(c, "updated", static_cast<size_t>(request.updates_size()), reply->tick(), std::nullopt);
  return 0;
}

}  // namespace arbiter::cli

#include "http/viewer_api.h"

#include <memory>

#include "arbiter/render/exact_decimal.h"
#include "arbiter/render/svg_world.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"

namespace arbiter::server {
namespace {

using render::AppendExactDecimal;

// Appends "name":value with the exact decimal of v, then a comma unless last.
void Field(std::string* out, const char* name, Fixed v, bool last = false) {
  out->append("\"").append(name).append("\":");
  AppendExactDecimal(out, v.raw());
  if (!last) out->push_back(',');
}

void PointPair(std::string* out, Vec2 p) {
  out->push_back('[');
  AppendExactDecimal(out, p.x.raw());
  out->push_back(',');
  AppendExactDecimal(out, p.y.raw());
  out->push_back(']');
}

void ShapeJson(std::string* out, const ShapeDef& def) {
  const Shape& s = def.shape;
  out->append(def.is_sensor ? "{\"sensor\":true," : "{\"sensor\":false,");
  switch (s.type) {
    case ShapeType::kCircle:
      out->append("\"kind\":\"circle\",");
      Field(out, "cx", s.circle.center.x);
      Field(out, "cy", s.circle.center.y);
      Field(out, "r", s.circle.radius, true);
      break;
    case ShapeType::kCapsule:
    case ShapeType::kSegment:
    case ShapeType::kChainSegment: {  // a chain segment: its two points (the ghosts only shape contacts)
      const bool capsule = s.type == ShapeType::kCapsule;
      const bool chain = s.type == ShapeType::kChainSegment;
      out->append(capsule ? "\"kind\":\"capsule\"," : chain ? "\"kind\":\"chain_segment\"," : "\"kind\":\"segment\",");
      const Vec2 a = capsule ? s.capsule.center1 : chain ? s.chain_segment.point1 : s.segment.point1;
      const Vec2 b = capsule ? s.capsule.center2 : chain ? s.chain_segment.point2 : s.segment.point2;
      Field(out, "x1", a.x);
      Field(out, "y1", a.y);
      Field(out, "x2", b.x);
      Field(out, "y2", b.y, !capsule);
      if (capsule) Field(out, "r", s.capsule.radius, true);
      break;
    }
    case ShapeType::kPolygon:
      out->append("\"kind\":\"polygon\",\"points\":[");
      for (int32_t i = 0; i < s.polygon.count; ++i) {
        if (i > 0) out->push_back(',');
        PointPair(out, s.polygon.vertices[static_cast<size_t>(i)]);
      }
      out->append("],");
      Field(out, "r", s.polygon.radius, true);
      break;
  }
  out->push_back('}');
}

void BodyJson(std::string* out, const BodyDef& def) {
  out->append("{\"id\":\"" + std::to_string(def.id) + "\",\"type\":\"" + render::BodyTypeName(def.type) + "\",");
  Field(out, "x", def.transform.p.x);
  Field(out, "y", def.transform.p.y);
  Field(out, "c", def.transform.q.c);
  Field(out, "s", def.transform.q.s);
  Field(out, "vx", def.linear_velocity.x);
  Field(out, "vy", def.linear_velocity.y);
  Field(out, "w", def.angular_velocity);
  out->append("\"shapes\":[");
  for (size_t i = 0; i < def.shapes.size(); ++i) {
    if (i > 0) out->push_back(',');
    ShapeJson(out, def.shapes[i]);
  }
  out->append("]}");
}

}  // namespace

std::string BodiesJson(const World& world) {
  std::string out = "[";
  for (uint64_t id : world.BodyIds()) {  // ascending
    if (out.size() > 1) out.push_back(',');
    BodyJson(&out, *world.GetBodyDef(id));
  }
  out.push_back(']');
  return out;
}

std::string WorldsJson(WorldRegistry& registry, const std::function<bool(std::string_view)>& visible) {
  std::string out = "{\"worlds\":[";
  bool first = true;
  for (const std::shared_ptr<WorldEntry>& entry : registry.List()) {
    if (!visible(entry->id())) continue;
    const absl::Status s = entry->ReadLive([&](const World& world) {
      if (!first) out.push_back(',');
      first = false;
      out.append("{\"world_id\":\"" + entry->id() + "\",\"tick\":" + std::to_string(world.tick()) +
                 ",\"body_count\":" + std::to_string(world.body_count()) +
                 ",\"tick_hz\":" + std::to_string(world.def().tick_hz) +
                 ",\"history_ticks\":" + std::to_string(entry->history().capacity()) +
                 ",\"oldest_tick\":" + std::to_string(entry->oldest_tick(world)) + "}");
      return absl::OkStatus();
    });
    (void)s;  // a world gone offline since List() is simply left out
  }
  out.append("]}");
  return out;
}

absl::StatusOr<std::string> WorldJson(WorldRegistry& registry, std::string_view world_id, std::optional<int64_t> at) {
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry.Find(world_id);
  if (!entry.ok()) return entry.status();
  const WorldEntry& e = **entry;
  std::string out;
  const absl::Status s = e.ReadLive([&](const World& live) -> absl::Status {
    std::shared_ptr<const World> past;
    if (at) {
      if (absl::Status h = FromCore(e.history().At(live, *at, Fixed(), &past)); !h.ok()) {
        return WithPrefix(h, "at.");
      }
    }
    const World& world = past != nullptr ? *past : live;
    out = "{\"world_id\":\"" + e.id() + "\",\"tick\":" + std::to_string(world.tick()) +
          ",\"live_tick\":" + std::to_string(live.tick()) + ",\"oldest_tick\":" + std::to_string(e.oldest_tick(live)) +
          ",\"tick_hz\":" + std::to_string(live.def().tick_hz) + ",\"bodies\":" + BodiesJson(world) + "}";
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  return out;
}

}  // namespace arbiter::server

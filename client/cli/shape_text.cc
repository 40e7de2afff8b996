#include "shape_text.h"

#include <cstdio>

namespace arbiter::cli {
namespace {

Json Point(Vec2 v) { return Json::array({v.x.ToDouble(), v.y.ToDouble()}); }

Json ShapeJson(const ShapeDef& def) {
  const Shape& s = def.shape;
  Json j;
  switch (s.type) {
    case ShapeType::kCircle:
      j = {{"kind", "circle"}, {"center", Point(s.circle.center)}, {"radius", s.circle.radius.ToDouble()}};
      break;
    case ShapeType::kCapsule:
      j = {{"kind", "capsule"},
           {"p1", Point(s.capsule.center1)},
           {"p2", Point(s.capsule.center2)},
           {"radius", s.capsule.radius.ToDouble()}};
      break;
    case ShapeType::kSegment:
      j = {{"kind", "segment"}, {"p1", Point(s.segment.point1)}, {"p2", Point(s.segment.point2)}};
      break;
    case ShapeType::kChainSegment:
      j = {{"kind", "chain_segment"},
           {"ghost1", Point(s.chain_segment.ghost1)},
           {"p1", Point(s.chain_segment.point1)},
           {"p2", Point(s.chain_segment.point2)},
           {"ghost2", Point(s.chain_segment.ghost2)}};
      break;
    case ShapeType::kPolygon: {
      Json points = Json::array();
      for (int32_t i = 0; i < s.polygon.count; ++i) points.push_back(Point(s.polygon.vertices[static_cast<size_t>(i)]));
      j = {{"kind", "polygon"}, {"points", points}, {"radius", s.polygon.radius.ToDouble()}};
      break;
    }
  }
  j["sensor"] = def.is_sensor;
  j["user_tag"] = def.user_tag;
  return j;
}

}  // namespace

absl::StatusOr<World> FetchWorld(client::ArbiterClient& client, const std::string& world_id) {
  v1::GetSnapshotRequest request;
  request.set_world_id(world_id);
  absl::StatusOr<v1::GetSnapshotResponse> reply = client.GetSnapshot(request);
  if (!reply.ok()) return reply.status();
  const std::string& bytes = reply->snapshot();
  World world;
  const arbiter::Status s = World::Restore(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()), &world);
  if (!s.ok()) {
    return absl::DataLossError("the server's snapshot does not read back in this build: " + s.message() +
                               " (is the CLI from the same version as the server?)");
  }
  return world;
}

Json ShapesJson(const World& world, uint64_t id) {
  Json shapes = Json::array();
  if (std::optional<BodyDef> def = world.GetBodyDef(id)) {
    for (const ShapeDef& s : def->shapes) shapes.push_back(ShapeJson(s));
  }
  return shapes;
}

void PrintShapes(const World& world, uint64_t id) {
  const Json shapes = ShapesJson(world, id);
  for (size_t i = 0; i < shapes.size(); ++i) {
    Json rest = shapes[i];
    const std::string kind = rest["kind"];
    rest.erase("kind");
    std::printf("    shape %zu: %s %s\n", i, kind.c_str(), rest.dump().c_str());
  }
}

}  // namespace arbiter::cli

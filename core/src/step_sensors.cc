// Stage 6 of a tick: sensor overlaps.
//
// Every sensor shape against the non-sensor shapes its box touches, at the
// final poses, when either body can move. Sensors never collide.
#include <algorithm>

#include "arbiter/core/collision.h"
#include "step_internal.h"

namespace arbiter::internal {

std::vector<SensorEvent> FindSensorOverlaps(const World::Impl& w) {
  std::vector<SensorEvent> overlaps;
  for (uint32_t si = 0; si < w.shapes.size(); ++si) {
    const ShapeRecord& sensor = w.shapes[si];
    if (!sensor.alive || !sensor.is_sensor) continue;
    const BodyRecord& sensor_body = w.bodies[sensor.body_slot];
    const ShapeProxy sensor_proxy = w.ProxyOf(sensor);
    auto visit = [&](uint32_t vi) {
      const ShapeRecord& visitor = w.shapes[vi];
      const BodyRecord& visitor_body = w.bodies[visitor.body_slot];
      if (visitor.is_sensor || visitor.body_slot == sensor.body_slot) return true;
      if (sensor_body.type == BodyType::kStatic && visitor_body.type == BodyType::kStatic) return true;
      if (!ShouldCollide(sensor.filter, visitor.filter)) return true;
      if (TestOverlap(sensor_proxy, w.ProxyOf(visitor))) {
        overlaps.push_back({{sensor_body.id, sensor.index_in_body}, {visitor_body.id, visitor.index_in_body}});
      }
      return true;
    };
    const Aabb box = ComputeProxyAabb(sensor_proxy);
    w.static_tree.Query(box, visit);
    w.movable_tree.Query(box, visit);
  }
  std::sort(overlaps.begin(), overlaps.end(), SensorLess);
  return overlaps;
}

}  // namespace arbiter::internal

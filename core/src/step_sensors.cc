// Stage 6 of a tick: sensor overlaps.
//
// Every sensor shape against the non-sensor shapes its box touches, at the
// final poses, when either body can move. Sensors never collide. For the
// events, the bodies continuous collision swept are also cast against the
// sensors along their path, so that a fast body that passes through a
// sensor within one tick is reported entering and leaving it.
#include <algorithm>
#include <iterator>

#include "arbiter/core/collision.h"
#include "step_internal.h"

namespace arbiter::internal {
namespace {

// The pairing rules of FindSensorOverlaps, for a sensor shape and a visitor.
bool SensorSees(const World::Impl& w, const ShapeRecord& sensor, const ShapeRecord& visitor) {
  if (!sensor.alive || !sensor.is_sensor || visitor.is_sensor || visitor.body_slot == sensor.body_slot) return false;
  if (w.bodies[sensor.body_slot].type == BodyType::kStatic && w.bodies[visitor.body_slot].type == BodyType::kStatic) {
    return false;
  }
  return ShouldCollide(w.FilterOf(sensor), w.FilterOf(visitor));
}

}  // namespace

std::vector<SensorEvent> FindSensorCrossings(const World::Impl& w, const StepState& st,
                                             const std::vector<SensorEvent>& before,
                                             const std::vector<SensorEvent>& after) {
  std::vector<SensorEvent> crossed;
  for (const SweptBody& swept : st.swept) {
    const BodyRecord& body = w.bodies[swept.slot];
    for (uint32_t k = 0; k < body.shape_count; ++k) {
      const ShapeRecord& visitor = w.shapes[body.first_shape + k];
      if (visitor.is_sensor || !MovesFarEnough(w, visitor, swept.motion)) continue;
      const ShapeProxy start = PlacedProxy(w, visitor, swept.start);
      const Aabb path = Union(ComputeProxyAabb(start), ComputeProxyAabb(w.ProxyOf(visitor)));
      auto visit = [&](uint32_t si) {
        const ShapeRecord& sensor = w.shapes[si];
        if (!SensorSees(w, sensor, visitor)) return true;
        if (ShapeCast({start, w.ProxyOf(sensor), swept.motion, kFixedOne}).hit) {
          crossed.push_back({{sensor.body_id, sensor.index_in_body}, {body.id, visitor.index_in_body}});
        }
        return true;
      };
      w.static_tree.Query(path, visit);
      w.movable_tree.Query(path, visit);
    }
  }
  std::sort(crossed.begin(), crossed.end(), SensorLess);
  crossed.erase(std::unique(crossed.begin(), crossed.end()), crossed.end());
  // Only what neither end saw: an overlap at either end is a plain enter or exit.
  std::vector<SensorEvent> unseen, result;
  std::set_difference(crossed.begin(), crossed.end(), before.begin(), before.end(), std::back_inserter(unseen), SensorLess);
  std::set_difference(unseen.begin(), unseen.end(), after.begin(), after.end(), std::back_inserter(result), SensorLess);
  return result;
}

std::vector<SensorEvent> FindSensorOverlaps(const World::Impl& w, bool* any_sensor) {
  std::vector<SensorEvent> overlaps;
  *any_sensor = false;
  for (uint32_t si = 0; si < w.shapes.size(); ++si) {
    const ShapeRecord& sensor = w.shapes[si];
    if (!sensor.alive || !sensor.is_sensor) continue;
    *any_sensor = true;
    const BodyRecord& sensor_body = w.bodies[sensor.body_slot];
    const ShapeProxy sensor_proxy = w.ProxyOf(sensor);
    auto visit = [&](uint32_t vi) {
      const ShapeRecord& visitor = w.shapes[vi];
      const BodyRecord& visitor_body = w.bodies[visitor.body_slot];
      if (!SensorSees(w, sensor, visitor)) return true;
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

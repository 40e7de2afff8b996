// Shape construction and the definitions' defaults, for the C interface.
#include <string>
#include <vector>

#include "arbiter/core/chain.h"

#include "arbiter/core/shapes.h"
#include "c_world.h"
#include "convert.h"

namespace arbiter::c_api {
namespace {

// Runs a core constructor and copies its polygon out only on success.
template <class Make>
arb_status MakeInto(arb_polygon* out, const char* field, arb_error* error, Make&& make) {
  return Guarded(error, [&]() -> Status {
    if (out == nullptr) return NullError("out");
    Polygon polygon;
    if (Status s = ShapeStatus(make(&polygon), field); !s.ok()) return s;
    *out = ToC(polygon);
    return OkStatus();
  });
}

}  // namespace
}  // namespace arbiter::c_api

using namespace arbiter;
using namespace arbiter::c_api;

extern "C" {

arb_status arb_make_polygon(const arb_vec2* points, int32_t count, int64_t radius, arb_polygon* out,
                            arb_error* error) {
  if (points == nullptr && count > 0) return Report(NullError("points"), error);
  return MakeInto(out, "points", error, [&](Polygon* p) {
    if (count < 0) return ShapeError::kTooFewVertices;
    if (count > kMaxPolygonVertices) return ShapeError::kTooManyVertices;
    Vec2 v[kMaxPolygonVertices];
    for (int32_t i = 0; i < count; ++i) v[i] = FromC(points[i]);
    return MakePolygon(std::span<const Vec2>(v, static_cast<size_t>(count)), F(radius), p);
  });
}

arb_status arb_make_chain(const arb_vec2* points, int32_t count, int32_t loop, arb_shape* out, int32_t capacity,
                          int32_t* written, arb_error* error) {
  return Guarded(error, [&]() -> Status {
    if (points == nullptr && count > 0) return NullError("points");
    if (out == nullptr && capacity > 0) return NullError("out");
    if (written == nullptr) return NullError("written");
    if (count < 0) return ShapeStatus(ShapeError::kTooFewChainPoints, "points");
    if (count > static_cast<int32_t>(kMaxChainPoints)) return ShapeStatus(ShapeError::kTooManyChainPoints, "points");
    std::vector<Vec2> v(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; ++i) v[static_cast<size_t>(i)] = FromC(points[i]);
    std::vector<Shape> segments;
    if (Status s = ShapeStatus(MakeChain(v, loop != 0, &segments), "points"); !s.ok()) return s;
    if (segments.size() > static_cast<size_t>(capacity < 0 ? 0 : capacity)) {
      return BufferTooSmall("out", segments.size(), static_cast<size_t>(capacity < 0 ? 0 : capacity));
    }
    for (size_t i = 0; i < segments.size(); ++i) out[i] = ToC(segments[i]);
    *written = static_cast<int32_t>(segments.size());
    return OkStatus();
  });
}

arb_status arb_make_box(int64_t half_width, int64_t half_height, arb_polygon* out, arb_error* error) {
  return MakeInto(out, "box", error, [&](Polygon* p) { return MakeBox(F(half_width), F(half_height), p); });
}

arb_status arb_make_offset_box(int64_t half_width, int64_t half_height, const arb_vec2* center,
                               const arb_rot* rotation, arb_polygon* out, arb_error* error) {
  if (center == nullptr) return Report(NullError("center"), error);
  if (rotation == nullptr) return Report(NullError("rotation"), error);
  if (!IsUnitRotation(FromC(*rotation))) {
    return Report(InvalidArgumentError("rotation: not a unit rotation (c^2 + s^2 != 1)"), error);
  }
  return MakeInto(out, "box", error, [&](Polygon* p) {
    return MakeOffsetBox(F(half_width), F(half_height), FromC(*center), FromC(*rotation), p);
  });
}

void arb_world_def_init(arb_world_def* def) {
  if (def == nullptr) return;
  const WorldDef d;
  *def = {ToC(d.gravity), d.tick_hz, d.max_bodies};
}

void arb_shape_def_init(arb_shape_def* def) {
  if (def == nullptr) return;
  ShapeDef d;
  d.shape = Shape::FromCircle({{}, kFixedOne});
  *def = ToC(d);
}

void arb_body_def_init(arb_body_def* def) {
  if (def == nullptr) return;
  const BodyDef d;
  *def = {};
  def->id = d.id;
  def->transform = ToC(d.transform);
  def->linear_velocity = ToC(d.linear_velocity);
  def->angular_velocity = d.angular_velocity.raw();
  def->linear_damping = d.linear_damping.raw();
  def->angular_damping = d.angular_damping.raw();
  def->gravity_scale = d.gravity_scale.raw();
  def->type = static_cast<arb_body_type>(d.type);
  def->is_bullet = d.is_bullet ? 1 : 0;
}

void arb_query_filter_init(arb_query_filter* filter) {
  if (filter == nullptr) return;
  const QueryFilter q;
  *filter = {};
  filter->category_bits = q.category_bits;
  filter->mask_bits = q.mask_bits;
  filter->body_types = q.body_types;
  filter->include_sensors = q.include_sensors ? 1 : 0;
}

}  // extern "C"

#include "convert.h"

#include <cstring>

#include "arbiter/core/limits.h"
#include "c_world.h"

namespace arbiter::c_api {

Polygon FromC(const arb_polygon& p) {
  Polygon out;
  for (int i = 0; i < kMaxPolygonVertices; ++i) {
    out.vertices[i] = FromC(p.vertices[i]);
    out.normals[i] = FromC(p.normals[i]);
  }
  out.centroid = FromC(p.centroid);
  out.radius = F(p.radius);
  out.count = p.count;
  return out;
}

arb_polygon ToC(const Polygon& p) {
  arb_polygon out{};
  for (int i = 0; i < kMaxPolygonVertices; ++i) {
    out.vertices[i] = ToC(p.vertices[i]);
    out.normals[i] = ToC(p.normals[i]);
  }
  out.centroid = ToC(p.centroid);
  out.radius = p.radius.raw();
  out.count = p.count;
  return out;
}

arb_shape ToC(const Shape& s) {
  arb_shape out{};
  out.type = static_cast<arb_shape_type>(s.type);
  switch (s.type) {
    case ShapeType::kCircle: out.u.circle = {ToC(s.circle.center), s.circle.radius.raw()}; break;
    case ShapeType::kCapsule:
      out.u.capsule = {ToC(s.capsule.center1), ToC(s.capsule.center2), s.capsule.radius.raw()};
      break;
    case ShapeType::kSegment: out.u.segment = {ToC(s.segment.point1), ToC(s.segment.point2)}; break;
    case ShapeType::kPolygon: out.u.polygon = ToC(s.polygon); break;
    case ShapeType::kChainSegment: {
      const ChainSegment& c = s.chain_segment;
      out.u.chain_segment = {ToC(c.ghost1), ToC(c.point1), ToC(c.point2), ToC(c.ghost2)};
      break;
    }
  }
  return out;
}

arb_shape_def ToC(const ShapeDef& d) {
  arb_shape_def out{};
  out.shape = ToC(d.shape);
  out.filter = ToC(d.filter);
  out.friction = d.friction.raw();
  out.restitution = d.restitution.raw();
  out.density = d.density.raw();
  out.user_tag = d.user_tag;
  out.is_sensor = d.is_sensor ? 1 : 0;
  return out;
}

arb_cast_hit ToC(const CastHit& h) {
  return {ToC(h.shape), h.user_tag, h.fraction.raw(), ToC(h.point), ToC(h.normal)};
}

arb_overlap_contact ToC(const OverlapContact& c) {
  return {ToC(c.shape), c.user_tag, ToC(c.normal), c.depth.raw(), c.point_count, 0, {ToC(c.points[0]), ToC(c.points[1])}};
}

arb_distance_hit ToC(const DistanceHit& h) {
  return {ToC(h.shape),        h.user_tag,    h.distance.raw(), ToC(h.point_query),
          ToC(h.point_body),   ToC(h.normal), h.depth.raw()};
}

arb_contact_event ToC(const ContactEvent& e) {
  return {ToC(e.a), ToC(e.b), ToC(e.point), ToC(e.normal), e.approach_speed.raw(), e.user_tag_a, e.user_tag_b};
}

arb_sensor_event ToC(const SensorEvent& e) {
  return {ToC(e.sensor), ToC(e.visitor), e.sensor_user_tag, e.visitor_user_tag};
}

// The union member is copied out byte for byte: the caller wrote it from C,
// and memcpy reads it without relying on C++'s active-member rules.
template <class T>
T Member(const void* bytes) {
  T out;
  std::memcpy(&out, bytes, sizeof out);
  return out;
}

Status FromC(const arb_shape& s, const std::string& field, Shape* out) {
  switch (s.type) {
    case ARB_SHAPE_CIRCLE: {
      const auto c = Member<arb_circle>(&s.u);
      *out = Shape::FromCircle({FromC(c.center), F(c.radius)});
      return OkStatus();
    }
    case ARB_SHAPE_CAPSULE: {
      const auto c = Member<arb_capsule>(&s.u);
      *out = Shape::FromCapsule({FromC(c.center1), FromC(c.center2), F(c.radius)});
      return OkStatus();
    }
    case ARB_SHAPE_SEGMENT: {
      const auto g = Member<arb_segment>(&s.u);
      *out = Shape::FromSegment({FromC(g.point1), FromC(g.point2)});
      return OkStatus();
    }
    case ARB_SHAPE_POLYGON:
      *out = Shape::FromPolygon(FromC(Member<arb_polygon>(&s.u)));
      return OkStatus();
    case ARB_SHAPE_CHAIN_SEGMENT: {
      const auto c = Member<arb_chain_segment>(&s.u);
      *out = Shape::FromChainSegment({FromC(c.ghost1), FromC(c.point1), FromC(c.point2), FromC(c.ghost2)});
      return OkStatus();
    }
    default:
      return InvalidArgumentError(field + ": unknown shape type " + std::to_string(s.type));
  }
}

Status FromC(const arb_shape_def& d, const std::string& field, ShapeDef* out) {
  ShapeDef def;
  if (Status s = FromC(d.shape, field + ".shape", &def.shape); !s.ok()) return s;
  def.filter = FromC(d.filter);
  def.is_sensor = d.is_sensor != 0;
  def.friction = F(d.friction);
  def.restitution = F(d.restitution);
  def.density = F(d.density);
  def.user_tag = d.user_tag;
  *out = def;
  return OkStatus();
}

Status FromC(const arb_body_def& d, const std::string& field, BodyDef* out) {
  if (d.type < ARB_BODY_STATIC || d.type > ARB_BODY_DYNAMIC) {
    return InvalidArgumentError(field + ".type: unknown body type");
  }
  // Checked before converting so that a huge count allocates nothing.
  if (d.shape_count > kMaxShapesPerBody + kMaxChainSegmentsPerBody) {
    return ResourceExhaustedError(field + ".shapes: more than 64 shapes plus 4096 chain segments");
  }
  if (d.shape_count > 0 && d.shapes == nullptr) return NullError((field + ".shapes").c_str());
  BodyDef def;
  def.id = d.id;
  def.type = static_cast<BodyType>(d.type);
  def.transform = FromC(d.transform);
  def.linear_velocity = FromC(d.linear_velocity);
  def.angular_velocity = F(d.angular_velocity);
  def.linear_damping = F(d.linear_damping);
  def.angular_damping = F(d.angular_damping);
  def.gravity_scale = F(d.gravity_scale);
  def.is_bullet = d.is_bullet != 0;
  def.shapes.resize(d.shape_count);
  for (uint32_t i = 0; i < d.shape_count; ++i) {
    const std::string f = field + ".shapes[" + std::to_string(i) + "]";
    if (Status s = FromC(d.shapes[i], f, &def.shapes[i]); !s.ok()) return s;
  }
  *out = std::move(def);
  return OkStatus();
}

Status FromC(const arb_query_filter* f, QueryFilter* out) {
  QueryFilter q;
  if (f != nullptr) {
    if (f->exclude_count > 0 && f->exclude_bodies == nullptr) return NullError("filter.exclude_bodies");
    q.category_bits = f->category_bits;
    q.mask_bits = f->mask_bits;
    q.include_sensors = f->include_sensors != 0;
    q.body_types = static_cast<uint8_t>(f->body_types & 0b111);
    q.exclude_bodies = std::span<const uint64_t>(f->exclude_bodies, f->exclude_count);
  }
  *out = q;
  return OkStatus();
}

}  // namespace arbiter::c_api

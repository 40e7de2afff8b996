#include "arbiter/wire/convert.h"

#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/chain.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/world.h"

namespace arbiter::wire {

// arbiter::StatusCode and absl::StatusCode both use the google.rpc.Code
// numbering (status.h says so for the core; Abseil documents it), so the
// cast is the mapping.
static_assert(static_cast<int>(StatusCode::kInvalidArgument) == static_cast<int>(absl::StatusCode::kInvalidArgument));
static_assert(static_cast<int>(StatusCode::kNotFound) == static_cast<int>(absl::StatusCode::kNotFound));
static_assert(static_cast<int>(StatusCode::kAlreadyExists) == static_cast<int>(absl::StatusCode::kAlreadyExists));
static_assert(static_cast<int>(StatusCode::kResourceExhausted) == static_cast<int>(absl::StatusCode::kResourceExhausted));
static_assert(static_cast<int>(StatusCode::kFailedPrecondition) == static_cast<int>(absl::StatusCode::kFailedPrecondition));
static_assert(static_cast<int>(StatusCode::kOutOfRange) == static_cast<int>(absl::StatusCode::kOutOfRange));
static_assert(static_cast<int>(StatusCode::kInternal) == static_cast<int>(absl::StatusCode::kInternal));

absl::Status FromCore(const Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.code()), status.message());
}

namespace {

// -2^63 is the one raw value whose negation wraps to itself. The core's
// range checks handle it (WithinMagnitude); the wire rejects it first
// anyway so that its message names the field and the reason precisely.
constexpr int64_t kMinRaw = std::numeric_limits<int64_t>::min();

std::string Join(std::string_view field, std::string_view rest) {
  std::string s(field);
  s += rest;
  return s;
}

// Core validators take a field prefix; we pass "" and prepend ours only on
// error, so the per-item hot path builds no strings.
absl::Status Prefixed(absl::Status s, std::string_view field) {
  if (s.ok()) return s;
  return absl::Status(s.code(), Join(field, std::string(s.message())));
}

bool HasMinRaw(const v1::Vec2& v) { return v.x() == kMinRaw || v.y() == kMinRaw; }

// Built only on error, so that the per-item path allocates nothing.
absl::Status MinRawError(std::string_view field) {
  return absl::OutOfRangeError(Join(field, ": raw value -2^63 is not accepted (it has no negation)"));
}

absl::Status ShapeStatus(ShapeError error, std::string_view field, const char* kind) {
  if (error == ShapeError::kOk) return absl::OkStatus();
  std::string message = Join(field, ".");
  message += kind;
  message += ": ";
  message += ShapeErrorMessage(error);
  return error == ShapeError::kOutOfRange ? absl::OutOfRangeError(std::move(message))
                                          : absl::InvalidArgumentError(std::move(message));
}

}  // namespace

absl::Status CheckRaw(int64_t raw, std::string_view field) {
  if (raw != kMinRaw) return absl::OkStatus();
  return MinRawError(field);
}

absl::Status ParseVec2(const v1::Vec2& v, std::string_view field, Vec2* out) {
  if (HasMinRaw(v)) return MinRawError(field);
  *out = FromProto(v);
  return absl::OkStatus();
}

void ToProto(Rot q, v1::Rot* out) {
  out->set_c(q.c.raw());
  out->set_s(q.s.raw());
}

void ToProto(const Transform& xf, v1::Transform* out) {
  ToProto(xf.p, out->mutable_position());
  ToProto(xf.q, out->mutable_rotation());
}

Transform FromProto(const v1::Transform& xf) {
  Transform t = kTransformIdentity;
  t.p = FromProto(xf.position());
  if (xf.has_rotation()) t.q = {Fixed::FromRaw(xf.rotation().c()), Fixed::FromRaw(xf.rotation().s())};
  return t;
}

absl::Status ParseRot(bool has, const v1::Rot& rot, std::string_view field, Rot* out) {
  if (!has) {
    *out = kRotIdentity;
    return absl::OkStatus();
  }
  const Rot q{Fixed::FromRaw(rot.c()), Fixed::FromRaw(rot.s())};
  if (!arbiter::IsUnitRotation(q)) return absl::InvalidArgumentError(Join(field, ": not a unit rotation (c^2 + s^2 != 1)"));
  *out = q;
  return absl::OkStatus();
}

absl::Status ParseTransform(const v1::Transform& xf, std::string_view field, Transform* out) {
  Transform t;
  if (absl::Status s = ParsePoint(xf.position(), Join(field, ".position"), &t.p); !s.ok()) return s;
  if (absl::Status s = ParseRot(xf.has_rotation(), xf.rotation(), Join(field, ".rotation"), &t.q); !s.ok()) return s;
  *out = t;
  return absl::OkStatus();
}

absl::Status ParsePoint(const v1::Vec2& point, std::string_view field, Vec2* out) {
  Vec2 p;
  if (absl::Status s = ParseVec2(point, field, &p); !s.ok()) return s;
  if (absl::Status s = FromCore(ValidatePoint(p, "")); !s.ok()) return Prefixed(std::move(s), field);
  *out = p;
  return absl::OkStatus();
}

absl::Status ParseTranslation(const v1::Vec2& translation, std::string_view field, Vec2* out) {
  // ValidateRay owns the translation limit; a ray from the origin checks
  // exactly that and nothing else.
  RayCastInput probe{Vec2{}, Vec2{}, kFixedOne};
  if (absl::Status s = ParseVec2(translation, field, &probe.translation); !s.ok()) return s;
  if (!ValidateRay(probe, "").ok()) {
    return absl::OutOfRangeError(Join(field, ": beyond +-2^30 units"));
  }
  *out = probe.translation;
  return absl::OkStatus();
}

absl::Status ParseAabb(const v1::Aabb& box, std::string_view field, Aabb* out) {
  Aabb b;
  if (HasMinRaw(box.lower())) return MinRawError(Join(field, ".lower"));
  b.lower = FromProto(box.lower());
  if (HasMinRaw(box.upper())) return MinRawError(Join(field, ".upper"));
  b.upper = FromProto(box.upper());
  if (absl::Status s = FromCore(ValidateAabb(b, "")); !s.ok()) return Prefixed(std::move(s), field);
  *out = b;
  return absl::OkStatus();
}

absl::Status ParseRay(const v1::Ray& ray, std::string_view field, RayCastInput* out) {
  RayCastInput r{Vec2{}, Vec2{}, kFixedOne};
  if (HasMinRaw(ray.origin())) return MinRawError(Join(field, ".origin"));
  r.origin = FromProto(ray.origin());
  if (HasMinRaw(ray.translation())) return MinRawError(Join(field, ".translation"));
  r.translation = FromProto(ray.translation());
  if (ray.has_max_fraction()) r.max_fraction = Fixed::FromRaw(ray.max_fraction());
  if (absl::Status s = FromCore(ValidateRay(r, "")); !s.ok()) return Prefixed(std::move(s), field);
  *out = r;
  return absl::OkStatus();
}

absl::Status ParseRayColumns(const v1::RayColumns& columns, std::string_view field, std::vector<RayCastInput>* out) {
  const int n = columns.origin_x_size();
  if (columns.origin_y_size() != n || columns.translation_x_size() != n || columns.translation_y_size() != n) {
    return absl::InvalidArgumentError(Join(field, ": origin_x, origin_y, translation_x and translation_y differ in length (") +
                                std::to_string(n) + ", " + std::to_string(columns.origin_y_size()) + ", " +
                                std::to_string(columns.translation_x_size()) + ", " +
                                std::to_string(columns.translation_y_size()) + ")");
  }
  const size_t first = out->size();
  out->reserve(first + static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (columns.origin_x(i) == kMinRaw || columns.origin_y(i) == kMinRaw || columns.translation_x(i) == kMinRaw ||
        columns.translation_y(i) == kMinRaw) {
      out->resize(first);
      return absl::OutOfRangeError(Join(field, "[") + std::to_string(i) + "]: raw value -2^63 is not accepted");
    }
    const RayCastInput r{{Fixed::FromRaw(columns.origin_x(i)), Fixed::FromRaw(columns.origin_y(i))},
                         {Fixed::FromRaw(columns.translation_x(i)), Fixed::FromRaw(columns.translation_y(i))},
                         kFixedOne};
    if (absl::Status s = FromCore(ValidateRay(r, "")); !s.ok()) {
      out->resize(first);
      // ".origin: ..." names the column pair; say which row.
      return absl::Status(s.code(), Join(field, "[") + std::to_string(i) + "]" + std::string(s.message()));
    }
    out->push_back(r);
  }
  return absl::OkStatus();
}

namespace {

// ---- ParseShape's stages, one per shape kind: read the points (rejecting
// -2^63 with the point's own name), then let the core's constructor or
// validator judge the shape.

// A shape's point, named field + suffix (built only on error).
absl::Status ParseShapePoint(const v1::Vec2& v, std::string_view field, const char* suffix, Vec2* out) {
  if (HasMinRaw(v)) return MinRawError(Join(field, suffix));
  *out = FromProto(v);
  return absl::OkStatus();
}

absl::Status ParseCircle(const v1::Circle& w, std::string_view field, Shape* out) {
  Circle c{Vec2{}, Fixed::FromRaw(w.radius())};
  if (absl::Status s = ParseShapePoint(w.center(), field, ".circle.center", &c.center); !s.ok()) return s;
  if (absl::Status s = ShapeStatus(ValidateCircle(c), field, "circle"); !s.ok()) return s;
  *out = Shape::FromCircle(c);
  return absl::OkStatus();
}

absl::Status ParseBox(const v1::Box& box, std::string_view field, Shape* out) {
  Rot rotation;
  if (absl::Status s = ParseRot(box.has_rotation(), box.rotation(), Join(field, ".box.rotation"), &rotation); !s.ok()) {
    return s;
  }
  Vec2 center;
  if (absl::Status s = ParseShapePoint(box.center(), field, ".box.center", &center); !s.ok()) return s;
  Polygon polygon;
  const ShapeError error = MakeOffsetBox(Fixed::FromRaw(box.half_extents().x()), Fixed::FromRaw(box.half_extents().y()),
                                         center, rotation, &polygon);
  if (absl::Status s = ShapeStatus(error, field, "box"); !s.ok()) return s;
  *out = Shape::FromPolygon(polygon);
  return absl::OkStatus();
}

absl::Status ParsePolygon(const v1::Polygon& p, std::string_view field, Shape* out) {
  // Checked before copying into the fixed-size vertex array.
  if (p.points_size() > kMaxPolygonVertices) return ShapeStatus(ShapeError::kTooManyVertices, field, "polygon");
  Vec2 points[kMaxPolygonVertices];
  for (int i = 0; i < p.points_size(); ++i) {
    if (HasMinRaw(p.points(i))) {
      return MinRawError(Join(field, ".polygon.points[") + std::to_string(i) + "]");
    }
    points[i] = FromProto(p.points(i));
  }
  Polygon polygon;
  const ShapeError error =
      MakePolygon(std::span<const Vec2>(points, static_cast<size_t>(p.points_size())), Fixed::FromRaw(p.radius()), &polygon);
  if (absl::Status s = ShapeStatus(error, field, "polygon"); !s.ok()) return s;
  *out = Shape::FromPolygon(polygon);
  return absl::OkStatus();
}

absl::Status ParseCapsule(const v1::Capsule& w, std::string_view field, Shape* out) {
  Capsule c{Vec2{}, Vec2{}, Fixed::FromRaw(w.radius())};
  if (absl::Status s = ParseShapePoint(w.center1(), field, ".capsule.center1", &c.center1); !s.ok()) return s;
  if (absl::Status s = ParseShapePoint(w.center2(), field, ".capsule.center2", &c.center2); !s.ok()) return s;
  if (absl::Status s = ShapeStatus(ValidateCapsule(c), field, "capsule"); !s.ok()) return s;
  *out = Shape::FromCapsule(c);
  return absl::OkStatus();
}

absl::Status ParseSegment(const v1::Segment& w, std::string_view field, Shape* out) {
  Segment g;
  if (absl::Status s = ParseShapePoint(w.point1(), field, ".segment.point1", &g.point1); !s.ok()) return s;
  if (absl::Status s = ParseShapePoint(w.point2(), field, ".segment.point2", &g.point2); !s.ok()) return s;
  if (absl::Status s = ShapeStatus(ValidateSegment(g), field, "segment"); !s.ok()) return s;
  *out = Shape::FromSegment(g);
  return absl::OkStatus();
}

absl::Status ParseChainSegment(const v1::ChainSegment& w, std::string_view field, Shape* out) {
  ChainSegment c;
  // In wire order: the first bad point named is the first on the wire.
  const std::pair<const v1::Vec2*, Vec2*> points[] = {
      {&w.ghost1(), &c.ghost1}, {&w.point1(), &c.point1}, {&w.point2(), &c.point2}, {&w.ghost2(), &c.ghost2}};
  const char* names[] = {".chain_segment.ghost1", ".chain_segment.point1", ".chain_segment.point2", ".chain_segment.ghost2"};
  for (size_t i = 0; i < 4; ++i) {
    if (absl::Status s = ParseShapePoint(*points[i].first, field, names[i], points[i].second); !s.ok()) return s;
  }
  if (absl::Status s = ShapeStatus(ValidateChainSegment(c), field, "chain_segment"); !s.ok()) return s;
  *out = Shape::FromChainSegment(c);
  return absl::OkStatus();
}

}  // namespace

absl::Status ParseShape(const v1::Shape& shape, std::string_view field, Shape* out) {
  switch (shape.kind_case()) {
    case v1::Shape::kCircle: return ParseCircle(shape.circle(), field, out);
    case v1::Shape::kBox: return ParseBox(shape.box(), field, out);
    case v1::Shape::kPolygon: return ParsePolygon(shape.polygon(), field, out);
    case v1::Shape::kCapsule: return ParseCapsule(shape.capsule(), field, out);
    case v1::Shape::kSegment: return ParseSegment(shape.segment(), field, out);
    case v1::Shape::kChainSegment: return ParseChainSegment(shape.chain_segment(), field, out);
    case v1::Shape::kChain:
      // A chain is one wire shape but many core shapes (AppendShapeDefs).
      return absl::InvalidArgumentError(
          Join(field, ".chain: a chain expands into several shapes, so it is accepted only among a body's shapes"));
    case v1::Shape::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      Join(field, ": no shape kind set (circle, box, polygon, capsule, segment, chain_segment or chain)"));
}

// The chain segments of a wire chain (MakeChain), appended to *out.
absl::Status ParseChain(const v1::Chain& chain, std::string_view field, std::vector<Shape>* out) {
  // Checked before copying the points.
  if (chain.points_size() > static_cast<int>(kMaxChainPoints)) return ShapeStatus(ShapeError::kTooManyChainPoints, field, "chain");
  std::vector<Vec2> points(static_cast<size_t>(chain.points_size()));
  for (int i = 0; i < chain.points_size(); ++i) {
    if (HasMinRaw(chain.points(i))) return MinRawError(Join(field, ".chain.points[") + std::to_string(i) + "]");
    points[static_cast<size_t>(i)] = FromProto(chain.points(i));
  }
  return ShapeStatus(MakeChain(points, chain.loop(), out), field, "chain");
}

Filter ParseFilter(bool has, const v1::Filter& filter) {
  if (!has) return Filter{};
  return Filter{filter.category_bits(), filter.mask_bits(), filter.group_index()};
}

// Everything of a ShapeDef but its shape.
ShapeDef ParseShapeSettings(const v1::ShapeDef& def) {
  ShapeDef d;
  d.filter = ParseFilter(def.has_filter(), def.filter());
  d.is_sensor = def.is_sensor();
  if (def.has_friction()) d.friction = Fixed::FromRaw(def.friction());
  d.restitution = Fixed::FromRaw(def.restitution());
  if (def.has_density()) d.density = Fixed::FromRaw(def.density());
  d.user_tag = def.user_tag();
  return d;
}

absl::Status ParseShapeDef(const v1::ShapeDef& def, std::string_view field, ShapeDef* out) {
  ShapeDef d = ParseShapeSettings(def);
  if (!def.has_shape()) return absl::InvalidArgumentError(Join(field, ".shape: required"));
  if (absl::Status s = ParseShape(def.shape(), Join(field, ".shape"), &d.shape); !s.ok()) return s;
  *out = std::move(d);
  return absl::OkStatus();
}

// A body's ShapeDef appended to *out: one shape, or a chain's segments, each
// with the same settings.
absl::Status AppendShapeDefs(const v1::ShapeDef& def, std::string_view field, std::vector<ShapeDef>* out) {
  if (!def.has_shape() || def.shape().kind_case() != v1::Shape::kChain) {
    out->emplace_back();
    return ParseShapeDef(def, field, &out->back());
  }
  std::vector<Shape> segments;
  if (absl::Status s = ParseChain(def.shape().chain(), Join(field, ".shape"), &segments); !s.ok()) return s;
  const ShapeDef settings = ParseShapeSettings(def);
  for (const Shape& segment : segments) {
    out->push_back(settings);
    out->back().shape = segment;
  }
  return absl::OkStatus();
}

absl::Status ParseBodyType(v1::BodyType type, std::string_view field, BodyType* out) {
  switch (type) {
    case v1::BODY_TYPE_STATIC: *out = BodyType::kStatic; return absl::OkStatus();
    case v1::BODY_TYPE_KINEMATIC: *out = BodyType::kKinematic; return absl::OkStatus();
    case v1::BODY_TYPE_DYNAMIC: *out = BodyType::kDynamic; return absl::OkStatus();
    case v1::BODY_TYPE_UNSPECIFIED: return absl::InvalidArgumentError(Join(field, ": BODY_TYPE_UNSPECIFIED; set a body type"));
    default: break;
  }
  return absl::InvalidArgumentError(Join(field, ": unknown body type ") + std::to_string(static_cast<int>(type)));
}

absl::Status ParseBodyDef(const v1::BodyDef& def, std::string_view field, BodyDef* out) {
  BodyDef d;
  d.id = def.id();
  if (absl::Status s = ParseBodyType(def.type(), Join(field, ".type"), &d.type); !s.ok()) return s;
  if (absl::Status s = ParseTransform(def.transform(), Join(field, ".transform"), &d.transform); !s.ok()) return s;
  if (HasMinRaw(def.linear_velocity())) return MinRawError(Join(field, ".linear_velocity"));
  d.linear_velocity = FromProto(def.linear_velocity());
  if (def.angular_velocity() == kMinRaw) return MinRawError(Join(field, ".angular_velocity"));
  if (def.gravity_scale() == kMinRaw) return MinRawError(Join(field, ".gravity_scale"));
  d.angular_velocity = Fixed::FromRaw(def.angular_velocity());
  d.linear_damping = Fixed::FromRaw(def.linear_damping());
  d.angular_damping = Fixed::FromRaw(def.angular_damping());
  if (def.has_gravity_scale()) d.gravity_scale = Fixed::FromRaw(def.gravity_scale());
  d.is_bullet = def.is_bullet();
  // The core rejects an empty shape list too, but checking here keeps the
  // per-shape loop below from being the first to notice anything.
  if (def.shapes_size() == 0) return absl::InvalidArgumentError(Join(field, ".shapes: a body needs at least one shape"));
  d.shapes.reserve(static_cast<size_t>(def.shapes_size()));
  for (int i = 0; i < def.shapes_size(); ++i) {
    const std::string shape_field = Join(field, ".shapes[") + std::to_string(i) + "]";
    if (absl::Status s = AppendShapeDefs(def.shapes(i), shape_field, &d.shapes); !s.ok()) return s;
  }
  *out = std::move(d);
  return absl::OkStatus();
}

absl::Status ParseQueryFilter(const v1::QueryFilter& filter, std::string_view field, OwnedQueryFilter* out) {
  QueryFilter f;
  if (filter.has_category_bits()) f.category_bits = filter.category_bits();
  if (filter.has_mask_bits()) f.mask_bits = filter.mask_bits();
  f.include_sensors = filter.include_sensors();
  if (filter.body_types_size() > 0) {
    f.body_types = 0;
    for (int i = 0; i < filter.body_types_size(); ++i) {
      BodyType type;
      const std::string type_field = Join(field, ".body_types[") + std::to_string(i) + "]";
      if (absl::Status s = ParseBodyType(filter.body_types(i), type_field, &type); !s.ok()) return s;
      f.body_types |= static_cast<uint8_t>(1u << static_cast<uint8_t>(type));
    }
  }
  out->filter_ = f;
  out->exclude_.assign(filter.exclude_bodies().begin(), filter.exclude_bodies().end());
  return absl::OkStatus();
}

absl::Status ParseBodyUpdate(const v1::BodyUpdate& update, std::string_view field, BodyUpdate* out) {
  BodyUpdate u;
  u.body_id = update.body_id();
  if (u.body_id == 0) return absl::InvalidArgumentError(Join(field, ".body_id: must be non-zero"));
  if (update.has_transform()) {
    Transform xf;
    if (absl::Status s = ParseTransform(update.transform(), Join(field, ".transform"), &xf); !s.ok()) return s;
    u.transform = xf;
  }
  if (update.has_velocity()) {
    Vec2 linear;
    if (HasMinRaw(update.velocity().linear())) return MinRawError(Join(field, ".velocity.linear"));
    linear = FromProto(update.velocity().linear());
    if (update.velocity().angular() == kMinRaw) return MinRawError(Join(field, ".velocity.angular"));
    u.velocity = std::make_pair(linear, Fixed::FromRaw(update.velocity().angular()));
  }
  for (const v1::ShapeFilterUpdate& f : update.filters()) {
    u.filters.emplace_back(f.shape_index(), ParseFilter(f.has_filter(), f.filter()));
  }
  if (!u.transform && !u.velocity && u.filters.empty()) {
    return absl::InvalidArgumentError(Join(field, ": nothing to update (set transform, velocity or filters)"));
  }
  *out = std::move(u);
  return absl::OkStatus();
}

v1::BodyType ToProto(BodyType type) {
  switch (type) {
    case BodyType::kStatic: return v1::BODY_TYPE_STATIC;
    case BodyType::kKinematic: return v1::BODY_TYPE_KINEMATIC;
    case BodyType::kDynamic: return v1::BODY_TYPE_DYNAMIC;
  }
  return v1::BODY_TYPE_UNSPECIFIED;
}

void ToProto(const ShapeRef& ref, v1::ShapeRef* out) {
  out->set_body_id(ref.body_id);
  out->set_shape_index(ref.shape_index);
}

void ToProto(const CastHit& hit, v1::Hit* out) {
  out->set_body_id(hit.shape.body_id);
  out->set_shape_index(hit.shape.shape_index);
  out->set_user_tag(hit.user_tag);
  out->set_fraction(hit.fraction.raw());
  ToProto(hit.point, out->mutable_point());
  ToProto(hit.normal, out->mutable_normal());
}

void ToProto(const OverlapContact& contact, v1::OverlapContact* out) {
  ToProto(contact.normal, out->mutable_normal());
  out->set_depth(contact.depth.raw());
  for (int32_t i = 0; i < contact.point_count; ++i) ToProto(contact.points[i], out->add_points());
}

void ToProto(const DistanceHit& hit, v1::DistanceHit* out) {
  out->set_body_id(hit.shape.body_id);
  out->set_shape_index(hit.shape.shape_index);
  out->set_user_tag(hit.user_tag);
  out->set_distance(hit.distance.raw());
  ToProto(hit.point_query, out->mutable_point_query());
  ToProto(hit.point_body, out->mutable_point_body());
  ToProto(hit.normal, out->mutable_normal());
  out->set_depth(hit.depth.raw());
}

void ToProto(const BodyView& body, v1::BodyState* out) {
  out->set_id(body.id);
  out->set_type(ToProto(body.type));
  ToProto(body.transform, out->mutable_transform());
  ToProto(body.linear_velocity, out->mutable_linear_velocity());
  out->set_angular_velocity(body.angular_velocity.raw());
  out->set_shape_count(body.shape_count);
  out->set_asleep(!body.awake);
}

namespace {

void ContactToProto(const ContactEvent& e, v1::ContactEvent* out) {
  ToProto(e.a, out->mutable_a());
  ToProto(e.b, out->mutable_b());
  ToProto(e.point, out->mutable_point());
  ToProto(e.normal, out->mutable_normal());
  out->set_approach_speed(e.approach_speed.raw());
  out->set_user_tag_a(e.user_tag_a);
  out->set_user_tag_b(e.user_tag_b);
}

void SensorToProto(const SensorEvent& e, v1::SensorEvent* out) {
  ToProto(e.sensor, out->mutable_sensor());
  ToProto(e.visitor, out->mutable_visitor());
  out->set_sensor_user_tag(e.sensor_user_tag);
  out->set_visitor_user_tag(e.visitor_user_tag);
}

}  // namespace

void ToProto(const TickEvents& events, int64_t tick, v1::TickEvents* out) {
  out->set_tick(tick);
  for (const ContactEvent& e : events.contact_begin) ContactToProto(e, out->add_contact_begin());
  for (const ContactEvent& e : events.contact_end) ContactToProto(e, out->add_contact_end());
  for (const SensorEvent& e : events.sensor_enter) SensorToProto(e, out->add_sensor_enter());
  for (const SensorEvent& e : events.sensor_exit) SensorToProto(e, out->add_sensor_exit());
}

void ToProto(const Shape& shape, v1::Shape* out) {
  switch (shape.type) {
    case ShapeType::kCircle:
      ToProto(shape.circle.center, out->mutable_circle()->mutable_center());
      out->mutable_circle()->set_radius(shape.circle.radius.raw());
      return;
    case ShapeType::kCapsule:
      ToProto(shape.capsule.center1, out->mutable_capsule()->mutable_center1());
      ToProto(shape.capsule.center2, out->mutable_capsule()->mutable_center2());
      out->mutable_capsule()->set_radius(shape.capsule.radius.raw());
      return;
    case ShapeType::kSegment:
      ToProto(shape.segment.point1, out->mutable_segment()->mutable_point1());
      ToProto(shape.segment.point2, out->mutable_segment()->mutable_point2());
      return;
    case ShapeType::kChainSegment: {
      v1::ChainSegment* c = out->mutable_chain_segment();
      ToProto(shape.chain_segment.ghost1, c->mutable_ghost1());
      ToProto(shape.chain_segment.point1, c->mutable_point1());
      ToProto(shape.chain_segment.point2, c->mutable_point2());
      ToProto(shape.chain_segment.ghost2, c->mutable_ghost2());
      return;
    }
    case ShapeType::kPolygon: {
      // The vertices alone determine the polygon: the server rebuilds it with
      // MakePolygon, which is how boxes were built too (MakeOffsetBox), so
      // normals, centroid and mass come out bit-identical.
      v1::Polygon* p = out->mutable_polygon();
      for (int i = 0; i < shape.polygon.count; ++i) ToProto(shape.polygon.vertices[static_cast<size_t>(i)], p->add_points());
      p->set_radius(shape.polygon.radius.raw());
      return;
    }
  }
}

void ToProto(const Filter& filter, v1::Filter* out) {
  out->set_category_bits(filter.category_bits);
  out->set_mask_bits(filter.mask_bits);
  out->set_group_index(filter.group_index);
}

void ToProto(const ShapeDef& def, v1::ShapeDef* out) {
  ToProto(def.shape, out->mutable_shape());
  if (!(def.filter == Filter{})) ToProto(def.filter, out->mutable_filter());
  out->set_is_sensor(def.is_sensor);
  out->set_friction(def.friction.raw());
  out->set_restitution(def.restitution.raw());
  out->set_density(def.density.raw());
  out->set_user_tag(def.user_tag);
}

void ToProto(const BodyDef& def, v1::BodyDef* out) {
  out->set_id(def.id);
  out->set_type(ToProto(def.type));
  ToProto(def.transform, out->mutable_transform());
  ToProto(def.linear_velocity, out->mutable_linear_velocity());
  out->set_angular_velocity(def.angular_velocity.raw());
  out->set_linear_damping(def.linear_damping.raw());
  out->set_angular_damping(def.angular_damping.raw());
  out->set_gravity_scale(def.gravity_scale.raw());
  out->set_is_bullet(def.is_bullet);
  for (const ShapeDef& s : def.shapes) ToProto(s, out->add_shapes());
}

CastHit FromProto(const v1::Hit& hit) {
  CastHit h;
  h.shape = {hit.body_id(), hit.shape_index()};
  h.user_tag = hit.user_tag();
  h.fraction = Fixed::FromRaw(hit.fraction());
  h.point = FromProto(hit.point());
  h.normal = FromProto(hit.normal());
  return h;
}

std::optional<BodyType> FromProto(v1::BodyType type) {
  switch (type) {
    case v1::BODY_TYPE_STATIC: return BodyType::kStatic;
    case v1::BODY_TYPE_KINEMATIC: return BodyType::kKinematic;
    case v1::BODY_TYPE_DYNAMIC: return BodyType::kDynamic;
    default: return std::nullopt;
  }
}

}  // namespace arbiter::wire

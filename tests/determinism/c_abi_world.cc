#include "c_abi_world.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace arbiter::determinism {
namespace {

// ---- Core types to C structs -----------------------------------------------

arb_vec2 CV(Vec2 v) { return arb_vec2{v.x.raw(), v.y.raw()}; }
arb_transform CXf(const Transform& xf) {
  arb_transform out;
  out.p = CV(xf.p);
  out.q.c = xf.q.c.raw();
  out.q.s = xf.q.s.raw();
  return out;
}

arb_shape CShape(const Shape& s) {
  arb_shape out{};
  out.type = static_cast<arb_shape_type>(s.type);
  if (s.type == ShapeType::kCircle) {
    out.u.circle.center = CV(s.circle.center);
    out.u.circle.radius = s.circle.radius.raw();
  } else if (s.type == ShapeType::kCapsule) {
    out.u.capsule.center1 = CV(s.capsule.center1);
    out.u.capsule.center2 = CV(s.capsule.center2);
    out.u.capsule.radius = s.capsule.radius.raw();
  } else if (s.type == ShapeType::kSegment) {
    out.u.segment.point1 = CV(s.segment.point1);
    out.u.segment.point2 = CV(s.segment.point2);
  } else if (s.type == ShapeType::kChainSegment) {
    out.u.chain_segment = {CV(s.chain_segment.ghost1), CV(s.chain_segment.point1), CV(s.chain_segment.point2),
                           CV(s.chain_segment.ghost2)};
  } else {
    arb_polygon& p = out.u.polygon;
    for (int i = 0; i < kMaxPolygonVertices; ++i) {
      p.vertices[i] = CV(s.polygon.vertices[i]);
      p.normals[i] = CV(s.polygon.normals[i]);
    }
    p.centroid = CV(s.polygon.centroid);
    p.radius = s.polygon.radius.raw();
    p.count = s.polygon.count;
  }
  return out;
}

arb_filter CFilter(const Filter& f) {
  arb_filter out{};
  out.category_bits = f.category_bits;
  out.mask_bits = f.mask_bits;
  out.group_index = f.group_index;
  return out;
}

arb_shape_def CShapeDef(const ShapeDef& d) {
  arb_shape_def out{};
  out.shape = CShape(d.shape);
  out.filter = CFilter(d.filter);
  out.friction = d.friction.raw();
  out.restitution = d.restitution.raw();
  out.density = d.density.raw();
  out.user_tag = d.user_tag;
  out.is_sensor = d.is_sensor;
  return out;
}

arb_query_filter CQuery(const QueryFilter& f) {
  arb_query_filter out{};
  out.category_bits = f.category_bits;
  out.mask_bits = f.mask_bits;
  out.exclude_bodies = f.exclude_bodies.data();
  out.exclude_count = static_cast<uint32_t>(f.exclude_bodies.size());
  out.body_types = f.body_types;
  out.include_sensors = f.include_sensors;
  return out;
}

arb_ray CRay(const RayCastInput& r) { return arb_ray{CV(r.origin), CV(r.translation), r.max_fraction.raw()}; }

// ---- C structs to core types -----------------------------------------------

Fixed R(int64_t raw) { return Fixed::FromRaw(raw); }
Vec2 V(const arb_vec2& v) { return {R(v.x), R(v.y)}; }
Transform Xf(const arb_transform& xf) { return {V(xf.p), {R(xf.q.c), R(xf.q.s)}}; }
ShapeRef Ref(const arb_shape_ref& r) { return {r.body_id, r.shape_index}; }
CastHit Hit(const arb_cast_hit& h) { return {Ref(h.shape), h.user_tag, R(h.fraction), V(h.point), V(h.normal)}; }
Status ToStatus(arb_status code, const arb_error& e) {
  return code == ARB_OK ? OkStatus() : Status(static_cast<StatusCode>(code), e.message);
}

Shape FromCShape(const arb_shape& s) {
  switch (s.type) {
    case ARB_SHAPE_CIRCLE: return Shape::FromCircle({V(s.u.circle.center), R(s.u.circle.radius)});
    case ARB_SHAPE_CAPSULE:
      return Shape::FromCapsule({V(s.u.capsule.center1), V(s.u.capsule.center2), R(s.u.capsule.radius)});
    case ARB_SHAPE_SEGMENT: return Shape::FromSegment({V(s.u.segment.point1), V(s.u.segment.point2)});
    default: {
      Polygon p;
      for (int i = 0; i < kMaxPolygonVertices; ++i) {
        p.vertices[i] = V(s.u.polygon.vertices[i]);
        p.normals[i] = V(s.u.polygon.normals[i]);
      }
      p.centroid = V(s.u.polygon.centroid);
      p.radius = R(s.u.polygon.radius);
      p.count = s.u.polygon.count;
      return Shape::FromPolygon(p);
    }
  }
}

[[noreturn]] void Refused(const char* what, const arb_error& e) {
  std::fprintf(stderr, "arbiter_digest_c: the C interface refused %s: %s %s\n", what, arb_status_name(e.code),
               e.message);
  std::abort();
}

// Calls `query(buffer, capacity, &count)` with a buffer that grows to fit.
template <class CItem, class Query>
std::vector<CItem> Fetch(const char* what, Query&& query) {
  std::vector<CItem> items(16);
  arb_error e;
  size_t count = 0;
  arb_status s = query(items.data(), items.size(), &count, &e);
  if (s == ARB_BUFFER_TOO_SMALL) {
    items.resize(count);
    s = query(items.data(), items.size(), &count, &e);
  }
  if (s != ARB_OK) Refused(what, e);
  items.resize(count);
  return items;
}

std::vector<ShapeRef> Refs(const std::vector<arb_shape_ref>& in) {
  std::vector<ShapeRef> out;
  for (const arb_shape_ref& r : in) out.push_back(Ref(r));
  return out;
}

std::vector<CastHit> Hits(const std::vector<arb_cast_hit>& in) {
  std::vector<CastHit> out;
  for (const arb_cast_hit& h : in) out.push_back(Hit(h));
  return out;
}

std::optional<CastHit> Closest(const char* what, arb_status s, const arb_error& e, const arb_cast_hit& hit,
                               int32_t found) {
  if (s != ARB_OK) Refused(what, e);
  if (found == 0) return std::nullopt;
  return Hit(hit);
}

template <class T>
std::vector<T> Copy(const T* items, uint32_t count) {
  return std::vector<T>(items, items + count);
}

}  // namespace

CAbiWorld::CAbiWorld(const WorldDef& def) {
  arb_world_def d;
  arb_world_def_init(&d);
  d.gravity = CV(def.gravity);
  d.tick_hz = def.tick_hz;
  d.max_bodies = def.max_bodies;
  arb_error e;
  if (arb_world_create(&d, &handle_, &e) != ARB_OK) Refused("a world definition", e);
}

CAbiWorld::~CAbiWorld() { arb_world_destroy(handle_); }
CAbiWorld::CAbiWorld(CAbiWorld&& other) noexcept : handle_(other.handle_) { other.handle_ = nullptr; }
CAbiWorld& CAbiWorld::operator=(CAbiWorld&& other) noexcept {
  if (this != &other) {
    arb_world_destroy(handle_);
    handle_ = other.handle_;
    other.handle_ = nullptr;
  }
  return *this;
}

int64_t CAbiWorld::tick() const { return arb_world_tick(handle_); }
size_t CAbiWorld::body_count() const { return static_cast<size_t>(arb_world_body_count(handle_)); }
uint64_t CAbiWorld::StateHash() const { return arb_world_state_hash(handle_); }

std::vector<uint8_t> CAbiWorld::Snapshot() const {
  uint8_t* bytes = nullptr;
  size_t size = 0;
  arb_error e;
  if (arb_world_snapshot(handle_, &bytes, &size, &e) != ARB_OK) Refused("a snapshot", e);
  std::vector<uint8_t> out(bytes, bytes + size);
  arb_bytes_free(bytes);
  return out;
}

Status CAbiWorld::Restore(std::span<const uint8_t> bytes, CAbiWorld* out) {
  arb_world* handle = nullptr;
  arb_error e;
  const arb_status s = arb_world_restore(bytes.data(), bytes.size(), &handle, &e);
  if (s == ARB_OK) *out = CAbiWorld(handle);
  return ToStatus(s, e);
}

Status CAbiWorld::AddBodies(std::span<const BodyDef> defs) {
  std::vector<std::vector<arb_shape_def>> shapes(defs.size());
  std::vector<arb_body_def> bodies(defs.size());
  for (size_t i = 0; i < defs.size(); ++i) {
    const BodyDef& d = defs[i];
    for (const ShapeDef& s : d.shapes) shapes[i].push_back(CShapeDef(s));
    arb_body_def& b = bodies[i];
    arb_body_def_init(&b);
    b.id = d.id;
    b.type = static_cast<arb_body_type>(d.type);
    b.transform = CXf(d.transform);
    b.linear_velocity = CV(d.linear_velocity);
    b.angular_velocity = d.angular_velocity.raw();
    b.linear_damping = d.linear_damping.raw();
    b.angular_damping = d.angular_damping.raw();
    b.gravity_scale = d.gravity_scale.raw();
    b.is_bullet = d.is_bullet;
    b.shapes = shapes[i].data();
    b.shape_count = static_cast<uint32_t>(shapes[i].size());
  }
  arb_error e;
  return ToStatus(arb_world_add_bodies(handle_, bodies.data(), bodies.size(), &e), e);
}

Status CAbiWorld::RemoveBodies(std::span<const uint64_t> ids) {
  arb_error e;
  return ToStatus(arb_world_remove_bodies(handle_, ids.data(), ids.size(), &e), e);
}

Status CAbiWorld::SetBodyTransform(uint64_t id, const Transform& transform) {
  const arb_transform xf = CXf(transform);
  arb_error e;
  return ToStatus(arb_world_set_transform(handle_, id, &xf, &e), e);
}

Status CAbiWorld::SetBodyVelocity(uint64_t id, Vec2 linear, Fixed angular) {
  const arb_vec2 v = CV(linear);
  arb_error e;
  return ToStatus(arb_world_set_velocity(handle_, id, &v, angular.raw(), &e), e);
}

Status CAbiWorld::SetShapeFilter(uint64_t id, uint32_t shape_index, const Filter& filter) {
  const arb_filter f = CFilter(filter);
  arb_error e;
  return ToStatus(arb_world_set_shape_filter(handle_, id, shape_index, &f, &e), e);
}

void CAbiWorld::Step(TickEvents* events) {
  arb_tick_events t;
  arb_error e;
  if (arb_world_step(handle_, &t, &e) != ARB_OK) Refused("a step", e);
  if (events == nullptr) return;
  auto contacts = [](const arb_contact_event* in, uint32_t n) {
    std::vector<ContactEvent> out;
    for (const arb_contact_event& c : Copy(in, n)) {
      out.push_back({Ref(c.a), Ref(c.b), V(c.point), V(c.normal), R(c.approach_speed), c.user_tag_a, c.user_tag_b});
    }
    return out;
  };
  auto sensors = [](const arb_sensor_event* in, uint32_t n) {
    std::vector<SensorEvent> out;
    for (const arb_sensor_event& s : Copy(in, n)) {
      out.push_back({Ref(s.sensor), Ref(s.visitor), s.sensor_user_tag, s.visitor_user_tag});
    }
    return out;
  };
  events->contact_begin = contacts(t.contact_begin, t.contact_begin_count);
  events->contact_end = contacts(t.contact_end, t.contact_end_count);
  events->sensor_enter = sensors(t.sensor_enter, t.sensor_enter_count);
  events->sensor_exit = sensors(t.sensor_exit, t.sensor_exit_count);
}

std::vector<uint64_t> CAbiWorld::BodyIds() const {
  return Fetch<uint64_t>("body ids", [&](uint64_t* ids, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_body_ids(handle_, ids, capacity, count, e);
  });
}

std::optional<BodyDef> CAbiWorld::GetBodyDef(uint64_t id) const {
  arb_body_def b;
  arb_shape_def shapes[ARB_MAX_SHAPES_PER_BODY];
  size_t count = 0;
  arb_error e;
  const arb_status s = arb_world_get_body(handle_, id, &b, shapes, ARB_MAX_SHAPES_PER_BODY, &count, &e);
  if (s == ARB_NOT_FOUND) return std::nullopt;
  if (s != ARB_OK) Refused("a body", e);
  BodyDef def;
  def.id = b.id;
  def.type = static_cast<BodyType>(b.type);
  def.transform = Xf(b.transform);
  def.linear_velocity = V(b.linear_velocity);
  def.angular_velocity = R(b.angular_velocity);
  def.linear_damping = R(b.linear_damping);
  def.angular_damping = R(b.angular_damping);
  def.gravity_scale = R(b.gravity_scale);
  def.is_bullet = b.is_bullet != 0;
  for (size_t i = 0; i < count; ++i) {
    const arb_shape_def& c = b.shapes[i];
    ShapeDef sd;
    sd.shape = FromCShape(c.shape);
    sd.filter = {c.filter.category_bits, c.filter.mask_bits, c.filter.group_index};
    sd.is_sensor = c.is_sensor != 0;
    sd.friction = R(c.friction);
    sd.restitution = R(c.restitution);
    sd.density = R(c.density);
    sd.user_tag = c.user_tag;
    def.shapes.push_back(sd);
  }
  return def;
}

std::optional<BodyView> CAbiWorld::FindBody(uint64_t id) const {
  const std::optional<BodyDef> def = GetBodyDef(id);
  if (!def) return std::nullopt;
  return BodyView{def->id, def->type, def->transform, def->linear_velocity, def->angular_velocity,
                  static_cast<uint32_t>(def->shapes.size())};
}

std::optional<CastHit> CAbiWorld::CastRayClosest(const RayCastInput& ray, const QueryFilter& filter,
                                                 QueryStats* /*stats: counters the C interface does not report*/) const {
  const arb_ray r = CRay(ray);
  const arb_query_filter f = CQuery(filter);
  arb_cast_hit hit;
  int32_t found = 0;
  arb_error e;
  const arb_status s = arb_world_cast_ray_closest(handle_, &r, &f, &hit, &found, &e);
  return Closest("a ray", s, e, hit, found);
}

std::vector<CastHit> CAbiWorld::CastRayAll(const RayCastInput& ray, const QueryFilter& filter) const {
  const arb_ray r = CRay(ray);
  const arb_query_filter f = CQuery(filter);
  return Hits(Fetch<arb_cast_hit>("a ray", [&](arb_cast_hit* hits, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_cast_ray_all(handle_, &r, &f, hits, capacity, count, e);
  }));
}

bool CAbiWorld::CastRayAny(const RayCastInput& ray, const QueryFilter& filter) const {
  const arb_ray r = CRay(ray);
  const arb_query_filter f = CQuery(filter);
  int32_t found = 0;
  arb_error e;
  if (arb_world_cast_ray_any(handle_, &r, &f, &found, &e) != ARB_OK) Refused("a ray", e);
  return found != 0;
}

void CAbiWorld::CastRaysClosest(std::span<const RayCastInput> rays, const QueryFilter& filter,
                                std::span<std::optional<CastHit>> out) const {
  std::vector<arb_ray> in;
  for (const RayCastInput& r : rays) in.push_back(CRay(r));
  const arb_query_filter f = CQuery(filter);
  std::vector<arb_cast_hit> hits(rays.size());
  std::vector<int32_t> found(rays.size());
  arb_error e;
  const arb_status s = arb_world_cast_rays_closest(handle_, in.data(), in.size(), &f, hits.data(), found.data(), &e);
  for (size_t i = 0; i < out.size(); ++i) out[i] = Closest("a ray batch", s, e, hits[i], found[i]);
}

std::vector<ShapeRef> CAbiWorld::OverlapPoint(Vec2 point, const QueryFilter& filter) const {
  const arb_vec2 p = CV(point);
  const arb_query_filter f = CQuery(filter);
  return Refs(Fetch<arb_shape_ref>("a point", [&](arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_overlap_point(handle_, &p, &f, refs, capacity, count, e);
  }));
}

std::vector<ShapeRef> CAbiWorld::OverlapAabb(const Aabb& box, const QueryFilter& filter) const {
  const arb_aabb b{CV(box.lower), CV(box.upper)};
  const arb_query_filter f = CQuery(filter);
  return Refs(Fetch<arb_shape_ref>("a box", [&](arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_overlap_aabb(handle_, &b, &f, refs, capacity, count, e);
  }));
}

std::vector<ShapeRef> CAbiWorld::OverlapShape(const Shape& shape, const Transform& transform,
                                              const QueryFilter& filter) const {
  const arb_shape s = CShape(shape);
  const arb_transform xf = CXf(transform);
  const arb_query_filter f = CQuery(filter);
  return Refs(Fetch<arb_shape_ref>("a shape", [&](arb_shape_ref* refs, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_overlap_shape(handle_, &s, &xf, &f, refs, capacity, count, e);
  }));
}

std::optional<CastHit> CAbiWorld::CastShapeClosest(const Shape& shape, const Transform& transform, Vec2 translation,
                                                   const QueryFilter& filter) const {
  const arb_shape s = CShape(shape);
  const arb_transform xf = CXf(transform);
  const arb_vec2 t = CV(translation);
  const arb_query_filter f = CQuery(filter);
  arb_cast_hit hit;
  int32_t found = 0;
  arb_error e;
  const arb_status st = arb_world_cast_shape_closest(handle_, &s, &xf, &t, &f, &hit, &found, &e);
  return Closest("a sweep", st, e, hit, found);
}

std::vector<CastHit> CAbiWorld::CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                             const QueryFilter& filter) const {
  const arb_shape s = CShape(shape);
  const arb_transform xf = CXf(transform);
  const arb_vec2 t = CV(translation);
  const arb_query_filter f = CQuery(filter);
  return Hits(Fetch<arb_cast_hit>("a sweep", [&](arb_cast_hit* hits, size_t capacity, size_t* count, arb_error* e) {
    return arb_world_cast_shape_all(handle_, &s, &xf, &t, &f, hits, capacity, count, e);
  }));
}

}  // namespace arbiter::determinism

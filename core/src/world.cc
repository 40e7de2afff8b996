#include "arbiter/core/world.h"

#include <algorithm>
#include <atomic>
#include <string>

#include "body_mass.h"
#include "step_sleep.h"
#include "validate.h"
#include "world_impl.h"

namespace arbiter {

using internal::BodyMotion;
using internal::BodyRecord;
using internal::kDerivedLocal;
using internal::kNoMotion;
using internal::ShapeMaterial;
using internal::ShapeRecord;

namespace {

// Local points of a shape in proxy order (what MakeProxy transforms), a
// chain segment's ghosts after its two points.
int LocalPoints(const Shape& shape, Vec2* out, Fixed* radius) {
  switch (shape.type) {
    case ShapeType::kCircle:
      out[0] = shape.circle.center;
      *radius = shape.circle.radius;
      return 1;
    case ShapeType::kCapsule:
      out[0] = shape.capsule.center1;
      out[1] = shape.capsule.center2;
      *radius = shape.capsule.radius;
      return 2;
    case ShapeType::kSegment:
      out[0] = shape.segment.point1;
      out[1] = shape.segment.point2;
      *radius = kFixedZero;
      return 2;
    case ShapeType::kChainSegment:  // proxy order, then the ghosts (ProxyFromPoints)
      out[0] = shape.chain_segment.point1;
      out[1] = shape.chain_segment.point2;
      out[2] = shape.chain_segment.ghost1;
      out[3] = shape.chain_segment.ghost2;
      *radius = kFixedZero;
      return 4;
    case ShapeType::kPolygon:
      for (int i = 0; i < shape.polygon.count; ++i) out[i] = shape.polygon.vertices[i];
      *radius = shape.polygon.radius;
      return shape.polygon.count;
  }
  return 0;
}

// Mass properties of a dynamic body (body_mass.h); other bodies are
// immovable (zeros). AddBodies validated the body, so the sums fit.
void SetMassData(const BodyDef& def, BodyMotion* motion) {
  internal::BodyMass mass;
  if (def.type != BodyType::kDynamic || !internal::ComputeBodyMass(def.shapes, &mass)) mass = {};
  motion->local_center = mass.local_center;
  motion->inv_mass = mass.inv_mass;
  motion->inv_inertia = mass.inv_inertia;
}

// Whether a body gets a motion record: every body that can move, and a
// static one whose damping or gravity scale is not kNoMotion's (its
// velocity and mass are zero either way).
bool NeedsMotion(const BodyDef& def) {
  return def.type != BodyType::kStatic || def.linear_damping != kNoMotion.linear_damping ||
         def.angular_damping != kNoMotion.angular_damping || def.gravity_scale != kNoMotion.gravity_scale;
}

// Room for `extra` more elements: exactly that much for a big batch, but
// at least half again the capacity, so that adding bodies one at a time
// stays amortised O(1).
template <class T>
void GrowFor(std::vector<T>& v, size_t extra) {
  if (v.size() + extra <= v.capacity()) return;
  v.reserve(std::max(v.size() + extra, v.capacity() + v.capacity() / 2));
}

Aabb Fatten(const Aabb& box) {
  const Vec2 m{internal::kAabbMargin, internal::kAabbMargin};
  return {box.lower - m, box.upper + m};
}

// A fat box that also reaches `ahead` further along the motion (Box2D 2.4's
// predictive AABB), so a body moving steadily leaves it every few ticks
// instead of every tick. Fat boxes only decide what the tree visits.
Aabb FattenAhead(const Aabb& box, Vec2 ahead) {
  Aabb fat = Fatten(box);
  (ahead.x < kFixedZero ? fat.lower.x : fat.upper.x) += ahead.x;
  (ahead.y < kFixedZero ? fat.lower.y : fat.upper.y) += ahead.y;
  return fat;
}


// ---- AddBodies' stages: check the whole batch, reserve once, then insert
// body by body (slot, record, shapes).

// The batch's checks, in the order errors are reported: the body limit,
// each body's fields and id against the world, then ids repeated within
// the batch.
Status CheckNewBodies(const World::Impl& w, std::span<const BodyDef> defs) {
  if (defs.size() > w.def.max_bodies || w.live_bodies + defs.size() > w.def.max_bodies) {
    return ResourceExhaustedError("bodies: the world would exceed its limit of " + std::to_string(w.def.max_bodies) +
                                  " bodies");
  }
  for (size_t i = 0; i < defs.size(); ++i) {
    const std::string field = "bodies[" + std::to_string(i) + "]";
    if (Status s = internal::ValidateBodyDef(defs[i], field); !s.ok()) return s;
    if (w.SlotOf(defs[i].id) != internal::IdMap::kMissing) {
      return AlreadyExistsError(field + ".id: body " + std::to_string(defs[i].id) + " already exists");
    }
  }
  // Sorted (id, index) pairs: a repeat is adjacent, and the lowest id
  // repeated is reported, at its later index, whatever the batch order.
  std::vector<std::pair<uint64_t, size_t>> batch_ids(defs.size());
  for (size_t i = 0; i < defs.size(); ++i) batch_ids[i] = {defs[i].id, i};
  std::sort(batch_ids.begin(), batch_ids.end());
  for (size_t i = 1; i < batch_ids.size(); ++i) {
    if (batch_ids[i].first == batch_ids[i - 1].first) {
      return AlreadyExistsError("bodies[" + std::to_string(batch_ids[i].second) + "].id: body " +
                                std::to_string(batch_ids[i].first) + " appears twice in the batch");
    }
  }
  return OkStatus();
}

// Grows the arrays once, to the size needed, rather than by doubling:
// vector slack would otherwise be a third of the memory per body.
void ReserveFor(World::Impl& w, std::span<const BodyDef> defs) {
  size_t shape_total = 0, point_total = 0, local_total = 0, movable_total = 0;
  for (const BodyDef& def : defs) {
    shape_total += def.shapes.size();
    if (def.type != BodyType::kStatic) movable_total += def.shapes.size();
    for (const ShapeDef& sd : def.shapes) {
      Vec2 scratch[kMaxPolygonVertices];
      Fixed radius;
      const size_t points = static_cast<size_t>(LocalPoints(sd.shape, scratch, &radius));
      point_total += points;
      // Unrotated static bodies derive their local points (AppendShape).
      if (def.type != BodyType::kStatic || def.transform.q != kRotIdentity) local_total += points;
    }
  }
  GrowFor(w.shapes, shape_total);
  GrowFor(w.local_points, local_total);
  GrowFor(w.world_points, point_total);
  GrowFor(w.movable_fat_boxes, movable_total);  // at most one new proxy id each
  const size_t motion_total = static_cast<size_t>(std::count_if(defs.begin(), defs.end(), NeedsMotion));
  if (w.free_motion_slots.size() < motion_total) GrowFor(w.motions, motion_total - w.free_motion_slots.size());
  if (w.free_body_slots.size() < defs.size()) GrowFor(w.bodies, defs.size() - w.free_body_slots.size());
}

// A free slot of `records` (the most recently freed first), or a new one.
template <class T>
uint32_t TakeSlot(std::vector<T>& records, std::vector<uint32_t>& free_slots) {
  if (!free_slots.empty()) {
    const uint32_t slot = free_slots.back();
    free_slots.pop_back();
    return slot;
  }
  records.emplace_back();
  return static_cast<uint32_t>(records.size() - 1);
}

// A body's motion record. A static body keeps no velocity.
BodyMotion NewBodyMotion(const BodyDef& def) {
  BodyMotion motion;
  motion.linear_velocity = def.type == BodyType::kStatic ? Vec2{} : def.linear_velocity;
  motion.angular_velocity = def.type == BodyType::kStatic ? kFixedZero : def.angular_velocity;
  motion.linear_damping = def.linear_damping;
  motion.angular_damping = def.angular_damping;
  motion.gravity_scale = def.gravity_scale;
  SetMassData(def, &motion);
  return motion;
}

// A body's record, its shapes to follow from `first_shape`, and its motion
// record when it needs one.
BodyRecord NewBodyRecord(World::Impl& w, const BodyDef& def, uint32_t first_shape) {
  BodyRecord body;
  body.id = def.id;
  body.type = def.type;
  body.transform = def.transform;
  body.is_bullet = def.is_bullet;
  body.first_shape = first_shape;
  body.shape_count = static_cast<uint32_t>(def.shapes.size());
  if (NeedsMotion(def)) {
    body.motion = TakeSlot(w.motions, w.free_motion_slots);
    w.motions[body.motion] = NewBodyMotion(def);
  }
  return body;
}

// Appends shape `index` of the body in `slot`: its record, its points
// (local and placed) and its proxy, in the static tree (exact box) or the
// movable one (fat box). True when it went to the static tree.
bool AppendShape(World::Impl& w, const BodyDef& def, uint32_t slot, uint32_t index) {
  const ShapeDef& sd = def.shapes[index];
  ShapeRecord s;
  s.filter = w.filters.Add(sd.filter);
  s.material = w.materials.Add({sd.friction, sd.restitution, sd.density});
  s.user_tag = sd.user_tag;
  s.body_id = def.id;
  s.body_slot = slot;
  s.index_in_body = static_cast<uint16_t>(index);
  s.type = sd.shape.type;
  s.is_sensor = sd.is_sensor;
  s.alive = true;
  Vec2 local[kMaxPolygonVertices];
  s.point_count = static_cast<uint8_t>(LocalPoints(sd.shape, local, &s.radius));
  s.point_offset = static_cast<uint32_t>(w.world_points.size());
  bool derived = def.type == BodyType::kStatic;
  for (int k = 0; k < s.point_count; ++k) {
    w.world_points.push_back(TransformPoint(def.transform, local[k]));
    derived = derived && w.world_points.back() - def.transform.p == local[k];
  }
  s.local_offset = derived ? kDerivedLocal : static_cast<uint32_t>(w.local_points.size());
  if (!derived) w.local_points.insert(w.local_points.end(), local, local + s.point_count);
  const uint32_t shape_index = static_cast<uint32_t>(w.shapes.size());
  const Aabb box = ComputeProxyAabb(w.ProxyOf(s));
  const bool is_static = def.type == BodyType::kStatic;
  s.proxy = is_static ? w.static_tree.CreateProxy(box, shape_index) : w.AddMovableProxy(Fatten(box), shape_index);
  w.shapes.push_back(s);
  return is_static;
}

}  // namespace

bool ShouldCollide(const Filter& a, const Filter& b) {
  if (a.group_index == b.group_index && a.group_index != 0) return a.group_index > 0;
  return (a.mask_bits & b.category_bits) != 0 && (a.category_bits & b.mask_bits) != 0;
}

World::World(const WorldDef& def) : impl_(std::make_unique<Impl>()) { impl_->def = def; }

Status World::Create(const WorldDef& def, World* out) {
  if (Status s = ValidateWorldDef(def); !s.ok()) return s;
  *out = World(def);
  return OkStatus();
}
World::~World() = default;
World::World(World&&) noexcept = default;
World& World::operator=(World&&) noexcept = default;

World World::Clone() const {
  World copy;
  *copy.impl_ = *impl_;
  return copy;
}

uint64_t World::Impl::NewLayoutStamp() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1, std::memory_order_relaxed);
}

const WorldDef& World::def() const { return impl_->def; }
int64_t World::tick() const { return impl_->tick; }
size_t World::body_count() const { return impl_->live_bodies; }

Status World::AddBody(const BodyDef& def) { return AddBodies(std::span<const BodyDef>(&def, 1)); }

Status World::AddBodies(std::span<const BodyDef> defs) {
  Impl& w = *impl_;
  // Validate everything before touching anything: all or nothing.
  if (Status s = CheckNewBodies(w, defs); !s.ok()) return s;
  ReserveFor(w, defs);
  size_t new_statics = 0, new_movables = 0;
  for (const BodyDef& def : defs) {
    const uint32_t slot = TakeSlot(w.bodies, w.free_body_slots);
    w.bodies[slot] = NewBodyRecord(w, def, static_cast<uint32_t>(w.shapes.size()));
    for (size_t i = 0; i < def.shapes.size(); ++i) {
      if (AppendShape(w, def, slot, static_cast<uint32_t>(i))) {
        ++new_statics;
      } else {
        ++new_movables;
      }
    }
    w.ids.Insert(def.id, slot, w.bodies);
    ++w.live_bodies;
  }
  // A static body added onto asleep ones wakes them (a movable one is
  // awake, and the step's wake test sees what it reaches).
  if (w.def.allow_sleep) {
    for (const BodyDef& def : defs) {
      if (def.type == BodyType::kStatic) internal::WakeForChange(w, w.SlotOf(def.id));
    }
  }
  w.layout_stamp = Impl::NewLayoutStamp();
  // Many shapes at once: a top-down build beats incremental insertion (for
  // the movable tree too: its shape never reaches a result).
  auto rebuild_if_bulk = [](auto& tree, size_t added) {
    if (added >= 64 && added * 4 >= static_cast<size_t>(tree.leaf_count())) tree.Rebuild();
  };
  rebuild_if_bulk(w.static_tree, new_statics);
  rebuild_if_bulk(w.movable_tree, new_movables);
  return OkStatus();
}

Status World::RemoveBodies(std::span<const uint64_t> ids) {
  Impl& w = *impl_;
  std::vector<uint64_t> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < ids.size(); ++i) {
    if (w.SlotOf(ids[i]) == internal::IdMap::kMissing) {
      return NotFoundError("body_ids[" + std::to_string(i) + "]: no body " + std::to_string(ids[i]));
    }
  }
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end()) {
    return InvalidArgumentError("body_ids: body " + std::to_string(*std::adjacent_find(sorted.begin(), sorted.end())) +
                                " listed twice");
  }
  // Contacts and sensor overlaps of removed bodies are gone with them.
  internal::WakeForRemoval(w, sorted);  // what rested on a removed body
  auto removed = [&sorted](uint64_t id) { return std::binary_search(sorted.begin(), sorted.end(), id); };
  std::erase_if(w.contacts, [&](const internal::ContactState& c) { return removed(c.a.body_id) || removed(c.b.body_id); });
  std::erase_if(w.sensor_overlaps, [&](const SensorEvent& e) { return removed(e.sensor.body_id) || removed(e.visitor.body_id); });
  for (uint64_t id : ids) {
    const uint32_t slot = w.SlotOf(id);
    BodyRecord& body = w.bodies[slot];
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      ShapeRecord& s = w.shapes[body.first_shape + i];
      if (body.type == BodyType::kStatic) {
        w.static_tree.DestroyProxy(s.proxy);
      } else {
        w.movable_tree.DestroyProxy(s.proxy);
      }
      s.proxy = -1;
      s.alive = false;
      w.filters.Release(s.filter);
      w.materials.Release(s.material);
      ++w.dead_shapes;
    }
    if (body.motion != BodyRecord::kNone) {
      w.motions[body.motion] = BodyMotion();
      w.free_motion_slots.push_back(body.motion);
    }
    w.ids.Erase(id, w.bodies);  // reads the record's id: before it is cleared
    body = BodyRecord();
    w.free_body_slots.push_back(slot);
    --w.live_bodies;
  }
  w.CompactIfSparse();
  w.layout_stamp = Impl::NewLayoutStamp();
  return OkStatus();
}

Status World::SetBodyTransform(uint64_t id, const Transform& transform) {
  Impl& w = *impl_;
  const uint32_t slot = w.SlotOf(id);
  if (slot == internal::IdMap::kMissing) return NotFoundError("body_id: no body " + std::to_string(id));
  if (Status s = internal::ValidateTransform(transform, "transform"); !s.ok()) return s;
  w.StoreLocalPoints(slot);
  w.bodies[slot].transform = transform;
  w.SyncBodyShapes(slot);
  internal::WakeForChange(w, slot);
  if (w.bodies[slot].type == BodyType::kStatic) w.layout_stamp = Impl::NewLayoutStamp();
  return OkStatus();
}

Status World::SetBodyVelocity(uint64_t id, Vec2 linear, Fixed angular) {
  Impl& w = *impl_;
  const uint32_t slot = w.SlotOf(id);
  if (slot == internal::IdMap::kMissing) return NotFoundError("body_id: no body " + std::to_string(id));
  if (w.bodies[slot].type == BodyType::kStatic) {
    return FailedPreconditionError("body_id: body " + std::to_string(id) + " is static and cannot move");
  }
  if (Status s = internal::ValidateVelocity(linear, angular, ""); !s.ok()) return s;
  BodyMotion& motion = w.MoverMotion(w.bodies[slot]);
  motion.linear_velocity = linear;
  motion.angular_velocity = angular;
  internal::WakeForChange(w, slot);
  return OkStatus();
}

Status World::SetShapeFilter(uint64_t id, uint32_t shape_index, const Filter& filter) {
  Impl& w = *impl_;
  const uint32_t slot = w.SlotOf(id);
  if (slot == internal::IdMap::kMissing) return NotFoundError("body_id: no body " + std::to_string(id));
  const BodyRecord& body = w.bodies[slot];
  if (shape_index >= body.shape_count) {
    return NotFoundError("shape_index: body " + std::to_string(id) + " has " + std::to_string(body.shape_count) +
                         " shape(s)");
  }
  // The new filter is added before the old one is released, so that an
  // unchanged filter keeps its index.
  uint32_t& index = w.shapes[body.first_shape + shape_index].filter;
  const uint32_t old = index;
  index = w.filters.Add(filter);
  w.filters.Release(old);
  internal::WakeForChange(w, slot);
  w.layout_stamp = Impl::NewLayoutStamp();
  return OkStatus();
}

std::optional<BodyView> World::FindBody(uint64_t id) const {
  const BodyRecord* body = impl_->Find(id);
  if (body == nullptr) return std::nullopt;
  const BodyMotion& motion = impl_->MotionOf(*body);
  return BodyView{body->id,          body->type,         body->transform, motion.linear_velocity,
                  motion.angular_velocity, body->shape_count, motion.awake};
}

std::optional<BodyDef> World::GetBodyDef(uint64_t id) const {
  const BodyRecord* body = impl_->Find(id);
  if (body == nullptr) return std::nullopt;
  return impl_->BodyDefOf(*body);
}

std::vector<uint64_t> World::BodyIds() const {
  std::vector<uint64_t> ids;
  ids.reserve(impl_->live_bodies);
  for (const BodyRecord& body : impl_->bodies) {
    if (body.id != 0) ids.push_back(body.id);
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

size_t World::MemoryBytes() const {
  const Impl& w = *impl_;
  return sizeof(Impl) + w.bodies.capacity() * sizeof(BodyRecord) + w.free_body_slots.capacity() * sizeof(uint32_t) +
         w.motions.capacity() * sizeof(BodyMotion) + w.free_motion_slots.capacity() * sizeof(uint32_t) +
         w.shapes.capacity() * sizeof(ShapeRecord) + (w.local_points.capacity() + w.world_points.capacity()) * sizeof(Vec2) +
         w.movable_fat_boxes.capacity() * sizeof(Aabb) +
         w.ids.MemoryBytes() + w.filters.MemoryBytes() + w.materials.MemoryBytes() + w.static_tree.MemoryBytes() +
         w.movable_tree.MemoryBytes();
}

namespace internal {

Aabb PlacedBox(const World::Impl& w, const ShapeRecord& s) {
  // ComputeProxyAabb(w.ProxyOf(s)) read in place: the proxy's points are
  // the first `count` world points (two for a chain segment, whose ghosts
  // are not in its box), grown by the radius.
  const Vec2* points = &w.world_points[s.point_offset];
  const int count = s.type == ShapeType::kChainSegment ? 2 : s.point_count;
  Vec2 lower = points[0], upper = points[0];
  for (int i = 1; i < count; ++i) {
    lower = {Min(lower.x, points[i].x), Min(lower.y, points[i].y)};
    upper = {Max(upper.x, points[i].x), Max(upper.y, points[i].y)};
  }
  const Vec2 r{s.radius, s.radius};
  return {lower - r, upper + r};
}

}  // namespace internal

void World::Impl::SyncBodyShapes(uint32_t slot) {
  const BodyRecord& body = bodies[slot];
  for (uint32_t i = 0; i < body.shape_count; ++i) {
    ShapeRecord& s = shapes[body.first_shape + i];
    const Aabb box = PlaceShape(body, s);
    if (body.type == BodyType::kStatic) {
      static_tree.MoveProxy(s.proxy, box);
    } else if (Aabb fat; NeedsRefit(body, s, box, &fat)) {
      MoveMovableProxy(s, fat);
    }
  }
}

void World::Impl::StoreLocalPoints(uint32_t slot) {
  const BodyRecord& body = bodies[slot];
  for (uint32_t i = 0; i < body.shape_count; ++i) {
    ShapeRecord& s = shapes[body.first_shape + i];
    if (s.local_offset != kDerivedLocal) continue;
    const uint32_t offset = static_cast<uint32_t>(local_points.size());
    for (int k = 0; k < s.point_count; ++k) local_points.push_back(LocalPoint(s, k));
    s.local_offset = offset;
  }
}

void World::Impl::MoveMovableProxy(ShapeRecord& s, const Aabb& fat) {
  movable_fat_boxes[s.proxy] = fat;
  movable_tree.MoveProxy(s.proxy, fat);
}

int32_t World::Impl::AddMovableProxy(const Aabb& fat, uint32_t user) {
  const int32_t proxy = movable_tree.CreateProxy(fat, user);
  // Proxy ids are dense (a freed id is handed out again first).
  if (static_cast<size_t>(proxy) >= movable_fat_boxes.size()) movable_fat_boxes.resize(proxy + 1);
  movable_fat_boxes[proxy] = fat;
  return proxy;
}

Aabb World::Impl::PlaceShape(const BodyRecord& body, const ShapeRecord& s) {
  Vec2* const placed = &world_points[s.point_offset];
  const Vec2* const local = &local_points[s.local_offset];
  for (int k = 0; k < s.point_count; ++k) placed[k] = TransformPoint(body.transform, local[k]);
  return internal::PlacedBox(*this, s);
}

bool World::Impl::NeedsRefit(const BodyRecord& body, const ShapeRecord& s, const Aabb& box, Aabb* fat) const {
  if (Contains(movable_fat_boxes[s.proxy], box)) return false;
  // Four ticks of motion ahead, so a falling body leaves its box every few
  // ticks rather than every other one (tree moves were a tenth of a rain
  // tick); fat boxes decide only what the tree visits, never a result.
  // |v| <= 2^24 and tick_hz >= 1 bound the reach by 2^26: with boxes inside
  // the world range (2^29) the fat box stays below 2^30, inside Q32.32.
  const Vec2 ahead = Fixed::FromRatio(4, def.tick_hz) * motions[body.motion].linear_velocity;  // movable: has one
  *fat = FattenAhead(box, ahead);
  return true;
}

void World::Impl::CompactIfSparse() {
  if (dead_shapes < 1024 || dead_shapes < shapes.size() / 2) return;
  std::vector<ShapeRecord> new_shapes;
  std::vector<Vec2> new_local, new_world;
  new_shapes.reserve(shapes.size() - dead_shapes);
  // The static tree is keyed by shape index: renamed all at once below.
  std::vector<uint32_t> new_static_key(shapes.size());
  for (uint32_t slot = 0; slot < bodies.size(); ++slot) {
    BodyRecord& body = bodies[slot];
    if (body.id == 0) continue;
    const uint32_t first = static_cast<uint32_t>(new_shapes.size());
    for (uint32_t i = 0; i < body.shape_count; ++i) {
      ShapeRecord s = shapes[body.first_shape + i];
      const uint32_t offset = static_cast<uint32_t>(new_world.size());
      new_world.insert(new_world.end(), &world_points[s.point_offset], &world_points[s.point_offset] + s.point_count);
      s.point_offset = offset;
      if (s.local_offset != kDerivedLocal) {
        const uint32_t local_offset = static_cast<uint32_t>(new_local.size());
        new_local.insert(new_local.end(), &local_points[s.local_offset], &local_points[s.local_offset] + s.point_count);
        s.local_offset = local_offset;
      }
      const uint32_t new_index = static_cast<uint32_t>(new_shapes.size());
      if (body.type == BodyType::kStatic) {
        new_static_key[s.proxy] = new_index;
        s.proxy = static_cast<int32_t>(new_index);
      } else {
        movable_tree.SetUser(s.proxy, new_index);
      }
      new_shapes.push_back(s);
    }
    body.first_shape = first;
  }
  static_tree.Renumber(new_static_key);
  shapes = std::move(new_shapes);
  local_points = std::move(new_local);
  world_points = std::move(new_world);
  dead_shapes = 0;
}

Shape World::Impl::LocalShapeOf(const ShapeRecord& s) const {
  Vec2 p[kMaxPolygonVertices];
  for (int k = 0; k < s.point_count; ++k) p[k] = LocalPoint(s, k);
  switch (s.type) {
    case ShapeType::kCircle: return Shape::FromCircle({p[0], s.radius});
    case ShapeType::kCapsule: return Shape::FromCapsule({p[0], p[1], s.radius});
    case ShapeType::kSegment: return Shape::FromSegment({p[0], p[1]});
    case ShapeType::kChainSegment: return Shape::FromChainSegment({p[2], p[0], p[1], p[3]});
    case ShapeType::kPolygon: break;
  }
  Polygon polygon;
  // Stored points came from a validated polygon, so this cannot fail.
  (void)MakePolygon(std::span<const Vec2>(p, s.point_count), s.radius, &polygon);
  return Shape::FromPolygon(polygon);
}

BodyDef World::Impl::BodyDefOf(const BodyRecord& body) const {
  BodyDef out;
  out.id = body.id;
  out.type = body.type;
  out.transform = body.transform;
  const BodyMotion& motion = MotionOf(body);
  out.linear_velocity = motion.linear_velocity;
  out.angular_velocity = motion.angular_velocity;
  out.linear_damping = motion.linear_damping;
  out.angular_damping = motion.angular_damping;
  out.gravity_scale = motion.gravity_scale;
  out.is_bullet = body.is_bullet;
  out.shapes.reserve(body.shape_count);
  for (uint32_t i = 0; i < body.shape_count; ++i) {
    const ShapeRecord& s = shapes[body.first_shape + i];
    ShapeDef sd;
    sd.shape = LocalShapeOf(s);
    sd.filter = FilterOf(s);
    sd.is_sensor = s.is_sensor;
    const ShapeMaterial& material = MaterialOf(s);
    sd.friction = material.friction;
    sd.restitution = material.restitution;
    sd.density = material.density;
    sd.user_tag = s.user_tag;
    out.shapes.push_back(sd);
  }
  return out;
}

}  // namespace arbiter

// World storage. Bodies and shapes live in flat arrays addressed by slot;
// shape geometry lives in two point pools (body-local and world-space) so a
// box costs four points rather than a full eight-vertex polygon. A static
// shape whose local points are its world points less the body's position
// (every shape of an unrotated static body) keeps no local points. Nothing
// here is iterated in an order that depends on memory addresses or hashing:
// wherever order reaches a result, ids are sorted first.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/proxy.h"
#include "arbiter/core/world.h"
#include "compact_tree.h"
#include "dynamic_tree.h"
#include "id_map.h"
#include "intern_table.h"
#include "proxy_view.h"

namespace arbiter {

namespace internal {

/// What only a body that can move needs: velocity, damping, gravity scale
/// and mass. Static bodies, most of a large world, have none (their
/// velocity and mass are zero), unless their definition set damping or a
/// gravity scale other than the defaults: those are kept, for the snapshot
/// and GetBodyDef, in a record of their own. 96 bytes.
struct BodyMotion {
  Vec2 linear_velocity;
  Fixed angular_velocity;
  Fixed linear_damping;
  Fixed angular_damping;
  Fixed gravity_scale = kFixedOne;
  // Mass properties, derived from the shapes when the body is added.
  Vec2 local_center;  // centre of mass in the body frame
  Fixed inv_mass;     // zero for static and kinematic bodies
  Fixed inv_inertia;  // about the centre of mass
  // Sleeping (WorldDef::allow_sleep; step_sleep.cc): seconds the body has
  // stayed slow, capped at kTimeToSleep, and whether it is stepped. Both
  // are state (snapshot version 2); without sleeping they stay 0 and true.
  Fixed sleep_time;
  bool awake = true;
};

/// The motion of a body without a motion record: at rest, the defaults.
inline const BodyMotion kNoMotion{};

/// A body: what every body has. Its motion, when it has one, is
/// World::Impl::motions[motion]. 56 bytes.
struct BodyRecord {
  static constexpr uint32_t kNone = UINT32_MAX;
  uint64_t id = 0;  // 0 marks a free slot
  Transform transform;
  uint32_t first_shape = 0;
  uint32_t shape_count = 0;
  uint32_t motion = kNone;  // always set for kinematic and dynamic bodies
  BodyType type = BodyType::kStatic;
  bool is_bullet = false;
};

/// One point of a persistent contact: what warm starting carries over.
struct ContactPointState {
  uint16_t id = 0;
  Fixed normal_impulse;
  Fixed tangent_impulse;
};

/// A pair of shapes whose fat boxes overlap, kept across ticks. `a` < `b`
/// in (body id, shape index) order; the impulses are state (they change the
/// next tick), so they are part of the snapshot and the hash.
struct ContactState {
  ShapeRef a;
  ShapeRef b;
  int32_t point_count = 0;  // 1 or 2: only touching contacts are kept
  ContactPointState points[2];
};

/// ShapeRecord::local_offset of a shape that derives its local points.
inline constexpr uint32_t kDerivedLocal = UINT32_MAX;

/// What the step reads of a shape beyond its geometry, interned in
/// World::Impl::materials (intern_table.h): most worlds have a few.
struct ShapeMaterial {
  Fixed friction;
  Fixed restitution;
  Fixed density;
  friend bool operator==(const ShapeMaterial&, const ShapeMaterial&) = default;
};

struct MaterialHash {
  uint64_t operator()(const ShapeMaterial& m) const {
    return MixBits(MixBits(MixBits(static_cast<uint64_t>(m.friction.raw())) ^ static_cast<uint64_t>(m.restitution.raw())) ^
                   static_cast<uint64_t>(m.density.raw()));
  }
};

struct FilterHash {
  uint64_t operator()(const Filter& f) const {
    return MixBits(MixBits(MixBits(f.category_bits) ^ f.mask_bits) ^ static_cast<uint32_t>(f.group_index));
  }
};

// Laid out for the queries: what a candidate's test reads (filter, radius,
// where its points are, its type) and what a hit reports (body id, shape
// index, user tag) come first, the tree handle and the step's material
// last. The filter and the material are indexes into World::Impl::filters
// and ::materials (a small table, hot in the cache while a query runs;
// 40 bytes less here). The body id is the body record's, kept here too so
// that a hit or an overlap costs no visit to the body record (ids never
// change). A movable shape's fat box lives in
// World::Impl::movable_fat_boxes, not here: static shapes, most of a large
// world, would carry it unused. 56 bytes.
struct ShapeRecord {
  uint32_t filter = 0;        // into World::Impl::filters
  uint32_t point_offset = 0;  // into world_points
  Fixed radius;
  ShapeType type = ShapeType::kCircle;
  uint8_t point_count = 0;
  bool is_sensor = false;
  bool alive = false;
  uint16_t index_in_body = 0;  // < kMaxShapesPerBody + kMaxChainSegmentsPerBody
  uint64_t body_id = 0;
  uint64_t user_tag = 0;
  uint32_t body_slot = 0;
  // Leaf in the body's tree (a static shape's is its index); -1 once removed.
  int32_t proxy = -1;
  // Into local_points, or kDerivedLocal: then local point k is world
  // point k - the body's position (exact: Q32.32 addition wraps, so the
  // subtraction undoes it), which AppendShape checked for every point.
  uint32_t local_offset = 0;
  uint32_t material = 0;  // into World::Impl::materials
};
static_assert(sizeof(ShapeRecord) == 56);
static_assert(kMaxShapesPerBody + kMaxChainSegmentsPerBody <= UINT16_MAX, "index_in_body is 16 bits");

/// The proxy of a shape record whose points (local or world, in the
/// record's order) start at `points`. A chain segment stores four points,
/// point1, point2, ghost1, ghost2: its proxy is the first two plus the
/// ghosts.
inline ShapeProxy ProxyFromPoints(const ShapeRecord& s, const Vec2* points) {
  ShapeProxy p;
  p.radius = s.radius;
  if (s.type == ShapeType::kChainSegment) {
    p.points[0] = points[0];
    p.points[1] = points[1];
    p.count = 2;
    p.one_sided = true;
    p.ghost1 = points[2];
    p.ghost2 = points[3];
    return p;
  }
  for (int i = 0; i < s.point_count; ++i) p.points[i] = points[i];
  p.count = s.point_count;
  return p;
}

struct StepState;

/// The step's working set, kept from tick to tick only so that its buffers
/// keep their capacity (no allocation and page faults per tick); nothing in
/// it outlives a tick, so copying a world copies none of it.
class StepScratch {
 public:
  StepScratch();
  ~StepScratch();
  StepScratch(const StepScratch&);
  StepScratch& operator=(const StepScratch&) { return *this; }
  /// The state, emptied (capacity kept).
  StepState& Fresh();

 private:
  std::unique_ptr<StepState> state_;
};

/// Tree boxes of movable bodies are enlarged by this margin so that small
/// moves do not touch the tree (Box2D's aabbMargin).
constexpr Fixed kAabbMargin = Fixed::FromRaw(Fixed::kOneRaw / 8);

}  // namespace internal

struct World::Impl {
  WorldDef def;
  int64_t tick = 0;
  // Changes whenever what WorldHistory shares between ticks changes: the
  // set of bodies, any shape filter, any static body's pose. Unique across
  // worlds (see NewLayoutStamp), so two worlds never share a stamp by
  // accident; it never reaches a result, the snapshot or the hash.
  uint64_t layout_stamp = NewLayoutStamp();

  std::vector<internal::BodyRecord> bodies;
  std::vector<uint32_t> free_body_slots;
  std::vector<internal::BodyMotion> motions;  // see BodyRecord::motion
  std::vector<uint32_t> free_motion_slots;
  size_t live_bodies = 0;

  std::vector<internal::ShapeRecord> shapes;
  size_t dead_shapes = 0;
  std::vector<Vec2> local_points;  // see ShapeRecord::local_offset
  std::vector<Vec2> world_points;

  // Persistent contacts and sensor overlaps, sorted by (a, b).
  std::vector<internal::ContactState> contacts;
  std::vector<SensorEvent> sensor_overlaps;

  internal::StepScratch step_scratch;

  internal::IdMap ids;  // keys read from `bodies`: use SlotOf
  // Each distinct shape filter and material once (ShapeRecord::filter,
  // ::material); a record's indexes are added with it and released with it.
  internal::InternTable<Filter, internal::FilterHash> filters;
  internal::InternTable<internal::ShapeMaterial, internal::MaterialHash> materials;
  // Static bodies: a compact tree keyed by shape index (ShapeRecord::proxy
  // is the shape's index), whose boxes contain the exact ones.
  internal::CompactTree static_tree;
  internal::DynamicTree movable_tree;  // kinematic and dynamic bodies, fat boxes
  /// Each movable proxy's box in the movable tree (fat), by proxy id, so
  /// that the step's refit check reads one flat array instead of a tree
  /// node. Like the tree's boxes it never reaches a result. Written only
  /// through MoveMovableProxy and AddMovableProxy; a destroyed proxy's
  /// entry is stale until the tree hands its id out again.
  std::vector<Aabb> movable_fat_boxes;

  static uint64_t NewLayoutStamp();

  /// The slot of body `id`, or IdMap::kMissing.
  uint32_t SlotOf(uint64_t id) const { return ids.Find(id, bodies); }

  const internal::BodyRecord* Find(uint64_t id) const {
    const uint32_t slot = SlotOf(id);
    return slot == internal::IdMap::kMissing ? nullptr : &bodies[slot];
  }

  /// A body's motion: its record, or kNoMotion when it has none.
  const internal::BodyMotion& MotionOf(const internal::BodyRecord& body) const {
    return body.motion == internal::BodyRecord::kNone ? internal::kNoMotion : motions[body.motion];
  }
  /// The motion record of a kinematic or dynamic body (always has one).
  internal::BodyMotion& MoverMotion(const internal::BodyRecord& body) { return motions[body.motion]; }

  /// The shape `ref` names, or null when there is none.
  const internal::ShapeRecord* FindShape(const ShapeRef& ref) const {
    const internal::BodyRecord* body = Find(ref.body_id);
    if (body == nullptr || ref.shape_index >= body->shape_count) return nullptr;
    return &shapes[body->first_shape + ref.shape_index];
  }

  const Filter& FilterOf(const internal::ShapeRecord& s) const { return filters[s.filter]; }
  const internal::ShapeMaterial& MaterialOf(const internal::ShapeRecord& s) const { return materials[s.material]; }

  /// Local point k of a live shape, stored or derived (ShapeRecord::local_offset).
  Vec2 LocalPoint(const internal::ShapeRecord& s, int k) const {
    if (s.local_offset != internal::kDerivedLocal) return local_points[s.local_offset + k];
    return world_points[s.point_offset + k] - bodies[s.body_slot].transform.p;
  }
  /// Stores the local points of a body's shapes that derive them, before
  /// its transform changes (they derive from the current one).
  void StoreLocalPoints(uint32_t slot);

  /// The world-space proxy of a live shape.
  ShapeProxy ProxyOf(const internal::ShapeRecord& s) const {
    return internal::ProxyFromPoints(s, &world_points[s.point_offset]);
  }
  /// The same geometry read in place (valid until world_points changes):
  /// for the queries, which test many shapes and copy none.
  internal::ProxyView ViewOf(const internal::ShapeRecord& s) const {
    const bool chain = s.type == ShapeType::kChainSegment;
    return {&world_points[s.point_offset], chain ? 2 : static_cast<int32_t>(s.point_count), s.radius, chain};
  }

  /// CastShapeClosest for a proxy already placed at the start of the cast.
  /// `search_movable` false skips the movable tree: for callers that know
  /// nothing in it can pass `filter` (the step's continuous collision).
  std::optional<CastHit> CastProxyClosest(const ShapeProxy& moving, Vec2 translation, const QueryFilter& filter,
                                          bool search_movable) const;

  /// Recomputes world points and tree boxes of a body's shapes after its
  /// transform changed: PlaceShape, then the tree move it needs.
  void SyncBodyShapes(uint32_t slot);
  /// The world points of a shape of `body`, placed at the body's transform;
  /// returns the shape's tight box. Touches no tree. The shape's local
  /// points are stored (every movable shape's; a static one's after
  /// StoreLocalPoints).
  Aabb PlaceShape(const internal::BodyRecord& body, const internal::ShapeRecord& s);
  /// For a movable body's shape whose tight box is now `box`: true, with
  /// the fat box to move its proxy to in *fat, when the tree's box no
  /// longer contains it (movable_fat_boxes, its tree box). Reads no tree.
  bool NeedsRefit(const internal::BodyRecord& body, const internal::ShapeRecord& s, const Aabb& box, Aabb* fat) const;
  /// Moves a movable shape's proxy to `fat` and keeps the copy of the tree
  /// box in movable_fat_boxes equal to it.
  void MoveMovableProxy(internal::ShapeRecord& s, const Aabb& fat);
  /// A new leaf in the movable tree with box `fat` carrying `user`, its
  /// copy in movable_fat_boxes beside it; returns its proxy id.
  int32_t AddMovableProxy(const Aabb& fat, uint32_t user);
  /// Rewrites shapes and point pools without holes when removals have left
  /// more dead records than live ones.
  void CompactIfSparse();
  /// A live shape as it was defined, in its body's frame.
  Shape LocalShapeOf(const internal::ShapeRecord& s) const;
  /// Rebuilds a body definition from the stored records.
  BodyDef BodyDefOf(const internal::BodyRecord& body) const;
};

namespace internal {

/// A live shape's tight box at its current world points:
/// ComputeProxyAabb(w.ProxyOf(s)), without copying the proxy.
Aabb PlacedBox(const World::Impl& w, const ShapeRecord& s);

}  // namespace internal

}  // namespace arbiter

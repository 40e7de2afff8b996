// File: world.h
//
// A collision world: bodies with user-visible 64-bit ids, each carrying one
// or more shapes, a broad phase over them, and every query a game server
// asks, answered exactly and deterministically.
//
// Determinism contract:
//  - every result is a pure function of the world's state and the query:
//    the broad phase's internal shape (which depends on the history of
//    insertions) never shows in a result, because results leave in a fixed
//    order: ray and shape casts by (fraction, body id, shape index), overlaps
//    by (body id, shape index); ties in "closest" go to the lower
//    (body id, shape index);
//  - the state hash and the snapshot are functions of the canonical state
//    only (bodies in id order, raw Q32.32 values, the tick), so two worlds
//    built in different orders hash the same;
//  - queries are const and safe to run concurrently with each other; a
//    mutation must not run concurrently with anything (the server holds a
//    lock per world).
//
// Invalid input returns a Status naming the offending field and leaves the
// world unchanged; batch mutations are all or nothing.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/math.h"
#include "arbiter/core/mover.h"
#include "arbiter/core/query_collectors.h"
#include "arbiter/core/shapes.h"
#include "arbiter/core/status.h"
#include "arbiter/core/step_executor.h"
#include "arbiter/core/types.h"

namespace arbiter {

/// True when shapes with filters a and b may collide.
bool ShouldCollide(const Filter& a, const Filter& b);

/// The one check of a WorldDef, shared by World::Create, Restore, the scene
/// loader and the server: OUT_OF_RANGE naming `gravity` or `tick_hz`.
Status ValidateWorldDef(const WorldDef& def);

/// The contact of two overlapping placed shapes, `query` as A (types.h:
/// OverlapContact).
/// Only for pairs that overlap (TestOverlap).
OverlapContact ContactOfOverlap(const ShapeProxy& query, const ShapeProxy& target);

class World {
 public:
  /// `def` must pass ValidateWorldDef (the default does); Create checks it
  /// and is the entry point for definitions from outside the process.
  explicit World(const WorldDef& def = {});
  /// A new empty world; the status of ValidateWorldDef (and *out
  /// unchanged) when `def` is out of range.
  static Status Create(const WorldDef& def, World* out);
  ~World();
  World(World&&) noexcept;
  World& operator=(World&&) noexcept;
  World(const World&) = delete;
  World& operator=(const World&) = delete;
  /// A deep copy (explicit, because a world can hold many megabytes).
  World Clone() const;

  const WorldDef& def() const;
  /// The tick counter (advanced by stepping).
  int64_t tick() const;
  size_t body_count() const;

  // ---- Mutation (all or nothing; errors name the field) -------------------

  /// Adds bodies. INVALID_ARGUMENT for a bad field (e.g.
  /// "bodies[3].shapes[0].polygon: not convex"), ALREADY_EXISTS for an id in
  /// use or repeated in the batch, RESOURCE_EXHAUSTED past max_bodies.
  Status AddBodies(std::span<const BodyDef> defs);
  Status AddBody(const BodyDef& def);
  /// NOT_FOUND when any id is unknown (nothing is removed then).
  Status RemoveBodies(std::span<const uint64_t> ids);
  Status SetBodyTransform(uint64_t id, const Transform& transform);
  Status SetBodyVelocity(uint64_t id, Vec2 linear, Fixed angular);
  Status SetShapeFilter(uint64_t id, uint32_t shape_index, const Filter& filter);

  // ---- Inspection ----------------------------------------------------------

  std::optional<BodyView> FindBody(uint64_t id) const;
  /// The definition a body would need to be re-created as it is now.
  std::optional<BodyDef> GetBodyDef(uint64_t id) const;
  /// Every body id, ascending.
  std::vector<uint64_t> BodyIds() const;

  // ---- Queries (const, thread-safe between themselves) ---------------------
  // Inputs must be in range: |origin| <= kMaxWorldCoordinate and
  // |translation| <= 2^30 per component; ValidateRay etc. check that.

  /// Casts the ray and offers every hit it finds to `collector`
  /// (query_collectors.h), which decides what the query answers (the
  /// closest hit, every hit, or whether there is any) and how far the
  /// traversal still looks. A batch is a loop over this with one collector.
  void CastRay(const RayCastInput& ray, const QueryFilter& filter, CastCollector& collector,
               QueryStats* stats = nullptr) const;
  /// Casts `shape` at `transform` moved by `translation` (max fraction 1)
  /// in the same way; the reported hits carry their contact points.
  void CastShape(const Shape& shape, const Transform& transform, Vec2 translation, const QueryFilter& filter,
                 CastCollector& collector) const;

  // Shorthands, each one collector and one cast.

  /// The closest hit of the ray, if any (ClosestHitCollector).
  std::optional<CastHit> CastRayClosest(const RayCastInput& ray, const QueryFilter& filter = {},
                                        QueryStats* stats = nullptr) const;
  /// Every shape the ray hits, by (fraction, body id, shape index) (AllHitsCollector).
  std::vector<CastHit> CastRayAll(const RayCastInput& ray, const QueryFilter& filter = {}) const;
  /// Whether the ray hits anything (AnyHitCollector: stops at the first hit found).
  bool CastRayAny(const RayCastInput& ray, const QueryFilter& filter = {}) const;

  /// Shapes containing the point (boundary included), by (body id, shape index).
  std::vector<ShapeRef> OverlapPoint(Vec2 point, const QueryFilter& filter = {}) const;
  /// Shapes touching the box (exact shape test, touching counts).
  std::vector<ShapeRef> OverlapAabb(const Aabb& box, const QueryFilter& filter = {}) const;
  /// Shapes touching `shape` placed at `transform` (exact, touching counts).
  std::vector<ShapeRef> OverlapShape(const Shape& shape, const Transform& transform,
                                     const QueryFilter& filter = {}) const;

  /// OverlapShape with the way out of each overlap (OverlapContact), in the
  /// same order: by (body id, shape index).
  std::vector<OverlapContact> OverlapShapeContacts(const Shape& shape, const Transform& transform,
                                                   const QueryFilter& filter = {}) const;

  /// The bodies within `max_distance` of `shape` at `transform`, nearest
  /// first: each body once, at its nearest passing shape (ties to the lower
  /// shape index), ordered by (distance, body id), at most `max_results`.
  /// `max_distance` must pass ValidateMaxDistance.
  std::vector<DistanceHit> Distance(const Shape& shape, const Transform& transform, Fixed max_distance,
                                    size_t max_results, const QueryFilter& filter = {}) const;

  /// The first shape hit by `shape` at `transform` moved by `translation`
  /// (ClosestHitCollector).
  std::optional<CastHit> CastShapeClosest(const Shape& shape, const Transform& transform, Vec2 translation,
                                          const QueryFilter& filter = {}) const;
  /// Whether the moving shape hits anything (AnyHitCollector).
  bool CastShapeAny(const Shape& shape, const Transform& transform, Vec2 translation,
                    const QueryFilter& filter = {}) const;
  /// Every shape hit along the way, by (fraction, body id, shape index)
  /// (AllHitsCollector).
  std::vector<CastHit> CastShapeAll(const Shape& shape, const Transform& transform, Vec2 translation,
                                    const QueryFilter& filter = {}) const;

  /// Move-and-slide of input.shape from input.start by input.translation
  /// (mover.h has the algorithm and the meaning of each result field).
  /// `input` must pass ValidateMoveInput.
  MoveResult MoveAndSlide(const MoveInput& input, const QueryFilter& filter = {}) const;

  // ---- Stepping --------------------------------------------------------------

  /// Advances the world by one tick of 1 / tick_hz seconds (see
  /// core/src/step_internal.h for the stages) and, when `events` is not
  /// null, reports the tick's contact and sensor events there. When `times`
  /// is not null, each stage's wall-clock time is added to it (benchmarks;
  /// the clock never reaches a result).
  ///
  /// The state a step leaves always passes every check of AddBodies, the
  /// setters and Restore (the limits of limits.h), so a snapshot of it
  /// restores and any value read back can be written again:
  ///  - each component of a body's linear velocity is clamped to
  ///    +-kMaxLinearSpeed and its angular velocity to +-kMaxAngularSpeed
  ///    when each sub-step integrates gravity and again after restitution,
  ///    before the tick's velocities are stored (a restitution up to
  ///    kMaxMaterial can multiply an approach speed far past the limit; as
  ///    Box2D clamps translation and rotation per step, the limit wins and
  ///    the energy above it is lost);
  ///  - a body's centre of mass stays within kMaxWorldCoordinate - 2^25
  ///    per axis (the velocity along a clamped axis becomes zero), so its
  ///    origin stays within kMaxWorldCoordinate;
  ///  - rotations are renormalised every tick; contacts keep 1 or 2 points
  ///    with non-negative normal impulses, in (a, b) order.
  ///
  /// With an `executor` (step_executor.h; StepThreadPool in
  /// step_thread_pool.h), pair finding, manifolds, the solver's islands
  /// and the continuous casts run as tasks on its threads while this call
  /// waits for them; the bullets, sensors and events stay on the calling
  /// thread.
  /// The result is the same bits for every executor and thread count (the
  /// state hash after every tick; step_executor.h says why). The tasks read
  /// this world and write only the step's own scratch and the movers'
  /// records, so, as for any mutation, nothing else may use this world
  /// during the call; other worlds may step at the same time, with the same
  /// executor or another.
  void Step(TickEvents* events = nullptr, StepTimes* times = nullptr, StepExecutor* executor = nullptr);
  /// As Step, but a tick whose candidate contact pairs (shape pairs whose
  /// grown boxes overlap; see step_pairs.cc) number more than `max_pairs`
  /// is refused before it changes anything: RESOURCE_EXHAUSTED, and the
  /// world, its tick and its events are as before the call. A hostile or
  /// mistaken world (thousands of bodies piled on one spot) would otherwise
  /// make a tick hold pairs, manifolds and constraints for n^2/2 pairs. The
  /// server steps within kMaxStepPairs (limits.h). Whether a tick is
  /// refused is a function of the world alone, whatever the executor.
  Status StepWithin(uint64_t max_pairs, TickEvents* events = nullptr, StepTimes* times = nullptr,
                    StepExecutor* executor = nullptr);

  // ---- State -----------------------------------------------------------------

  /// xxh64 (seed 0) of the canonical snapshot bytes without the world's
  /// limits (max_bodies): equal worlds, equal hash, however configured.
  uint64_t StateHash() const;
  /// The canonical byte image (little-endian, versioned; see snapshot.cc).
  std::vector<uint8_t> Snapshot() const;
  /// Rebuilds a world from Snapshot() bytes. The image is input like any
  /// other: the world definition passes ValidateWorldDef, every body passes
  /// AddBodies' checks, the tick is not negative, and the contact and sensor
  /// lists are what a step leaves: strictly ascending, naming existing
  /// shapes of two different bodies; a contact joins two non-sensor shapes,
  /// at least one on a dynamic body, with 1 or 2 points, 16-bit feature ids
  /// and non-negative normal impulses; a sensor overlap joins a sensor shape
  /// and a non-sensor shape, not both on static bodies. On any error
  /// (INVALID_ARGUMENT "snapshot: <what>") *out is left unchanged.
  static Status Restore(std::span<const uint8_t> bytes, World* out);

  /// Approximate heap bytes held (benchmarks report bytes per body).
  size_t MemoryBytes() const;

  struct Impl;

 private:
  friend class WorldHistory;
  std::unique_ptr<Impl> impl_;
};

/// True when |c^2 + s^2 - 1| <= 2^-16: what bodies accept as a rotation.
bool IsUnitRotation(Rot q);

/// Range checks for query inputs: OUT_OF_RANGE naming `field` when violated.
Status ValidateRay(const RayCastInput& ray, const char* field);
Status ValidatePoint(Vec2 point, const char* field);
Status ValidateAabb(const Aabb& box, const char* field);
/// OUT_OF_RANGE naming `field` unless 0 <= max_distance <= 2^30 units
/// (kMaxQueryTranslation).
Status ValidateMaxDistance(Fixed max_distance, const char* field);
/// The shape (as AddBodies checks shapes), start transform, translation,
/// skin and iteration limit of a move: errors name `field`.<member>.
Status ValidateMoveInput(const MoveInput& input, const char* field);

}  // namespace arbiter

// File: types.h
//
// The public value types of the core: ids and references, body and shape
// descriptions, filters, events and query results. They are kept apart from
// world.h (the World class and its checks) so that code that only carries
// these values (the wire conversion, the C API, the server's records) does
// not depend on the class that produces them.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "arbiter/core/fixed.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/math.h"
#include "arbiter/core/shapes.h"

namespace arbiter {

/// Collision filtering as in Box2D: two shapes may collide when each one's
/// category is in the other's mask, unless they share a non-zero group
/// (positive: always collide, negative: never).
struct Filter {
  uint64_t category_bits = 1;
  uint64_t mask_bits = ~uint64_t{0};
  int32_t group_index = 0;
  friend bool operator==(const Filter&, const Filter&) = default;
};

struct ShapeDef {
  Shape shape;
  Filter filter;
  /// Sensors report overlaps but never collide. A sensor sees the shapes
  /// overlapping it at the end of each tick and, for events, also the
  /// shapes that passed through it within the tick: a dynamic body moving
  /// far enough for continuous collision (more than a quarter of a shape's
  /// smaller extent) is swept from its start pose along its motion against
  /// the sensors at their end poses, and a sensor it crossed without
  /// overlapping at either end gets an enter and an exit in that tick.
  bool is_sensor = false;
  Fixed friction = Fixed::FromRatio(3, 5);
  Fixed restitution;
  Fixed density = kFixedOne;  ///< mass per unit area
  uint64_t user_tag = 0;      ///< opaque to Arbiter, returned with hits
};

enum class BodyType : uint8_t { kStatic = 0, kKinematic = 1, kDynamic = 2 };

struct BodyDef {
  uint64_t id = 0;  ///< user-visible; non-zero and unique in the world
  BodyType type = BodyType::kStatic;
  Transform transform = kTransformIdentity;  ///< |position| <= kMaxWorldCoordinate
  Vec2 linear_velocity;    ///< units per second
  Fixed angular_velocity;  ///< radians per second
  Fixed linear_damping;
  Fixed angular_damping;
  Fixed gravity_scale = kFixedOne;
  /// Continuous collision against moving bodies too. Every dynamic body is
  /// stopped short of static and kinematic geometry it would tunnel
  /// through; a bullet also against every non-bullet kinematic or dynamic
  /// body, along the relative motion (its shapes cast from their start
  /// poses, the other body's at its start pose, by the difference of the
  /// two motions), so that a bullet and a fast plank closing on each other
  /// meet where they really meet. Bullets are not cast against each other.
  bool is_bullet = false;
  std::vector<ShapeDef> shapes;
};

/// A shape in the world: its body's id and its index within the body.
struct ShapeRef {
  uint64_t body_id = 0;
  uint32_t shape_index = 0;
  friend auto operator<=>(const ShapeRef&, const ShapeRef&) = default;
};

struct WorldDef {
  Vec2 gravity;            ///< units per second squared, each component within +-kMaxGravity (2^24)
  int32_t tick_hz = 60;    ///< ticks per second, kMinTickHz..kMaxTickHz (1..10000)
  uint32_t max_bodies = 4'000'000;
  /// Lets resting islands sleep (Box2D's sleeping; core/src/step_sleep.cc):
  /// an island of touching bodies whose every body has stayed slow for
  /// kTimeToSleep stops being stepped until something wakes it. Off, the
  /// step, every snapshot byte and every hash are what they were before
  /// sleeping existed; on, each body's sleep timer and awake flag are state
  /// (snapshot version 2, the hash).
  bool allow_sleep = false;
  /// Solver sub-steps per tick (Box2D v3's b2World_Step subStepCount),
  /// kMinSubSteps..kMaxSubSteps (1..32). More make contacts stiffer (tall
  /// stacks sag less) at about proportional solver cost.
  int32_t sub_steps = kDefaultSubSteps;
  /// Contact stiffness, Hz (Box2D v3's b2WorldDef.contactHertz),
  /// kMinContactHertz..kMaxContactHertz (1..10000). The step uses
  /// min(contact_hertz, tick_hz * sub_steps / 4): a spring stiffer than a
  /// quarter of the sub-step rate would not be resolved by the sub-steps
  /// (Box2D clamps the same way). Damping ratio stays 10.
  ///
  /// With both at their defaults (4, 30) the step, every snapshot byte and
  /// every hash are what they were before the settings existed; otherwise
  /// both are state (snapshot version 3, the hash).
  int32_t contact_hertz = kDefaultContactHertz;
};

/// A contact that started or stopped touching during a tick. Shape `a`
/// precedes `b` in (body id, shape index) order; the normal points from a
/// to b. For end events the point, normal and speed are zero.
struct ContactEvent {
  ShapeRef a;
  ShapeRef b;
  Vec2 point;
  Vec2 normal;
  Fixed approach_speed;  ///< closing speed along the normal when it began (>= 0)
  /// The shapes' ShapeDef::user_tag, so a game can tell what touched
  /// without a lookup; 0 for a shape whose body is gone (end events).
  uint64_t user_tag_a = 0;
  uint64_t user_tag_b = 0;
  friend bool operator==(const ContactEvent&, const ContactEvent&) = default;
};

/// A shape entering or leaving a sensor. (The world also keeps its current
/// sensor overlaps in this form, with the tags zero; only events carry them.)
struct SensorEvent {
  ShapeRef sensor;
  ShapeRef visitor;
  uint64_t sensor_user_tag = 0;   ///< as ContactEvent::user_tag_a, in events only
  uint64_t visitor_user_tag = 0;
  friend bool operator==(const SensorEvent&, const SensorEvent&) = default;
};

/// Everything that happened in one tick, each list in canonical order
/// (by shape refs).
struct TickEvents {
  std::vector<ContactEvent> contact_begin;
  std::vector<ContactEvent> contact_end;
  std::vector<SensorEvent> sensor_enter;
  std::vector<SensorEvent> sensor_exit;
};

/// Wall-clock nanoseconds spent in each stage of Step, summed over the
/// calls that were given this struct.
struct StepTimes {
  uint64_t setup_ns = 0;     ///< movers, solver bodies, reach
  uint64_t pairs_ns = 0;     ///< candidate pairs
  uint64_t contacts_ns = 0;  ///< manifolds and constraints
  uint64_t solve_ns = 0;     ///< sub-stepped solver
  uint64_t finalize_ns = 0;  ///< poses, tree updates, continuous collision
  uint64_t sensors_ns = 0;   ///< sensor overlaps and events
};

/// Which shapes a query considers. A shape passes when
/// (shape.category & query.mask) != 0 and (shape.mask & query.category) != 0,
/// its body type is in `body_types`, it is not a sensor (unless
/// include_sensors) and its body is not in `exclude_bodies`.
struct QueryFilter {
  uint64_t category_bits = ~uint64_t{0};
  uint64_t mask_bits = ~uint64_t{0};
  bool include_sensors = false;
  uint8_t body_types = 0b111;  ///< bit (1 << BodyType)
  std::span<const uint64_t> exclude_bodies;  ///< body ids, any order
};

/// A ray or shape-cast hit.
struct CastHit {
  ShapeRef shape;
  uint64_t user_tag = 0;
  Fixed fraction;
  Vec2 point;
  Vec2 normal;
  friend bool operator==(const CastHit&, const CastHit&) = default;
};

/// A shape overlapping a query shape, with the way out: moving the query
/// shape by -normal * depth (or the body by +normal * depth) leaves the two
/// touching, to within the manifold's rounding (manifold.h: a few ulp, and
/// up to 2^-22 units more where two faces tie).
///
/// The contact is exactly the step's manifold for the pair (Collide with
/// the query shape as A and no speculative margin), so a game's push-out
/// agrees with what the solver would do:
///  - normal: unit (within 1 ulp per component), from the query shape
///    towards the body's shape;
///  - depth: >= 0, the deepest penetration along the normal; 0 when the
///    shapes only touch;
///  - points: 1 or 2 world-space points midway between the two surfaces.
/// Chain segments count as plain two-sided segments here, as in every
/// overlap query. When the shapes touch so closely that clipping keeps no
/// point (rounding), the contact has one point inside both shapes
/// (ShapeDistance's overlap point), a zero normal and zero depth.
struct OverlapContact {
  ShapeRef shape;
  uint64_t user_tag = 0;
  Vec2 normal;
  Fixed depth;
  int32_t point_count = 0;  ///< 1 or 2
  Vec2 points[2];
  friend bool operator==(const OverlapContact&, const OverlapContact&) = default;
};

/// The nearest shape of a body to a query shape (World::Distance).
///  - distance: between the surfaces (radii included), >= 0; 0 when the
///    shapes overlap (exact test), touching included;
///  - point_query, point_body: the closest points on the query shape and on
///    the body's shape (collision.h: ShapeDistance); when overlapping both
///    are the overlap point, which lies inside both shapes;
///  - normal: unit, from the query shape towards the body; when
///    overlapping, the overlap contact's normal (OverlapContact), with its
///    depth in `depth` (0 otherwise).
struct DistanceHit {
  ShapeRef shape;
  uint64_t user_tag = 0;
  Fixed distance;
  Vec2 point_query;
  Vec2 point_body;
  Vec2 normal;
  Fixed depth;
  friend bool operator==(const DistanceHit&, const DistanceHit&) = default;
};

/// Counters for tests and benchmarks (not part of any result).
struct QueryStats {
  uint64_t node_visits = 0;
  uint64_t shape_tests = 0;
};

/// A read-only look at one body.
struct BodyView {
  uint64_t id = 0;
  BodyType type = BodyType::kStatic;
  Transform transform;
  Vec2 linear_velocity;
  Fixed angular_velocity;
  uint32_t shape_count = 0;
  /// False while the body sleeps (WorldDef::allow_sleep); static bodies and
  /// every body of a world without sleeping are always awake.
  bool awake = true;
};

}  // namespace arbiter

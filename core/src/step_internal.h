// The stages of World::Step and what passes between them.
//
// A tick runs, in this order (each stage in its own file):
//   1. step.cc          movers in id order, solver bodies, each body's reach
//   2. step_pairs.cc    candidate shape pairs (exact rule, canonical order)
//   3. step_contacts.cc narrow phase, warm starting, contact begin/end events
//   4. step_solver.cc   soft-step sub-steps, relax, restitution
//   5. step_finalize.cc poses, world-range clamp, continuous collision
//   6. step_sensors.cc  sensor overlaps against the final poses
// Order is fixed everywhere: bodies by id, contacts by (shape a, shape b),
// so the same world steps to the same bits on every machine. All arithmetic
// is Q32.32.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/core/world.h"
#include "manifold_internal.h"
#include "step_tasks.h"
#include "world_impl.h"

namespace arbiter::internal {

// Tuning, in world units and seconds (Box2D v3's defaults, which are in
// metres). Exact binary fractions where possible. The sub-step count and
// the contact stiffness are per world (WorldDef::sub_steps, contact_hertz;
// defaults in limits.h).
constexpr Fixed kLinearSlop = Fixed::FromRaw(21474836);                // 0.005
constexpr Fixed kSpeculativeDistance = Fixed::FromRaw(4 * 21474836);  // 4 slop
// The pair rule splits the speculative distance between the two boxes.
static_assert(kSpeculativeDistance.raw() % 2 == 0);
constexpr Fixed kContactDampingRatio = Fixed::FromInt(10);
constexpr Fixed kContactPushMaxVelocity = Fixed::FromInt(3);
constexpr Fixed kRestitutionThreshold = Fixed::FromInt(1);
constexpr Fixed kMaxRotationPerSubstep = Fixed::FromRaw(Fixed::kOneRaw / 4);  // radians

/// The fewest movers in a task of the finalize stage (StepTasks::Chunks);
/// a step with fewer than two such tasks' worth leaves its executor's
/// workers asleep (StepExecutor::Prepare).
constexpr size_t kFinalizeChunkMovers = 64;

// Velocity and pose of a body while the tick is solved. Index 0 is a
// shared immovable body for static shapes.
struct SolverBody {
  Vec2 v;
  Fixed w;
  Vec2 delta_position;  // of the centre of mass since the tick began
  Rot delta_rotation = kRotIdentity;
  Fixed inv_mass;
  Fixed inv_inertia;
};

/// The per-tick constants of a mover's velocity integration: the damping
/// divisors 1 + h c and the gravity increment h s g (per component, as
/// MulAdd rounds it).
struct BodyIntegration {
  Fixed linear_divisor;
  Fixed angular_divisor;
  Vec2 gravity_step;
  bool dynamic = false;
};

/// Velocity of B's anchor point relative to A's.
inline Vec2 RelativeVelocity(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb) {
  return (b.v + CrossSV(b.w, rb)) - (a.v + CrossSV(a.w, ra));
}

struct SolverPoint {
  Vec2 anchor_a;  // from centre of mass A, world frame, at the start of the tick
  Vec2 anchor_b;
  Fixed base_separation;  // separation minus dot(anchor_b - anchor_a, normal)
  /// The separation at the bodies' current poses (step_solver.cc): the
  /// manifold's at the start of the tick, then each relax pass's.
  Fixed separation;
  Fixed normal_impulse;
  Fixed tangent_impulse;
  Fixed max_normal_impulse;
  Fixed normal_mass;
  Fixed soft_normal_mass;  // normal_mass * the soft mass scale: the same product every sub-step, formed once
  Fixed tangent_mass;
  Fixed relative_velocity;  // normal velocity at the start, for restitution
  uint16_t id = 0;
};

/// The soft contact's coefficients for the tick (step_solver.cc).
struct Softness {
  Fixed bias_rate;
  Fixed mass_scale;
  Fixed impulse_scale;
};

/// Which side of a contact, if any, is the shared immovable body (solver
/// index 0). That body's velocity, pose delta, mass and inertia stay zero
/// (identity rotation) all tick, so every term it contributes is an exact
/// zero or an exact copy, and the solver leaves those terms out.
enum class StaticSide : uint8_t { kNone, kA, kB };

struct SolverContact {
  int32_t body_a;  // solver body index
  int32_t body_b;
  StaticSide static_side = StaticSide::kNone;
  Vec2 normal;
  Fixed friction;
  Fixed restitution;
  int32_t point_count;
  SolverPoint points[2];
};

/// RotateVector(q, v), skipping the products for a zero v: every one is
/// an exact zero then, so the answer is exactly (0, 0). Most bodies have
/// their centre of mass at their origin.
inline Vec2 RotateLocal(Rot q, Vec2 v) { return v == Vec2{} ? Vec2{} : RotateVector(q, v); }
/// TransformPoint(xf, v), the same way: xf.p itself for a zero v.
inline Vec2 TransformLocal(const Transform& xf, Vec2 v) { return RotateLocal(xf.q, v) + xf.p; }

/// `box` grown by `g` on every side: the pair rule's box (a tight box
/// grown by a reach and the speculative distance).
inline Aabb GrowBox(const Aabb& box, Fixed g) { return {box.lower - Vec2{g, g}, box.upper + Vec2{g, g}}; }

/// The canonical order of pairs, contacts and contact events: (a, b).
template <class X, class Y>
bool PairLess(const X& x, const Y& y) {
  return x.a != y.a ? x.a < y.a : x.b < y.b;
}

/// The canonical order of sensor overlaps: (sensor, visitor).
inline bool SensorLess(const SensorEvent& x, const SensorEvent& y) {
  return x.sensor != y.sensor ? x.sensor < y.sensor : x.visitor < y.visitor;
}

/// A candidate pair of shapes, `a` < `b` in (body id, shape index) order.
struct Pair {
  ShapeRef a;
  ShapeRef b;
  uint32_t shape_a;
  uint32_t shape_b;
  friend bool operator<(const Pair& x, const Pair& y) {
    if (x.a != y.a) return x.a < y.a;
    return x.b < y.b;
  }
};

/// A movable shape's box grown by its half of the pair rule, along the sweep
/// axis (lo, hi) and the other one (lo2, hi2).
struct SweepEntry {
  int64_t lo, hi, lo2, hi2;
  ShapeRef ref;
  uint32_t shape;
  uint32_t slot;
};

/// The working set of one tick.
/// A body whose shapes were cast along the tick's motion: from `start` (the
/// end rotation, as continuous collision casts) by `motion`, the motion the
/// body was finally given.
struct SweptBody {
  uint32_t slot = 0;
  Transform start;
  Vec2 motion;
};

/// A mover's path this tick: from `start` (the end rotation) by `motion`
/// (step_finalize.cc).
struct MoverPath {
  Transform start;
  Vec2 motion;
};

/// True when a shape's motion can carry it past what it could touch at
/// either end: more than half its smaller half-extent (Box2D v3's safety
/// factor). Only such shapes are cast by continuous collision and swept
/// against sensors.
bool MovesFarEnough(const World::Impl& w, const ShapeRecord& s, Vec2 motion);

/// The shape's local points placed at `xf`: what MakeProxy gives for the
/// shape the record was made from.
ShapeProxy PlacedProxy(const World::Impl& w, const ShapeRecord& s, const Transform& xf);

/// What each chunk of a parallel stage collects on its own (step_tasks.h),
/// merged in chunk order by the stage.
struct ChunkOutput {
  std::vector<Pair> pairs;
  std::vector<SweepEntry> sweep;
  /// The shapes of last tick's sorted sweep, in order, and its axis: where
  /// this tick's sort starts (step_pairs.cc). They only make the sort
  /// faster: any content gives the same sorted list.
  std::vector<uint32_t> sweep_previous;
  bool sweep_was_x = true;
  std::vector<uint32_t> sweep_entry_of;
  std::vector<SweepEntry> sweep_ordered;
  /// Scratch of the chunk's pair sort (step_pairs.cc).
  std::vector<uint32_t> pair_counts;
  std::vector<Pair> pairs_sorted;
  std::vector<ContactEvent> begin_events;
  std::vector<ContactEvent> end_events;
  /// Last tick's contacts of the chunk's range that join asleep bodies:
  /// kept as they are (step_sleep.h), in (a, b) order.
  std::vector<ContactState> kept;
  size_t touching = 0;  // manifolds with points in the chunk's pairs
};

/// NormalizeRot(in) is out (step_finalize.cc): a pure function's last
/// answer, by body slot, kept from tick to tick (valid once written).
struct RotationMemo {
  Rot in;
  Rot out;
  bool valid = false;
};

/// Stage 4 when parallel: the islands of the solve and how they are dealt
/// to chunks (step_solver.cc); kept for their capacity.
struct IslandScratch {
  std::vector<uint32_t> parent;    // union-find over solver bodies
  std::vector<uint32_t> weight;    // work of an island, by root
  std::vector<uint32_t> roots;
  std::vector<uint32_t> chunk_of;  // by root
  std::vector<uint32_t> constraint_chunk;
  /// Solver bodies and constraint indices grouped by chunk (chunk c from
  /// body_begin[c] and constraint_begin[c]), ascending within a chunk.
  std::vector<uint32_t> bodies;
  std::vector<uint32_t> constraints;
  std::vector<uint32_t> local_index;  // a body's index in its chunk's array (1 for the first)
  /// What a chunk solves in arrays of its own: its bodies (index 0 the
  /// immovable body, then the chunk's in order) and its constraints, with
  /// body indices into that array.
  struct ChunkCopy {
    std::vector<SolverBody> bodies;
    std::vector<SolverContact> constraints;
  };
  std::vector<ChunkCopy> local;  // by chunk
  uint32_t body_begin[kMaxStepChunks + 1] = {};
  uint32_t constraint_begin[kMaxStepChunks + 1] = {};
};

struct StepState {
  StepTasks tasks;  // how stages are cut into tasks (no executor: one chunk each)
  /// The most candidate pairs this tick may find (World::StepWithin);
  /// `over_budget` once it found more: the tick then stops before it
  /// changes the world.
  uint64_t max_pairs = UINT64_MAX;
  bool over_budget = false;
  /// One per chunk, kept across ticks for their capacity.
  std::vector<ChunkOutput> chunks;
  /// Chunk outputs 0..count-1, emptied, for a stage of `count` chunks.
  std::vector<ChunkOutput>& FreshChunks(uint32_t count);

  int32_t sub_steps = kDefaultSubSteps;  // WorldDef::sub_steps
  Fixed h;      // sub-step
  Fixed inv_h;
  Fixed dt;     // tick
  /// The contacts' softness this tick (ContactSoftness), set by stage 3,
  /// which forms each point's soft_normal_mass with it.
  Softness soft;
  /// Kinematic and dynamic bodies as (id, slot), in id order; mover i is
  /// solver body i + 1.
  std::vector<std::pair<uint64_t, uint32_t>> movers;
  std::vector<int32_t> solver_index;  // by body slot; 0 for static bodies
  std::vector<SolverBody> solver;
  /// What a sub-step's velocity integration adds to solver body i + 1
  /// (mover i): fixed for the tick, so formed once (step_solver.cc).
  std::vector<BodyIntegration> integration;
  /// How far each body (by slot) can travel this tick; zero for statics.
  std::vector<Fixed> reach;
  bool any_kinematic = false;

  /// Each body's centre of mass in world space at the start of the tick,
  /// by slot (TransformPoint of its local centre; the pose is fixed until
  /// FinalizeBodies).
  std::vector<Vec2> world_center;
  /// The manifold routine's memo of each shape's placed core, by worker
  /// and then shape index; reset for the shapes of each chunk's pairs
  /// (step_contacts.cc).
  std::vector<std::vector<CoreMemo>> core_memos;
  /// The manifold of pairs[i] (step_contacts.cc).
  std::vector<Manifold> manifolds;

  std::vector<Pair> pairs;
  /// Stage 2: the static bodies as (id, slot) in id order, and each
  /// pairable shape's rank in (body id, shape index) order, by shape index
  /// (step_pairs.cc); kept for their capacity.
  std::vector<std::pair<uint64_t, uint32_t>> static_bodies;
  std::vector<uint32_t> shape_rank;
  std::vector<SweepEntry> sweep;
  /// The shapes of last tick's sorted sweep, in order, and its axis: where
  /// this tick's sort starts (step_pairs.cc). They only make the sort
  /// faster: any content gives the same sorted list.
  std::vector<uint32_t> sweep_previous;
  bool sweep_was_x = true;
  std::vector<uint32_t> sweep_entry_of;
  std::vector<SweepEntry> sweep_ordered;
  std::vector<SolverContact> constraints;  // not emptied by Fresh: sized by stage 3
  IslandScratch islands;
  std::vector<ContactState> next_contacts;  // constraints[i] is next_contacts[i]
  /// Sleeping (step_sleep.h): last tick's contacts between asleep bodies,
  /// in (a, b) order, merged into next_contacts once the solve is done;
  /// the bodies WakeTouched woke this tick; the islands of UpdateSleep.
  std::vector<ContactState> kept_contacts;
  std::vector<ContactState> merged_contacts;
  std::vector<uint32_t> woken;
  std::vector<uint32_t> sleep_parent;
  std::vector<uint8_t> sleep_ready;
  std::vector<ContactEvent> begin_events;
  std::vector<ContactEvent> end_events;
  /// The bodies continuous collision swept this tick (stage 5: the
  /// non-bullets in id order, then the bullets), for the sensors they may
  /// have crossed within it (stage 6, which sorts what it finds).
  std::vector<SweptBody> swept;
  /// Stage 5 when parallel, by shape index: whether the shape's tree box
  /// must move, and to where (step_finalize.cc).
  std::vector<uint8_t> refit;
  std::vector<Aabb> refit_box;
  /// Stage 5, by mover: its path, its end pose and (when parallel) whether
  /// continuous collision swept it; kept for their capacity.
  std::vector<MoverPath> paths;
  std::vector<Transform> ends;
  std::vector<uint8_t> mover_swept;
  /// Stage 5, by body slot: the last end rotation normalised; serves only
  /// the same input again, so it is never reset (RotationMemo).
  std::vector<RotationMemo> rotation_memo;
};

/// Stage 2: every pair of non-sensor shapes, at least one of them dynamic,
/// that pass the filters and whose tight boxes, one grown by both reaches
/// plus the speculative distance, overlap. Sorted, no duplicates.
void FindPairs(const World::Impl& w, StepState* st);
/// Stage 3: manifolds, solver constraints warm started from w.contacts, and
/// the contact begin/end events.
void PrepareContacts(const World::Impl& w, StepState* st);
/// The soft contact coefficients of the world's contact_hertz for the
/// tick's sub-step (clamped to a quarter of the sub-step rate).
Softness ContactSoftness(const World::Impl& w, const StepState& st);
/// Stage 4: the sub-stepped solve; leaves velocities and pose deltas in
/// st->solver and the impulses in st->next_contacts.
void SolveContacts(const World::Impl& w, StepState* st);
/// Stage 5: writes velocities and poses back, stopping tunnelling bodies,
/// and lists the bodies it swept in st->swept.
void FinalizeBodies(World::Impl& w, StepState* st);
/// Stage 6: the sensor overlaps at the final poses, sorted; *any_sensor
/// says whether the world has a live sensor shape at all.
std::vector<SensorEvent> FindSensorOverlaps(const World::Impl& w, bool* any_sensor);
/// Stage 6, for events: the (sensor, visitor) pairs a swept body's shape
/// passed through within the tick without overlapping at either end (in
/// neither `before` nor `after`), sorted. The sensor is taken at its final
/// pose; the visitor's shape is cast from its start along the motion, as
/// continuous collision casts it.
std::vector<SensorEvent> FindSensorCrossings(const World::Impl& w, const StepState& st,
                                             const std::vector<SensorEvent>& before,
                                             const std::vector<SensorEvent>& after);

}  // namespace arbiter::internal

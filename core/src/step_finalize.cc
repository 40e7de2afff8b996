// Stage 5 of a tick: poses, then continuous collision.
//
// Speculative contacts catch most fast motion; this pass stops any dynamic
// body that would still tunnel through static or kinematic geometry by
// casting its shapes along the tick's motion and stopping it just short of
// the first impact. Bullets go second, once every other mover has its
// pose, and are cast against the movers along the relative motion too.
#include "arbiter/core/fixed_math.h"
#include "step_internal.h"

namespace arbiter::internal {
namespace {

// Keeps a body inside the world range: a body reaching the edge stops there
// (velocity along that axis zeroed) instead of leaving the range in which
// the arithmetic is exact.
void ClampToWorld(Vec2* center, Vec2* velocity) {
  const Fixed limit = kFixedMaxWorldCoordinate - Fixed::FromInt(int64_t{1} << 25);
  if (Abs(center->x) > limit) {
    center->x = Clamp(center->x, -limit, limit);
    velocity->x = kFixedZero;
  }
  if (Abs(center->y) > limit) {
    center->y = Clamp(center->y, -limit, limit);
    velocity->y = kFixedZero;
  }
}

// The earliest impact fraction of the body's shapes moving by `motion` from
// `start_pose`, or one; *swept says whether any of its non-sensor shapes
// moved far enough to be cast. Only shapes that move more than half their smaller
// half-extent (Box2D v3's safety factor) can tunnel; touching at the start is
// the contact solver's business.
Fixed TimeOfImpact(const World::Impl& w, const BodyRecord& body, const Transform& start_pose, Vec2 motion,
                   bool any_kinematic, bool* swept) {
  Fixed toi = kFixedOne;
  *swept = false;
  QueryFilter filter;
  // Static and kinematic geometry; a bullet's movers are BulletTimeOfImpact's.
  filter.body_types = body.is_bullet ? 0b001 : 0b011;
  const uint64_t self[1] = {body.id};
  filter.exclude_bodies = self;
  const bool search_movable = !body.is_bullet && any_kinematic;
  for (uint32_t k = 0; k < body.shape_count; ++k) {
    const ShapeRecord& s = w.shapes[body.first_shape + k];
    if (s.is_sensor) continue;
    if (!MovesFarEnough(w, s, motion)) continue;
    *swept = true;
    QueryFilter shape_filter = filter;
    shape_filter.category_bits = w.FilterOf(s).category_bits;
    shape_filter.mask_bits = w.FilterOf(s).mask_bits;
    const auto hit = w.CastProxyClosest(PlacedProxy(w, s, start_pose), motion, shape_filter, search_movable);
    if (hit && hit->fraction > kFixedZero) toi = Min(toi, hit->fraction);
  }
  return toi;
}

}  // namespace

bool MovesFarEnough(const World::Impl& w, const ShapeRecord& s, Vec2 motion) {
  const Aabb box = PlacedBox(w, s);
  const Fixed size = Min(box.upper.x - box.lower.x, box.upper.y - box.lower.y).Half().Half();
  return Max(Abs(motion.x), Abs(motion.y)) > size;
}

ShapeProxy PlacedProxy(const World::Impl& w, const ShapeRecord& s, const Transform& xf) {
  Vec2 placed[kMaxPolygonVertices];
  for (int i = 0; i < s.point_count; ++i) placed[i] = TransformPoint(xf, w.LocalPoint(s, i));
  return ProxyFromPoints(s, placed);
}

namespace {

// Stage 5a for one mover: velocities and the end pose from the solver,
// kept inside the world range; `path` gets the start pose (at the end
// rotation) and the motion before any continuous collision.
// `start_center` is the body's centre of mass at the start of the tick
// (StepState::world_center: TransformPoint of the same pose and centre).
// `memo` is the body's slot's RotationMemo: NormalizeRot of the same
// rotation as last time is last time's answer (a body that has not turned).
Transform SolvedPose(const BodyRecord& body, BodyMotion& motion, const SolverBody& sb, Vec2 start_center,
                     RotationMemo* memo, MoverPath* path) {
  motion.linear_velocity = sb.v;
  motion.angular_velocity = sb.w;
  Vec2 end_center = start_center + sb.delta_position;
  ClampToWorld(&end_center, &motion.linear_velocity);
  const Rot turned = MulRot(sb.delta_rotation, body.transform.q);
  if (!memo->valid || memo->in != turned) *memo = {turned, NormalizeRot(turned), true};
  const Rot q = memo->out;
  const Vec2 center_offset = RotateLocal(q, motion.local_center);
  path->start = {start_center - center_offset, q};
  path->motion = sb.delta_position;
  return {end_center - center_offset, q};
}

// The pose reached by moving from path.start along path.motion up to just
// short of `toi` (backed off by the linear slop).
Vec2 StopShort(const MoverPath& path, Fixed toi) {
  const Fixed length = Length(path.motion);
  const Fixed back = length > kFixedZero ? kLinearSlop / length : kFixedZero;
  const Fixed t = Max(toi - back, kFixedZero);
  return path.start.p + t * path.motion;
}

Aabb SweptBox(const ShapeProxy& start, Vec2 motion) {
  const Aabb box = ComputeProxyAabb(start);
  return Union(box, {box.lower + motion, box.upper + motion});
}

// The earliest impact of a bullet's shapes against the other movers along
// the relative motion: each target's shape is placed at its start pose and
// the bullet moves by its own motion less the target's, so that a plank
// and a bullet closing on each other meet where they really meet (casting
// against the target's end pose alone can put the bullet on its far side).
// Other bullets are not targets (as in Box2D), nor are sensors.
Fixed BulletTimeOfImpact(const World::Impl& w, const StepState& st, size_t bullet,
                         const std::vector<MoverPath>& paths) {
  const BodyRecord& body = w.bodies[st.movers[bullet].second];
  const MoverPath& own = paths[bullet];
  Fixed toi = kFixedOne;
  for (uint32_t k = 0; k < body.shape_count; ++k) {
    const ShapeRecord& s = w.shapes[body.first_shape + k];
    if (s.is_sensor || !MovesFarEnough(w, s, own.motion)) continue;
    const ShapeProxy moving = PlacedProxy(w, s, own.start);
    const Aabb reach = SweptBox(moving, own.motion);
    for (size_t m = 0; m < st.movers.size(); ++m) {
      const BodyRecord& target = w.bodies[st.movers[m].second];
      if (m == bullet || (target.type == BodyType::kDynamic && target.is_bullet)) continue;
      for (uint32_t j = 0; j < target.shape_count; ++j) {
        const ShapeRecord& t = w.shapes[target.first_shape + j];
        if (t.is_sensor || !ShouldCollide(w.FilterOf(s), w.FilterOf(t))) continue;
        const ShapeProxy placed = PlacedProxy(w, t, paths[m].start);
        if (!Overlaps(reach, SweptBox(placed, paths[m].motion))) continue;
        const CastOutput hit = ShapeCast({moving, placed, own.motion - paths[m].motion, toi});
        if (hit.hit && hit.fraction > kFixedZero) toi = Min(toi, hit.fraction);
      }
    }
  }
  return toi;
}

bool IsBullet(const BodyRecord& body) { return body.type == BodyType::kDynamic && body.is_bullet; }

}  // namespace

namespace {

// Pass 1 for a mover that is not a bullet: its end pose, stopped short of static
// and kinematic geometry it would tunnel through; true when continuous
// collision swept it. Leaves body.transform and paths[i] for the caller.
bool FinalizeMover(const World::Impl& w, const StepState& st, const BodyRecord& body, MoverPath* path,
                   Transform* end) {
  bool swept = false;
  if (body.type == BodyType::kDynamic && path->motion != Vec2{}) {
    const Fixed toi = TimeOfImpact(w, body, path->start, path->motion, st.any_kinematic, &swept);
    if (toi < kFixedOne) end->p = StopShort(*path, toi);
  }
  path->motion = end->p - path->start.p;  // what the body really did
  return swept;
}

// Pass 1 in id order, each mover placed before the next is cast: the order
// a kinematic body's casts need (a dynamic body sees the kinematic bodies
// placed so far).
void FinalizeInOrder(World::Impl& w, StepState& st, std::vector<MoverPath>& paths, std::vector<Transform>& ends) {
  for (size_t i = 0; i < st.movers.size(); ++i) {
    const uint32_t slot = st.movers[i].second;
    BodyRecord& body = w.bodies[slot];
    ends[i] = SolvedPose(body, w.MoverMotion(body), st.solver[i + 1], st.world_center[slot], &st.rotation_memo[slot],
                         &paths[i]);
    if (IsBullet(body)) continue;
    if (FinalizeMover(w, st, body, &paths[i], &ends[i])) st.swept.push_back({slot, paths[i].start, paths[i].motion});
    body.transform = ends[i];
    w.SyncBodyShapes(slot);
  }
}

// Pass 1 without kinematic bodies: every cast reads static geometry only,
// so the movers are cast and placed as tasks (each writes its own body, its
// own world points and its shapes' refit slots), then the swept list and
// the tree moves follow in id order, as FinalizeInOrder makes them.
void FinalizeInTasks(World::Impl& w, StepState& st, std::vector<MoverPath>& paths, std::vector<Transform>& ends) {
  const size_t n = st.movers.size();
  std::vector<uint8_t>& swept = st.mover_swept;
  swept.assign(n, 0);
  if (st.refit.size() < w.shapes.size()) {
    st.refit.resize(w.shapes.size());
    st.refit_box.resize(w.shapes.size());
  }
  const uint32_t chunks = st.tasks.Chunks(n, kFinalizeChunkMovers);
  st.tasks.Run(chunks, [&](uint32_t c, uint32_t) {
    for (size_t i = ChunkBegin(n, chunks, c); i < ChunkBegin(n, chunks, c + 1); ++i) {
      BodyRecord& body = w.bodies[st.movers[i].second];
      ends[i] = SolvedPose(body, w.MoverMotion(body), st.solver[i + 1], st.world_center[st.movers[i].second],
                           &st.rotation_memo[st.movers[i].second], &paths[i]);
      if (IsBullet(body)) continue;
      swept[i] = FinalizeMover(w, st, body, &paths[i], &ends[i]) ? 1 : 0;
      body.transform = ends[i];
      for (uint32_t k = 0; k < body.shape_count; ++k) {
        const uint32_t si = body.first_shape + k;
        const Aabb box = w.PlaceShape(body, w.shapes[si]);
        st.refit[si] = w.NeedsRefit(body, w.shapes[si], box, &st.refit_box[si]) ? 1 : 0;
      }
    }
  });
  for (size_t i = 0; i < n; ++i) {
    const uint32_t slot = st.movers[i].second;
    const BodyRecord& body = w.bodies[slot];
    if (IsBullet(body)) continue;
    if (swept[i] != 0) st.swept.push_back({slot, paths[i].start, paths[i].motion});
    for (uint32_t k = 0; k < body.shape_count; ++k) {
      const uint32_t si = body.first_shape + k;
      if (st.refit[si] == 0) continue;
      w.MoveMovableProxy(w.shapes[si], st.refit_box[si]);
    }
  }
}

}  // namespace

void FinalizeBodies(World::Impl& w, StepState* state) {
  StepState& st = *state;
  // Every mover's entries are written by pass 1 before anything reads
  // them, so the buffers are only sized (kept from tick to tick).
  std::vector<MoverPath>& paths = st.paths;
  std::vector<Transform>& ends = st.ends;
  paths.resize(st.movers.size());
  ends.resize(st.movers.size());
  if (st.rotation_memo.size() < w.bodies.size()) st.rotation_memo.resize(w.bodies.size());
  // Pass 1: every mover but the bullets takes its pose; a dynamic one that
  // would tunnel through static or kinematic geometry stops short of it.
  if (st.any_kinematic || st.tasks.workers() == 1) {
    FinalizeInOrder(w, st, paths, ends);
  } else {
    FinalizeInTasks(w, st, paths, ends);
  }
  // Pass 2: bullets, in id order, against static geometry (as above) and
  // against the other movers along the relative motion.
  for (size_t i = 0; i < st.movers.size(); ++i) {
    const uint32_t slot = st.movers[i].second;
    BodyRecord& body = w.bodies[slot];
    if (!IsBullet(body)) continue;
    if (paths[i].motion != Vec2{}) {
      bool swept = false;
      Fixed toi = TimeOfImpact(w, body, paths[i].start, paths[i].motion, /*any_kinematic=*/false, &swept);
      toi = Min(toi, BulletTimeOfImpact(w, st, i, paths));
      if (toi < kFixedOne) ends[i].p = StopShort(paths[i], toi);
      if (swept) st.swept.push_back({slot, paths[i].start, ends[i].p - paths[i].start.p});
    }
    body.transform = ends[i];
    w.SyncBodyShapes(slot);
  }
}

}  // namespace arbiter::internal

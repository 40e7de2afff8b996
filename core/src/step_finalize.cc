// Stage 5 of a tick: poses, then continuous collision.
//
// Speculative contacts catch most fast motion; this pass stops any dynamic
// body that would still tunnel through static or kinematic geometry (and,
// for bullets, through dynamic bodies) by casting its shapes along the
// tick's motion and stopping it just short of the first impact.
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

// The shape's local points placed at `xf`: what MakeProxy gives for the
// shape the record was made from.
ShapeProxy PlacedProxy(const World::Impl& w, const ShapeRecord& s, const Transform& xf) {
  Vec2 placed[kMaxPolygonVertices];
  for (int i = 0; i < s.point_count; ++i) placed[i] = TransformPoint(xf, w.local_points[s.point_offset + i]);
  return ProxyFromPoints(s, placed);
}

// The earliest impact fraction of the body's shapes moving by `motion` from
// `start_pose`, or one. Only shapes that move more than half their smaller
// half-extent (Box2D v3's safety factor) can tunnel; touching at the start is
// the contact solver's business.
Fixed TimeOfImpact(const World::Impl& w, const BodyRecord& body, const Transform& start_pose, Vec2 motion,
                   bool any_kinematic) {
  Fixed toi = kFixedOne;
  QueryFilter filter;
  filter.body_types = body.is_bullet ? 0b111 : 0b011;  // static and kinematic (+ dynamic for bullets)
  const uint64_t self[1] = {body.id};
  filter.exclude_bodies = self;
  // Without kinematic bodies only bullets can meet anything movable.
  const bool search_movable = body.is_bullet || any_kinematic;
  for (uint32_t k = 0; k < body.shape_count; ++k) {
    const ShapeRecord& s = w.shapes[body.first_shape + k];
    if (s.is_sensor) continue;
    const Aabb box = ComputeProxyAabb(w.ProxyOf(s));
    const Fixed size = Min(box.upper.x - box.lower.x, box.upper.y - box.lower.y).Half().Half();
    if (Max(Abs(motion.x), Abs(motion.y)) <= size) continue;
    QueryFilter shape_filter = filter;
    shape_filter.category_bits = s.filter.category_bits;
    shape_filter.mask_bits = s.filter.mask_bits;
    // Only the fraction is read: no contact point.
    const auto hit = w.CastProxyClosest(PlacedProxy(w, s, start_pose), motion, shape_filter, search_movable, false);
    if (hit && hit->fraction > kFixedZero) toi = Min(toi, hit->fraction);
  }
  return toi;
}

}  // namespace

void FinalizeBodies(World::Impl& w, const StepState& st) {
  for (size_t i = 0; i < st.movers.size(); ++i) {
    const uint32_t slot = st.movers[i].second;
    BodyRecord& body = w.bodies[slot];
    const SolverBody& sb = st.solver[i + 1];
    body.linear_velocity = sb.v;
    body.angular_velocity = sb.w;
    const Vec2 start_center = TransformPoint(body.transform, body.local_center);
    Vec2 end_center = start_center + sb.delta_position;
    ClampToWorld(&end_center, &body.linear_velocity);
    const Rot q = NormalizeRot(MulRot(sb.delta_rotation, body.transform.q));
    Transform end{end_center - RotateVector(q, body.local_center), q};

    // Continuous collision: cast each shape (at the end rotation) along the
    // centre's path against what it must not pass through.
    if (body.type == BodyType::kDynamic && sb.delta_position != Vec2{}) {
      const Vec2 motion = sb.delta_position;
      const Transform start_pose{start_center - RotateVector(q, body.local_center), q};
      const Fixed toi = TimeOfImpact(w, body, start_pose, motion, st.any_kinematic);
      if (toi < kFixedOne) {
        // Stop just short of the impact: back off by the linear slop.
        const Fixed length = Length(motion);
        const Fixed back = length > kFixedZero ? kLinearSlop / length : kFixedZero;
        const Fixed t = Max(toi - back, kFixedZero);
        end.p = start_pose.p + t * motion;
      }
    }
    body.transform = end;
    w.SyncBodyShapes(slot);
  }
}

}  // namespace arbiter::internal

// World::MoveAndSlide: push-out, then cast and slide (mover.h states the
// rules). Every step is a world query or an exact predicate already used
// elsewhere (TestOverlap, Collide, the closest shape cast), so the mover is
// as exact and as deterministic as they are.
#include <optional>
#include <vector>

#include "arbiter/core/collision.h"
#include "arbiter/core/limits.h"
#include "arbiter/core/manifold.h"
#include "arbiter/core/world.h"
#include "query_filter.h"
#include "world_impl.h"

namespace arbiter {

using internal::FilterCheck;
using internal::ShapeRecord;

namespace {

// Two normals whose dot product is at least this are one plane met again
// (about 0.1 degree apart): sliding off one must not count as a corner.
constexpr Fixed kSamePlaneDot = kFixedOne - Fixed::FromRaw(int64_t{1} << 12);

// The deepest shape the placed mover touches.
struct Touch {
  ShapeRef ref;
  Fixed depth;
  Vec2 normal;  // from the surface toward the mover
  Vec2 point;
};

// Keeps the deeper touch; ties go to the lower shape ref.
void KeepDeeper(std::optional<Touch>& best, const Touch& candidate) {
  if (!best || candidate.depth > best->depth || (candidate.depth == best->depth && candidate.ref < best->ref)) {
    best = candidate;
  }
}

// The deepest shape passing `check` that touches `mover` (the exact overlap
// test; touching counts). A touch whose contact has no normal (Collide found
// no point where TestOverlap found an overlap) gets a zero normal: the
// caller cannot push out of it.
std::optional<Touch> DeepestTouch(const World::Impl& w, const ShapeProxy& mover, const FilterCheck& check) {
  std::optional<Touch> best;
  auto visit = [&](uint32_t index) {
    const ShapeRecord& s = w.shapes[index];
    if (!check.Passes(s)) return true;
    const ShapeProxy target = w.ProxyOf(s);
    if (!TestOverlap(mover, target)) return true;
    const Manifold m = Collide(mover, target, kFixedZero);
    // A chain segment that makes no contact is seen from behind, or leaves
    // the contact to its neighbour (chain.h): nothing to push out of.
    if (target.one_sided && m.point_count == 0) return true;
    Touch t{{s.body_id, s.index_in_body}, ManifoldDepth(m), Vec2{}, Vec2{}};
    if (m.point_count > 0) {
      t.normal = -m.normal;
      t.point = m.points[0].point;
    }
    KeepDeeper(best, t);
    return true;
  };
  const Aabb box = ComputeProxyAabb(mover);
  w.static_tree.Query(box, visit);
  w.movable_tree.Query(box, visit);
  return best;
}

class Mover {
 public:
  Mover(const World::Impl& w, const MoveInput& in, const QueryFilter& filter)
      : w_(w), in_(in), filter_(filter), check_(w, filter), position_(in.start.p) {}

  MoveResult Run() {
    bool blocked = !PushOut();
    Vec2 left = blocked ? Vec2{} : in_.translation;
    while (!IsZero(left) && !blocked && result_.iterations < in_.max_iterations) {
      ++result_.iterations;
      blocked = !CastAndSlide(left);
    }
    result_.blocked = blocked || !IsZero(left);
    result_.position = position_;
    result_.fraction = Progress(result_.blocked);
    return std::move(result_);
  }

 private:
  static bool IsZero(Vec2 v) { return v.x == kFixedZero && v.y == kFixedZero; }

  ShapeProxy Placed() const { return MakeProxy(in_.shape, Transform{position_, in_.start.q}); }

  // Pushes the mover out of what it touches, deepest first, until it
  // touches nothing or the rounds run out. False when it still touches.
  bool PushOut() {
    for (int32_t round = 0; round < in_.max_iterations; ++round) {
      const std::optional<Touch> touch = DeepestTouch(w_, Placed(), check_);
      if (!touch) return true;
      if (IsZero(touch->normal)) return false;
      position_ = MulAdd(position_, touch->depth + in_.skin, touch->normal);
      result_.planes.push_back({touch->ref.body_id, touch->ref.shape_index, touch->normal, touch->point, true});
    }
    return !DeepestTouch(w_, Placed(), check_).has_value();
  }

  // One cast along `left`; advances, records the plane met and leaves in
  // `left` what remains after sliding. False when the mover is blocked.
  bool CastAndSlide(Vec2& left) {
    const std::optional<CastHit> hit = w_.CastProxyClosest(Placed(), left, filter_, true);
    if (!hit) {
      position_ += left;
      left = Vec2{};
      return true;
    }
    // Touching at the start (rounding left the mover on a surface): push
    // out and try again with the same remainder.
    if (hit->fraction == kFixedZero) return PushOut();
    const Vec2 n = hit->normal;
    const Fixed advance = BackedOff(hit->fraction, left, n);
    const Vec2 step = {advance * left.x, advance * left.y};
    position_ += step;
    left -= step;
    result_.planes.push_back({hit->shape.body_id, hit->shape.shape_index, n, hit->point, false});
    left = Slide(left, n);
    // Head-on (nothing left to slide) or into a corner: blocked.
    return !IsZero(left) && !IntoEarlierPlane(left, n);
  }

  // The fraction t backed off so the mover stays `skin` clear along n: the
  // approach along the normal is a = -dot(left, n) per unit of fraction, so
  // the back-off is skin / a, compared by cross-multiplying first (no
  // division by a tiny a). Never negative, never past t.
  Fixed BackedOff(Fixed t, Vec2 left, Vec2 n) const {
    const Fixed approach = -Dot(left, n);
    if (approach <= kFixedZero) return t;
    const Int128 skin_q64 = Int128(in_.skin.raw()).ShiftLeft(Fixed::kFractionBits);
    if (MulWide(t, approach) <= skin_q64) return kFixedZero;
    return Max(kFixedZero, t - DivWide(skin_q64, approach));
  }

  // `left` without its component into the plane with normal n.
  static Vec2 Slide(Vec2 left, Vec2 n) {
    const Fixed into = Dot(left, n);
    if (into >= kFixedZero) return left;
    return left - into * n;
  }

  // True (and the remainder dropped) when `left` points into a plane met
  // earlier in this move that is not n again: a corner, where no motion in
  // 2D keeps clear of both.
  bool IntoEarlierPlane(Vec2& left, Vec2 n) {
    for (size_t i = 0; i + 1 < result_.planes.size(); ++i) {
      const Vec2 m = result_.planes[i].normal;
      if (Dot(m, n) >= kSamePlaneDot) continue;
      if (DotWide(left, m) < Int128(0)) {
        left = Vec2{};
        return true;
      }
    }
    return false;
  }

  // dot(displacement, translation) / |translation|^2, clamped to [0, 1].
  Fixed Progress(bool blocked) const {
    const Vec2 wanted = in_.translation;
    if (IsZero(wanted)) return blocked ? kFixedZero : kFixedOne;
    const Fixed ratio = RatioWide(DotWide(position_ - in_.start.p, wanted), LengthSquaredWide(wanted));
    return Clamp(ratio, kFixedZero, kFixedOne);
  }

  const World::Impl& w_;
  const MoveInput& in_;
  const QueryFilter& filter_;
  const FilterCheck check_;
  Vec2 position_;
  MoveResult result_;
};

}  // namespace

MoveResult World::MoveAndSlide(const MoveInput& input, const QueryFilter& filter) const {
  return Mover(*impl_, input, filter).Run();
}

}  // namespace arbiter

#include "demo.h"

#include <cinttypes>
#include <cstdio>

#include "arbiter/core/collision.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/manifold.h"

namespace arbiter::cli {
namespace {

Vec2 V(double x, double y) { return {Fixed::FromDouble(x), Fixed::FromDouble(y)}; }

void PrintCast(const char* label, const CastOutput& out) {
  if (!out.hit) {
    std::printf("  %-34s miss\n", label);
    return;
  }
  std::printf("  %-34s t=%.9f point=(%.6f, %.6f) normal=(%.6f, %.6f)  [t raw %" PRId64 "]\n", label,
              out.fraction.ToDouble(), out.point.x.ToDouble(), out.point.y.ToDouble(), out.normal.x.ToDouble(),
              out.normal.y.ToDouble(), out.fraction.raw());
}

}  // namespace

int RunDemo() {
  Polygon box;
  if (MakeOffsetBox(Fixed::FromInt(2), Fixed::FromInt(1), V(0, 0), MakeRot(Fixed::FromDouble(0.5)), &box) != ShapeError::kOk) {
    std::fprintf(stderr, "demo: box rejected\n");
    return 1;
  }
  const Shape crate = Shape::FromPolygon(box);
  const Shape ball = Shape::FromCircle({V(0, 0), Fixed::FromDouble(0.75)});
  const Shape pill = Shape::FromCapsule({V(-1, 0), V(1, 0), Fixed::FromDouble(0.25)});
  const Transform at_crate{V(10, 0), kRotIdentity};
  const Transform at_ball{V(13.5, 0.5), kRotIdentity};
  const Transform at_pill{V(8, 3), MakeRot(Fixed::FromDouble(-0.3))};

  std::printf("Arbiter core demo: Q32.32 fixed point, exact predicates\n");
  std::printf("ray casts:\n");
  PrintCast("ray (0,0.2)->(+20,0) vs rotated box", RayCast(crate, at_crate, {V(0, 0.2), V(20, 0), kFixedOne}));
  PrintCast("ray (0,0.5)->(+20,0) vs disk", RayCast(ball, at_ball, {V(0, 0.5), V(20, 0), kFixedOne}));
  PrintCast("ray (8,10)->(0,-20) vs capsule", RayCast(pill, at_pill, {V(8, 10), V(0, -20), kFixedOne}));
  PrintCast("ray starting inside the box", RayCast(crate, at_crate, {V(10, 0), V(5, 0), kFixedOne}));

  std::printf("overlap (exact; touching counts):\n");
  const Shape unit = Shape::FromCircle({V(0, 0), kFixedOne});
  std::printf("  tangent unit disks                 %s\n",
              TestOverlap(unit, {V(0, 0), kRotIdentity}, unit, {V(2, 0), kRotIdentity}) ? "overlap" : "apart");
  std::printf("  unit disks 2^-32 further apart     %s\n",
              TestOverlap(unit, {V(0, 0), kRotIdentity}, unit, {{Fixed::FromInt(2) + Fixed::FromRaw(1), kFixedZero}, kRotIdentity}) ? "overlap" : "apart");

  const DistanceOutput d = ShapeDistance(crate, at_crate, ball, at_ball);
  std::printf("distance box-disk: %.9f between (%.6f, %.6f) and (%.6f, %.6f)\n", d.distance.ToDouble(), d.point_a.x.ToDouble(),
              d.point_a.y.ToDouble(), d.point_b.x.ToDouble(), d.point_b.y.ToDouble());

  ShapeCastInput sweep{MakeProxy(ball, {V(0, 0), kRotIdentity}), MakeProxy(crate, at_crate), V(20, 0.4), kFixedOne};
  PrintCast("disk swept into the box", ShapeCast(sweep));

  const Manifold m = Collide(MakeProxy(crate, at_crate), MakeProxy(ball, {V(11.8, 0.9), kRotIdentity}), kFixedZero);
  std::printf("contact box-disk: %d point(s), normal (%.6f, %.6f), depth %.6f\n", m.point_count, m.normal.x.ToDouble(),
              m.normal.y.ToDouble(), ManifoldDepth(m).ToDouble());
  return 0;
}

}  // namespace arbiter::cli

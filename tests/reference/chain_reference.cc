#include "reference/chain_reference.h"

#include <algorithm>
#include <cmath>

namespace arbiter::reference {
namespace {

constexpr double kPi = 3.141592653589793;

double Angle(DVec2 v) { return std::atan2(v.y, v.x); }

// a - b wrapped to (-pi, pi].
double AngleBetween(double a, double b) {
  double d = std::fmod(a - b, 2 * kPi);
  if (d <= -kPi) d += 2 * kPi;
  if (d > kPi) d -= 2 * kPi;
  return d;
}

}  // namespace

double FrontDistance(const DChain& c, DVec2 p) {
  const DVec2 n = Normalize(RightPerp(c.point2 - c.point1));
  return Dot(p - c.point1, n);
}

DVec2 Centre(const DProxy& p) {
  DVec2 sum;
  for (const DVec2 v : p.points) sum = sum + v;
  return (1.0 / static_cast<double>(p.points.size())) * sum;
}

CastResult ChainRayCast(const DChain& c, DVec2 origin, DVec2 translation, double max_fraction) {
  if (FrontDistance(c, origin) <= 0) return CastResult{};
  return RayCast(SegmentOf(c), origin, translation, max_fraction);
}

CastResult ChainShapeCast(const DProxy& a, const DChain& b, DVec2 translation, double max_fraction) {
  if (FrontDistance(b, Centre(a)) <= 0) return CastResult{};
  return ShapeCast(a, SegmentOf(b), translation, max_fraction);
}

DVerdict ClassifyNormal(const DChain& c, DVec2 n, double* margin) {
  const DVec2 d = c.point2 - c.point1;
  const double face = Angle(RightPerp(d));
  const double delta = AngleBetween(Angle(n), face);
  if (std::fabs(delta) >= kPi / 2) {
    *margin = std::fabs(delta) - kPi / 2;
    return DVerdict::kSnap;
  }
  const bool at_point1 = delta <= 0;
  // The left turn at the joint, in (-pi, pi]: positive = convex.
  const double turn = at_point1 ? AngleBetween(Angle(d), Angle(c.point1 - c.ghost1))
                                : AngleBetween(Angle(c.ghost2 - c.point2), Angle(d));
  const double lean = std::fabs(delta);
  if (turn >= 0) {
    *margin = std::min(std::fabs(lean - turn), kPi / 2 - lean);
    return lean > turn ? DVerdict::kSkip : DVerdict::kAdmit;
  }
  *margin = std::min(lean, kPi / 2 - lean);
  return lean > 0 ? DVerdict::kSnap : DVerdict::kAdmit;
}

}  // namespace arbiter::reference

#include "arbiter/core/chain.h"

#include "arbiter/core/fixed_math.h"
#include "proxy_view.h"

namespace arbiter {
namespace {

bool InShapeRange(Vec2 v) { return WithinMagnitude(v.x, kFixedMaxShapeExtent) && WithinMagnitude(v.y, kFixedMaxShapeExtent); }

// The ghost of an open end at `p`: p - k RightPerp(direction) with k a power
// of two no greater than one, halved until the ghost is in range. Only the
// direction of (p - ghost) matters, and halving keeps it within an ulp of
// the right angle (the admission test has a tolerance far above that).
Vec2 EndGhost(Vec2 p, Vec2 direction) {
  Vec2 back = RightPerp(direction);
  // Stops at a few ulp: a point on the very edge of the range whose ghost
  // would have to leave it fails ValidateChainSegment (kOutOfRange).
  while (!InShapeRange(p - back) && (Abs(back.x) > Fixed::FromRaw(4) || Abs(back.y) > Fixed::FromRaw(4))) {
    back = {Fixed::FromRaw(back.x.raw() / 2), Fixed::FromRaw(back.y.raw() / 2)};
  }
  return p - back;
}

ShapeError CheckChainPoints(std::span<const Vec2> points, bool loop) {
  const size_t n = points.size();
  if (n < (loop ? 3u : 2u)) return ShapeError::kTooFewChainPoints;
  if (n > kMaxChainPoints) return ShapeError::kTooManyChainPoints;
  for (const Vec2& p : points) {
    if (!InShapeRange(p)) return ShapeError::kOutOfRange;
  }
  for (size_t i = 0; i + 1 < n; ++i) {
    if (points[i] == points[i + 1]) return ShapeError::kDuplicateVertices;
  }
  if (loop && points[n - 1] == points[0]) return ShapeError::kDuplicateVertices;
  return ShapeError::kOk;
}

}  // namespace

ShapeError MakeChain(std::span<const Vec2> points, bool loop, std::vector<Shape>* out) {
  if (const ShapeError error = CheckChainPoints(points, loop); error != ShapeError::kOk) return error;
  const size_t n = points.size();
  const size_t segments = loop ? n : n - 1;
  auto at = [&](size_t i) { return points[i % n]; };
  std::vector<Shape> made;
  made.reserve(segments);
  for (size_t i = 0; i < segments; ++i) {
    ChainSegment c;
    c.point1 = at(i);
    c.point2 = at(i + 1);
    const Vec2 direction = c.point2 - c.point1;
    c.ghost1 = loop || i > 0 ? at(i + n - 1) : EndGhost(c.point1, direction);
    c.ghost2 = loop || i + 2 < n ? at(i + 2) : EndGhost(c.point2, direction);
    if (const ShapeError error = ValidateChainSegment(c); error != ShapeError::kOk) return error;
    made.push_back(Shape::FromChainSegment(c));
  }
  out->insert(out->end(), made.begin(), made.end());
  return ShapeError::kOk;
}

Vec2 ProxyCenter(const ShapeProxy& proxy) { return internal::ViewCenter(internal::ViewOf(proxy)); }

int ChainSide(const ShapeProxy& chain, Vec2 p) { return internal::ViewChainSide(internal::ViewOf(chain), p); }

Vec2 internal::ViewCenter(const ProxyView& v) {
  if (v.count <= 1) return v.points[0];
  Int128 x = 0, y = 0;
  for (int i = 0; i < v.count; ++i) {
    x += Int128(v.points[i].x.raw());
    y += Int128(v.points[i].y.raw());
  }
  return {Fixed::FromWide(DivRoundNearest(x, v.count)), Fixed::FromWide(DivRoundNearest(y, v.count))};
}

int internal::ViewChainSide(const ProxyView& chain, Vec2 p) {
  return DotWide(p - chain.points[0], RightPerp(chain.points[1] - chain.points[0])).Sign();
}

}  // namespace arbiter

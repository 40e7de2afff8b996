#include "arbiter/core/proxy.h"

#include <algorithm>

#include "proxy_view.h"

namespace arbiter {
namespace {

// TransformPoint(xf, v), without the rotation's four products when it is
// the identity: RotateVector((1, 0), v) rounds x 2^32 / 2^32 and y 2^32 /
// 2^32, which is v exactly, so the sum is the same bits.
Vec2 Place(const Transform& xf, Vec2 v) { return xf.q == kRotIdentity ? v + xf.p : TransformPoint(xf, v); }

}  // namespace

ShapeProxy MakeProxy(const Shape& shape, const Transform& xf) {
  ShapeProxy proxy;
  switch (shape.type) {
    case ShapeType::kCircle:
      proxy.points[0] = Place(xf, shape.circle.center);
      proxy.count = 1;
      proxy.radius = shape.circle.radius;
      break;
    case ShapeType::kCapsule:
      proxy.points[0] = Place(xf, shape.capsule.center1);
      proxy.points[1] = Place(xf, shape.capsule.center2);
      proxy.count = 2;
      proxy.radius = shape.capsule.radius;
      break;
    case ShapeType::kSegment:
      proxy.points[0] = Place(xf, shape.segment.point1);
      proxy.points[1] = Place(xf, shape.segment.point2);
      proxy.count = 2;
      break;
    case ShapeType::kChainSegment:
      proxy.points[0] = Place(xf, shape.chain_segment.point1);
      proxy.points[1] = Place(xf, shape.chain_segment.point2);
      proxy.count = 2;
      proxy.one_sided = true;
      proxy.ghost1 = Place(xf, shape.chain_segment.ghost1);
      proxy.ghost2 = Place(xf, shape.chain_segment.ghost2);
      break;
    case ShapeType::kPolygon:
      for (int i = 0; i < shape.polygon.count; ++i) {
        proxy.points[i] = Place(xf, shape.polygon.vertices[i]);
      }
      proxy.count = shape.polygon.count;
      proxy.radius = shape.polygon.radius;
      break;
  }
  return proxy;
}

ShapeProxy MakeProxy(std::span<const Vec2> points, Fixed radius) {
  ShapeProxy proxy;
  const int n = std::min(static_cast<int>(points.size()), kMaxPolygonVertices);
  std::copy(points.begin(), points.begin() + n, proxy.points.begin());
  proxy.count = n;
  proxy.radius = radius;
  return proxy;
}

Aabb ComputeProxyAabb(const ShapeProxy& proxy) { return internal::ViewAabb(internal::ViewOf(proxy)); }

}  // namespace arbiter

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

internal::ProxyView internal::PlaceView(const Shape& shape, const Transform& xf, Vec2* points) {
  switch (shape.type) {
    case ShapeType::kCircle:
      points[0] = Place(xf, shape.circle.center);
      return {points, 1, shape.circle.radius};
    case ShapeType::kCapsule:
      points[0] = Place(xf, shape.capsule.center1);
      points[1] = Place(xf, shape.capsule.center2);
      return {points, 2, shape.capsule.radius};
    case ShapeType::kSegment:
      points[0] = Place(xf, shape.segment.point1);
      points[1] = Place(xf, shape.segment.point2);
      return {points, 2, kFixedZero};
    case ShapeType::kChainSegment:
      points[0] = Place(xf, shape.chain_segment.point1);
      points[1] = Place(xf, shape.chain_segment.point2);
      return {points, 2, kFixedZero, true};
    case ShapeType::kPolygon:
      for (int i = 0; i < shape.polygon.count; ++i) points[i] = Place(xf, shape.polygon.vertices[i]);
      return {points, shape.polygon.count, shape.polygon.radius};
  }
  return {points, 0, kFixedZero};
}

ShapeProxy MakeProxy(const Shape& shape, const Transform& xf) {
  ShapeProxy proxy;
  const internal::ProxyView view = internal::PlaceView(shape, xf, proxy.points.data());
  proxy.count = view.count;
  proxy.radius = view.radius;
  proxy.one_sided = view.one_sided;
  if (shape.type == ShapeType::kChainSegment) {
    proxy.ghost1 = Place(xf, shape.chain_segment.ghost1);
    proxy.ghost2 = Place(xf, shape.chain_segment.ghost2);
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

// A placed shape's geometry read where it lies: what the narrow phase reads
// of a ShapeProxy (its points, count, radius and one-sidedness), as a
// pointer and three values. The world's queries test thousands of stored
// shapes per second; copying each into a ShapeProxy (184 bytes, zeroed
// first, then filled) cost them 8% of a disk sweep's time.
#pragma once

#include <cstdint>

#include "arbiter/core/proxy.h"

namespace arbiter::internal {

struct ProxyView {
  const Vec2* points = nullptr;  ///< `count` points, world space; CCW when count >= 3
  int32_t count = 0;             ///< 1 (disk or point), 2 (capsule or segment), 3..8 (polygon)
  Fixed radius;
  /// A chain segment (chain.h): seen from its front only by RayCast and
  /// ShapeCast. Its ghost vertices are not here: no query reads them.
  bool one_sided = false;
};

/// A view of `proxy`, valid while `proxy` lives.
inline ProxyView ViewOf(const ShapeProxy& proxy) {
  return {proxy.points.data(), proxy.count, proxy.radius, proxy.one_sided};
}

/// The exact bounding box of the view's points grown by its radius
/// (ComputeProxyAabb of the proxy it views).
inline Aabb ViewAabb(const ProxyView& v) {
  Vec2 lower = v.points[0], upper = v.points[0];
  for (int i = 1; i < v.count; ++i) {
    lower = {Min(lower.x, v.points[i].x), Min(lower.y, v.points[i].y)};
    upper = {Max(upper.x, v.points[i].x), Max(upper.y, v.points[i].y)};
  }
  const Vec2 r{v.radius, v.radius};
  return {lower - r, upper + r};
}

/// ProxyCenter and ChainSide (chain.h) of the proxy a view shows.
Vec2 ViewCenter(const ProxyView& v);
int ViewChainSide(const ProxyView& chain, Vec2 p);

}  // namespace arbiter::internal

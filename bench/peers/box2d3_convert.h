// Arbiter's values in Box2D v3's types, for the two files that see v3's
// headers (peers/box2d3_peer.cc and step/box2d3_stepper.cc; box2d3.cmake).
// Nothing else may include this: Box2D 2.4.1's headers define types of the
// same names. Fixed-point values become floats here, on the peers' side of
// the comparison only.
#pragma once

#include <box2d/box2d.h>

#include <string>

#include "arbiter/core/shapes.h"

namespace arbiter::bench::box2d3 {

inline b2Vec2 ToB2(Vec2 v) { return b2Vec2{static_cast<float>(v.x.ToDouble()), static_cast<float>(v.y.ToDouble())}; }
inline float ToF(Fixed f) { return static_cast<float>(f.ToDouble()); }

/// `p` as v3's polygon: b2MakePolygon(b2ComputeHull(vertices), radius).
/// False, with *why, when v3 cannot hold it (vertex count) or its hull
/// rejects it.
inline bool ToB2Polygon(const Polygon& p, b2Polygon* out, std::string* why) {
  if (p.count < 3 || p.count > B2_MAX_POLYGON_VERTICES) {
    *why = "polygon with " + std::to_string(p.count) + " vertices";
    return false;
  }
  b2Vec2 points[B2_MAX_POLYGON_VERTICES];
  for (int i = 0; i < p.count; ++i) points[i] = ToB2(p.vertices[i]);
  const b2Hull hull = b2ComputeHull(points, p.count);
  if (hull.count == 0) {
    *why = "b2ComputeHull rejected the polygon";
    return false;
  }
  *out = b2MakePolygon(&hull, ToF(p.radius));
  return true;
}

}  // namespace arbiter::bench::box2d3

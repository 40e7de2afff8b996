// A dynamic body's mass properties, summed from its shapes. Shared by
// validation (which needs to know the sums fit Q32.32) and AddBodies (which
// stores them), so the values checked are the values used.
#pragma once

#include <span>

#include "arbiter/core/world.h"

namespace arbiter::internal {

struct BodyMass {
  Vec2 local_center;  ///< centre of mass in the body frame
  Fixed inv_mass;     ///< 1 / mass; 1 for a body without area (Box2D's rule)
  Fixed inv_inertia;  ///< 1 / inertia about the centre of mass; 0 when none
};

/// Mass, centre of mass and rotational inertia of a dynamic body with
/// these shapes (parallel-axis theorem). Returns false, leaving *out
/// unspecified, when any shape's mass data, any shape's parallel-axis term
/// m |c|^2 about the body origin, or any sum (total mass, inertia about the
/// origin) does not fit Q32.32: sums of up to 64 checked per-shape values
/// can exceed it, and so can a shape far from its body's origin.
bool ComputeBodyMass(std::span<const ShapeDef> shapes, BodyMass* out);

}  // namespace arbiter::internal

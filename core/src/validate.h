// The checks every entry point shares (AddBodies, the setters, Restore and,
// through world.h, the server and the scene loader), against the one table
// of limits in limits.h. Each returns a Status naming `field` and the
// reason; none changes anything.
#pragma once

#include <span>
#include <string>

#include "arbiter/core/world.h"

namespace arbiter::internal {

/// A shape's type and geometry (as AddBodies checks them): errors name
/// field.<circle|capsule|segment|polygon>.
Status ValidateShapeGeometry(const Shape& shape, const std::string& field);

/// Position within +-kMaxWorldCoordinate (OUT_OF_RANGE), unit rotation
/// (INVALID_ARGUMENT).
Status ValidateTransform(const Transform& xf, const std::string& field);

/// Each linear component within +-kMaxLinearSpeed, the angular velocity
/// within +-kMaxAngularSpeed (OUT_OF_RANGE, naming field.linear_velocity /
/// field.angular_velocity; with an empty field, just those names).
Status ValidateVelocity(Vec2 linear, Fixed angular, const std::string& field);

/// Everything about one body definition that does not depend on the world.
Status ValidateBodyDef(const BodyDef& def, const std::string& field);

}  // namespace arbiter::internal

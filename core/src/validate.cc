#include "validate.h"

#include <string>
#include <utility>

#include "arbiter/core/limits.h"
#include "body_mass.h"

namespace arbiter {

namespace internal {
namespace {

std::string Field(const std::string& prefix, const char* name) { return prefix.empty() ? name : prefix + "." + name; }

bool IsMaterial(Fixed v) { return v >= kFixedZero && v <= kMaxMaterial; }

}  // namespace

Status ValidateShapeGeometry(const Shape& shape, const std::string& field) {
  const uint8_t type = static_cast<uint8_t>(shape.type);
  if (type > static_cast<uint8_t>(ShapeType::kChainSegment)) return InvalidArgumentError(field + ".type: unknown shape type");
  const ShapeError error = ValidateShape(shape);
  if (error == ShapeError::kOk) return OkStatus();
  const std::string message = field + "." + ShapeTypeName(shape.type) + ": " + ShapeErrorMessage(error);
  return error == ShapeError::kOutOfRange ? OutOfRangeError(message) : InvalidArgumentError(message);
}

namespace {

Status ValidateShapeDef(const ShapeDef& def, const std::string& field) {
  if (Status s = ValidateShapeGeometry(def.shape, field); !s.ok()) return s;
  for (const auto& [value, name] : {std::pair{def.friction, "friction"}, std::pair{def.restitution, "restitution"},
                                    std::pair{def.density, "density"}}) {
    if (!IsMaterial(value)) return OutOfRangeError(Field(field, name) + ": must be in [0, 65536]");
  }
  return OkStatus();
}

// A dynamic body's mass data must fit Q32.32, shape by shape (named) and
// summed over the body.
Status ValidateMass(const BodyDef& def, const std::string& field) {
  for (size_t i = 0; i < def.shapes.size(); ++i) {
    if (!ComputeMass(def.shapes[i].shape, def.shapes[i].density).representable) {
      return OutOfRangeError(field + ".shapes[" + std::to_string(i) +
                             "]: mass or inertia too large for Q32.32 (make the body static or smaller)");
    }
  }
  BodyMass mass;
  if (!ComputeBodyMass(def.shapes, &mass)) {
    return OutOfRangeError(Field(field, "shapes") +
                           ": the body's total mass or its inertia about the body origin is too large for Q32.32 "
                           "(fewer, lighter shapes, or shapes nearer the origin)");
  }
  return OkStatus();
}

// At most kMaxShapesPerBody shapes that are not chain segments plus at most
// kMaxChainSegmentsPerBody chain segments; chains only on bodies that do
// not move under forces (they carry no mass).
Status ValidateShapeCounts(const BodyDef& def, const std::string& field) {
  uint32_t solid = 0, chain = 0;
  for (size_t i = 0; i < def.shapes.size(); ++i) {
    if (def.shapes[i].shape.type != ShapeType::kChainSegment) {
      ++solid;
      continue;
    }
    ++chain;
    if (def.type == BodyType::kDynamic) {
      return InvalidArgumentError(field + ".shapes[" + std::to_string(i) +
                                  "].chain_segment: a chain has no mass; only static and kinematic bodies may hold one");
    }
  }
  if (solid > kMaxShapesPerBody) return ResourceExhaustedError(Field(field, "shapes") + ": more than 64 shapes");
  if (chain > kMaxChainSegmentsPerBody) {
    return ResourceExhaustedError(Field(field, "shapes") + ": more than 4096 chain segments");
  }
  return OkStatus();
}

}  // namespace

Status ValidateTransform(const Transform& xf, const std::string& field) {
  if (!IsInWorldRange(xf.p)) return OutOfRangeError(field + ".p: position beyond +-2^29 units");
  if (!IsUnitRotation(xf.q)) return InvalidArgumentError(field + ".q: not a unit rotation (c^2 + s^2 != 1)");
  return OkStatus();
}

Status ValidateVelocity(Vec2 linear, Fixed angular, const std::string& field) {
  if (!WithinMagnitude(linear.x, kMaxLinearSpeed) || !WithinMagnitude(linear.y, kMaxLinearSpeed)) {
    return OutOfRangeError(Field(field, "linear_velocity") + ": beyond +-2^24 units/s");
  }
  if (!WithinMagnitude(angular, kMaxAngularSpeed)) {
    return OutOfRangeError(Field(field, "angular_velocity") + ": beyond +-2^16 rad/s");
  }
  return OkStatus();
}

Status ValidateBodyDef(const BodyDef& def, const std::string& field) {
  if (def.id == 0) return InvalidArgumentError(Field(field, "id") + ": must be non-zero");
  if (static_cast<uint8_t>(def.type) > static_cast<uint8_t>(BodyType::kDynamic)) {
    return InvalidArgumentError(Field(field, "type") + ": unknown body type");
  }
  if (Status s = ValidateTransform(def.transform, Field(field, "transform")); !s.ok()) return s;
  if (Status s = ValidateVelocity(def.linear_velocity, def.angular_velocity, field); !s.ok()) return s;
  for (const auto& [value, name] : {std::pair{def.linear_damping, "linear_damping"}, std::pair{def.angular_damping, "angular_damping"}}) {
    if (!IsMaterial(value)) return OutOfRangeError(Field(field, name) + ": must be in [0, 65536]");
  }
  if (!WithinMagnitude(def.gravity_scale, kMaxMaterial)) return OutOfRangeError(Field(field, "gravity_scale") + ": beyond +-65536");
  if (def.shapes.empty()) return InvalidArgumentError(Field(field, "shapes") + ": a body needs at least one shape");
  if (Status s = ValidateShapeCounts(def, field); !s.ok()) return s;
  for (size_t i = 0; i < def.shapes.size(); ++i) {
    if (Status s = ValidateShapeDef(def.shapes[i], field + ".shapes[" + std::to_string(i) + "]"); !s.ok()) return s;
  }
  if (def.type == BodyType::kDynamic) return ValidateMass(def, field);
  return OkStatus();
}

}  // namespace internal

bool IsUnitRotation(Rot q) {
  const Int128 norm = MulWide(q.c, q.c) + MulWide(q.s, q.s) - MulWide(kFixedOne, kFixedOne);
  return norm.Abs() <= Int128(kRotationToleranceQ64);
}

Status ValidateWorldDef(const WorldDef& def) {
  if (!WithinMagnitude(def.gravity.x, kMaxGravity) || !WithinMagnitude(def.gravity.y, kMaxGravity)) {
    return OutOfRangeError("gravity: beyond +-2^24 units/s^2");
  }
  if (def.tick_hz < kMinTickHz || def.tick_hz > kMaxTickHz) return OutOfRangeError("tick_hz: must be in 1..10000");
  if (def.sub_steps < kMinSubSteps || def.sub_steps > kMaxSubSteps) {
    return InvalidArgumentError("sub_steps: must be in " + std::to_string(kMinSubSteps) + ".." + std::to_string(kMaxSubSteps));
  }
  if (def.contact_hertz < kMinContactHertz || def.contact_hertz > kMaxContactHertz) {
    return InvalidArgumentError("contact_hertz: must be in " + std::to_string(kMinContactHertz) + ".." +
                           std::to_string(kMaxContactHertz));
  }
  return OkStatus();
}

Status ValidateRay(const RayCastInput& ray, const char* field) {
  const std::string f(field);
  if (!IsInWorldRange(ray.origin)) return OutOfRangeError(f + ".origin: beyond +-2^29 units");
  if (!WithinMagnitude(ray.translation.x, kMaxQueryTranslation) || !WithinMagnitude(ray.translation.y, kMaxQueryTranslation)) {
    return OutOfRangeError(f + ".translation: beyond +-2^30 units");
  }
  if (ray.max_fraction < kFixedZero || ray.max_fraction > kFixedOne) {
    return OutOfRangeError(f + ".max_fraction: must be in [0, 1]");
  }
  return OkStatus();
}

Status ValidatePoint(Vec2 point, const char* field) {
  if (!IsInWorldRange(point)) return OutOfRangeError(std::string(field) + ": beyond +-2^29 units");
  return OkStatus();
}

Status ValidateAabb(const Aabb& box, const char* field) {
  const std::string f(field);
  if (!IsInWorldRange(box.lower)) return OutOfRangeError(f + ".lower: beyond +-2^29 units");
  if (!IsInWorldRange(box.upper)) return OutOfRangeError(f + ".upper: beyond +-2^29 units");
  if (!IsValid(box)) return InvalidArgumentError(f + ": lower must not exceed upper");
  return OkStatus();
}

Status ValidateMaxDistance(Fixed max_distance, const char* field) {
  if (max_distance < kFixedZero || max_distance > kMaxQueryTranslation) {
    return OutOfRangeError(std::string(field) + ": must be in [0, 2^30] units");
  }
  return OkStatus();
}

Status ValidateMoveInput(const MoveInput& input, const char* field) {
  using internal::Field;
  const std::string f(field);
  if (Status s = internal::ValidateShapeGeometry(input.shape, Field(f, "shape")); !s.ok()) return s;
  if (Status s = internal::ValidateTransform(input.start, Field(f, "start")); !s.ok()) return s;
  if (!WithinMagnitude(input.translation.x, kMaxMoveTranslation) ||
      !WithinMagnitude(input.translation.y, kMaxMoveTranslation)) {
    return OutOfRangeError(Field(f, "translation") + ": beyond +-2^28 units");
  }
  if (input.skin < kMinMoveSkin || input.skin > kMaxMoveSkin) {
    return OutOfRangeError(Field(f, "skin") + ": must be in [2^-16, 1] units");
  }
  if (input.max_iterations < 1 || input.max_iterations > kMaxMoveIterations) {
    return OutOfRangeError(Field(f, "max_iterations") + ": must be in 1..16");
  }
  return OkStatus();
}

}  // namespace arbiter

// File: convert.h
//
// Conversions between the arbiter.v1 wire messages and core types.
//
// Parse* functions turn a request field into a core value and check it
// first: ranges through the core's own validators (ValidateRay,
// ValidatePoint, ValidateAabb, the shape constructors), plus the checks the
// core leaves to its callers (unit rotations, unspecified enums). Errors are
// absl::Status values, like the rest of the server's, whose message starts
// with the field path the caller passes, e.g.
// "bodies[3].shapes[0].shape.polygon: not convex"; the core's codes and
// messages pass through FromCore unchanged. Nothing is written to *out on
// error.
//
// ToProto functions write core values into messages; they never fail and
// copy raw Q32.32 values bit for bit. FromProto functions read results back
// (client side) without validation.
//
// The server uses the Parse* side and the result ToProto side; the client
// library uses the definition ToProto side (uploading scenes) and FromProto.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "arbiter/core/collision.h"
#include "arbiter/core/status.h"
#include "arbiter/core/types.h"
#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::wire {

// ---- Call metadata -------------------------------------------------------------

/// The call metadata naming a call's world. Clients set it on every
/// world-scoped call so that a fleet's proxy, which cannot read request
/// bodies, routes the call to the world's owner; the server refuses a call
/// whose metadata and world_id disagree. Defined here, the one library both
/// sides link, so the two cannot drift apart.
inline constexpr char kWorldMetadataKey[] = "x-arbiter-world";

// ---- Status ------------------------------------------------------------------

/// Core Status -> absl::Status, code for code (both use the google.rpc
/// numbering), message unchanged. The one place where the core's status
/// type crosses into absl: the wire's Parse* use it, and so does the server
/// (status_convert.h) for what it asks of the core directly.
absl::Status FromCore(const Status& status);

// ---- Plain values -------------------------------------------------------------

inline Vec2 FromProto(const v1::Vec2& v) { return {Fixed::FromRaw(v.x()), Fixed::FromRaw(v.y())}; }
inline void ToProto(Vec2 v, v1::Vec2* out) {
  out->set_x(v.x.raw());
  out->set_y(v.y.raw());
}
void ToProto(Rot q, v1::Rot* out);
void ToProto(const Transform& xf, v1::Transform* out);
/// Reads a transform without checking it (absent parts are identity).
Transform FromProto(const v1::Transform& xf);

/// True when |c^2 + s^2 - 1| <= 2^-16, the tolerance the core applies to
/// body transforms (its own check is not public).
bool IsUnitRotation(Rot q);

// ---- Requests in (validating) -------------------------------------------------

/// OUT_OF_RANGE for the raw value -2^63, which every Parse* rejects: its
/// negation wraps to itself, so no magnitude check (here or in the core)
/// can bound it.
absl::Status CheckRaw(int64_t raw, std::string_view field);
/// A vector of any magnitude (other than the -2^63 raw value).
absl::Status ParseVec2(const v1::Vec2& v, std::string_view field, Vec2* out);

/// A rotation: absent (has == false) is the identity; present must be unit.
absl::Status ParseRot(bool has, const v1::Rot& rot, std::string_view field, Rot* out);
/// A body or query placement: position in world range, unit rotation.
absl::Status ParseTransform(const v1::Transform& xf, std::string_view field, Transform* out);
/// A world point (|x|, |y| <= 2^29), via the core's ValidatePoint.
absl::Status ParsePoint(const v1::Vec2& point, std::string_view field, Vec2* out);
/// A translation (|x|, |y| <= 2^30).
absl::Status ParseTranslation(const v1::Vec2& translation, std::string_view field, Vec2* out);
/// A box, via the core's ValidateAabb.
absl::Status ParseAabb(const v1::Aabb& box, std::string_view field, Aabb* out);
/// A ray, via the core's ValidateRay.
absl::Status ParseRay(const v1::Ray& ray, std::string_view field, RayCastInput* out);
/// Column rays (max_fraction 1); the four columns must have equal lengths.
/// Appends to *out.
absl::Status ParseRayColumns(const v1::RayColumns& columns, std::string_view field, std::vector<RayCastInput>* out);

/// A shape, built and validated by the core's constructors.
absl::Status ParseShape(const v1::Shape& shape, std::string_view field, Shape* out);
/// A filter; `has` false gives the default filter.
Filter ParseFilter(bool has, const v1::Filter& filter);
absl::Status ParseShapeDef(const v1::ShapeDef& def, std::string_view field, ShapeDef* out);
absl::Status ParseBodyType(v1::BodyType type, std::string_view field, BodyType* out);
/// A body definition. Shapes, transform and enums are checked here; id,
/// velocity and material ranges are checked by World::AddBodies.
absl::Status ParseBodyDef(const v1::BodyDef& def, std::string_view field, BodyDef* out);

/// A query filter that owns its excluded-body list (QueryFilter only views
/// one). Not copyable: the view would dangle.
class OwnedQueryFilter {
 public:
  OwnedQueryFilter() = default;
  OwnedQueryFilter(const OwnedQueryFilter&) = delete;
  OwnedQueryFilter& operator=(const OwnedQueryFilter&) = delete;

  /// The filter, viewing this object's excluded ids.
  QueryFilter Get() const {
    QueryFilter f = filter_;
    f.exclude_bodies = exclude_;
    return f;
  }

 private:
  friend absl::Status ParseQueryFilter(const v1::QueryFilter&, std::string_view, OwnedQueryFilter*);
  QueryFilter filter_;
  std::vector<uint64_t> exclude_;
};
absl::Status ParseQueryFilter(const v1::QueryFilter& filter, std::string_view field, OwnedQueryFilter* out);

/// One body's changes, parsed.
struct BodyUpdate {
  uint64_t body_id = 0;
  std::optional<Transform> transform;
  std::optional<std::pair<Vec2, Fixed>> velocity;  ///< linear, angular
  std::vector<std::pair<uint32_t, Filter>> filters;  ///< shape index, filter
};
/// Checks the update's own fields (not whether the body exists).
absl::Status ParseBodyUpdate(const v1::BodyUpdate& update, std::string_view field, BodyUpdate* out);

// ---- Results out ---------------------------------------------------------------

v1::BodyType ToProto(BodyType type);
void ToProto(const ShapeRef& ref, v1::ShapeRef* out);
void ToProto(const CastHit& hit, v1::Hit* out);
void ToProto(const OverlapContact& contact, v1::OverlapContact* out);
void ToProto(const DistanceHit& hit, v1::DistanceHit* out);
void ToProto(const BodyView& body, v1::BodyState* out);
/// The events of the tick that led to `tick`.
void ToProto(const TickEvents& events, int64_t tick, v1::TickEvents* out);

// ---- Definitions out (clients uploading bodies) ---------------------------------

void ToProto(const Shape& shape, v1::Shape* out);
void ToProto(const Filter& filter, v1::Filter* out);
void ToProto(const ShapeDef& def, v1::ShapeDef* out);
void ToProto(const BodyDef& def, v1::BodyDef* out);

// ---- Results in (clients) ---------------------------------------------------------

CastHit FromProto(const v1::Hit& hit);
inline ShapeRef FromProto(const v1::ShapeRef& ref) { return {ref.body_id(), ref.shape_index()}; }
std::optional<BodyType> FromProto(v1::BodyType type);

}  // namespace arbiter::wire

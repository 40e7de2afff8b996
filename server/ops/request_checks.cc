#include "ops/request_checks.h"

#include "arbiter/wire/convert.h"
#include "ops/status_convert.h"

namespace arbiter::server {

std::string Indexed(const char* field, size_t i) { return std::string(field) + "[" + std::to_string(i) + "]"; }

absl::Status WithPrefix(const absl::Status& s, const std::string& prefix) {
  if (s.ok()) return s;
  return absl::Status(s.code(), prefix + std::string(s.message()));
}

absl::Status Cancelled() { return absl::CancelledError("cancelled by the caller (or its deadline passed)"); }

absl::StatusOr<CastMode> ParseMode(v1::CastMode mode, const char* field) {
  switch (mode) {
    case v1::CAST_MODE_CLOSEST: return CastMode::kClosest;
    case v1::CAST_MODE_ALL: return CastMode::kAll;
    case v1::CAST_MODE_ANY: return CastMode::kAny;
    case v1::CAST_MODE_UNSPECIFIED:
      return absl::InvalidArgumentError(std::string(field) + ": CAST_MODE_UNSPECIFIED; set CLOSEST, ALL or ANY");
    default: break;
  }
  return absl::InvalidArgumentError(std::string(field) + ": unknown cast mode " + std::to_string(static_cast<int>(mode)));
}

absl::Status ParseShapeAt(const v1::Shape& shape, const v1::Transform& transform, bool has_shape,
                          const std::string& field, Shape* shape_out, Transform* transform_out) {
  if (!has_shape) return absl::InvalidArgumentError(field + ".shape: required");
  if (absl::Status s = wire::ParseShape(shape, field + ".shape", shape_out); !s.ok()) return s;
  return wire::ParseTransform(transform, field + ".transform", transform_out);
}

absl::Status CheckPastTick(bool has_at, const v1::PastTick& at) {
  if (has_at && (at.fraction() < 0 || at.fraction() >= Fixed::kOneRaw)) {
    return absl::InvalidArgumentError("at.fraction: must be in [0, 1) (Q32.32 raw 0..2^32-1)");
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server

// Variants of the public collision routines (collision.h) for callers
// inside the core that need less than the full answer.
#pragma once

#include "arbiter/core/collision.h"

namespace arbiter::internal {

/// ShapeCast(input) when `want_point`; otherwise the same hit, fraction and
/// normal with `point` left zero, skipping the distance computation that
/// only the point needs (the step's continuous collision reads the
/// fraction alone).
CastOutput ShapeCastWithoutPoint(const ShapeCastInput& input, bool want_point);

}  // namespace arbiter::internal

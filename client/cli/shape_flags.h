// The one shape of a command given by flags: --circle R, --box HW,HH or
// --capsule X1,Y1,X2,Y2,R, in world units in the shape's own frame
// (`arbiter add` and `arbiter move`).
#pragma once

#include <optional>
#include <string>

#include "args.h"
#include "arbiter/v1/arbiter.pb.h"

namespace arbiter::cli {

/// Exactly one of the shape flags into *out; the error to print otherwise.
std::optional<std::string> ShapeFromFlags(const Args& a, v1::Shape* out);

}  // namespace arbiter::cli

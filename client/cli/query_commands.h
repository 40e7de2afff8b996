// Queries, now or at a past tick (--at TICK[:FRACTION]): ray, overlap,
// sweep, and validate (ValidateHit: a shot's verdict and evidence).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunRay(const Context& c);
int RunOverlap(const Context& c);
int RunDistance(const Context& c);
int RunSweep(const Context& c);
int RunValidate(const Context& c);

}  // namespace arbiter::cli

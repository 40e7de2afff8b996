// Projectiles: validate-shot (ValidateShots: a shot that flew for several
// ticks, traced through the world's history, with the verdict and its
// evidence).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunValidateShot(const Context& c);

}  // namespace arbiter::cli

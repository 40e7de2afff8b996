// Movement validation: validate-move (ValidateMove: a player's claimed path
// judged against the world as it was, with the verdict and its evidence).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunValidateMove(const Context& c);

}  // namespace arbiter::cli

// Movement: validate-move (ValidateMove: a player's claimed path judged
// against the world as it was, with the verdict and its evidence) and move
// (MoveShapes: where a shape ends when it moves and slides).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunValidateMove(const Context& c);
int RunMove(const Context& c);

}  // namespace arbiter::cli

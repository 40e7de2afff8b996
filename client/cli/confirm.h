// Confirmation of destructive commands (delete, restore over a world with
// bodies, load --replace): they say what they would destroy, and go on
// only with --yes or a "y" typed at a terminal. Without a terminal (scripts,
// pipes) --yes is required, so nothing is destroyed by accident.
#pragma once

#include <string>

#include "command.h"

namespace arbiter::cli {

/// True when the command may go on. `what` names what would be destroyed,
/// e.g. "world 'demo' (tick 150, 12 bodies)". Prints why it stops otherwise.
bool Confirm(const Context& c, const std::string& action, const std::string& what);

}  // namespace arbiter::cli

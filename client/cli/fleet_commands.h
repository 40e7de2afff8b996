// Commands on a fleet of instances (docs/fleet.md): migrate, rebalance,
// and `worlds --instances` (the fan-out listing).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunMigrate(const Context& c);
int RunRebalance(const Context& c);
/// `worlds --instances H1,H2,...`: every instance's worlds, merged.
int RunWorldsAcross(const Context& c);

}  // namespace arbiter::cli

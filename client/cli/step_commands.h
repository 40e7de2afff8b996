// Time: step (advance a world) and watch (every tick's events as it steps).
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunStep(const Context& c);
int RunWatch(const Context& c);

}  // namespace arbiter::cli

// Commands that change a world's bodies: add, remove, update.
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunAdd(const Context& c);
int RunRemove(const Context& c);
int RunUpdate(const Context& c);

}  // namespace arbiter::cli

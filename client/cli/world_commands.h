// Commands on whole worlds: worlds, describe, create, load, delete.
#pragma once

#include "command.h"

namespace arbiter::cli {

int RunWorlds(const Context& c);
int RunDescribe(const Context& c);
int RunCreate(const Context& c);
int RunLoad(const Context& c);
int RunDelete(const Context& c);

}  // namespace arbiter::cli

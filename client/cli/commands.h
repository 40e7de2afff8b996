// The `arbiter` subcommands that talk to a server.
#pragma once

namespace arbiter::cli {

/// True when `command` is one of the server commands below.
bool IsServerCommand(const char* command);
/// Runs `arbiter <command> ...` (argv[1] is the command); returns the exit
/// code: 0 success, 1 the server said no (or is unreachable), 2 bad usage.
int RunServerCommand(int argc, char** argv);
/// The usage lines of the server commands.
const char* ServerCommandsUsage();

}  // namespace arbiter::cli

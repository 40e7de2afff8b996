// `arbiter help`, `arbiter help CMD`, `arbiter CMD --help` / `-h`,
// `--version`, and what an unknown command or flag gets: the closest name.
#pragma once

#include <cstdio>

#include "command.h"

namespace arbiter::cli {

/// The command list and the common flags, on `out` (stderr when it
/// answers a mistake, so that stdout stays empty).
void PrintGeneralHelp(std::FILE* out = stdout);
/// One command's usage, details and flags, on stdout.
void PrintCommandHelp(const CommandSpec& spec);
/// "usage: arbiter NAME SYNOPSIS" (no newline).
std::string UsageLine(const CommandSpec& spec);
/// `arbiter help [CMD]`; returns the exit code.
int RunHelp(int argc, char** argv);
/// "arbiter: unknown command 'x'" with the closest command; returns 2.
int UnknownCommand(const std::string& typed);
/// The version line of `arbiter --version`.
const char* VersionText();

}  // namespace arbiter::cli

// The `arbiter` tool's commands: one table (command_table.cc) lists every
// command with its synopsis, help and flags; main.cc dispatches on it, and
// help, usage errors and "did you mean" suggestions all read it. Adding a
// command is adding one entry there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "arbiter/client/client.h"
#include "args.h"

namespace arbiter::cli {

/// What a server command gets: a client for --server and the parsed line.
struct Context {
  client::ArbiterClient* client;
  const Args* args;
  bool json;
  std::string world;   // --world (default "demo")
  std::string server;  // the target reached, for messages
  std::string name;    // the command, for messages
  client::ClientOptions options;  // timeout, token and TLS, for commands that reach other instances
};

/// "host" -> "host:50051"; "host:port", "[v6]:port" and "scheme:..."
/// targets stay as given.
std::string WithDefaultPort(const std::string& server);

struct CommandSpec {
  const char* name;
  const char* synopsis;  // what follows the name in a usage line
  const char* summary;   // one line, for the command list
  const char* details;   // the rest of `arbiter help NAME` ("" for none)
  std::vector<std::string> valued;    // this command's flags that take a value
  std::vector<std::string> switches;  // this command's flags without one
  int (*run)(const Context&) = nullptr;                // talks to a server (common flags apply)
  int (*run_local)(int argc, char** argv) = nullptr;  // self-contained: parses argv itself
};

/// Every command, in the order `arbiter help` lists them.
const std::vector<CommandSpec>& Commands();
/// The command named `name`, or nullptr.
const CommandSpec* FindCommand(std::string_view name);

/// Runs a server command: parses the common and the command's own flags,
/// connects and calls spec.run. Exit code: 0 success, 1 an error (from the
/// server, or a local file), 2 bad usage.
int RunServerCommand(const CommandSpec& spec, int argc, char** argv);

}  // namespace arbiter::cli

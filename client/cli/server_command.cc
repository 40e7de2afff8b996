// The common part of every server command: flags, connection, dispatch.
#include <cstdio>
#include <set>

#include "command.h"
#include "connection.h"
#include "output.h"
#include "suggest.h"

namespace arbiter::cli {
namespace {

constexpr const char* kDefaultPort = "50051";
constexpr const char* kDefaultWorld = "demo";

const std::vector<std::string> kCommonValued = {"server", "world", "timeout_ms"};
const std::vector<std::string> kCommonSwitches = {"json"};

}  // namespace

std::string WithDefaultPort(const std::string& server) {
  if (server.find("://") != std::string::npos || server.rfind("unix:", 0) == 0) return server;
  if (server.front() == '[') {
    return server.find("]:") == std::string::npos ? server + ":" + kDefaultPort : server;
  }
  const size_t colon = server.find(':');
  if (colon == std::string::npos) return server + ":" + kDefaultPort;
  // More than one colon without brackets: a bare IPv6 address.
  if (server.find(':', colon + 1) != std::string::npos) return "[" + server + "]:" + kDefaultPort;
  return server;
}

int RunServerCommand(const CommandSpec& spec, int argc, char** argv) {
  std::set<std::string> valued(kCommonValued.begin(), kCommonValued.end());
  valued.insert(spec.valued.begin(), spec.valued.end());
  valued.insert(ConnectionValuedFlags().begin(), ConnectionValuedFlags().end());
  std::set<std::string> known = valued;
  known.insert(kCommonSwitches.begin(), kCommonSwitches.end());
  known.insert(spec.switches.begin(), spec.switches.end());
  known.insert(ConnectionFlags().begin(), ConnectionFlags().end());

  const Args args(argc, argv, 2, valued);
  Context context{nullptr, &args, args.Has("json"), args.Get("world", kDefaultWorld), "", spec.name};
  if (args.error()) return Usage(context, *args.error());
  if (const std::vector<std::string> unknown = args.Unknown(known); !unknown.empty()) {
    std::string message = "unknown flag --" + unknown.front();
    const std::string best = Closest(unknown.front(), std::vector<std::string>(known.begin(), known.end()));
    if (!best.empty()) message += "; did you mean --" + best + "?";
    return Usage(context, message);
  }
  const std::optional<uint64_t> timeout = ParseUint(args.Get("timeout_ms", "60000"));
  if (!timeout) return Usage(context, "--timeout_ms: must be a non-negative integer");
  const std::string server = args.Get("server", "127.0.0.1");
  if (server.empty()) return Usage(context, "--server: empty (expected HOST or HOST:PORT)");
  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(*timeout);
  if (std::optional<std::string> error = ApplyConnectionFlags(args, &options)) return Usage(context, *error);
  context.server = WithDefaultPort(server);
  context.options = options;
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(context.server, options);
  context.client = client.get();
  return spec.run(context);
}

}  // namespace arbiter::cli

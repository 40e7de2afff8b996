// How the `arbiter` tool reaches a server that wants a token or TLS: the
// flags every server command and `bench` take.
#pragma once

#include <optional>
#include <set>
#include <string>

#include "arbiter/client/client.h"
#include "args.h"

namespace arbiter::cli {

/// Flags that take a value: --token_file, --tls_ca, --tls_cert, --tls_key.
const std::set<std::string>& ConnectionValuedFlags();
/// Those and the --tls switch.
const std::set<std::string>& ConnectionFlags();

/// Fills the token and TLS settings of `options`:
///  - the token from the first line of --token_file, else $ARBITER_TOKEN
///    (never a flag: command lines are visible to every local user);
///  - TLS when --tls or --tls_ca is given: --tls_ca is the CA to trust
///    (default: the system's roots), --tls_cert/--tls_key a client certificate.
/// Returns a usage error, or nullopt.
std::optional<std::string> ApplyConnectionFlags(const Args& args, client::ClientOptions* options);

/// The usage lines of those flags.
const char* ConnectionUsage();

}  // namespace arbiter::cli

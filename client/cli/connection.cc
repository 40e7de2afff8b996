#include "connection.h"

#include <cstdlib>
#include <fstream>

#include "absl/strings/ascii.h"

namespace arbiter::cli {

const std::set<std::string>& ConnectionValuedFlags() {
  static const std::set<std::string> flags = {"token_file", "tls_ca", "tls_cert", "tls_key"};
  return flags;
}

const std::set<std::string>& ConnectionFlags() {
  static const std::set<std::string> flags = {"token_file", "tls_ca", "tls_cert", "tls_key", "tls"};
  return flags;
}

std::optional<std::string> ApplyConnectionFlags(const Args& args, client::ClientOptions* options) {
  if (args.Has("token_file")) {
    const std::string path = args.Get("token_file", "");
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return "--token_file: cannot read '" + path + "'";
    options->token = std::string(absl::StripAsciiWhitespace(line));
    if (options->token.empty()) return "--token_file: '" + path + "' starts with an empty line";
  } else if (const char* env = std::getenv("ARBITER_TOKEN"); env != nullptr) {
    options->token = std::string(absl::StripAsciiWhitespace(env));
  }
  if (args.Has("tls") || args.Has("tls_ca") || args.Has("tls_cert") || args.Has("tls_key")) {
    absl::StatusOr<client::ClientTls> tls =
        client::LoadClientTls(args.Get("tls_ca", ""), args.Get("tls_cert", ""), args.Get("tls_key", ""));
    if (!tls.ok()) return "TLS: " + std::string(tls.status().message());
    options->tls = *std::move(tls);
  }
  return std::nullopt;
}

const char* ConnectionUsage() {
  return "server access: --token_file FILE (a bearer token on its first line; default $ARBITER_TOKEN),\n"
         "              --tls (TLS with the system's CAs) or --tls_ca CA.pem, and for servers that\n"
         "              require a client certificate --tls_cert CERT.pem --tls_key KEY.pem\n";
}

}  // namespace arbiter::cli

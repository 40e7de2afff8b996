// File: tls_options.h
//
// The certificate flags both listeners use (gRPC's SSL credentials, the
// HTTP listener's OpenSSL server); files in PEM.
#pragma once

#include <string>

namespace arbiter::server {

struct TlsOptions {
  std::string cert_file;  ///< the server's certificate chain; empty: plaintext
  std::string key_file;   ///< its private key
  /// When set, clients must present a certificate signed by one of these
  /// CAs, or the handshake fails.
  std::string client_ca_file;
};

}  // namespace arbiter::server

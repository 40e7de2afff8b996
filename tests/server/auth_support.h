// Shared pieces of the auth, TLS and limits tests: token files written to
// the test's temporary directory and clients that present a token.
#pragma once

#include <unistd.h>

#include <fstream>
#include <memory>
#include <string>

#include "arbiter/client/client.h"
#include "test_support.h"
#include "token_store.h"

namespace arbiter::testing {

/// A fresh path in the test's temporary directory (unique per process and call).
inline std::string TempPath(const std::string& name) {
  static int counter = 0;
  return ::testing::TempDir() + "/arbiter-" + std::to_string(getpid()) + "-" + std::to_string(++counter) + "-" + name;
}

inline void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << path;
}

/// One token file line: the token's SHA-256, its role, worlds and label.
inline std::string TokenLine(const std::string& token, const std::string& role, const std::string& worlds,
                             const std::string& label = "") {
  return server::Sha256Hex(token) + " " + role + " " + worlds + (label.empty() ? "" : " " + label) + "\n";
}

/// A client of `address` that sends `token` (none when empty).
inline std::unique_ptr<client::ArbiterClient> ClientWithToken(const std::string& address, const std::string& token,
                                                              client::ClientOptions options = {}) {
  options.token = token;
  return client::ArbiterClient::Connect(address, options);
}

}  // namespace arbiter::testing

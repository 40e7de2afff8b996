// Shared pieces of the auth, TLS and limits tests: token files written to
// a TempDir (testing/temp_dir.h) and clients that present a token.
#pragma once

#include <fstream>
#include <memory>
#include <string>

#include "access/token_store.h"
#include "arbiter/client/client.h"
#include "test_support.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {

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

/// A small world on the server: a floor, a box and a disk (ids 1, 2, 3).
inline v1::CreateWorldRequest SmallWorld(const std::string& id) {
  v1::CreateWorldRequest request;
  request.set_world_id(id);
  *request.mutable_gravity() = client::MakeVec2(0, -10);
  *request.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, -1, client::MakeBox(40, 1));
  *request.add_bodies() = client::MakeBody(2, v1::BODY_TYPE_DYNAMIC, 0, 5, client::MakeBox(1, 1));
  *request.add_bodies() = client::MakeBody(3, v1::BODY_TYPE_DYNAMIC, 5, 8, client::MakeCircle(0.5));
  return request;
}

inline v1::StepRequest OneTick(const std::string& world) {
  v1::StepRequest request;
  request.set_world_id(world);
  request.set_ticks(1);
  return request;
}

}  // namespace arbiter::testing

// Shared pieces of the server tests: a real server on a free loopback port,
// a client connected to it, the status matchers (testing/status_matchers.h)
// and comparisons of wire results with in-process core results, field by field
// on raw values (never through the conversion code under test).
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "arbiter/client/client.h"
#include "arbiter/core/world.h"
#include "service/server.h"
#include "testing/status_matchers.h"

namespace arbiter::testing {

/// Options for the test servers: small limits so that every limit can be
/// reached cheaply, and the repository's scenes as the scene directory.
inline server::ServerOptions TestServerOptions() {
  server::ServerOptions o;
  o.listen = "127.0.0.1:0";
  o.threads = 3;
  o.registry.max_worlds = 8;
  o.registry.max_bodies_per_world = 20000;
  o.service.max_batch = 20000;
  o.service.max_message_bytes = size_t{32} << 20;
  o.service.max_step_ticks = 1000000;
  o.service.scene_dir = ARBITER_SCENES_DIR;
  return o;
}

/// A server listening on 127.0.0.1:<free port> and a client talking to it
/// through a real TCP socket.
class LiveServer {
 public:
  explicit LiveServer(const server::ServerOptions& options = TestServerOptions()) {
    absl::StatusOr<std::unique_ptr<server::ArbiterServer>> s = server::ArbiterServer::Start(options);
    if (!s.ok()) {
      ADD_FAILURE() << "server did not start: " << s.status();
      return;
    }
    server_ = std::move(*s);
    // The journal's worlds come back in the background; these tests start
    // from a server that has them all (recovery_test.cc watches the wait).
    if (absl::Status r = server_->WaitUntilRecovered(); !r.ok()) ADD_FAILURE() << "recovery failed: " << r;
    client_ = client::ArbiterClient::Connect(address());
  }
  ~LiveServer() {
    client_.reset();
    if (server_) server_->Shutdown(std::chrono::milliseconds(2000));
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(server_->port()); }
  client::ArbiterClient& client() { return *client_; }
  server::ArbiterServer& server() { return *server_; }

 private:
  std::unique_ptr<server::ArbiterServer> server_;
  std::unique_ptr<client::ArbiterClient> client_;
};

/// A world's (tick, state hash) as GetStateHash reports them; (-1, 0) and a
/// test failure when the call fails.
inline std::pair<int64_t, uint64_t> WorldTickAndHash(client::ArbiterClient& client, const std::string& world_id) {
  v1::GetStateHashRequest request;
  request.set_world_id(world_id);
  absl::StatusOr<v1::GetStateHashResponse> reply = client.GetStateHash(request);
  EXPECT_TRUE(reply.ok()) << reply.status();
  return reply.ok() ? std::make_pair(reply->tick(), reply->state_hash()) : std::make_pair(int64_t{-1}, uint64_t{0});
}

// ---- Comparing wire results with core results, raw value by raw value -------------------

inline ::testing::AssertionResult SameHit(const v1::Hit& wire, const CastHit& core) {
  if (wire.body_id() == core.shape.body_id && wire.shape_index() == core.shape.shape_index &&
      wire.user_tag() == core.user_tag && wire.fraction() == core.fraction.raw() &&
      wire.point().x() == core.point.x.raw() && wire.point().y() == core.point.y.raw() &&
      wire.normal().x() == core.normal.x.raw() && wire.normal().y() == core.normal.y.raw()) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "wire hit {" << wire.ShortDebugString() << "} vs core body "
                                       << core.shape.body_id << " shape " << core.shape.shape_index << " fraction "
                                       << core.fraction.raw() << " point (" << core.point.x.raw() << ", "
                                       << core.point.y.raw() << ") normal (" << core.normal.x.raw() << ", "
                                       << core.normal.y.raw() << ")";
}

inline ::testing::AssertionResult SameResult(const v1::CastResult& wire, const std::optional<CastHit>& core) {
  if (wire.hit() != core.has_value()) {
    return ::testing::AssertionFailure() << "wire hit=" << wire.hit() << " core hit=" << core.has_value();
  }
  if (!core) {
    if (wire.hits_size() != 0) return ::testing::AssertionFailure() << "miss with hits";
    return ::testing::AssertionSuccess();
  }
  if (wire.hits_size() != 1) return ::testing::AssertionFailure() << wire.hits_size() << " hits for CLOSEST";
  return SameHit(wire.hits(0), *core);
}

inline ::testing::AssertionResult SameResult(const v1::CastResult& wire, const std::vector<CastHit>& core) {
  if (wire.hit() != !core.empty() || wire.hits_size() != static_cast<int>(core.size())) {
    return ::testing::AssertionFailure() << "wire " << wire.hits_size() << " hits vs core " << core.size();
  }
  for (size_t i = 0; i < core.size(); ++i) {
    if (auto r = SameHit(wire.hits(static_cast<int>(i)), core[i]); !r) return r << " (hit " << i << ")";
  }
  return ::testing::AssertionSuccess();
}

inline ::testing::AssertionResult SameShapes(const v1::OverlapResult& wire, const std::vector<ShapeRef>& core) {
  if (wire.shapes_size() != static_cast<int>(core.size())) {
    return ::testing::AssertionFailure() << "wire " << wire.shapes_size() << " shapes vs core " << core.size();
  }
  for (size_t i = 0; i < core.size(); ++i) {
    const v1::ShapeRef& w = wire.shapes(static_cast<int>(i));
    if (w.body_id() != core[i].body_id || w.shape_index() != core[i].shape_index) {
      return ::testing::AssertionFailure() << "shape " << i << ": wire (" << w.body_id() << ", " << w.shape_index()
                                           << ") vs core (" << core[i].body_id << ", " << core[i].shape_index << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

/// A wire ray from core values (raw copies).
inline v1::Ray WireRay(const RayCastInput& r) {
  v1::Ray w;
  w.mutable_origin()->set_x(r.origin.x.raw());
  w.mutable_origin()->set_y(r.origin.y.raw());
  w.mutable_translation()->set_x(r.translation.x.raw());
  w.mutable_translation()->set_y(r.translation.y.raw());
  if (r.max_fraction != kFixedOne) w.set_max_fraction(r.max_fraction.raw());
  return w;
}

inline v1::Vec2 WireVec(Vec2 v) {
  v1::Vec2 w;
  w.set_x(v.x.raw());
  w.set_y(v.y.raw());
  return w;
}

}  // namespace arbiter::testing

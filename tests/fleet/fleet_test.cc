// A fleet on loopback (issue 16): three arbiter-server processes, each with
// its own journal, behind a real nginx routing by x-arbiter-world
// (docker/cluster.sh, docker/nginx/). Checked here:
//  - 30 worlds created through the proxy each live on exactly one instance,
//    the one client::ConsistentHashRing predicts for nginx's consistent
//    hash, spread over more than one, and every later call finds them there;
//  - queries, steps and past-tick queries through the proxy equal the
//    owner's direct answers bit for bit;
//  - an instance killed with SIGKILL takes only its own worlds away (they
//    answer UNAVAILABLE); the others keep serving; restarted on its
//    journal, its worlds come back with the same state hashes.
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "arbiter/client/client.h"
#include "arbiter/client/fleet.h"
#include "fleet/fleet_cluster.h"
#include "server/auth_support.h"

namespace arbiter::testing {
namespace {

using google::protobuf::util::MessageDifferencer;

constexpr int kWorlds = 30;

class Fleet : public FleetCluster {};

TEST_F(Fleet, WorldsLandOnOneOwner_AndAnswersThroughTheProxyEqualDirectOnes) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  const client::ConsistentHashRing ring(instances_);
  std::map<int, int> per_instance;
  for (int i = 0; i < kWorlds; ++i) {
    const std::string world = WorldName(i);
    v1::CreateWorldRequest create = SmallWorld(world);
    create.set_history_ticks(60);
    ASSERT_TRUE(proxy->CreateWorld(create).ok()) << world;
    const int owner = OwnerOf(world);
    ASSERT_GE(owner, 0) << world << " is on " << (owner == -1 ? "no instance" : "several instances");
    EXPECT_EQ(instances_[owner], ring.Owner(world)) << world << ": nginx and the ring disagree";
    ++per_instance[owner];

    std::unique_ptr<client::ArbiterClient> direct = Connect(instances_[owner]);
    v1::StepRequest step = OneTick(world);
    step.set_ticks(5 + i % 7);
    absl::StatusOr<v1::StepResponse> stepped = proxy->Step(step);
    ASSERT_TRUE(stepped.ok()) << stepped.status();
    absl::StatusOr<v1::GetStateHashResponse> via_proxy = Hash(*proxy, world);
    absl::StatusOr<v1::GetStateHashResponse> via_owner = Hash(*direct, world);
    ASSERT_TRUE(via_proxy.ok() && via_owner.ok());
    EXPECT_TRUE(MessageDifferencer::Equals(*via_proxy, *via_owner)) << world;
    EXPECT_EQ(via_proxy->state_hash(), stepped->state_hash());
    for (const int64_t at : {int64_t{-1}, stepped->tick() - 3}) {
      absl::StatusOr<v1::CastRaysResponse> a = proxy->CastRays(Rays(world, at));
      absl::StatusOr<v1::CastRaysResponse> b = direct->CastRays(Rays(world, at));
      ASSERT_TRUE(a.ok() && b.ok()) << world << " at " << at;
      EXPECT_TRUE(MessageDifferencer::Equals(*a, *b)) << world << " at " << at;
    }
  }
  // Consistent hashing spread the worlds: no instance holds all of them.
  EXPECT_GE(per_instance.size(), 2u);
  for (const auto& [instance, count] : per_instance) EXPECT_LT(count, kWorlds) << instance;
}

TEST_F(Fleet, KilledInstance_TakesOnlyItsWorlds_AndRecoversThemFromItsJournal) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  std::map<std::string, int> owner;
  std::map<std::string, uint64_t> hash;
  for (int i = 0; i < kWorlds; ++i) {
    const std::string world = WorldName(i);
    if (OwnerOf(world) < 0) {
      v1::CreateWorldRequest create = SmallWorld(world);
      ASSERT_TRUE(proxy->CreateWorld(create).ok()) << world;
    }
    owner[world] = OwnerOf(world);
    ASSERT_TRUE(proxy->Step(OneTick(world)).ok()) << world;
    absl::StatusOr<v1::GetStateHashResponse> h = Hash(*proxy, world);
    ASSERT_TRUE(h.ok());
    hash[world] = h->state_hash();
  }
  const int victim = owner[WorldName(0)];
  ASSERT_EQ(Cluster("kill " + dir_.string() + " " + std::to_string(victim)), 0);

  for (const auto& [world, o] : owner) {
    absl::StatusOr<v1::StepResponse> stepped = proxy->Step(OneTick(world));
    if (o == victim) {
      EXPECT_EQ(stepped.status().code(), absl::StatusCode::kUnavailable) << world;
      EXPECT_EQ(stepped.status().message(),
                "the arbiter instance that owns this world is unavailable; retry shortly")
          << world;
    } else {
      ASSERT_TRUE(stepped.ok()) << world << ": " << stepped.status();
      absl::StatusOr<v1::GetStateHashResponse> h = Hash(*proxy, world);
      ASSERT_TRUE(h.ok());
      hash[world] = h->state_hash();
    }
  }

  ASSERT_EQ(Cluster("restart " + dir_.string() + " " + std::to_string(victim)), 0);
  // The restarted instance listens at once and replays its journal in the
  // background; its worlds answer once they are back.
  for (const auto& [world, o] : owner) {
    if (o != victim) continue;
    absl::StatusOr<v1::GetStateHashResponse> h = Hash(*proxy, world);
    for (int attempt = 0; attempt < 400 && !h.ok(); ++attempt) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      h = Hash(*proxy, world);
    }
    ASSERT_TRUE(h.ok()) << world << ": " << h.status();
    EXPECT_EQ(h->state_hash(), hash[world]) << world;
  }
  for (const auto& [world, o] : owner) {
    absl::StatusOr<v1::GetStateHashResponse> h = Hash(*proxy, world);
    ASSERT_TRUE(h.ok()) << world;
    EXPECT_EQ(h->state_hash(), hash[world]) << world;
  }
}

TEST_F(Fleet, MismatchedRouting_IsRefusedByTheOwner) {
  // A request naming one world sent with another's routing key reaches the
  // other's owner, which refuses it instead of answering for a world it may
  // not hold.
  grpc::ClientContext context;
  context.AddMetadata("x-arbiter-world", WorldName(1));
  auto stub = v1::Arbiter::NewStub(grpc::CreateChannel(proxy_, grpc::InsecureChannelCredentials()));
  v1::GetStateHashRequest r;
  r.set_world_id(WorldName(2));
  v1::GetStateHashResponse reply;
  const grpc::Status status = stub->GetStateHash(&context, r, &reply);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(status.error_message().find("x-arbiter-world"), std::string::npos);
}

}  // namespace
}  // namespace arbiter::testing

// The fleet the fleet tests share: docker/cluster.sh's instances and nginx
// on loopback, started once per test suite in a directory of its own, and
// the few things every fleet test asks of it.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "arbiter/client/client.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {

inline std::string WorldName(int i) {
  char name[16];
  std::snprintf(name, sizeof name, "match-%02d", i);
  return name;
}

class FleetCluster : public ::testing::Test {
 protected:
  static constexpr int kInstances = 3;

  static void SetUpTestSuite() {
    temp_ = std::make_unique<TempDir>("arbiter-fleet-");
    dir_ = std::filesystem::path(temp_->path()) / "cluster";
    ASSERT_EQ(Cluster("start " + dir_.string() + " " + std::to_string(kInstances)), 0);
    ReadEnv();
    ASSERT_FALSE(proxy_.empty());
    ASSERT_EQ(instances_.size(), static_cast<size_t>(kInstances));
  }

  static void TearDownTestSuite() {
    Cluster("stop " + dir_.string());
    temp_.reset();
  }

  /// DIR/cluster.env: the proxy and the instances it routes to.
  static void ReadEnv() {
    instances_.clear();
    std::ifstream env(dir_ / "cluster.env");
    std::string line;
    while (std::getline(env, line)) {
      if (line.rfind("PROXY=", 0) == 0) proxy_ = line.substr(6);
      if (line.rfind("INSTANCES=", 0) == 0) {
        std::stringstream list(line.substr(10));
        std::string addr;
        while (std::getline(list, addr, ',')) instances_.push_back(addr);
      }
    }
  }

  static int Cluster(const std::string& args, std::string* output = nullptr) {
    const std::string command = std::string("ARBITER_SERVER=") + ARBITER_SERVER_BINARY + " bash " +
                                ARBITER_SOURCE_DIR + "/docker/cluster.sh " + args;
    return Run(command, output);
  }

  /// Runs `command`; its stdout (and stderr) into `output` when given.
  static int Run(const std::string& command, std::string* output = nullptr) {
    if (output == nullptr) return std::system(command.c_str());
    FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[4096];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) output->append(buffer, n);
    return ::pclose(pipe);
  }

  static std::unique_ptr<client::ArbiterClient> Connect(const std::string& address) {
    return client::ArbiterClient::Connect(address);
  }

  // Which instance (index) lists `world`; -1 when none, -2 when several.
  static int OwnerOf(const std::string& world) {
    int owner = -1;
    for (size_t i = 0; i < instances_.size(); ++i) {
      absl::StatusOr<v1::ListWorldsResponse> list = Connect(instances_[i])->ListWorlds();
      if (!list.ok()) continue;
      for (const v1::WorldInfo& w : list->worlds()) {
        if (w.world_id() == world) owner = owner == -1 ? static_cast<int>(i) : -2;
      }
    }
    return owner;
  }

  static absl::StatusOr<v1::GetStateHashResponse> Hash(client::ArbiterClient& c, const std::string& world) {
    v1::GetStateHashRequest r;
    r.set_world_id(world);
    return c.GetStateHash(r);
  }

  static v1::CastRaysRequest Rays(const std::string& world, int64_t at_tick = -1) {
    v1::CastRaysRequest r;
    r.set_world_id(world);
    r.set_mode(v1::CAST_MODE_ALL);
    for (int i = 0; i < 16; ++i) *r.add_rays() = client::MakeRay(-30 + 4 * i, 12, 0.5 * i - 4, -20);
    if (at_tick >= 0) r.mutable_at()->set_tick(at_tick);
    return r;
  }

  static inline std::unique_ptr<TempDir> temp_;
  static inline std::filesystem::path dir_;
  static inline std::string proxy_;
  static inline std::vector<std::string> instances_;
};

}  // namespace arbiter::testing

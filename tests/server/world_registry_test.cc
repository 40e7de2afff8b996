// The registry's tombstones around an import's placeholder: a world that
// moved away and is being moved back keeps answering "moved" until the
// import makes it live here, and again if the import fails (the chaos
// test's NOT_FOUND: a source killed mid-stream left the world's hash
// owner with neither the world nor its tombstone).
#include <gtest/gtest.h>

#include "ops/world_registry.h"

namespace arbiter::testing {
namespace {

using server::RegistryLimits;
using server::WorldEntry;
using server::WorldRegistry;

void MoveAway(WorldRegistry& registry, const std::string& id, const std::string& to) {
  ASSERT_TRUE(registry.Insert(id, World(WorldDef{}), 1).ok());
  ASSERT_TRUE(registry.Remove(id, to).ok());
}

TEST(WorldRegistryTombstones, AFailedImport_LeavesTheMovedAnswer) {
  WorldRegistry registry(RegistryLimits{});
  MoveAway(registry, "w", "10.0.0.2:1");
  ASSERT_TRUE(registry.Reserve("w", WorldEntry::State::kImporting).ok());
  // While it arrives: UNAVAILABLE, "arriving".
  EXPECT_EQ(registry.Find("w").status().code(), absl::StatusCode::kUnavailable);
  registry.Unreserve("w");
  const absl::Status after = registry.Find("w").status();
  EXPECT_EQ(after.code(), absl::StatusCode::kUnavailable) << after;
  EXPECT_NE(after.message().find("moved to 10.0.0.2:1"), std::string_view::npos) << after;
}

TEST(WorldRegistryTombstones, AnInstalledImport_EndsTheTombstone) {
  WorldRegistry registry(RegistryLimits{});
  MoveAway(registry, "w", "10.0.0.2:1");
  ASSERT_TRUE(registry.Reserve("w", WorldEntry::State::kImporting).ok());
  auto entry = std::make_shared<WorldEntry>("w", World(WorldDef{}), 1, RegistryLimits{}.hash_window_ticks,
                                            server::JournalCursor{}, WorldEntry::State::kLive);
  ASSERT_TRUE(registry.Install(entry).ok());
  EXPECT_TRUE(registry.Find("w").ok());
  // Deleted here later without a destination: gone, not "moved".
  ASSERT_TRUE(registry.Remove("w").ok());
  EXPECT_EQ(registry.Find("w").status().code(), absl::StatusCode::kNotFound);
}

TEST(WorldRegistryTombstones, ACreatedWorld_EndsTheTombstone) {
  WorldRegistry registry(RegistryLimits{});
  MoveAway(registry, "w", "10.0.0.2:1");
  ASSERT_TRUE(registry.Insert("w", World(WorldDef{}), 1).ok());
  ASSERT_TRUE(registry.Remove("w").ok());
  EXPECT_EQ(registry.Find("w").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace arbiter::testing

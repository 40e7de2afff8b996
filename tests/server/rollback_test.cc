// RollBack never aborts: if undoing a failed change were ever refused by a
// setter (the step keeps every state inside the setters' limits, so no
// request can make it so), the world goes offline with INTERNAL instead of
// the process dying with std::abort.
#include <gtest/gtest.h>

#include "ops/body_updates.h"
#include "test_support.h"
#include "testing/world_builders.h"

namespace arbiter::testing {
namespace {

TEST(RollBack, PutsBackEveryValueAndReturnsTheCause) {
  server::WorldRegistry registry(server::RegistryLimits{});
  World world;
  ASSERT_TRUE(world.AddBody(DiskBody(7, BodyType::kDynamic, Vec2{Fixed::FromInt(1), Fixed::FromInt(2)}, 1.0)).ok());
  const uint64_t before = world.StateHash();
  absl::StatusOr<std::shared_ptr<server::WorldEntry>> entry = registry.Insert("w", std::move(world), 4);
  ASSERT_TRUE(entry.ok());
  const absl::Status result = (*entry)->WriteLive([&](World& w) {
    std::vector<server::Undo> undo;
    undo.push_back({server::Undo::Kind::kTransform, 7, w.FindBody(7)->transform, {}, {}, 0, {}});
    EXPECT_TRUE(w.SetBodyTransform(7, {Vec2{Fixed::FromInt(5), Fixed::FromInt(5)}, kRotIdentity}).ok());
    return server::RollBack(**entry, w, undo, absl::InvalidArgumentError("updates[1]: the cause"));
  });
  EXPECT_EQ(result, absl::InvalidArgumentError("updates[1]: the cause"));
  ASSERT_TRUE((*entry)->Availability().ok());
  (void)(*entry)->WriteLive([&](World& w) {
    EXPECT_EQ(w.StateHash(), before);
    return absl::OkStatus();
  });
}

TEST(RollBack, ARefusedUndoTakesTheWorldOfflineInsteadOfAborting) {
  server::WorldRegistry registry(server::RegistryLimits{});
  World world;
  ASSERT_TRUE(world.AddBody(DiskBody(7, BodyType::kDynamic, Vec2{}, 1.0)).ok());
  absl::StatusOr<std::shared_ptr<server::WorldEntry>> entry = registry.Insert("w", std::move(world), 4);
  ASSERT_TRUE(entry.ok());
  const absl::Status result = (*entry)->WriteLive([&](World& w) {
    // A value no setter accepts (outside the world range): what a core bug
    // would have to produce for an undo to fail.
    std::vector<server::Undo> undo;
    undo.push_back({server::Undo::Kind::kTransform, 7,
                    Transform{Vec2{Fixed::FromInt(int64_t{1} << 30), kFixedZero}, kRotIdentity}, {}, {}, 0, {}});
    return server::RollBack(**entry, w, undo, absl::InvalidArgumentError("the cause"));
  });
  EXPECT_EQ(result.code(), absl::StatusCode::kInternal) << result;
  EXPECT_NE(result.message().find("offline"), std::string::npos) << result;
  EXPECT_EQ((*entry)->Availability().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace arbiter::testing

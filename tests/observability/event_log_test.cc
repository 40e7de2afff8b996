// The events every server logs whatever its flags: a journal write that
// fails, and the world it takes offline, reach stderr (in-process server
// with a journal capped at a few pages, stderr captured).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "server/test_support.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using ::testing::HasSubstr;

TEST(EventLogTest, JournalFailure_IsLogged_AndTheWorldTakenOffline) {
  TempDir dir;
  server::ServerOptions options = TestServerOptions();
  options.data_dir = dir.path();
  options.journal_sync = server::JournalSync::kOff;
  options.journal_max_pages = 40;  // 4 KiB pages: room for the world and a few steps
  ::testing::internal::CaptureStderr();
  absl::Status last;
  {
    LiveServer server(options);
    v1::CreateWorldRequest create;
    create.set_world_id("full");
    *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_DYNAMIC, 0, 0, client::MakeCircle(1));
    ASSERT_TRUE(server.client().CreateWorld(create).ok());
    // Each step journals 4000 tick hashes (32 KB): the store fills within a few.
    v1::StepRequest step;
    step.set_world_id("full");
    step.set_ticks(4000);
    step.set_omit_events(true);
    for (int i = 0; i < 50 && last.ok(); ++i) last = server.client().Step(step).status();
  }
  const std::string log = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(last.code(), absl::StatusCode::kUnavailable) << last;
  EXPECT_THAT(log, HasSubstr("arbiter-server: journal write failed (world key "));
  EXPECT_THAT(log, HasSubstr("arbiter-server: world 'full' is OFFLINE until a restart recovers it: "));
}

}  // namespace
}  // namespace arbiter::testing

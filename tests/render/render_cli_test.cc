// `arbiter render` end to end: a live arbiter-server process, the CLI as a
// process, files compared byte for byte. Live, snapshot-file and journal
// renders of one state draw the same picture; past ticks come back as they
// were drawn live.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "arbiter/client/client.h"
#include "server/server_process.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using ::testing::HasSubstr;

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The picture without its caption (which names where the world came from).
std::string Drawing(const std::string& svg) {
  const size_t end = svg.find("</title>");
  return end == std::string::npos ? "" : svg.substr(end);
}

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::string Demo() { return std::string("--scene=") + ARBITER_SCENES_DIR + "/demo.scene.json"; }

TEST(RenderCliTest, LiveWorld_SameBytesTwice_OneElementPerShape_QueriesAnswered) {
  TempDir temp;
  ServerProcess server({Demo()});
  ASSERT_GT(server.port(), 0);
  const std::string a = temp.File("a.svg"), b = temp.File("b.svg");
  const std::string common = " --world demo --server " + server.address() +
                             " --ray -35 5 70 0 --box -25 -1 -15 4 --ray 0 30 0 -40";
  const CliResult first = RunCli("render --out " + a + common, true);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_THAT(first.output, HasSubstr("tick 0, 23 bodies"));
  ASSERT_EQ(RunCli("render --out " + b + common).exit_code, 0);
  const std::string svg = ReadAll(a);
  EXPECT_EQ(svg, ReadAll(b));

  auto c = client::ArbiterClient::Connect(server.address());
  v1::DescribeWorldRequest describe;
  describe.set_world_id("demo");
  describe.set_include_bodies(true);
  absl::StatusOr<v1::DescribeWorldResponse> world = c->DescribeWorld(describe);
  ASSERT_TRUE(world.ok());
  size_t shapes = 0;
  for (const v1::BodyState& body : world->bodies()) {
    shapes += body.shape_count();
    EXPECT_EQ(Count(svg, "data-body=\"" + std::to_string(body.id()) + "\" data-shape="), body.shape_count());
  }
  EXPECT_EQ(Count(svg, "class=\"shape "), shapes);
  EXPECT_EQ(Count(svg, "<g class=\"body "), static_cast<size_t>(world->bodies_size()));
  EXPECT_EQ(Count(svg, "box 0: overlaps "), 1u);
  EXPECT_THAT(svg, HasSubstr("ray 0 from (-35, 5) along (70, 0): hit body "));
}

TEST(RenderCliTest, SnapshotFile_DrawsWhatTheServerDraws) {
  TempDir temp;
  ServerProcess server({Demo()});
  ASSERT_GT(server.port(), 0);
  const std::string live = temp.File("live.svg"), snap = temp.File("demo.snap"), offline = temp.File("offline.svg");
  ASSERT_EQ(RunCli("step 7 --world demo --server " + server.address()).exit_code, 0);
  ASSERT_EQ(RunCli("render --out " + live + " --world demo --server " + server.address()).exit_code, 0);
  ASSERT_EQ(RunCli("snapshot " + snap + " --world demo --server " + server.address()).exit_code, 0);
  const CliResult r = RunCli("render --out " + offline + " --snapshot " + snap, true);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(Drawing(ReadAll(offline)), Drawing(ReadAll(live)));
  EXPECT_THAT(ReadAll(offline), HasSubstr("at tick 7</title>"));
}

TEST(RenderCliTest, PastTick_FromTheServerOrItsJournal_IsWhatWasDrawnLive) {
  TempDir temp;
  const std::string dir = temp.File("data");
  ServerProcess server({Demo(), "--data_dir=" + dir, "--journal_sync=off", "--snapshot_every_ticks=4"});
  ASSERT_GT(server.port(), 0);
  ASSERT_TRUE(server.WaitUntilRecovered());
  const std::string at = " --server " + server.address();
  const std::string live5 = temp.File("live5.svg"), past5 = temp.File("past5.svg"), journal5 = temp.File("j5.svg");
  const std::string exported = temp.File("demo.journal");
  ASSERT_EQ(RunCli("step 5 --world demo" + at).exit_code, 0);
  ASSERT_EQ(RunCli("render --out " + live5 + " --world demo" + at).exit_code, 0);
  ASSERT_EQ(RunCli("step 9 --world demo" + at).exit_code, 0);

  const CliResult past = RunCli("render --out " + past5 + " --world demo --at 5" + at, true);
  ASSERT_EQ(past.exit_code, 0) << past.output;
  EXPECT_EQ(Drawing(ReadAll(past5)), Drawing(ReadAll(live5)));

  ASSERT_EQ(RunCli("export " + exported + " --world demo" + at).exit_code, 0);
  const CliResult offline = RunCli("render --out " + journal5 + " --journal " + exported + " --tick 5", true);
  ASSERT_EQ(offline.exit_code, 0) << offline.output;
  EXPECT_EQ(Drawing(ReadAll(journal5)), Drawing(ReadAll(live5)));

  const CliResult beyond = RunCli("render --out " + journal5 + " --journal " + exported + " --tick 99", true);
  EXPECT_EQ(beyond.exit_code, 1);
  EXPECT_THAT(beyond.output, HasSubstr("tick: 99 is past the journal's end (tick 14)"));
}

TEST(RenderCliTest, BadArguments_NameTheFlag_AndWriteNothing) {
  TempDir temp;
  const std::string out = temp.File("never.svg");
  struct Case {
    std::string args, message;
  };
  for (const Case& c : std::vector<Case>{
           {"--snapshot x.snap", "--out: required"},
           {"--out " + out, "give exactly one of --world, --snapshot and --journal"},
           {"--out " + out + " --world w --ray 1 2 3", "--ray: needs 4 value(s)"},
           {"--out " + out + " --world w --ray 1 2 3 x", "--ray: 'x' is not a decimal number"},
           {"--out " + out + " --world w --at 5:1.5", "--at: the fraction after ':' must be a decimal in [0, 1)"},
           {"--out " + out + " --journal j", "--journal and --tick go together"},
           {"--out " + out + " --world w --view 0 0 0 5", "view: min must be below max"},
           {"--out " + out + " --world w --colour red", "unknown argument '--colour'"},
       }) {
    const CliResult r = RunCli("render " + c.args, true);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_THAT(r.output, HasSubstr(c.message)) << c.args;
  }
  EXPECT_TRUE(ReadAll(out).empty());
}

}  // namespace
}  // namespace arbiter::testing

// The shipped programs as processes: arbiter-server started the way
// scripts/run.sh starts it, queried through the `arbiter` CLI, and stopped
// with SIGTERM. Answers are checked against the in-process core.
#include <signal.h>
#include <sys/wait.h>

#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>

#include "arbiter/scene/scene.h"
#include "server_process.h"
#include "test_support.h"
#include "testing/numbers.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using Json = nlohmann::json;

Json ParseJson(const CliResult& r) {
  Json j = Json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.output;
  return j;
}

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

TEST(ProcessTest, Cli_AgainstServerProcess_AnswersAsTheCore) {
  const std::string scenes = ARBITER_SCENES_DIR;
  ServerProcess server({"--scene=" + scenes + "/demo.scene.json"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  EXPECT_NE(server.first_line().find("(worlds: demo)"), std::string::npos);
  const std::string at = " --server " + server.address();

  scene::Scene demo;
  ASSERT_TRUE(scene::LoadSceneFile(scenes + "/demo.scene.json", &demo).ok());
  demo.world.max_bodies = uint32_t{1} << 20;  // the server's default limit
  World replica(demo.world);
  ASSERT_TRUE(replica.AddBodies(demo.bodies).ok());

  EXPECT_EQ(RunCli("health" + at).exit_code, 0);

  CliResult worlds = RunCli("worlds --json" + at);
  ASSERT_EQ(worlds.exit_code, 0);
  Json w = ParseJson(worlds);
  ASSERT_EQ(w["worlds"].size(), 1u);
  EXPECT_EQ(w["worlds"][0]["world_id"], "demo");
  EXPECT_EQ(w["worlds"][0]["body_count"], demo.bodies.size());

  // The README's example ray.
  CliResult ray = RunCli("ray --world demo 0 10 0 -20 --json" + at);
  ASSERT_EQ(ray.exit_code, 0);
  Json r = ParseJson(ray);
  const std::optional<CastHit> core = replica.CastRayClosest({Vd(0, 10), Vd(0, -20), kFixedOne});
  ASSERT_TRUE(core.has_value());
  ASSERT_EQ(r["hits"].size(), 1u);
  EXPECT_EQ(r["hits"][0]["body_id"], core->shape.body_id);
  EXPECT_EQ(r["hits"][0]["raw"]["fraction"], core->fraction.raw());
  EXPECT_EQ(r["hits"][0]["raw"]["point"][0], core->point.x.raw());
  EXPECT_EQ(r["hits"][0]["raw"]["normal"][1], core->normal.y.raw());

  CliResult overlap = RunCli("overlap circle -20 1 2 --json" + at);
  ASSERT_EQ(overlap.exit_code, 0);
  const std::vector<ShapeRef> shapes = replica.OverlapShape(Shape::FromCircle({Vec2{}, Fixed::FromInt(2)}), {Vd(-20, 1), kRotIdentity});
  ASSERT_EQ(ParseJson(overlap)["shapes"].size(), shapes.size());

  CliResult sweep = RunCli("sweep -30 20 0.5 0 -30 --json" + at);
  ASSERT_EQ(sweep.exit_code, 0);
  const std::optional<CastHit> swept =
      replica.CastShapeClosest(Shape::FromCircle({Vec2{}, Fixed::FromDouble(0.5)}), {Vd(-30, 20), kRotIdentity}, Vd(0, -30));
  ASSERT_TRUE(swept.has_value());
  EXPECT_EQ(ParseJson(sweep)["hits"][0]["raw"]["fraction"], swept->fraction.raw());

  // Steps in chunks, with progress on stderr.
  CliResult step = RunCli("step 150 --chunk 40" + at, /*merge=*/true);
  ASSERT_EQ(step.exit_code, 0);
  EXPECT_NE(step.output.find("step: ticks: 150/150"), std::string::npos) << step.output;
  for (int i = 0; i < 150; ++i) replica.Step();
  Json hash = ParseJson(RunCli("hash --json" + at));
  EXPECT_EQ(hash["tick"], 150);
  EXPECT_EQ(hash["state_hash"], Hex(replica.StateHash()));

  // Snapshot, step on, restore: back to tick 150.
  TempDir dir;
  const std::string file = dir.File("demo.snapshot");
  ASSERT_EQ(RunCli("snapshot " + file + at).exit_code, 0);
  ASSERT_EQ(RunCli("step 10" + at).exit_code, 0);
  // --yes: restoring over a world with bodies asks first (stdin is no terminal here).
  Json restored = ParseJson(RunCli("restore " + file + " --yes --json" + at));
  EXPECT_EQ(restored["tick"], 150);
  EXPECT_EQ(restored["state_hash"], Hex(replica.StateHash()));

  // A scene uploaded by the CLI in batches hashes like the in-process load.
  CliResult load = RunCli("load " + scenes + "/rain-2k.scene.json --world rain --batch 500 --json" + at, false);
  ASSERT_EQ(load.exit_code, 0) << load.output;
  scene::Scene rain;
  ASSERT_TRUE(scene::LoadSceneFile(scenes + "/rain-2k.scene.json", &rain).ok());
  rain.world.max_bodies = uint32_t{1} << 20;
  World rain_replica(rain.world);
  ASSERT_TRUE(rain_replica.AddBodies(rain.bodies).ok());
  EXPECT_EQ(ParseJson(load)["state_hash"], Hex(rain_replica.StateHash()));

  // Errors: the status code and the field on stderr, exit code 1.
  CliResult missing = RunCli("ray --world nope 0 0 1 1" + at, /*merge=*/true);
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("NOT_FOUND: world_id: no world 'nope'"), std::string::npos) << missing.output;
  CliResult usage = RunCli("ray 1 2" + at, /*merge=*/true);
  EXPECT_EQ(usage.exit_code, 2);
  CliResult unreachable = RunCli("health --server 127.0.0.1:1 --timeout_ms 2000", /*merge=*/true);
  EXPECT_EQ(unreachable.exit_code, 1);

  server.Signal(SIGTERM);
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(ProcessTest, Sigterm_EndsStreamsCleanly_AndExitsZero) {
  ServerProcess server({"--scene=" + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(server.address());
  std::unique_ptr<client::EventWatch> watch = c->WatchEvents("demo");

  // Step until the watch delivers a tick: from then on the stream is live
  // on the server (no guessing how long subscribing takes).
  std::atomic<bool> seen{false};
  std::thread stepper([&] {
    v1::StepRequest request;
    request.set_world_id("demo");
    request.set_ticks(1);
    while (!seen.load()) {
      if (!c->Step(request).ok()) return;
    }
  });
  std::optional<v1::TickEvents> first = watch->Next();
  seen = true;
  stepper.join();
  ASSERT_TRUE(first.has_value());
  EXPECT_GE(first->tick(), 1);

  server.Signal(SIGTERM);
  while (watch->Next().has_value()) {
  }
  // Ended by the server's shutdown, not by a broken connection.
  EXPECT_THAT(watch->Finish(), StatusIs(absl::StatusCode::kUnavailable, "server shutting down"));
  // Close our connection: a graceful shutdown waits for idle clients to
  // acknowledge its GOAWAY, which an idle gRPC client does only on its
  // backup poll (every 5 s).
  watch.reset();
  c.reset();
  const int status = server.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// A second server on a port that is taken refuses to start (gRPC would
// otherwise share it through SO_REUSEPORT and split the calls).
TEST(ProcessTest, SecondServer_OnATakenPort_RefusesToStart) {
  ServerProcess first({});
  ASSERT_GT(first.port(), 0) << first.first_line();
  ServerProcess second({"--listen=" + first.address()});
  const int status = second.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  EXPECT_EQ(second.port(), 0) << second.first_line();
  EXPECT_TRUE(second.WaitForStderr("cannot listen on '" + first.address() + "'")) << second.stderr_text();
  // The first one still answers every call.
  std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(first.address());
  EXPECT_THAT(c->ListWorlds(v1::ListWorldsRequest()), IsOk());
}

// A second server on a data directory in use refuses to start; once the
// holder dies (SIGKILL: no clean-up of its own), the kernel has released the
// lock and a new server starts on the directory.
TEST(ProcessTest, SecondServer_OnADataDirInUse_RefusesToStart_UntilTheHolderDies) {
  TempDir dir;
  ServerProcess first({"--data_dir=" + dir.path()});
  ASSERT_GT(first.port(), 0) << first.first_line();
  ServerProcess second({"--data_dir=" + dir.path()});
  const int status = second.Wait();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << status;
  EXPECT_EQ(second.port(), 0) << second.first_line();
  EXPECT_TRUE(second.WaitForStderr("is in use by another arbiter-server")) << second.stderr_text();

  first.Signal(SIGKILL);
  first.Wait();
  ServerProcess third({"--data_dir=" + dir.path()});
  EXPECT_GT(third.port(), 0) << third.first_line() << third.stderr_text();
}

}  // namespace
}  // namespace arbiter::testing

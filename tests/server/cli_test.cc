// The `arbiter` CLI as a process (issue 14): a command for every RPC,
// --at on queries, help as people type it, suggestions for typos, usage
// errors that name the argument, --yes on destructive commands, and
// messages that say what went wrong and what to do. Against a live
// arbiter-server on a free port.
#include <atomic>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "server_process.h"
#include "test_support.h"
#include "testing/temp_dir.h"

namespace arbiter::testing {
namespace {

using Json = nlohmann::json;
using ::testing::HasSubstr;
using ::testing::Not;

Json ParseJson(const CliResult& r) {
  Json j = Json::parse(r.output, nullptr, /*allow_exceptions=*/false);
  EXPECT_FALSE(j.is_discarded()) << "not JSON: " << r.output;
  return j;
}

// ---- Help, suggestions and usage errors (no server needed) ----------------------------

TEST(CliTest, Help_WorksAsPeopleTypeIt) {
  for (const char* form : {"help ray", "ray --help", "ray -h", "ray 1 2 --help"}) {
    const CliResult r = RunCli(form, /*merge=*/true);
    EXPECT_EQ(r.exit_code, 0) << form;
    EXPECT_THAT(r.output, HasSubstr("usage: arbiter ray OX OY TX TY")) << form;
    EXPECT_THAT(r.output, HasSubstr("--at TICK[:FRACTION]")) << form;
    EXPECT_THAT(r.output, HasSubstr("--server HOST[:PORT]")) << form;
  }
  for (const char* form : {"help", "--help", "-h"}) {
    const CliResult r = RunCli(form, /*merge=*/true);
    EXPECT_EQ(r.exit_code, 0) << form;
    // Every command is listed, the new ones included.
    for (const char* command :
         {"create", "add", "remove", "update", "validate", "validate-move", "report-hashes", "export", "watch"}) {
      EXPECT_THAT(r.output, HasSubstr(std::string("\n  ") + command + " ")) << form;
    }
  }
  for (const char* form : {"help validate-move", "validate-move --help"}) {
    const CliResult r = RunCli(form, /*merge=*/true);
    EXPECT_EQ(r.exit_code, 0) << form;
    EXPECT_THAT(r.output, HasSubstr("usage: arbiter validate-move --body ID --tick T --max_speed V [--tolerance D] X1 Y1"))
        << form;
    EXPECT_THAT(r.output, HasSubstr("VALID, CORRECTED or REJECTED")) << form;
    EXPECT_THAT(r.output, HasSubstr("--world ID")) << form;
  }
  const CliResult version = RunCli("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_THAT(version.output, HasSubstr("arbiter 0.1.0"));
}

TEST(CliTest, UnknownCommandOrFlag_SuggestsTheClosest) {
  CliResult r = RunCli("rya 0 0 1 1", /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown command 'rya'; did you mean 'ray'?"));
  r = RunCli("help valdiate", /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("did you mean 'validate'?"));
  r = RunCli("ray 0 0 1 1 --alll", /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("unknown flag --alll; did you mean --all?"));
  r = RunCli("xyzzyplugh", /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, Not(HasSubstr("did you mean")));
}

TEST(CliTest, UsageErrors_NameTheArgument_AndTheRange) {
  // A server that is never reached: usage errors are found before any call.
  const std::string nowhere = " --server 127.0.0.1:1";
  CliResult r = RunCli("ray 0 10 0 -1e300" + nowhere, /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("TY: -1e300 is outside the world-unit range for a translation: "
                                  "[-1073741824, 1073741824] (+-2^30)"));
  EXPECT_THAT(r.output, Not(HasSubstr("raw value")));
  r = RunCli("ray 6e8 10 0 1" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("OX: 6e8 is outside the world-unit range for a coordinate: [-536870912, 536870912]"));
  r = RunCli("ray 0 abc 0 1" + nowhere, /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("OY: 'abc' is not a number"));
  r = RunCli("ray 0 1 2" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("missing TY"));
  r = RunCli("sweep 0 0 -0x1p30 1 1" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("R: -0x1p30 is outside the world-unit range for a shape size"));
  r = RunCli("ray 0 0 1 1 --at 12:1" + nowhere, /*merge=*/true);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("at.fraction: 1 is outside [0, 1)"));
  r = RunCli("ray 0 0 1 1 --at 0.9999999999999999" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("--at: tick '0.9999999999999999' is not a tick number"));
  r = RunCli("validate 1 x 0 0 1 1" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("TARGET: 'x' is not a body id"));
  r = RunCli("add --id 3 --circle 1 --box 1,1" + nowhere, /*merge=*/true);
  EXPECT_THAT(r.output, HasSubstr("give exactly one shape"));
}

TEST(CliTest, LocalFileErrors_AreNotServerErrors) {
  ServerProcess server({"--scene=" + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json"});
  ASSERT_GT(server.port(), 0) << server.first_line();
  const CliResult r = RunCli("snapshot /nonexistent-dir/demo.bin --server " + server.address(), /*merge=*/true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("cannot write local file '/nonexistent-dir/demo.bin': No such file or directory"));
  EXPECT_THAT(r.output, Not(HasSubstr("UNAVAILABLE")));
  const CliResult restore = RunCli("restore /nonexistent-dir/demo.bin --server " + server.address(), /*merge=*/true);
  EXPECT_THAT(restore.output, HasSubstr("cannot read local file '/nonexistent-dir/demo.bin'"));
}

TEST(CliTest, ServerWithoutPort_UsesTheDefaultPort_AndSaysWhatToDo) {
  // Nothing listens on 127.0.0.2 (servers here bind 127.0.0.1).
  const CliResult r = RunCli("hash --server 127.0.0.2 --timeout_ms 3000", /*merge=*/true);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("is arbiter-server running at 127.0.0.2:50051?"));
}

// ---- Every RPC against a live server --------------------------------------------------

class CliServerTest : public ::testing::Test {
 protected:
  CliServerTest()
      : server_({"--scene_dir=" + std::string(ARBITER_SCENES_DIR), "--data_dir=" + dir_.path()}),
        at_(" --server " + server_.address()) {}

  void SetUp() override {
    ASSERT_GT(server_.port(), 0) << server_.first_line();
    // A journaled server takes changes once its (empty) journal is read.
    ASSERT_TRUE(server_.WaitUntilRecovered()) << server_.stderr_text();
  }

  CliResult Cli(const std::string& args, bool merge = true) { return RunCli(args + at_ + " < /dev/null", merge); }
  Json CliJson(const std::string& args) {
    const CliResult r = Cli(args + " --json", /*merge=*/false);
    EXPECT_EQ(r.exit_code, 0) << args << ": " << r.output;
    return ParseJson(r);
  }
  std::string WriteFile(const std::string& name, const std::string& text) {
    const std::string path = dir_.File(name);
    std::ofstream(path) << text;
    return path;
  }

  TempDir dir_;
  ServerProcess server_;
  std::string at_;
};

TEST(CliTest, Info_PrintsTheServersVersionAndLimits) {
  ServerProcess server({"--max_batch=321", "--data_dir="});
  ASSERT_GT(server.port(), 0) << server.first_line();
  const CliResult r = RunCli("info --json --server " + server.address(), /*merge=*/false);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const Json info = ParseJson(r);
  EXPECT_EQ(info["version"], ARBITER_VERSION);
  EXPECT_EQ(info["limits"]["max_batch"], 321);
  const CliResult text = RunCli("info --server " + server.address(), /*merge=*/false);
  EXPECT_THAT(text.output, HasSubstr("max_batch: 321"));
}

TEST_F(CliServerTest, CreateAddUpdateRemove_AndDescribeShapes) {
  CliResult r = Cli("create --world w --gravity 0,-10 --tick_hz 30 --history_ticks 90");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  Json d = CliJson("describe --world w");
  EXPECT_EQ(d["tick_hz"], 30);
  EXPECT_EQ(d["gravity"][1], -10.0);
  EXPECT_EQ(d["history_ticks"], 90);

  ASSERT_EQ(Cli("add --world w --id 1 --type static --box 10,0.5").exit_code, 0);
  const std::string bodies = WriteFile(
      "bodies.json",
      R"({"bodies": [{"id": 2, "type": "dynamic", "position": {"x": 0, "y": 3}, "shapes": [{"circle": {"center": {"x": 0, "y": 0}, "radius": 0.5}}]},
                     {"id": 3, "type": "kinematic", "position": {"x": 5, "y": 3}, "shapes": [{"capsule": {"p1": {"x": 0, "y": 0}, "p2": {"x": 1, "y": 0}, "radius": 0.25}}]}]})");
  r = Cli("add " + bodies + " --world w");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("added 2 bodies"));
  // A bad body file names the JSON path.
  const std::string bad = WriteFile("bad.json", R"({"bodies": [{"id": 9, "type": "dynamic", "position": {"x": 0, "y": 0}, "shapes": [{"circle": {"center": {"x": 0, "y": 0}, "radius": -1}}]}]})");
  r = Cli("add " + bad + " --world w");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("bodies[0].shapes[0].circle.radius"));

  d = CliJson("describe --world w --shapes");
  ASSERT_EQ(d["bodies"].size(), 3u);
  EXPECT_EQ(d["bodies"][0]["shapes"][0]["kind"], "polygon");
  EXPECT_EQ(d["bodies"][0]["shapes"][0]["points"].size(), 4u);
  EXPECT_EQ(d["bodies"][1]["shapes"][0]["kind"], "circle");
  EXPECT_EQ(d["bodies"][1]["shapes"][0]["radius"], 0.5);
  EXPECT_EQ(d["bodies"][2]["shapes"][0]["kind"], "capsule");
  EXPECT_EQ(d["bodies"][2]["shapes"][0]["p2"][0], 1.0);

  ASSERT_EQ(Cli("update 3 --world w --position 7,4 --velocity 1,0").exit_code, 0);
  const std::string updates = WriteFile("updates.json", R"({"updates": [{"id": 2, "position": {"x": -2, "y": 6}}]})");
  ASSERT_EQ(Cli("update " + updates + " --world w").exit_code, 0);
  d = CliJson("describe --world w --bodies");
  EXPECT_EQ(d["bodies"][1]["position"][0], -2.0);
  EXPECT_EQ(d["bodies"][2]["position"][0], 7.0);
  EXPECT_EQ(d["bodies"][2]["linear_velocity"][0], 1.0);
  r = Cli("update 1 --world w --velocity 1,0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("FAILED_PRECONDITION"));

  ASSERT_EQ(Cli("remove 2 3 --world w").exit_code, 0);
  EXPECT_EQ(CliJson("describe --world w")["body_count"], 1);

  // From a local scene file, and from the server's --scene_dir.
  ASSERT_EQ(Cli("create " + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json --world local").exit_code, 0);
  ASSERT_EQ(Cli("create --scene demo.scene.json --world remote").exit_code, 0);
  EXPECT_EQ(CliJson("hash --world local")["state_hash"], CliJson("hash --world remote")["state_hash"]);
  EXPECT_GT(CliJson("describe --world local")["body_count"], 1);
}

// --sleep: a box resting on the ground sleeps after half a second; a
// velocity wakes it. Without the flag nothing sleeps.
TEST_F(CliServerTest, CreateSleep_ARestingBoxSleeps_AndAnUpdateWakesIt) {
  for (const std::string world : {"sleepy", "awake"}) {
    const std::string flag = world == "sleepy" ? " --sleep" : "";
    ASSERT_EQ(Cli("create --world " + world + " --gravity 0,-10 --tick_hz 60" + flag).exit_code, 0);
    EXPECT_EQ(CliJson("describe --world " + world)["allow_sleep"], world == "sleepy");
    ASSERT_EQ(Cli("add --world " + world + " --id 1 --type static --position 0,-1 --box 10,1").exit_code, 0);
    ASSERT_EQ(Cli("add --world " + world + " --id 2 --type dynamic --position 0,0.5 --box 0.5,0.5").exit_code, 0);
    ASSERT_EQ(Cli("step --world " + world + " 60").exit_code, 0);
    const Json d = CliJson("describe --world " + world + " --bodies");
    EXPECT_EQ(d["bodies"][0]["asleep"], false);
    EXPECT_EQ(d["bodies"][1]["asleep"], world == "sleepy");
  }
  ASSERT_EQ(Cli("update 2 --world sleepy --velocity 1,0").exit_code, 0);
  EXPECT_EQ(CliJson("describe --world sleepy --bodies")["bodies"][1]["asleep"], false);
  EXPECT_THAT(Cli("describe --world awake --bodies").output, Not(HasSubstr("asleep")));
}

// --sub_steps and --contact_hertz: kept and described (JSON and text); out
// of range, the server's INVALID_ARGUMENT names the field and no world is made.
TEST_F(CliServerTest, CreateSolverSettings_AreDescribed_AndCheckedByTheServer) {
  ASSERT_EQ(Cli("create --world stiff --sub_steps 8 --contact_hertz 120").exit_code, 0);
  ASSERT_EQ(Cli("create --world plain").exit_code, 0);
  Json d = CliJson("describe --world stiff");
  EXPECT_EQ(d["sub_steps"], 8);
  EXPECT_EQ(d["contact_hertz"], 120);
  d = CliJson("describe --world plain");
  EXPECT_EQ(d["sub_steps"], 4);
  EXPECT_EQ(d["contact_hertz"], 30);
  EXPECT_THAT(Cli("describe --world stiff").output, HasSubstr("8 sub-steps, contact 120 Hz"));
  const CliResult bad = Cli("create --world bad --sub_steps 0");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_THAT(bad.output, HasSubstr("INVALID_ARGUMENT"));
  EXPECT_THAT(bad.output, HasSubstr("sub_steps: must be in 1..32"));
  EXPECT_EQ(Cli("describe --world bad").exit_code, 1);
}

// A target moving up at 6 units/s, judged now and in the past.
TEST_F(CliServerTest, PastTicks_Validate_AndReportHashes) {
  const CliResult created = Cli("create --world p --history_ticks 120");
  ASSERT_EQ(created.exit_code, 0) << created.output;
  ASSERT_EQ(Cli("add --world p --id 1 --type kinematic --position -20,0 --circle 0.5").exit_code, 0);
  ASSERT_EQ(Cli("add --world p --id 2 --type kinematic --position 10,0 --velocity 0,6 --circle 1").exit_code, 0);
  ASSERT_EQ(Cli("step 30 --world p").exit_code, 0);

  // At tick 10 the target was at (10, 1); now it is at (10, 3).
  Json past = CliJson("ray -20 1 40 0 --world p --at 10");
  EXPECT_EQ(past["tick"], 10);
  ASSERT_EQ(past["hits"].size(), 1u);
  EXPECT_EQ(past["hits"][0]["body_id"], 2);
  EXPECT_EQ(CliJson("ray -20 1 40 0 --world p")["hits"].size(), 0u);
  // Half way to tick 11 the target spans y in [0.05, 2.05]: (10, 2.03) is
  // inside then, and not at tick 10 itself.
  Json half = CliJson("overlap point 10 2.03 --world p --at 10:0.5");
  EXPECT_EQ(half["tick_fraction"], int64_t{1} << 31);
  EXPECT_EQ(half["shapes"].size(), 1u);
  EXPECT_EQ(CliJson("overlap point 10 2.03 --world p --at 10")["shapes"].size(), 0u);
  EXPECT_EQ(CliJson("sweep -20 1 0.1 40 0 --world p --at 10")["hits"][0]["body_id"], 2);

  CliResult r = Cli("validate 1 2 -20 0 30 1 --world p --at 10");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("shot by body 1 at body 2: CONFIRMED"));
  EXPECT_THAT(r.output, HasSubstr("target hit: body 2"));
  Json now = CliJson("validate 1 2 -20 0 30 1 --world p");
  EXPECT_EQ(now["verdict"], "MISSED");
  EXPECT_EQ(now["tick"], 30);

  r = Cli("ray 0 0 1 1 --world p --at 500");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("OUT_OF_RANGE: at.tick"));
  EXPECT_THAT(r.output, HasSubstr("`arbiter describe` shows"));

  const Json hash = CliJson("hash --world p");
  r = Cli("report-hashes 30 " + hash["state_hash"].get<std::string>() + " --world p");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("in sync"));
  r = Cli("report-hashes 29 0x1 0x2 --world p");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_THAT(r.output, HasSubstr("DIVERGED from tick 29"));
}

TEST_F(CliServerTest, DestructiveCommands_WantYes_AndSayWhatTheyDestroy) {
  ASSERT_EQ(Cli("create " + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json --world d").exit_code, 0);
  const Json before = CliJson("describe --world d");
  const std::string what = "world 'd' (tick 0, " + std::to_string(before["body_count"].get<int>()) + " bodies)";

  CliResult r = Cli("delete --world d");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("this would delete " + what + "; stdin is not a terminal, so pass --yes"));
  EXPECT_EQ(CliJson("describe --world d")["body_count"], before["body_count"]);

  const std::string file = dir_.File("d.snapshot");
  ASSERT_EQ(Cli("snapshot " + file + " --world d").exit_code, 0);
  ASSERT_EQ(Cli("step 5 --world d").exit_code, 0);
  r = Cli("restore " + file + " --world d");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("this would replace world 'd' (tick 5,"));
  EXPECT_EQ(CliJson("hash --world d")["tick"], 5);
  EXPECT_EQ(CliJson("restore " + file + " --world d --yes")["tick"], 0);

  r = Cli("delete --world d --yes");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Cli("describe --world d");
  EXPECT_THAT(r.output, HasSubstr("NOT_FOUND"));
  EXPECT_THAT(r.output, HasSubstr("`arbiter worlds` lists the server's worlds"));
}

TEST_F(CliServerTest, Export_WritesTheJournal_ThatReplayVerifies) {
  ASSERT_EQ(Cli("create " + std::string(ARBITER_SCENES_DIR) + "/demo.scene.json --world e").exit_code, 0);
  ASSERT_EQ(Cli("step 20 --world e").exit_code, 0);
  const std::string file = dir_.File("e.arbjournal");
  CliResult r = Cli("export " + file + " --world e");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = RunCli("replay verify " + file);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = Cli("export /nonexistent-dir/e.arbjournal --world e");
  EXPECT_THAT(r.output, HasSubstr("cannot write local file"));
}

// move (MoveShapes): a disk sent into the wall whose face is at x = 5 stops
// a skin (1/64) short of it; sent diagonally it slides along it; --at asks
// the world before the wall was added.
TEST_F(CliServerTest, OverlapContactsAndDistance_PrintTheWayOutAndTheNearest) {
  ASSERT_EQ(Cli("create --world c --tick_hz 60 --history_ticks 120").exit_code, 0);
  ASSERT_EQ(Cli("add --world c --id 7 --type static --position 0,0 --box 2,1").exit_code, 0);
  ASSERT_EQ(Cli("add --world c --id 9 --type static --position 10,0 --circle 1").exit_code, 0);

  CliResult r = Cli("overlap circle 0 1.5 1 --contacts --world c");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("1 shape(s) overlap"));
  EXPECT_THAT(r.output, HasSubstr("body 7 shape 0  depth 0.5  normal (0, -1)  push-out (0, 0.5)  point(s) (0, 0.75)"));
  Json j = CliJson("overlap circle 0 1.5 1 --contacts --world c");
  ASSERT_EQ(j["contacts"].size(), 1u);
  EXPECT_EQ(j["contacts"][0]["raw"]["depth"], int64_t{1} << 31);
  EXPECT_EQ(j["contacts"][0]["push_out"][1], 0.5);
  r = Cli("overlap point 0 0 --contacts --world c");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--contacts needs a shape"));

  r = Cli("distance 6 0 --circle 1 --max_distance 10 --world c");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("2 body(ies) near"));
  EXPECT_THAT(r.output, HasSubstr("body 9 shape 0  distance 2  from (7, 0) to (9, 0)  normal (1, 0)"));
  EXPECT_THAT(r.output, HasSubstr("body 7 shape 0  distance 3"));
  j = CliJson("distance 0 1.5 --circle 1 --max_distance 0 --world c");
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["distance"], 0.0);
  EXPECT_EQ(j["hits"][0]["depth"], 0.5);
  r = Cli("distance 6 0 --circle 1 --max_results 1 --world c");
  EXPECT_THAT(r.output, HasSubstr("1 body(ies) near"));
  r = Cli("distance 6 0 --circle 1 --max_results 999 --world c");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--max_results must be a whole number in 1..256"));
  r = Cli("distance 6 0 --world c");
  EXPECT_EQ(r.exit_code, 2);
}

TEST_F(CliServerTest, Move_PrintsWhereTheShapeEndsAndWhatItMet) {
  ASSERT_EQ(Cli("create --world s --tick_hz 60 --history_ticks 120").exit_code, 0);
  ASSERT_EQ(Cli("step 5 --world s").exit_code, 0);
  ASSERT_EQ(Cli("add --world s --id 2 --type static --position 6,0 --box 1,10").exit_code, 0);
  ASSERT_EQ(Cli("step 5 --world s").exit_code, 0);

  CliResult r = Cli("move 0 -5 10 0 --circle 0.5 --world s");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("world s, tick 10: from (0, -5) by (10, 0)"));
  EXPECT_THAT(r.output, HasSubstr("ends at:  (4.484375, -5)"));
  EXPECT_THAT(r.output, HasSubstr("blocked"));
  EXPECT_THAT(r.output, HasSubstr("met:      body 2 shape 0  normal (-1, 0)  point (5, "));
  Json j = CliJson("move 0 -5 10 4 --box 0.5,0.5 --world s");
  EXPECT_EQ(j["blocked"], false);
  EXPECT_NEAR(j["raw"]["position"][0].get<int64_t>(), int64_t{287} << 26, 8);  // 4.484375, to a few raw units
  EXPECT_EQ(j["raw"]["position"][1], -(int64_t{1} << 32));
  EXPECT_EQ(j["planes"].size(), 1u);
  j = CliJson("move 0 -5 10 0 --circle 0.5 --world s --at 3");
  EXPECT_EQ(j["blocked"], false);
  EXPECT_EQ(j["raw"]["position"][0], int64_t{10} << 32);
  EXPECT_EQ(j["planes"].size(), 0u);

  r = Cli("move 0 -5 10 --circle 0.5 --world s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("missing TY"));
  r = Cli("move 0 -5 10 0 --world s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("give exactly one shape"));
  r = Cli("move 0 -5 3e8 0 --circle 0.5 --world s");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("TX: 3e8 is outside the world-unit range for a move translation"));
  r = Cli("move 0 -5 10 0 --circle 0.5 --world s --skin 2");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("skin: must be in [2^-16, 1] units"));
}

// validate-move, as tests/server/move_service_test.cc: at 60 Hz a disk of
// radius 0.5 at the origin and a wall whose face is at x = 5, judged from
// tick 10 of 60.
// The docs' rocket: fired at tick 10 it meets the walker where it was at
// tick 14; fired now it flies past where the walker is not. Sent again, the
// first judgement comes back.
TEST_F(CliServerTest, ValidateShot_PrintsTheVerdictAndTheFlight) {
  ASSERT_EQ(Cli("create --world range --tick_hz 60 --history_ticks 120").exit_code, 0);
  ASSERT_EQ(Cli("add --world range --id 1 --type kinematic --circle 0.5").exit_code, 0);
  ASSERT_EQ(Cli("add --world range --id 2 --type kinematic --position 10,-1 --velocity 0,6 --circle 0.5").exit_code, 0);
  ASSERT_EQ(Cli("step 60 --world range").exit_code, 0);
  const std::string rocket = "validate-shot --world range --shooter 1 --target 2 --flight_ticks 30 ";
  CliResult r = Cli(rocket + "--shot 1 --fire 10 --impact_tick 14 0 0 120 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("world range, tick 60: shot 1 of body 1 fired at tick 10: CONFIRMED\n"));
  EXPECT_THAT(r.output, HasSubstr("met:      body 2 shape 0  t=0.8499"));  // met at x = 9.7 of the stretch 8..10
  EXPECT_THAT(r.output, HasSubstr("at tick 14 + 0.8499"));
  EXPECT_THAT(r.output, HasSubstr("flight:   HIT at tick 14 + 0.8499"));
  EXPECT_THAT(r.output, HasSubstr("reason:   the target is met at tick 14.850"));
  EXPECT_THAT(r.output, HasSubstr("5 tick(s) traced"));
  r = Cli(rocket + "--shot 2 --fire 60 --impact_tick 64 0 0 120 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("fired at tick 60: MISSED\n"));
  EXPECT_THAT(r.output, HasSubstr("flight:   CURRENT_TICK at tick 61, at (2, 0), 1 tick(s) traced"));
  Json j = CliJson(rocket + "--shot 1 --fire 10 --impact_tick 99 0 0 120 0");
  EXPECT_EQ(j["verdict"], "CONFIRMED") << "the first judgement of shot 1, not a new one";
  EXPECT_EQ(j["duplicate"], true);
  EXPECT_EQ(j["impact"]["tick"], 14);
  EXPECT_EQ(j["hit"]["body_id"], 2);
  j = CliJson(rocket + "--shot 3 --fire 10 --impact_tick 14 --max_rewind_ticks 20 0 0 120 0");
  EXPECT_EQ(j["verdict"], "TOO_OLD");
  EXPECT_EQ(j["oldest_allowed_tick"], 40);
  r = Cli(rocket + "--shot 4 --fire 10 --impact_tick 14 0 0 120");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_THAT(r.output, HasSubstr("missing VY"));
  r = Cli(rocket + "--shot 4 --fire 99 --impact_tick 14 0 0 120 0");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_THAT(r.output, HasSubstr("shots[0].fire.tick: 99 is after the current tick 60"));
}

TEST_F(CliServerTest, ValidateMove_PrintsTheVerdictAndItsEvidence) {
  ASSERT_EQ(Cli("create --world m --tick_hz 60 --history_ticks 120").exit_code, 0);
  ASSERT_EQ(Cli("add --world m --id 1 --type kinematic --circle 0.5").exit_code, 0);
  ASSERT_EQ(Cli("add --world m --id 2 --type static --position 6,0 --box 1,10").exit_code, 0);
  ASSERT_EQ(Cli("step 60 --world m").exit_code, 0);
  const std::string rules = " --world m --body 1 --tick 10 --max_speed 300 --tolerance 0.01";  // 5 units a tick

  CliResult r = Cli("validate-move" + rules + " -1 0.5 -2 1 -3 1.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("world m, tick 60: body 1 from tick 10, 3 position(s): VALID at tick 13"));
  EXPECT_THAT(r.output, HasSubstr("accepted: (-3, 1.5)"));
  Json j = CliJson("validate-move" + rules + " -1 0.5 -2 1 -3 1.5");
  EXPECT_EQ(j["verdict"], "VALID");
  EXPECT_EQ(j["judged_tick"], 13);
  EXPECT_EQ(j["raw"]["accepted_position"][0], -(int64_t{3} << 32));
  EXPECT_EQ(j["raw"]["accepted_position"][1], int64_t{3} << 31);
  EXPECT_EQ(j["planes"].size(), 0u);

  // Through the wall: stopped skin-clear (1/64) of its face at tick 13.
  r = Cli("validate-move" + rules + " 2 0 4 0 6 0 8 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("4 position(s): CORRECTED at tick 13"));
  EXPECT_THAT(r.output, HasSubstr("claimed:  (6, 0)"));
  EXPECT_THAT(r.output, HasSubstr("accepted: (4.484375, 0)  (snap the player back here)"));
  EXPECT_THAT(r.output, HasSubstr("met:      body 2 shape 0  normal (-1, 0)  point (5, "));
  EXPECT_THAT(r.output, HasSubstr("reason:   claimed position at tick 13"));
  EXPECT_THAT(r.output, HasSubstr("the server's move was blocked"));
  j = CliJson("validate-move" + rules + " 2 0 4 0 6 0 8 0");
  EXPECT_EQ(j["verdict"], "CORRECTED");
  EXPECT_EQ(j["raw"]["accepted_position"][0], int64_t{287} << 26);  // 4.484375
  EXPECT_EQ(j["raw"]["claimed_position"][0], int64_t{6} << 32);
  ASSERT_EQ(j["planes"].size(), 1u);
  EXPECT_EQ(j["planes"][0]["body_id"], 2);
  EXPECT_EQ(j["planes"][0]["raw"]["normal"][0], -(int64_t{1} << 32));
  EXPECT_EQ(j["planes"][0]["raw"]["point"][0], int64_t{5} << 32);
  EXPECT_EQ(j["blocked"], true);

  // 7 units in one tick; the flags spelt with dashes.
  const std::string dashed = " --world m --body 1 --tick 10 --max-speed 300";
  r = Cli("validate-move" + dashed + " -1 0 -8 0 -9 0");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_THAT(r.output, HasSubstr("REJECTED at tick 12"));
  EXPECT_THAT(r.output, HasSubstr("accepted: (-1, 0)  (the last accepted position)"));
  EXPECT_THAT(r.output, HasSubstr("step:     7 units, at most 5 a tick"));
  EXPECT_THAT(r.output, HasSubstr("reason:   step of 7.000 units into tick 12 exceeds the 5.000"));
  j = CliJson("validate-move" + dashed + " -1 0 -8 0 -9 0");
  EXPECT_EQ(j["raw"]["step_length"], int64_t{7} << 32);
  EXPECT_EQ(j["raw"]["max_step"], int64_t{5} << 32);
  EXPECT_EQ(j["step_length"], 7.0);
  EXPECT_EQ(CliJson("validate-move" + dashed + " -1 0 -8 0 -9 0 --max-speed 420")["verdict"], "VALID");

  // Usage errors name the argument; the server's name the field.
  r = Cli("validate-move --world m --tick 10 --max_speed 300 1 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("missing --body"));
  r = Cli("validate-move" + rules + " 1 0 2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("missing Y2"));
  r = Cli("validate-move" + rules);
  EXPECT_THAT(r.output, HasSubstr("missing X1 Y1"));
  r = Cli("validate-move" + rules + " 1 6e8");
  EXPECT_THAT(r.output, HasSubstr("Y1: 6e8 is outside the world-unit range for a coordinate"));
  r = Cli("validate-move --world m --body 1 --tick 10 --max_speed 0 1 0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.output, HasSubstr("--max_speed: 0 is not a speed above 0"));
  r = Cli("validate-move --world m --body 1 --tick 10 --max_speed 300 --max_iterations 17 1 0");
  EXPECT_THAT(r.output, HasSubstr("--max_iterations: '17' is not an iteration limit (1..16)"));
  r = Cli("validate-move --world m --body 9 --tick 10 --max_speed 300 1 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("NOT_FOUND: claims[0].body_id: no body 9"));
  r = Cli("validate-move --world m --body 1 --tick 59 --max_speed 300 1 0 2 0");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.output, HasSubstr("OUT_OF_RANGE: claims[0].positions: 2 positions from tick 59 reach past"));
  r = Cli("validate-move" + rules + " --skin 2 1 0");
  EXPECT_THAT(r.output, HasSubstr("OUT_OF_RANGE: skin: must be in [2^-16, 1] units"));
}

// watch prints the pairs, not counts: a disk is teleported onto the floor
// and off again every tick, so every tick has a contact begin or end.
TEST_F(CliServerTest, Watch_SaysWhenConnected_AndPrintsThePairs) {
  ASSERT_EQ(Cli("create --world v").exit_code, 0);
  ASSERT_EQ(Cli("add --world v --id 1 --type static --box 10,0.5").exit_code, 0);
  ASSERT_EQ(Cli("add --world v --id 2 --type dynamic --position 0,20 --circle 0.5").exit_code, 0);
  std::atomic<bool> done{false};
  CliResult watched;
  std::thread watcher([&] {
    watched = Cli("watch --world v --count 4");
    done = true;
  });
  std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(server_.address());
  // Steps until the watch has seen its ticks (no guess of how long it takes
  // to subscribe).
  for (int i = 0; !done.load(); ++i) {
    v1::UpdateBodiesRequest move;
    move.set_world_id("v");
    v1::BodyUpdate* u = move.add_updates();
    u->set_body_id(2);
    *u->mutable_transform() = client::MakeTransform(0, i % 2 == 0 ? 0.75 : 20);
    ASSERT_THAT(c->UpdateBodies(move), IsOk());
    v1::StepRequest step;
    step.set_world_id("v");
    step.set_ticks(1);
    ASSERT_THAT(c->Step(step), IsOk());
  }
  watcher.join();
  EXPECT_EQ(watched.exit_code, 0) << watched.output;
  EXPECT_THAT(watched.output, HasSubstr("connected to " + server_.address() + ": watching world v"));
  EXPECT_THAT(watched.output, HasSubstr("contact begin  body 1 shape 0 - body 2 shape 0"));
  EXPECT_THAT(watched.output, HasSubstr("contact end    body 1 shape 0 - body 2 shape 0"));
}

}  // namespace
}  // namespace arbiter::testing

// The determinism runner's integer-only scene reader against the scene
// library's loader (nlohmann JSON, numbers through double): both must give
// the same bits for the standard files.
#include <gtest/gtest.h>

#include "arbiter/scene/scene.h"
#include "json_reader.h"
#include "scene_reader.h"

namespace arbiter::determinism {
namespace {

const std::string kDir = std::string(ARBITER_SCENES_DIR) + "/";

TEST(ParseFixedRaw, ExactDecimals) {
  int64_t raw = 0;
  ASSERT_TRUE(ParseFixedRaw("0", &raw));
  EXPECT_EQ(raw, 0);
  ASSERT_TRUE(ParseFixedRaw("-0.0", &raw));
  EXPECT_EQ(raw, 0);
  ASSERT_TRUE(ParseFixedRaw("1", &raw));
  EXPECT_EQ(raw, int64_t{1} << 32);
  ASSERT_TRUE(ParseFixedRaw("-10.0", &raw));
  EXPECT_EQ(raw, -(int64_t{10} << 32));
  ASSERT_TRUE(ParseFixedRaw("-1393.0068359375", &raw));  // -1393 - 7/1024
  EXPECT_EQ(raw, -((int64_t{1393} << 32) + (int64_t{7} << 22)));
  ASSERT_TRUE(ParseFixedRaw("0.0009765625", &raw));
  EXPECT_EQ(raw, int64_t{1} << 22);
  ASSERT_TRUE(ParseFixedRaw("9.765625e-4", &raw));
  EXPECT_EQ(raw, int64_t{1} << 22);
  ASSERT_TRUE(ParseFixedRaw("25E2", &raw));
  EXPECT_EQ(raw, int64_t{2500} << 32);
  ASSERT_TRUE(ParseFixedRaw("0.00000095367431640625", &raw));  // 2^-20
  EXPECT_EQ(raw, int64_t{1} << 12);
  // 2^-32 exactly is valid Q32.32 but has 23 significant digits: beyond
  // the reader's documented subset (19 digits), so it is refused, not rounded.
  EXPECT_FALSE(ParseFixedRaw("0.00000000023283064365386962890625", &raw));
  ASSERT_TRUE(ParseFixedRaw("2147483647.5", &raw));
  EXPECT_EQ(raw, (int64_t{2147483647} << 32) + (int64_t{1} << 31));
}

TEST(ParseFixedRaw, RejectsInexactOrMalformed) {
  int64_t raw = 42;
  EXPECT_FALSE(ParseFixedRaw("0.1", &raw));  // not a binary fraction
  EXPECT_FALSE(ParseFixedRaw("0.000000000116415321826934814453125", &raw));  // 2^-33
  EXPECT_FALSE(ParseFixedRaw("2147483648", &raw));  // 2^31
  EXPECT_FALSE(ParseFixedRaw("1.", &raw));
  EXPECT_FALSE(ParseFixedRaw(".5", &raw));
  EXPECT_FALSE(ParseFixedRaw("1e", &raw));
  EXPECT_FALSE(ParseFixedRaw("--1", &raw));
  EXPECT_FALSE(ParseFixedRaw("", &raw));
  EXPECT_EQ(raw, 42);
}

TEST(SceneReader, RejectsTextOutsideTheSubset) {
  SceneData scene;
  std::string error;
  EXPECT_TRUE(ParseSceneText(R"({"format":"arbiter-scene/1","gravity":{"x":0,"y":-10},"bodies":[]})", &scene, &error))
      << error;
  EXPECT_EQ(scene.world.gravity.y, Fixed::FromInt(-10));
  for (const char* bad : {
           R"({"bodies":[1,]})",                     // not a body; trailing comma
           R"({"gravity":{"x":0 "y":1}})",           // missing comma
           R"({"gravity":{"x":0.1,"y":1}})",         // 0.1 is not exact in Q32.32
           R"({"gravity":{"x":0,"y":1})",            // unterminated
           R"({"veloctiy":1})",                      // unknown key
           R"({"format":"arbiter-queries/1"})",      // wrong format
           R"({} x)",                                // trailing text
       }) {
    error.clear();
    EXPECT_FALSE(ParseSceneText(bad, &scene, &error)) << bad;
    EXPECT_FALSE(error.empty()) << bad;
  }
}

void ExpectSameScene(const std::string& file) {
  scene::Scene reference;
  const Status status = scene::LoadSceneFile(kDir + file, &reference);
  ASSERT_TRUE(status.ok()) << status.message();
  SceneData mine;
  std::string error;
  ASSERT_TRUE(LoadScene(kDir + file, &mine, &error)) << error;
  EXPECT_EQ(mine.name, reference.name);
  EXPECT_EQ(mine.steps, reference.steps);
  EXPECT_EQ(mine.world.gravity, reference.world.gravity);
  EXPECT_EQ(mine.world.tick_hz, reference.world.tick_hz);
  ASSERT_EQ(mine.bodies.size(), reference.bodies.size());
  World a(reference.world), b(mine.world);
  ASSERT_TRUE(a.AddBodies(reference.bodies).ok());
  ASSERT_TRUE(b.AddBodies(mine.bodies).ok());
  // The snapshot holds every body field and shape, raw.
  EXPECT_EQ(a.Snapshot(), b.Snapshot());
}

TEST(SceneReader, Rain2kMatchesTheSceneLibrary) { ExpectSameScene("rain-2k.scene.json"); }
TEST(SceneReader, Arena10kMatchesTheSceneLibrary) { ExpectSameScene("arena-10k.scene.json"); }
TEST(SceneReader, DemoMatchesTheSceneLibrary) { ExpectSameScene("demo.scene.json"); }
TEST(SceneReader, TerrainChainsMatchTheSceneLibrary) { ExpectSameScene("terrain.scene.json"); }

TEST(SceneReader, Arena10kQueriesMatchTheSceneLibrary) {
  scene::QuerySet reference;
  const Status status = scene::LoadQuerySetFile(kDir + "arena-10k.queries.json", &reference);
  ASSERT_TRUE(status.ok()) << status.message();
  QueryData mine;
  std::string error;
  ASSERT_TRUE(LoadQueries(kDir + "arena-10k.queries.json", &mine, &error)) << error;
  ASSERT_EQ(mine.rays.size(), reference.rays.size());
  for (size_t i = 0; i < mine.rays.size(); ++i) {
    ASSERT_EQ(mine.rays[i].origin, reference.rays[i].origin) << i;
    ASSERT_EQ(mine.rays[i].translation, reference.rays[i].translation) << i;
    ASSERT_EQ(mine.rays[i].max_fraction, reference.rays[i].max_fraction) << i;
  }
  ASSERT_EQ(mine.aabbs, reference.aabbs);
  ASSERT_EQ(mine.disks.size(), reference.disks.size());
  for (size_t i = 0; i < mine.disks.size(); ++i) {
    ASSERT_EQ(mine.disks[i].center, reference.disks[i].center) << i;
    ASSERT_EQ(mine.disks[i].radius, reference.disks[i].radius) << i;
  }
  ASSERT_EQ(mine.sweeps.size(), reference.sweeps.size());
  for (size_t i = 0; i < mine.sweeps.size(); ++i) {
    ASSERT_EQ(mine.sweeps[i].center, reference.sweeps[i].center) << i;
    ASSERT_EQ(mine.sweeps[i].radius, reference.sweeps[i].radius) << i;
    ASSERT_EQ(mine.sweeps[i].translation, reference.sweeps[i].translation) << i;
  }
}

}  // namespace
}  // namespace arbiter::determinism

#include "arbiter/scene/scene.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace arbiter::scene {
namespace {

const std::string kScenesDir = ARBITER_SCENES_DIR;

// The raw Q32.32 value of a double that is a multiple of 2^-32 (computed in
// double, independently of Fixed::FromDouble: x * 2^32 is exact here).
int64_t RawOf(double x) { return static_cast<int64_t>(x * 4294967296.0); }

Vec2 RawVec(double x, double y) { return {Fixed::FromRaw(RawOf(x)), Fixed::FromRaw(RawOf(y))}; }

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// ---- The standard files ------------------------------------------------------

TEST(StandardScenes, Arena10kLoads) {
  Scene scene;
  const auto start = std::chrono::steady_clock::now();
  const Status status = LoadSceneFile(kScenesDir + "/arena-10k.scene.json", &scene);
  const double seconds = Seconds(start);
  ASSERT_TRUE(status.ok()) << status.message();
  std::printf("arena-10k.scene.json loaded in %.1f ms\n", seconds * 1e3);
  RecordProperty("load_ms", static_cast<int>(seconds * 1e3));

  EXPECT_EQ(scene.name, "arena-10k");
  EXPECT_EQ(scene.world.gravity, Vec2{});
  EXPECT_EQ(scene.world.tick_hz, 60);
  EXPECT_EQ(scene.steps, 0);
  ASSERT_EQ(scene.bodies.size(), 11000u);

  std::map<BodyType, int> types;
  std::map<ShapeType, int> shapes;
  int moving = 0;
  for (size_t i = 0; i < scene.bodies.size(); ++i) {
    const BodyDef& body = scene.bodies[i];
    EXPECT_EQ(body.id, i + 1);  // file order
    ++types[body.type];
    if (body.linear_velocity != Vec2{}) ++moving;
    ASSERT_EQ(body.shapes.size(), 1u);
    ++shapes[body.shapes[0].shape.type];
    // Every number in the file is a multiple of 1/1024 below 2^12: the raw
    // value must be an exact multiple of 2^22 (no rounding anywhere).
    EXPECT_EQ(body.transform.p.x.raw() % (int64_t{1} << 22), 0);
    EXPECT_EQ(body.transform.p.y.raw() % (int64_t{1} << 22), 0);
    EXPECT_EQ(body.transform.q, kRotIdentity);
  }
  EXPECT_EQ(types[BodyType::kStatic], 10000);
  EXPECT_EQ(types[BodyType::kDynamic], 1000);
  EXPECT_EQ(types[BodyType::kKinematic], 0);
  EXPECT_GT(moving, 990);  // dynamic bodies carry velocities (speed 0..20)
  // 35% boxes + 10% rotated boxes + 20% polygons, and the dynamic boxes, are polygons.
  EXPECT_EQ(shapes[ShapeType::kPolygon], 7040);
  EXPECT_EQ(shapes[ShapeType::kCircle], 2939);
  EXPECT_EQ(shapes[ShapeType::kCapsule], 1021);
  EXPECT_EQ(shapes[ShapeType::kSegment], 0);
}

TEST(StandardScenes, Arena10kExactNumbers) {
  Scene scene;
  ASSERT_TRUE(LoadSceneFile(kScenesDir + "/arena-10k.scene.json", &scene).ok());
  // {"id":1,"type":"static","position":{"x":989.4501953125,"y":-1393.0068359375},
  //  "shapes":[{"circle":{"center":{"x":0.0,"y":0.0},"radius":2.392578125}}]}
  const BodyDef& first = scene.bodies[0];
  EXPECT_EQ(first.type, BodyType::kStatic);
  EXPECT_EQ(first.transform.p.x.raw(), RawOf(989.4501953125));
  EXPECT_EQ(first.transform.p.y.raw(), RawOf(-1393.0068359375));
  EXPECT_EQ(first.transform.p.x.raw(), int64_t{1013197} << 22);  // 989.4501953125 * 1024
  EXPECT_EQ(first.linear_velocity, Vec2{});
  ASSERT_EQ(first.shapes[0].shape.type, ShapeType::kCircle);
  EXPECT_EQ(first.shapes[0].shape.circle.center, Vec2{});
  EXPECT_EQ(first.shapes[0].shape.circle.radius.raw(), RawOf(2.392578125));

  // {"id":10001,"type":"dynamic","position":{"x":-1386.826171875,"y":-810.486328125},
  //  "velocity":{"x":-10.4765625,"y":-4.240234375},
  //  "shapes":[{"box":{"half":{"x":1.1630859375,"y":0.5830078125}}}]}
  const BodyDef& dynamic = scene.bodies[10000];
  EXPECT_EQ(dynamic.id, 10001u);
  EXPECT_EQ(dynamic.type, BodyType::kDynamic);
  EXPECT_EQ(dynamic.transform.p, RawVec(-1386.826171875, -810.486328125));
  EXPECT_EQ(dynamic.linear_velocity, RawVec(-10.4765625, -4.240234375));
  const Shape& box = dynamic.shapes[0].shape;
  ASSERT_EQ(box.type, ShapeType::kPolygon);
  ASSERT_EQ(box.polygon.count, 4);
  EXPECT_EQ(box.polygon.radius, kFixedZero);
  EXPECT_EQ(box.polygon.vertices[0], RawVec(-1.1630859375, -0.5830078125));
  EXPECT_EQ(box.polygon.vertices[2], RawVec(1.1630859375, 0.5830078125));
}

TEST(StandardScenes, Arena10kQueriesLoad) {
  QuerySet set;
  const auto start = std::chrono::steady_clock::now();
  const Status status = LoadQuerySetFile(kScenesDir + "/arena-10k.queries.json", &set);
  const double seconds = Seconds(start);
  ASSERT_TRUE(status.ok()) << status.message();
  std::printf("arena-10k.queries.json loaded in %.1f ms\n", seconds * 1e3);
  RecordProperty("load_ms", static_cast<int>(seconds * 1e3));

  ASSERT_EQ(set.rays.size(), 40000u);
  ASSERT_EQ(set.aabbs.size(), 20000u);
  ASSERT_EQ(set.disks.size(), 20000u);
  ASSERT_EQ(set.sweeps.size(), 10000u);

  // {"origin":{"x":1641.515625,"y":339.6826171875},"translation":{"x":-30.837890625,"y":25.5673828125}}
  EXPECT_EQ(set.rays[0].origin, RawVec(1641.515625, 339.6826171875));
  EXPECT_EQ(set.rays[0].translation, RawVec(-30.837890625, 25.5673828125));
  for (const RayCastInput& ray : set.rays) ASSERT_EQ(ray.max_fraction, kFixedOne);
  // {"min":{"x":-1102.365234375,"y":560.33984375},"max":{"x":-1070.958984375,"y":571.3251953125}}
  EXPECT_EQ(set.aabbs[0].lower, RawVec(-1102.365234375, 560.33984375));
  EXPECT_EQ(set.aabbs[0].upper, RawVec(-1070.958984375, 571.3251953125));
  for (const Aabb& box : set.aabbs) ASSERT_TRUE(IsValid(box));
  // {"center":{"x":289.5908203125,"y":660.65234375},"radius":2.669921875}
  EXPECT_EQ(set.disks[0].center, RawVec(289.5908203125, 660.65234375));
  EXPECT_EQ(set.disks[0].radius.raw(), RawOf(2.669921875));
  // {"circle":{"center":{"x":1037.5205078125,"y":1445.451171875},"radius":1.0634765625},
  //  "translation":{"x":29.59375,"y":-112.9111328125}}
  EXPECT_EQ(set.sweeps[0].center, RawVec(1037.5205078125, 1445.451171875));
  EXPECT_EQ(set.sweeps[0].radius.raw(), RawOf(1.0634765625));
  EXPECT_EQ(set.sweeps[0].translation, RawVec(29.59375, -112.9111328125));
}

TEST(StandardScenes, Rain2kLoads) {
  Scene scene;
  const Status status = LoadSceneFile(kScenesDir + "/rain-2k.scene.json", &scene);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(scene.name, "rain-2k");
  EXPECT_EQ(scene.world.gravity, RawVec(0, -10));
  EXPECT_EQ(scene.world.gravity.y.raw(), -(int64_t{10} << 32));
  EXPECT_EQ(scene.world.tick_hz, 60);
  EXPECT_EQ(scene.steps, 600);
  ASSERT_EQ(scene.bodies.size(), 2323u);
  int statics = 0;
  int dynamics = 0;
  for (const BodyDef& body : scene.bodies) {
    statics += body.type == BodyType::kStatic;
    dynamics += body.type == BodyType::kDynamic;
  }
  EXPECT_EQ(statics, 323);
  EXPECT_EQ(dynamics, 2000);
  // {"id":4,"type":"static","position":{"x":-195.0,"y":20.0},
  //  "shapes":[{"circle":{"center":{"x":0.0,"y":0.0},"radius":1}}]}: an integer radius.
  EXPECT_EQ(scene.bodies[3].transform.p, RawVec(-195, 20));
  EXPECT_EQ(scene.bodies[3].shapes[0].shape.circle.radius, kFixedOne);
}

TEST(StandardScenes, DemoLoads) {
  Scene scene;
  const Status status = LoadSceneFile(kScenesDir + "/demo.scene.json", &scene);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(scene.name, "demo");
  EXPECT_EQ(scene.world.gravity, RawVec(0, -10));
  ASSERT_EQ(scene.bodies.size(), 23u);
  std::map<ShapeType, int> shapes;
  std::map<BodyType, int> types;
  for (const BodyDef& body : scene.bodies) {
    ++types[body.type];
    for (const ShapeDef& shape : body.shapes) ++shapes[shape.shape.type];
  }
  EXPECT_EQ(types[BodyType::kStatic], 8);
  EXPECT_EQ(types[BodyType::kKinematic], 1);
  EXPECT_EQ(types[BodyType::kDynamic], 14);
  EXPECT_GT(shapes[ShapeType::kCapsule], 0);
  EXPECT_GT(shapes[ShapeType::kCircle], 0);
  EXPECT_GT(shapes[ShapeType::kPolygon], 0);
  EXPECT_EQ(scene.bodies.back().shapes.size(), 3u);  // the dumbbell
}

// ---- Conversion and field mapping ----------------------------------------------

TEST(ParseScene, MapsEveryField) {
  const char* json = R"({
    "format": "arbiter-scene/1", "name": "small", "gravity": {"x": 0.5, "y": -9.8125},
    "tick_hz": 120, "allow_sleep": true, "sub_steps": 8, "contact_hertz": 240, "steps": 5,
    "bodies": [
      {"id": 7, "type": "kinematic", "position": {"x": -3, "y": 4.25}, "velocity": {"x": 1, "y": -2},
       "shapes": [{"circle": {"center": {"x": 0.5, "y": 0}, "radius": 0.75}},
                  {"box": {"half": {"x": 2, "y": 1}}}]},
      {"id": 3, "type": "static", "position": {"x": 0, "y": 0},
       "shapes": [{"polygon": {"points": [{"x": 0, "y": 0}, {"x": 2, "y": 0}, {"x": 1, "y": 1}]}},
                  {"capsule": {"p1": {"x": -1, "y": 0}, "p2": {"x": 1, "y": 0}, "radius": 0.25}}]},
      {"id": 18446744073709551615, "type": "dynamic", "position": {"x": 536870912, "y": -536870912},
       "shapes": []}
    ]})";
  Scene scene;
  const Status status = ParseScene(json, &scene);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(scene.name, "small");
  EXPECT_EQ(scene.world.gravity, RawVec(0.5, -9.8125));
  EXPECT_EQ(scene.world.tick_hz, 120);
  EXPECT_TRUE(scene.world.allow_sleep);
  EXPECT_EQ(scene.world.sub_steps, 8);
  EXPECT_EQ(scene.world.contact_hertz, 240);
  EXPECT_EQ(scene.steps, 5);
  ASSERT_EQ(scene.bodies.size(), 3u);

  const BodyDef& a = scene.bodies[0];
  EXPECT_EQ(a.id, 7u);
  EXPECT_EQ(a.type, BodyType::kKinematic);
  EXPECT_EQ(a.transform.p, RawVec(-3, 4.25));
  EXPECT_EQ(a.transform.q, kRotIdentity);
  EXPECT_EQ(a.linear_velocity, RawVec(1, -2));
  ASSERT_EQ(a.shapes.size(), 2u);
  ASSERT_EQ(a.shapes[0].shape.type, ShapeType::kCircle);
  EXPECT_EQ(a.shapes[0].shape.circle.center, RawVec(0.5, 0));
  EXPECT_EQ(a.shapes[0].shape.circle.radius, Fixed::FromRaw(RawOf(0.75)));
  ASSERT_EQ(a.shapes[1].shape.type, ShapeType::kPolygon);
  EXPECT_EQ(a.shapes[1].shape.polygon.count, 4);
  EXPECT_EQ(a.shapes[1].shape.polygon.vertices[2], RawVec(2, 1));
  // Shape defaults are the core's.
  const ShapeDef defaults;
  EXPECT_EQ(a.shapes[0].friction, defaults.friction);
  EXPECT_EQ(a.shapes[0].density, defaults.density);
  EXPECT_EQ(a.shapes[0].filter, defaults.filter);

  const BodyDef& b = scene.bodies[1];
  EXPECT_EQ(b.id, 3u);
  EXPECT_EQ(b.type, BodyType::kStatic);
  EXPECT_EQ(b.linear_velocity, Vec2{});  // absent: zero
  ASSERT_EQ(b.shapes[0].shape.type, ShapeType::kPolygon);
  EXPECT_EQ(b.shapes[0].shape.polygon.count, 3);
  EXPECT_EQ(b.shapes[0].shape.polygon.radius, kFixedZero);
  ASSERT_EQ(b.shapes[1].shape.type, ShapeType::kCapsule);
  EXPECT_EQ(b.shapes[1].shape.capsule.center1, RawVec(-1, 0));
  EXPECT_EQ(b.shapes[1].shape.capsule.center2, RawVec(1, 0));
  EXPECT_EQ(b.shapes[1].shape.capsule.radius, Fixed::FromRaw(RawOf(0.25)));

  const BodyDef& c = scene.bodies[2];
  EXPECT_EQ(c.id, 18446744073709551615u);
  EXPECT_EQ(c.type, BodyType::kDynamic);
  EXPECT_EQ(c.transform.p, MakeVec2(kMaxWorldCoordinate, -kMaxWorldCoordinate));  // the limit is inclusive
  EXPECT_TRUE(c.shapes.empty());
}

TEST(ParseScene, StepsDefaultToZero) {
  Scene scene;
  scene.steps = 9;
  const Status status = ParseScene(
      R"({"format": "arbiter-scene/1", "name": "", "gravity": {"x": 0, "y": 0}, "tick_hz": 1, "bodies": []})",
      &scene);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(scene.steps, 0);
  EXPECT_EQ(scene.world.tick_hz, 1);
  EXPECT_FALSE(scene.world.allow_sleep);  // absent: off
  EXPECT_EQ(scene.world.sub_steps, kDefaultSubSteps);  // absent: the core's defaults
  EXPECT_EQ(scene.world.contact_hertz, kDefaultContactHertz);
  EXPECT_TRUE(scene.bodies.empty());
}

TEST(ParseScene, AllowSleepMustBeABoolean) {
  Scene scene;
  const Status status = ParseScene(
      R"({"format": "arbiter-scene/1", "name": "", "gravity": {"x": 0, "y": 0}, "tick_hz": 1, "allow_sleep": 1,
          "bodies": []})",
      &scene);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("allow_sleep"), std::string::npos) << status.message();
}

TEST(ParseScene, SolverSettingsAreIntegersInTheirRanges) {
  for (const auto& [member, message] : std::vector<std::pair<std::string, std::string>>{
           {R"("sub_steps": 0)", "sub_steps: out of range (1..32)"},
           {R"("sub_steps": 33)", "sub_steps: out of range (1..32)"},
           {R"("sub_steps": 4.5)", "sub_steps: expected an integer"},
           {R"("contact_hertz": 0)", "contact_hertz: out of range (1..10000)"},
           {R"("contact_hertz": 10001)", "contact_hertz: out of range (1..10000)"},
           {R"("contact_hertz": "30")", "contact_hertz: expected an integer"}}) {
    Scene scene;
    const Status status = ParseScene(
        R"({"format": "arbiter-scene/1", "name": "", "gravity": {"x": 0, "y": 0}, "tick_hz": 1, )" + member +
            R"(, "bodies": []})",
        &scene);
    ASSERT_FALSE(status.ok()) << member;
    EXPECT_NE(status.message().find(message), std::string::npos) << status.message();
  }
}

// Numbers off the 1/1024 grid round to the nearest Q32.32 value.
TEST(ParseScene, RoundsToNearest) {
  Scene scene;
  const Status status = ParseScene(
      R"({"format": "arbiter-scene/1", "name": "", "gravity": {"x": 0.1, "y": -0.1}, "tick_hz": 60,
          "bodies": [{"id": 1, "type": "static", "position": {"x": 1e-3, "y": 2.3283064365386963e-10},
                      "shapes": []}]})",
      &scene);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(scene.world.gravity.x.raw(), 429496730);  // 0.1 * 2^32 = 429496729.6
  EXPECT_EQ(scene.world.gravity.y.raw(), -429496730);
  EXPECT_EQ(scene.bodies[0].transform.p.x.raw(), 4294967);  // 4294967.296
  EXPECT_EQ(scene.bodies[0].transform.p.y.raw(), 1);        // 2^-32
}

// ---- Errors ---------------------------------------------------------------------

Scene Sentinel() {
  Scene s;
  s.name = "sentinel";
  s.steps = 77;
  s.world.tick_hz = 33;
  BodyDef body;
  body.id = 4242;
  s.bodies.push_back(body);
  return s;
}

void ExpectUnchanged(const Scene& s) {
  EXPECT_EQ(s.name, "sentinel");
  EXPECT_EQ(s.steps, 77);
  EXPECT_EQ(s.world.tick_hz, 33);
  ASSERT_EQ(s.bodies.size(), 1u);
  EXPECT_EQ(s.bodies[0].id, 4242u);
}

constexpr const char* kHeader =
    R"("format": "arbiter-scene/1", "name": "t", "gravity": {"x": 0, "y": -10}, "tick_hz": 60)";

std::string SceneJson(const std::string& bodies, const std::string& header = kHeader) {
  return "{" + header + ", \"bodies\": [" + bodies + "]}";
}

std::string Body(const std::string& shape, int id = 1) {
  return R"({"id": )" + std::to_string(id) +
         R"(, "type": "dynamic", "position": {"x": 1, "y": 2}, "shapes": [)" + shape + "]}";
}

void ExpectSceneError(const std::string& json, StatusCode code, const std::string& message) {
  SCOPED_TRACE(json);
  Scene scene = Sentinel();
  const Status status = ParseScene(json, &scene);
  EXPECT_EQ(status.code(), code);
  EXPECT_EQ(status.message(), message);
  ExpectUnchanged(scene);
}

void ExpectInvalid(const std::string& json, const std::string& message) {
  ExpectSceneError(json, StatusCode::kInvalidArgument, message);
}

TEST(ParseSceneErrors, MalformedJsonGivesTheBytePosition) {
  Scene scene = Sentinel();
  const Status status = ParseScene(R"({"format": "arbiter-scene/1",})", &scene);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind("invalid JSON at byte 30: parse error at line 1, column 30: ", 0), 0u)
      << status.message();
  ExpectUnchanged(scene);

  const Status empty = ParseScene("", &scene);
  EXPECT_EQ(empty.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(empty.message().rfind("invalid JSON at byte 1: ", 0), 0u) << empty.message();
  ExpectUnchanged(scene);

  const Status trailing = ParseScene(SceneJson("") + " x", &scene);
  EXPECT_EQ(trailing.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(trailing.message().rfind("invalid JSON at byte " + std::to_string(SceneJson("").size() + 2) + ": ", 0),
            0u)
      << trailing.message();
  ExpectUnchanged(scene);
}

TEST(ParseSceneErrors, Document) {
  ExpectInvalid("[]", "(root): expected an object");
  ExpectInvalid("42", "(root): expected an object");
  ExpectInvalid(R"({"name": "t", "gravity": {"x": 0, "y": 0}, "tick_hz": 60, "bodies": []})", "format: missing");
  ExpectInvalid(SceneJson("", R"("format": "arbiter-queries/1", "name": "t", "gravity": {"x": 0, "y": 0}, "tick_hz": 60)"),
                "format: expected \"arbiter-scene/1\"");
  ExpectInvalid(SceneJson("", R"("format": 1, "name": "t", "gravity": {"x": 0, "y": 0}, "tick_hz": 60)"),
                "format: expected \"arbiter-scene/1\"");
  ExpectInvalid(SceneJson("", std::string(kHeader) + R"(, "gravty": 1)"),
                "gravty: unknown key; expected one of format, name, gravity, tick_hz, allow_sleep, sub_steps, contact_hertz, steps, bodies");
  ExpectInvalid(SceneJson("", R"("format": "arbiter-scene/1", "gravity": {"x": 0, "y": 0}, "tick_hz": 60)"),
                "name: missing");
  ExpectInvalid(SceneJson("", R"("format": "arbiter-scene/1", "name": 5, "gravity": {"x": 0, "y": 0}, "tick_hz": 60)"),
                "name: expected a string");
  ExpectInvalid(R"({"format": "arbiter-scene/1", "name": "t", "gravity": {"x": 0, "y": 0}, "tick_hz": 60})",
                "bodies: missing");
  ExpectInvalid(std::string("{") + kHeader + R"(, "bodies": {}})", "bodies: expected an array");
}

TEST(ParseSceneErrors, Gravity) {
  const std::string rest = R"(, "name": "t", "format": "arbiter-scene/1", "tick_hz": 60)";
  ExpectInvalid(SceneJson("", R"("gravity": {"x": "0", "y": -10})" + rest), "gravity.x: expected a number");
  ExpectInvalid(SceneJson("", R"("gravity": {"x": null, "y": -10})" + rest), "gravity.x: expected a number");
  ExpectInvalid(SceneJson("", R"("gravity": {"x": 0, "y": true})" + rest), "gravity.y: expected a number");
  ExpectInvalid(SceneJson("", R"("gravity": {"x": 0})" + rest), "gravity.y: missing");
  ExpectInvalid(SceneJson("", R"("gravity": [0, -10])" + rest), "gravity: expected an object");
  ExpectInvalid(SceneJson("", R"("gravity": {"x": 0, "y": -10, "z": 0})" + rest),
                "gravity.z: unknown key; expected one of x, y");
  ExpectInvalid(SceneJson("", R"("name": "t", "format": "arbiter-scene/1", "tick_hz": 60)"), "gravity: missing");
  ExpectSceneError(SceneJson("", R"("gravity": {"x": 536870913, "y": 0})" + rest), StatusCode::kOutOfRange,
                   "gravity.x: out of range (|v| <= 2^29)");
}

TEST(ParseSceneErrors, Integers) {
  const std::string head = R"("format": "arbiter-scene/1", "name": "t", "gravity": {"x": 0, "y": 0})";
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": 0)"), StatusCode::kOutOfRange,
                   "tick_hz: out of range (1..10000)");
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": 10001)"), StatusCode::kOutOfRange,
                   "tick_hz: out of range (1..10000)");
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": -60)"), StatusCode::kOutOfRange,
                   "tick_hz: out of range (1..10000)");
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": 18446744073709551615)"), StatusCode::kOutOfRange,
                   "tick_hz: out of range (1..10000)");
  ExpectInvalid(SceneJson("", head + R"(, "tick_hz": 60.5)"), "tick_hz: expected an integer");
  ExpectInvalid(SceneJson("", head + R"(, "tick_hz": 60.0)"), "tick_hz: expected an integer");
  ExpectInvalid(SceneJson("", head + R"(, "tick_hz": "60")"), "tick_hz: expected an integer");
  ExpectInvalid(SceneJson("", head), "tick_hz: missing");
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": 60, "steps": -1)"), StatusCode::kOutOfRange,
                   "steps: out of range (0..2147483647)");
  ExpectSceneError(SceneJson("", head + R"(, "tick_hz": 60, "steps": 2147483648)"), StatusCode::kOutOfRange,
                   "steps: out of range (0..2147483647)");
  ExpectInvalid(SceneJson("", head + R"(, "tick_hz": 60, "steps": 1e3)"), "steps: expected an integer");
}

TEST(ParseSceneErrors, Bodies) {
  ExpectInvalid(SceneJson("[]"), "bodies[0]: expected an object");
  ExpectInvalid(SceneJson(R"({"type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"), "bodies[0].id: missing");
  ExpectSceneError(SceneJson(R"({"id": 0, "type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].id: must be positive");
  ExpectSceneError(SceneJson(R"({"id": -3, "type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].id: must be positive");
  ExpectInvalid(SceneJson(R"({"id": 1.5, "type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].id: expected an integer");
  ExpectInvalid(SceneJson(R"({"id": "1", "type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].id: expected an integer");
  // Beyond uint64 the number parses as a double: not an integer.
  ExpectInvalid(SceneJson(R"({"id": 18446744073709551616, "type": "static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].id: expected an integer");
  ExpectInvalid(SceneJson(Body("") + ", " + R"({"id": 3, "type": "ghost", "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[1].type: expected one of static, kinematic, dynamic");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": 2, "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].type: expected one of static, kinematic, dynamic");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "Static", "position": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].type: expected one of static, kinematic, dynamic");
  ExpectInvalid(SceneJson(R"({"id": 3, "position": {"x": 0, "y": 0}, "shapes": []})"), "bodies[0].type: missing");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "shapes": []})"), "bodies[0].position: missing");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "position": {"x": 0, "y": 0}})"), "bodies[0].shapes: missing");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "position": {"x": 0, "y": 0}, "shapes": {}})"),
                "bodies[0].shapes: expected an array");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "position": {"x": 0, "y": 0}, "veloctiy": {"x": 0, "y": 0}, "shapes": []})"),
                "bodies[0].veloctiy: unknown key; expected one of id, type, position, velocity, shapes");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "position": {"x": 0, "y": 0}, "velocity": {"x": 0, "y": false}, "shapes": []})"),
                "bodies[0].velocity.y: expected a number");
  ExpectInvalid(SceneJson(R"({"id": 3, "type": "static", "position": {"x": 0, "y": 0}, "velocity": 0, "shapes": []})"),
                "bodies[0].velocity: expected an object");
}

TEST(ParseSceneErrors, DuplicateIdIsAlreadyExists) {
  ExpectSceneError(SceneJson(Body("", 1) + ", " + Body("", 2) + ", " + Body("", 1)), StatusCode::kAlreadyExists,
                   "bodies[2].id: duplicate id 1 (first used by bodies[0])");
}

TEST(ParseSceneErrors, Ranges) {
  ExpectSceneError(SceneJson(R"({"id": 1, "type": "static", "position": {"x": 536870913, "y": 0}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].position.x: out of range (|v| <= 2^29)");
  ExpectSceneError(SceneJson(R"({"id": 1, "type": "static", "position": {"x": 0, "y": -536870912.0001}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].position.y: out of range (|v| <= 2^29)");
  // Not representable in Q32.32 at all.
  ExpectSceneError(SceneJson(R"({"id": 1, "type": "static", "position": {"x": 0, "y": -1e300}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].position.y: out of range (|v| <= 2^29)");
  ExpectSceneError(SceneJson(R"({"id": 1, "type": "static", "position": {"x": 1e19, "y": 0}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].position.x: out of range (|v| <= 2^29)");
  ExpectSceneError(SceneJson(R"({"id": 1, "type": "static", "position": {"x": 0, "y": 0}, "velocity": {"x": 1e9, "y": 0}, "shapes": []})"),
                   StatusCode::kOutOfRange, "bodies[0].velocity.x: out of range (|v| <= 2^29)");
  ExpectSceneError(SceneJson(Body(R"({"circle": {"center": {"x": 16777217, "y": 0}, "radius": 1}})")),
                   StatusCode::kOutOfRange, "bodies[0].shapes[0].circle.center.x: out of range (|v| <= 2^24)");
  ExpectSceneError(SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 16777216.5}})")),
                   StatusCode::kOutOfRange, "bodies[0].shapes[0].circle.radius: out of range (|v| <= 2^24)");
  ExpectSceneError(SceneJson(Body(R"({"box": {"half": {"x": 1, "y": 2e7}}})")), StatusCode::kOutOfRange,
                   "bodies[0].shapes[0].box.half.y: out of range (|v| <= 2^24)");
  ExpectSceneError(
      SceneJson(Body(R"({"polygon": {"points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": -16777217}]}})")),
      StatusCode::kOutOfRange, "bodies[0].shapes[0].polygon.points[2].y: out of range (|v| <= 2^24)");
  ExpectSceneError(
      SceneJson(Body(R"({"capsule": {"p1": {"x": 0, "y": 0}, "p2": {"x": -3e7, "y": 0}, "radius": 1}})")),
      StatusCode::kOutOfRange, "bodies[0].shapes[0].capsule.p2.x: out of range (|v| <= 2^24)");
  // The limits themselves are in range.
  Scene scene;
  const Status ok = ParseScene(
      SceneJson(Body(R"({"circle": {"center": {"x": 16777216, "y": -16777216}, "radius": 16777216}})")), &scene);
  EXPECT_TRUE(ok.ok()) << ok.message();
}

TEST(ParseSceneErrors, Shapes) {
  ExpectInvalid(SceneJson(Body("7")), "bodies[0].shapes[0]: expected an object");
  ExpectInvalid(SceneJson(Body("{}")), "bodies[0].shapes[0]: expected exactly one of circle, box, polygon, capsule, chain");
  ExpectInvalid(SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 1}, "box": {"half": {"x": 1, "y": 1}}})")),
                "bodies[0].shapes[0]: expected exactly one of circle, box, polygon, capsule, chain");
  ExpectInvalid(SceneJson(Body(R"({"sphere": {"radius": 1}})")),
                "bodies[0].shapes[0].sphere: unknown shape; expected one of circle, box, polygon, capsule, chain");

  // chain (scenes/FORMAT-chains.md): expanded into one shape per segment
  const auto chain = [](const std::string& body) { return R"({"chain": )" + body + "}"; };
  ExpectInvalid(SceneJson(Body(chain(R"({"points": [{"x": 0, "y": 0}]})"))),
                "bodies[0].shapes[0].chain.points: a chain needs at least 2 points (3 for a loop)");
  ExpectInvalid(SceneJson(Body(chain(R"({"points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}], "loop": true})"))),
                "bodies[0].shapes[0].chain.points: a chain needs at least 2 points (3 for a loop)");
  ExpectInvalid(SceneJson(Body(chain(R"({"points": [{"x": 0, "y": 0}, {"x": 0, "y": 0}]})"))),
                "bodies[0].shapes[0].chain.points: duplicate consecutive vertices");
  ExpectInvalid(SceneJson(Body(chain(R"({"points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}], "loop": 1})"))),
                "bodies[0].shapes[0].chain.loop: expected true or false");
  ExpectInvalid(SceneJson(Body(chain(R"({"points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}], "closed": true})"))),
                "bodies[0].shapes[0].chain.closed: unknown key; expected one of points, loop");
  Scene chained;
  const Status chain_ok = ParseScene(
      SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 1}}, )" +
                     chain(R"({"points": [{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 1}], "loop": true})"))),
      &chained);
  ASSERT_TRUE(chain_ok.ok()) << chain_ok.message();
  ASSERT_EQ(chained.bodies[0].shapes.size(), 4u);  // the circle and three segments
  EXPECT_EQ(chained.bodies[0].shapes[3].shape.type, ShapeType::kChainSegment);

  // circle
  ExpectInvalid(SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 0}})")),
                "bodies[0].shapes[0].circle.radius: radius must be positive");
  ExpectInvalid(SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": -1}})")),
                "bodies[0].shapes[0].circle.radius: negative radius");
  ExpectInvalid(SceneJson(Body(R"({"circle": {"center": {"x": 0, "y": 0}}})")), "bodies[0].shapes[0].circle.radius: missing");
  ExpectInvalid(SceneJson(Body(R"({"circle": {"radius": 1}})")), "bodies[0].shapes[0].circle.center: missing");
  ExpectInvalid(SceneJson(Body(R"({"circle": {"centre": {"x": 0, "y": 0}, "radius": 1}})")),
                "bodies[0].shapes[0].circle.centre: unknown key; expected one of center, radius");
  ExpectInvalid(SceneJson(Body(R"({"circle": 1})")), "bodies[0].shapes[0].circle: expected an object");

  // box
  ExpectInvalid(SceneJson(Body(R"({"box": {"half": {"x": 0, "y": 1}}})")),
                "bodies[0].shapes[0].box.half: half extent must be positive");
  ExpectInvalid(SceneJson(Body(R"({"box": {"half": {"x": 1, "y": -1}}})")),
                "bodies[0].shapes[0].box.half: half extent must be positive");
  ExpectInvalid(SceneJson(Body(R"({"box": {"half": {"x": 1}}})")), "bodies[0].shapes[0].box.half.y: missing");
  ExpectInvalid(SceneJson(Body(R"({"box": {"half": {"x": 1, "y": 1}, "angle": 0.5}})")),
                "bodies[0].shapes[0].box.angle: unknown key; expected one of half");

  // polygon
  const auto polygon = [](const std::string& points) { return R"({"polygon": {"points": )" + points + "}}"; };
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 2, "y": 0}, {"x": 1, "y": 0.5}, {"x": 2, "y": 2}, {"x": 0, "y": 2}])"))),
                "bodies[0].shapes[0].polygon.points: not convex");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 0, "y": 1}, {"x": 1, "y": 1}, {"x": 1, "y": 0}])"))),
                "bodies[0].shapes[0].polygon.points: vertices are not counter-clockwise");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 2, "y": 0}, {"x": 1, "y": 1}])"))),
                "bodies[0].shapes[0].polygon.points: collinear (or nearly collinear) vertices");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 1, "y": 0}, {"x": 1, "y": 0}, {"x": 0, "y": 1}])"))),
                "bodies[0].shapes[0].polygon.points: duplicate consecutive vertices");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 1, "y": 0}])"))),
                "bodies[0].shapes[0].polygon.points: fewer than 3 vertices");
  ExpectInvalid(SceneJson(Body(polygon("[]"))), "bodies[0].shapes[0].polygon.points: fewer than 3 vertices");
  std::string nine = "[";
  for (int i = 0; i < 9; ++i) nine += std::string(i ? ", " : "") + R"({"x": 0, "y": 0})";
  nine += "]";
  ExpectInvalid(SceneJson(Body(polygon(nine))), "bodies[0].shapes[0].polygon.points: more than 8 vertices");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, {"x": 1}, {"x": 0, "y": 1}])"))),
                "bodies[0].shapes[0].polygon.points[1].y: missing");
  ExpectInvalid(SceneJson(Body(polygon(R"([{"x": 0, "y": 0}, [1, 0], {"x": 0, "y": 1}])"))),
                "bodies[0].shapes[0].polygon.points[1]: expected an object");
  ExpectInvalid(SceneJson(Body(polygon(R"({"x": 0, "y": 0})"))), "bodies[0].shapes[0].polygon.points: expected an array");
  ExpectInvalid(SceneJson(Body(R"({"polygon": {"points": [], "radius": 1}})")),
                "bodies[0].shapes[0].polygon.radius: unknown key; expected one of points");

  // capsule
  ExpectInvalid(SceneJson(Body(R"({"capsule": {"p1": {"x": 1, "y": 2}, "p2": {"x": 1, "y": 2}, "radius": 1}})")),
                "bodies[0].shapes[0].capsule: the two points coincide");
  ExpectInvalid(SceneJson(Body(R"({"capsule": {"p1": {"x": 0, "y": 0}, "p2": {"x": 1, "y": 2}, "radius": 0}})")),
                "bodies[0].shapes[0].capsule.radius: radius must be positive");
  ExpectInvalid(SceneJson(Body(R"({"capsule": {"p1": {"x": 0, "y": 0}, "p2": {"x": 1, "y": 2}, "radius": -0.5}})")),
                "bodies[0].shapes[0].capsule.radius: negative radius");
  ExpectInvalid(SceneJson(Body(R"({"capsule": {"p1": {"x": 0, "y": 0}, "radius": 1}})")),
                "bodies[0].shapes[0].capsule.p2: missing");
}

// The example from the header: the error names the body and shape index.
TEST(ParseSceneErrors, NamesTheFullPath) {
  std::string bodies;
  for (int i = 1; i <= 12; ++i) bodies += Body(R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 1}})", i) + ", ";
  bodies += Body(R"({"polygon": {"points": [{"x": 0, "y": 0}, {"x": 2, "y": 0}, {"x": 1, "y": 0.5}, {"x": 2, "y": 2}, {"x": 0, "y": 2}]}})", 13);
  ExpectInvalid(SceneJson(bodies), "bodies[12].shapes[0].polygon.points: not convex");

  const std::string second_shape =
      R"({"box": {"half": {"x": 1, "y": 1}}}, {"circle": {"center": {"x": 0, "y": 0}, "radius": "big"}})";
  ExpectInvalid(SceneJson(Body("") + ", " + Body(second_shape, 2)), "bodies[1].shapes[1].circle.radius: expected a number");
}

// The lists are converted while the text is read; errors still come in the
// order of a whole-document check: syntax first, then the root fields in
// order, then the first bad element.
TEST(ParseSceneErrors, OrderIsIndependentOfStreaming) {
  const std::string bad_body = R"({"id": 1, "type": "ghost", "position": {"x": 0, "y": 0}, "shapes": []})";
  // A bad body before a syntax error: the syntax error wins.
  Scene scene = Sentinel();
  const Status syntax = ParseScene(SceneJson(bad_body) + ",", &scene);
  EXPECT_EQ(syntax.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(syntax.message().rfind("invalid JSON at byte ", 0), 0u) << syntax.message();
  ExpectUnchanged(scene);
  // Bodies before a missing name and a bad format: the root fields win.
  ExpectInvalid(R"({"bodies": [)" + bad_body + R"(], "format": "arbiter-scene/1", "gravity": {"x": 0, "y": 0}, "tick_hz": 60})",
                "name: missing");
  ExpectInvalid(R"({"bodies": [)" + bad_body + R"(], "format": "x", "name": "t", "gravity": {"x": 0, "y": 0}, "tick_hz": 60})",
                "format: expected \"arbiter-scene/1\"");
  // Only the first bad element is reported.
  ExpectInvalid(SceneJson(Body("") + ", 5, " + bad_body), "bodies[1]: expected an object");
  // A repeated key: the last value wins, as in a DOM.
  const std::string head = std::string("{") + kHeader;
  ExpectInvalid(head + R"(, "bodies": [)" + bad_body + R"(], "bodies": 3})", "bodies: expected an array");
  ExpectInvalid(head + R"(, "bodies": [)" + Body("") + R"(], "bodies": [)" + Body("", 2) + ", " + bad_body + "]}",
                "bodies[1].type: expected one of static, kinematic, dynamic");
  const Status last = ParseScene(head + R"(, "bodies": [)" + bad_body + R"(], "bodies": [)" + Body("", 5) + "]}", &scene);
  ASSERT_TRUE(last.ok()) << last.message();
  ASSERT_EQ(scene.bodies.size(), 1u);
  EXPECT_EQ(scene.bodies[0].id, 5u);
  // Not an object at the root: nothing is streamed.
  ExpectInvalid(R"([{"format": "arbiter-scene/1", "bodies": []}])", "(root): expected an object");
}

// ---- Query sets -------------------------------------------------------------------

TEST(ParseQuerySet, MapsEveryField) {
  const char* json = R"({"format": "arbiter-queries/1", "scene": "x",
    "rays": [{"origin": {"x": 1, "y": -2}, "translation": {"x": 1073741824, "y": 0.5}}],
    "aabbs": [{"min": {"x": -1, "y": -2}, "max": {"x": 3, "y": -2}}],
    "circles": [{"center": {"x": 5, "y": 6}, "radius": 0}],
    "sweeps": [{"circle": {"center": {"x": 7, "y": 8}, "radius": 0.5}, "translation": {"x": -9, "y": 10}}]})";
  QuerySet set;
  const Status status = ParseQuerySet(json, &set);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(set.rays.size(), 1u);
  EXPECT_EQ(set.rays[0].origin, RawVec(1, -2));
  EXPECT_EQ(set.rays[0].translation, RawVec(1073741824, 0.5));  // 2^30: the translation limit
  EXPECT_EQ(set.rays[0].max_fraction, kFixedOne);
  ASSERT_EQ(set.aabbs.size(), 1u);
  EXPECT_EQ(set.aabbs[0], (Aabb{RawVec(-1, -2), RawVec(3, -2)}));
  ASSERT_EQ(set.disks.size(), 1u);
  EXPECT_EQ(set.disks[0].center, RawVec(5, 6));
  EXPECT_EQ(set.disks[0].radius, kFixedZero);
  ASSERT_EQ(set.sweeps.size(), 1u);
  EXPECT_EQ(set.sweeps[0].center, RawVec(7, 8));
  EXPECT_EQ(set.sweeps[0].radius, kFixedHalf);
  EXPECT_EQ(set.sweeps[0].translation, RawVec(-9, 10));
}

TEST(ParseQuerySet, ListsAreOptional) {
  QuerySet set;
  set.rays.resize(3);
  const Status status = ParseQuerySet(R"({"format": "arbiter-queries/1", "circles": []})", &set);
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_TRUE(set.rays.empty());
  EXPECT_TRUE(set.aabbs.empty());
  EXPECT_TRUE(set.disks.empty());
  EXPECT_TRUE(set.sweeps.empty());
}

void ExpectQueryError(const std::string& lists, StatusCode code, const std::string& message,
                      const std::string& format = R"("format": "arbiter-queries/1")") {
  const std::string json = "{" + format + (lists.empty() ? "" : ", " + lists) + "}";
  SCOPED_TRACE(json);
  QuerySet set;
  set.rays.resize(1);
  set.rays[0].origin = RawVec(4, 2);
  set.sweeps.resize(2);
  const Status status = ParseQuerySet(json, &set);
  EXPECT_EQ(status.code(), code);
  EXPECT_EQ(status.message(), message);
  // Unchanged.
  ASSERT_EQ(set.rays.size(), 1u);
  EXPECT_EQ(set.rays[0].origin, RawVec(4, 2));
  EXPECT_TRUE(set.aabbs.empty());
  EXPECT_TRUE(set.disks.empty());
  EXPECT_EQ(set.sweeps.size(), 2u);
}

TEST(ParseQuerySetErrors, EveryPath) {
  const auto invalid = StatusCode::kInvalidArgument;
  const auto range = StatusCode::kOutOfRange;
  ExpectQueryError("", invalid, "format: missing", R"("scene": "x")");
  ExpectQueryError("", invalid, "format: expected \"arbiter-queries/1\"", R"("format": "arbiter-scene/1")");
  ExpectQueryError(R"("scene": 1)", invalid, "scene: expected a string");
  ExpectQueryError(R"("disks": [])", invalid,
                   "disks: unknown key; expected one of format, scene, rays, aabbs, circles, sweeps");
  ExpectQueryError(R"("rays": {})", invalid, "rays: expected an array");

  const std::string ray_ok = R"({"origin": {"x": 0, "y": 0}, "translation": {"x": 1, "y": 0}})";
  ExpectQueryError(R"("rays": [)" + ray_ok + R"(, {"translation": {"x": 1, "y": 0}}])", invalid, "rays[1].origin: missing");
  ExpectQueryError(R"("rays": [{"origin": {"x": 0, "y": 0}, "translation": {"x": 1073741825, "y": 0}}])", range,
                   "rays[0].translation.x: out of range (|v| <= 2^30)");
  ExpectQueryError(R"("rays": [{"origin": {"x": 0, "y": 536870913}, "translation": {"x": 1, "y": 0}}])", range,
                   "rays[0].origin.y: out of range (|v| <= 2^29)");
  ExpectQueryError(R"("rays": [{"origin": {"x": 0, "y": 0}, "translation": {"x": 1, "y": 0}, "max_fraction": 1}])",
                   invalid, "rays[0].max_fraction: unknown key; expected one of origin, translation");

  ExpectQueryError(R"("aabbs": [{"min": {"x": 2, "y": 0}, "max": {"x": 1, "y": 1}}])", invalid, "aabbs[0]: min.x > max.x");
  ExpectQueryError(R"("aabbs": [{"min": {"x": 0, "y": 0}, "max": {"x": 1, "y": -0.001}}])", invalid,
                   "aabbs[0]: min.y > max.y");
  ExpectQueryError(R"("aabbs": [{"min": {"x": 0, "y": 0}, "max": {"x": "1", "y": 1}}])", invalid,
                   "aabbs[0].max.x: expected a number");
  ExpectQueryError(R"("aabbs": [{"min": {"x": 0, "y": 0}}])", invalid, "aabbs[0].max: missing");

  ExpectQueryError(R"("circles": [{"center": {"x": 0, "y": 0}, "radius": -1}])", invalid,
                   "circles[0].radius: negative radius");
  ExpectQueryError(R"("circles": [{"center": {"x": 0, "y": 0}, "radius": 16777217}])", range,
                   "circles[0].radius: out of range (|v| <= 2^24)");
  ExpectQueryError(R"("circles": [5])", invalid, "circles[0]: expected an object");

  const std::string sweep_ok = R"({"circle": {"center": {"x": 0, "y": 0}, "radius": 1}, "translation": {"x": 1, "y": 0}})";
  ExpectQueryError(R"("sweeps": [)" + sweep_ok + ", " + sweep_ok +
                       R"(, {"circle": {"center": {"x": 0, "y": 0}, "radius": "a"}, "translation": {"x": 1, "y": 0}}])",
                   invalid, "sweeps[2].circle.radius: expected a number");
  ExpectQueryError(R"("sweeps": [{"circle": {"center": {"x": 0, "y": 0}, "radius": -2}, "translation": {"x": 1, "y": 0}}])",
                   invalid, "sweeps[0].circle.radius: negative radius");
  ExpectQueryError(R"("sweeps": [{"circle": {"center": {"x": 0, "y": 0}, "radius": 1}, "dir": {"x": 1, "y": 0}}])",
                   invalid, "sweeps[0].dir: unknown key; expected one of circle, translation");
  ExpectQueryError(R"("sweeps": [{"circle": {"center": {"x": 0, "y": 0}, "radius": 1}}])", invalid,
                   "sweeps[0].translation: missing");
  ExpectQueryError(R"("sweeps": [{"circle": {"center": {"x": 0, "y": 0}, "radius": 1}, "translation": {"x": -2e9, "y": 0}}])",
                   range, "sweeps[0].translation.x: out of range (|v| <= 2^30)");

  // Malformed JSON, and an error after valid lists: still nothing changes.
  ExpectQueryError(R"("rays": [)", invalid, std::string("invalid JSON at byte ") + "42: parse error at line 1, column 42: "
                   "syntax error while parsing value - unexpected '}'; expected '[', '{', or a literal");
  ExpectQueryError(R"("rays": [)" + ray_ok + R"(], "aabbs": [7])", invalid, "aabbs[0]: expected an object");
}

// ---- Files ------------------------------------------------------------------------

TEST(LoadFiles, MissingFileIsNotFound) {
  Scene scene = Sentinel();
  const std::string path = kScenesDir + "/no-such-file.scene.json";
  const Status status = LoadSceneFile(path, &scene);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message(), path + ": cannot open (No such file or directory)");
  ExpectUnchanged(scene);

  QuerySet set;
  set.rays.resize(5);
  const Status queries = LoadQuerySetFile(path, &set);
  EXPECT_EQ(queries.code(), StatusCode::kNotFound);
  EXPECT_EQ(queries.message(), path + ": cannot open (No such file or directory)");
  EXPECT_EQ(set.rays.size(), 5u);
}

TEST(LoadFiles, DirectoryIsNotFound) {
  Scene scene = Sentinel();
  const Status status = LoadSceneFile(kScenesDir, &scene);
  EXPECT_EQ(status.code(), StatusCode::kNotFound);
  EXPECT_EQ(status.message().rfind(kScenesDir + ": cannot ", 0), 0u) << status.message();
  ExpectUnchanged(scene);
}

TEST(LoadFiles, ParseErrorsNameTheFile) {
  Scene scene = Sentinel();
  const std::string path = kScenesDir + "/FORMAT.md";
  const Status status = LoadSceneFile(path, &scene);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message().rfind(path + ": invalid JSON at byte 1: ", 0), 0u) << status.message();
  ExpectUnchanged(scene);

  // A query set is not a scene (and vice versa).
  const Status wrong = LoadSceneFile(kScenesDir + "/arena-10k.queries.json", &scene);
  EXPECT_EQ(wrong.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong.message(), kScenesDir + "/arena-10k.queries.json: aabbs: unknown key; expected one of format, "
                                          "name, gravity, tick_hz, allow_sleep, sub_steps, contact_hertz, steps, bodies");
  ExpectUnchanged(scene);
  QuerySet set;
  const Status wrong2 = LoadQuerySetFile(kScenesDir + "/rain-2k.scene.json", &set);
  EXPECT_EQ(wrong2.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(wrong2.message(), kScenesDir + "/rain-2k.scene.json: bodies: unknown key; expected one of format, "
                                           "scene, rays, aabbs, circles, sweeps");
}

}  // namespace
}  // namespace arbiter::scene

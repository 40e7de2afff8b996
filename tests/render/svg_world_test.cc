// The SVG writer and its exact decimals: every shape drawn once with its
// body id, the same world and queries give the same bytes (however the
// world was built), queries drawn with their answers, bad input refused.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>

#include "arbiter/render/exact_decimal.h"
#include "arbiter/render/svg_world.h"
#include "arbiter/scene/scene.h"

namespace arbiter::render {
namespace {

using ::testing::HasSubstr;

size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

World DemoWorld(bool reversed) {
  scene::Scene s;
  EXPECT_TRUE(scene::LoadSceneFile(std::string(ARBITER_SCENES_DIR) + "/demo.scene.json", &s).ok());
  if (reversed) std::reverse(s.bodies.begin(), s.bodies.end());
  World world(s.world);
  EXPECT_TRUE(world.AddBodies(s.bodies).ok());
  return world;
}

TEST(ExactDecimalTest, WritesTheExactValue) {
  EXPECT_EQ(ExactDecimal(0), "0");
  EXPECT_EQ(ExactDecimal(int64_t{3} << 32), "3");
  EXPECT_EQ(ExactDecimal(-(int64_t{49} << 29)), "-6.125");
  EXPECT_EQ(ExactDecimal(1), "0.00000000023283064365386962890625");
  EXPECT_EQ(ExactDecimal(-1), "-0.00000000023283064365386962890625");
  EXPECT_EQ(ExactDecimal(std::numeric_limits<int64_t>::min()), "-2147483648");
  EXPECT_EQ(ExactDecimal(std::numeric_limits<int64_t>::max()), "2147483647.99999999976716935634613037109375");
}

TEST(ExactDecimalTest, ParsesToTheNearestValue_AndBack) {
  EXPECT_EQ(ParseExactDecimal("-6.125"), -(int64_t{49} << 29));
  EXPECT_EQ(ParseExactDecimal("0.00000000023283064365386962890625"), 1);
  EXPECT_EQ(ParseExactDecimal("0.1"), 429496730);  // 0.1 * 2^32 = 429496729.6
  EXPECT_EQ(ParseExactDecimal("-0.1"), -429496730);
  for (int64_t raw : {int64_t{0}, int64_t{1}, int64_t{-7}, int64_t{123456789012345}, int64_t{-987654321098}}) {
    EXPECT_EQ(ParseExactDecimal(ExactDecimal(raw)), raw) << raw;
  }
  for (const char* bad : {"", "-", "1.", ".5", "1e3", "0x10", "1.2.3", "2147483648", "--1", " 1"}) {
    EXPECT_EQ(ParseExactDecimal(bad), std::nullopt) << bad;
  }
}

TEST(SvgWorldTest, EveryShapeOnce_WithItsBodyIdInTheTitle) {
  const World world = DemoWorld(false);
  const std::string svg = RenderSvg(world, {}, {});
  size_t shapes = 0;
  for (uint64_t id : world.BodyIds()) {
    const uint32_t n = world.FindBody(id)->shape_count;
    shapes += n;
    EXPECT_EQ(Count(svg, "data-body=\"" + std::to_string(id) + "\" data-shape="), n) << id;
    EXPECT_THAT(svg, HasSubstr("<title>body " + std::to_string(id) + " shape 0: "));
  }
  EXPECT_EQ(Count(svg, "class=\"shape "), shapes);
  EXPECT_EQ(Count(svg, "<g class=\"body "), world.body_count());
  // Kinds and types the demo holds, distinguishable by class.
  for (const char* cls : {"shape static", "shape kinematic", "shape dynamic", " round\""}) {
    EXPECT_THAT(svg, HasSubstr(cls));
  }
  EXPECT_THAT(svg, HasSubstr("<circle class=\"shape"));
  EXPECT_THAT(svg, HasSubstr("<polygon class=\"shape"));
}

TEST(SvgWorldTest, SameWorldAndQueries_SameBytes_WhateverTheBuildOrder) {
  RenderQueries q;
  q.rays.push_back({{Fixed::FromInt(-35), Fixed::FromInt(5)}, {Fixed::FromInt(70), Fixed::FromInt(0)}, kFixedOne});
  q.boxes.push_back({{Fixed::FromInt(-25), Fixed::FromInt(-1)}, {Fixed::FromInt(-15), Fixed::FromInt(4)}});
  const std::string a = RenderSvg(DemoWorld(false), q, {});
  const std::string b = RenderSvg(DemoWorld(true), q, {});
  EXPECT_EQ(a, b);
  World stepped = DemoWorld(false);
  stepped.Step();
  EXPECT_NE(RenderSvg(stepped, q, {}), a);
}

TEST(SvgWorldTest, QueriesDrawnWithTheirAnswers) {
  World world;
  BodyDef ground;
  ground.id = 7;
  ground.shapes.push_back({});
  ASSERT_EQ(MakeBox(Fixed::FromInt(10), Fixed::FromInt(1), &ground.shapes[0].shape.polygon), ShapeError::kOk);
  ground.shapes[0].shape.type = ShapeType::kPolygon;
  ASSERT_TRUE(world.AddBody(ground).ok());
  RenderQueries q;
  // Straight down onto the box's top (y = 1) at x = 2: fraction 8/16.
  q.rays.push_back({{Fixed::FromInt(2), Fixed::FromInt(9)}, {Fixed(), Fixed::FromInt(-16)}, kFixedOne});
  q.rays.push_back({{Fixed::FromInt(20), Fixed::FromInt(10)}, {Fixed(), Fixed::FromInt(-10)}, kFixedOne});
  q.boxes.push_back({{Fixed::FromInt(-1), Fixed::FromInt(-1)}, {Fixed::FromInt(1), Fixed::FromInt(3)}});
  const std::string svg = RenderSvg(world, q, {});
  EXPECT_THAT(svg, HasSubstr("ray 0 from (2, 9) along (0, -16): hit body 7 shape 0 at fraction 0.5"));
  EXPECT_THAT(svg, HasSubstr("point (2, 1), normal (0, 1)"));
  EXPECT_THAT(svg, HasSubstr("<circle class=\"point\" cx=\"2\" cy=\"1\""));
  EXPECT_THAT(svg, HasSubstr("ray 1 from (20, 10) along (0, -10): no hit"));
  EXPECT_THAT(svg, HasSubstr("box 0: overlaps 1 shape(s)"));
  EXPECT_THAT(svg, HasSubstr("class=\"shape static hit\" data-body=\"7\""));
}

TEST(SvgWorldTest, ViewAndRanges_AreChecked) {
  RenderQueries q;
  RenderOptions o;
  o.view = Aabb{{Fixed::FromInt(1), Fixed::FromInt(0)}, {Fixed::FromInt(1), Fixed::FromInt(5)}};
  const Status flat = CheckRenderInput(q, o);
  EXPECT_FALSE(flat.ok());
  EXPECT_THAT(flat.message(), HasSubstr("view"));
  o.view.reset();
  q.rays.push_back({{Fixed::FromInt(int64_t{1} << 30), Fixed()}, {kFixedOne, Fixed()}, kFixedOne});
  const Status far = CheckRenderInput(q, o);
  EXPECT_FALSE(far.ok());
  EXPECT_THAT(far.message(), HasSubstr("rays[0]"));
  // The view decides the viewBox, exactly.
  o.view = Aabb{{Fixed::FromInt(-2), Fixed::FromRaw(-(int64_t{1} << 31))}, {Fixed::FromInt(6), Fixed::FromInt(4)}};
  EXPECT_THAT(RenderSvg(World(), {}, o), HasSubstr("viewBox=\"-2 -4 8 4.5\""));
}

}  // namespace
}  // namespace arbiter::render

// The point of ghost vertices: bodies slide down a slope made of many
// collinear chain segments without catching on the joints, and the same
// slope made of plain segments does catch (so this test can fail).
//
// The slope runs from (-20, 20) down to (20, 0) with exactly collinear
// Q32.32 points one unit apart in x (direction (-1, 1/2) for the chain,
// which runs right to left so that its normal points up). Everything is
// frictionless, so a body released on it should gain g sin(theta) / 60 of
// speed along the slope every tick. A snag is a tick in which that speed
// drops by more than kSnag instead.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "arbiter/core/chain.h"
#include "arbiter/core/fixed_math.h"
#include "arbiter/core/world.h"
#include "testing/numbers.h"

namespace arbiter {
namespace {

using testing::Fd;
using testing::Vd;

constexpr int kSegments = 40;
constexpr double kSnag = 0.05;  // units/s lost in one tick; the gain per tick is ~0.075
const double kInvLen = 1 / std::sqrt(1.25);
const double kDownX = kInvLen, kDownY = -0.5 * kInvLen;  // down the slope
const double kNormalX = 0.5 * kInvLen, kNormalY = kInvLen;

std::vector<Vec2> SlopePoints() {
  std::vector<Vec2> points;
  for (int i = 0; i <= kSegments; ++i) points.push_back(Vd(20 - i, 0.5 * i));  // right to left
  return points;
}

BodyDef Slope(bool chain) {
  BodyDef def;
  def.id = 1;
  def.type = BodyType::kStatic;
  std::vector<Shape> shapes;
  const std::vector<Vec2> points = SlopePoints();
  if (chain) {
    EXPECT_EQ(MakeChain(points, false, &shapes), ShapeError::kOk);
  } else {
    for (size_t i = 0; i + 1 < points.size(); ++i) shapes.push_back(Shape::FromSegment({points[i], points[i + 1]}));
  }
  for (const Shape& s : shapes) {
    ShapeDef sd;
    sd.shape = s;
    sd.friction = kFixedZero;
    def.shapes.push_back(sd);
  }
  return def;
}

// A body resting on the slope 3 units below its top, turned to lie flat on it.
BodyDef Slider(const Shape& shape, double lift) {
  BodyDef def;
  def.id = 2;
  def.type = BodyType::kDynamic;
  const double s = 3;
  def.transform.p = Vd(-20 + s * kDownX + lift * kNormalX, 20 + s * kDownY + lift * kNormalY);
  def.transform.q = MakeRot(Fd(std::atan2(kDownY, kDownX)));
  ShapeDef sd;
  sd.shape = shape;
  sd.friction = kFixedZero;
  def.shapes.push_back(sd);
  return def;
}

struct SlideRun {
  double worst_drop = 0;  // largest loss of slope speed in one tick
  int worst_tick = -1;
  double final_speed = 0;
  double min_height = 1e9;  // smallest distance of the centre above the slope line
};

SlideRun Slide(bool chain, const Shape& shape, double lift, int ticks) {
  World world(WorldDef{Vd(0, -10), 60, 16});
  EXPECT_TRUE(world.AddBody(Slope(chain)).ok());
  EXPECT_TRUE(world.AddBody(Slider(shape, lift)).ok());
  SlideRun run;
  double previous = 0;
  for (int tick = 0; tick < ticks; ++tick) {
    world.Step();
    const BodyView b = *world.FindBody(2);
    const double speed = b.linear_velocity.x.ToDouble() * kDownX + b.linear_velocity.y.ToDouble() * kDownY;
    const double x = b.transform.p.x.ToDouble(), y = b.transform.p.y.ToDouble();
    run.min_height = std::min(run.min_height, (x - 20) * kNormalX + y * kNormalY);
    if (previous - speed > run.worst_drop) {
      run.worst_drop = previous - speed;
      run.worst_tick = tick;
    }
    previous = speed;
  }
  run.final_speed = previous;
  return run;
}

struct SliderCase {
  std::string name;
  Shape shape;
  double lift;  // centre above the slope at rest
};

std::vector<SliderCase> Sliders() {
  Polygon box;
  EXPECT_EQ(MakeBox(Fd(0.25), Fd(0.25), &box), ShapeError::kOk);
  Polygon wide;
  EXPECT_EQ(MakeBox(Fd(0.6), Fd(0.2), &wide), ShapeError::kOk);
  return {
      {"box", Shape::FromPolygon(box), 0.25},
      {"wide box", Shape::FromPolygon(wide), 0.2},
      {"circle", Shape::FromCircle({Vec2{}, Fd(0.3)}), 0.3},
      {"capsule", Shape::FromCapsule({Vd(-0.4, 0), Vd(0.4, 0), Fd(0.2)}), 0.2},
  };
}

TEST(ChainSnag, BodiesSlideDownCollinearChainSegmentsWithoutCatching) {
  // 3.5 s: about 25 units of slope, 20-odd joints crossed.
  for (const SliderCase& c : Sliders()) {
    const SlideRun run = Slide(true, c.shape, c.lift, 210);
    RecordProperty(c.name + "_worst_drop_ums", static_cast<int>(run.worst_drop * 1e6));
    EXPECT_LT(run.worst_drop, kSnag) << c.name << " snagged at tick " << run.worst_tick;
    // Frictionless: v = g sin(theta) t = 10 / sqrt(5) * 3.5 s = 15.65 units/s.
    EXPECT_NEAR(run.final_speed, 10 / std::sqrt(5.0) * 3.5, 0.5) << c.name;
    EXPECT_GT(run.min_height, c.lift - 0.05) << c.name << " sank into the slope";
  }
}

TEST(ChainSnag, TheSameSlopeOfPlainSegmentsCatchesABox) {
  const SliderCase box = Sliders()[0];
  const SlideRun plain = Slide(false, box.shape, box.lift, 210);
  RecordProperty("plain_worst_drop_ums", static_cast<int>(plain.worst_drop * 1e6));
  EXPECT_GT(plain.worst_drop, kSnag) << "plain segments did not snag: the chain test above proves nothing";
  EXPECT_LT(plain.final_speed, 10 / std::sqrt(5.0) * 3.5 - 0.5);
}

}  // namespace
}  // namespace arbiter

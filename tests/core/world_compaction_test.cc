// Removing most shapes compacts the shape records (World::Impl::
// CompactIfSparse) and renames the static tree's leaves (CompactTree::
// Renumber) all at once: body slots reused out of shape order must not
// mix up which leaf is which. Every grid point's query answers the body
// that is there, through two compactions and incremental inserts.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <vector>

#include "arbiter/core/world.h"
#include "testing/random.h"
#include "testing/world_builders.h"

namespace arbiter {
namespace {

constexpr int kColumns = 60;
constexpr int kRows = 50;

Vec2 Cell(int cell) { return {Fixed::FromInt(cell % kColumns), Fixed::FromInt(cell / kColumns)}; }

BodyDef StaticDisk(uint64_t id, int cell) { return testing::DiskBody(id, BodyType::kStatic, Cell(cell), 0.4); }

// Every cell: the point query and a short ray down onto it find the body
// `at` says is there, or nothing.
void ExpectCells(const World& world, const std::map<int, uint64_t>& at) {
  for (int cell = 0; cell < kColumns * kRows; ++cell) {
    const auto it = at.find(cell);
    const std::vector<ShapeRef> found = world.OverlapPoint(Cell(cell));
    if (it == at.end()) {
      ASSERT_TRUE(found.empty()) << "cell " << cell;
      continue;
    }
    ASSERT_EQ(found, (std::vector<ShapeRef>{{it->second, 0}})) << "cell " << cell;
    const Vec2 above = Cell(cell) + Vec2{Fixed::FromRaw(1 << 20), Fixed::FromRaw(Fixed::kOneRaw / 2)};
    const std::optional<CastHit> hit =
        world.CastRayClosest({above, {kFixedZero, -kFixedOne}, kFixedOne}, QueryFilter{});
    ASSERT_TRUE(hit.has_value()) << "cell " << cell;
    ASSERT_EQ(hit->shape.body_id, it->second) << "cell " << cell;
  }
}

TEST(WorldCompaction, StaticLeavesKeepTheirShapesThroughCompactions) {
  testing::SplitMix64 rng(24);
  World world;
  std::map<int, uint64_t> at;
  std::vector<BodyDef> first;
  for (int cell = 0; cell < kColumns * kRows; cell += 2) {
    first.push_back(StaticDisk(static_cast<uint64_t>(cell + 1), cell));
    at[cell] = static_cast<uint64_t>(cell + 1);
  }
  ASSERT_TRUE(world.AddBodies(first).ok());
  for (uint64_t i = 0; i < 100; ++i) {  // movers far below, between the static batches
    ASSERT_TRUE(world.AddBody(testing::DiskBody(100000 + i, BodyType::kDynamic, {Fixed::FromInt(static_cast<int64_t>(i) * 3), Fixed::FromInt(-50)}, 0.4)).ok());
  }
  for (int cell = 1; cell < kColumns * kRows; cell += 2) {  // one by one: incremental inserts
    ASSERT_TRUE(world.AddBody(StaticDisk(static_cast<uint64_t>(cell + 1), cell)).ok());
    at[cell] = static_cast<uint64_t>(cell + 1);
  }
  ExpectCells(world, at);
  auto remove_some = [&](size_t count) {
    std::vector<uint64_t> ids;
    while (ids.size() < count) {
      auto it = at.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(rng.Next() % at.size()));
      ids.push_back(it->second);
      at.erase(it);
    }
    ASSERT_TRUE(world.RemoveBodies(ids).ok());
  };
  remove_some(2000);  // 2000 dead of 3100: compacts
  ExpectCells(world, at);
  // New bodies take freed body slots, out of shape order, then most go.
  uint64_t next_id = 200000;
  for (int cell = 0; cell < kColumns * kRows && at.size() < 1500; ++cell) {
    if (at.count(cell) == 0 && rng.Next() % 2 == 0) {
      ASSERT_TRUE(world.AddBody(StaticDisk(next_id, cell)).ok());
      at[cell] = next_id++;
    }
  }
  ExpectCells(world, at);
  remove_some(1200);  // compacts again
  ExpectCells(world, at);
}

}  // namespace
}  // namespace arbiter

// The tables that let shape records and the id map carry 4-byte indexes:
// InternTable (filters, materials) and IdMap (body id -> slot, keys read
// from the records), each against a plain reference under random churn,
// and a world whose shapes share, change and drop filters and materials,
// whose snapshot must not show any of it.
#include "intern_table.h"

#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "arbiter/core/world.h"
#include "id_map.h"
#include "testing/numbers.h"
#include "testing/random.h"

namespace arbiter {
namespace {

using internal::IdMap;
using internal::InternTable;
using testing::Fd;
using testing::SplitMix64;
using testing::Vd;

// A poor hash on purpose: values 0-15 share four homes, so probe runs are
// long and deletions shift entries.
struct CrowdedHash {
  uint64_t operator()(uint64_t v) const { return v % 4; }
};

TEST(InternTable, SameValueSameIndex_FreedIndexReused) {
  InternTable<uint64_t, CrowdedHash> table;
  const uint32_t a = table.Add(7), b = table.Add(9);
  EXPECT_NE(a, b);
  EXPECT_EQ(table.Add(7), a);  // reused, two users now
  EXPECT_EQ(table.UsersOf(a), 2u);
  EXPECT_EQ(table.size(), 2u);
  table.Release(a);
  EXPECT_EQ(table[a], 7u);  // one user left: still there
  EXPECT_EQ(table.Add(7), a);
  table.Release(a);
  table.Release(a);
  EXPECT_EQ(table.UsersOf(a), 0u);
  EXPECT_EQ(table.size(), 1u);
  const uint32_t c = table.Add(11);  // takes the freed index
  EXPECT_EQ(c, a);
  EXPECT_EQ(table[c], 11u);
  EXPECT_EQ(table[b], 9u);
  EXPECT_NE(table.Add(7), c);  // 7 is new again
}

TEST(InternTable, RandomChurnAgreesWithReference) {
  InternTable<uint64_t, CrowdedHash> table;
  std::vector<std::pair<uint64_t, uint32_t>> held;  // (value, index) per user
  std::map<uint64_t, uint32_t> users;
  SplitMix64 rng(24);
  for (int step = 0; step < 20000; ++step) {
    if (held.empty() || rng.Next() % 3 != 0) {
      const uint64_t v = rng.Next() % 40;
      const uint32_t index = table.Add(v);
      ASSERT_EQ(table[index], v);
      for (const auto& [other, other_index] : held) {
        ASSERT_EQ(other == v, other_index == index) << "step " << step;
      }
      held.push_back({v, index});
      ++users[v];
    } else {
      const size_t k = rng.Next() % held.size();
      table.Release(held[k].second);
      if (--users[held[k].first] == 0) users.erase(held[k].first);
      held[k] = held.back();
      held.pop_back();
    }
    ASSERT_EQ(table.size(), users.size());
  }
  for (const auto& [v, index] : held) {
    EXPECT_EQ(table[index], v);
    EXPECT_EQ(table.UsersOf(index), users[v]);
  }
}

struct Record {
  uint64_t id = 0;
};

TEST(IdMap, RandomChurnAgreesWithReference) {
  std::vector<Record> records;
  std::vector<uint32_t> free_slots;
  std::map<uint64_t, uint32_t> reference;
  IdMap map;
  SplitMix64 rng(5);
  for (int step = 0; step < 30000; ++step) {
    const uint64_t id = 1 + rng.Next() % 3000;
    auto it = reference.find(id);
    if (it == reference.end()) {
      uint32_t slot;
      if (free_slots.empty()) {
        slot = static_cast<uint32_t>(records.size());
        records.emplace_back();
      } else {
        slot = free_slots.back();
        free_slots.pop_back();
      }
      records[slot].id = id;
      map.Insert(id, slot, records);
      reference[id] = slot;
    } else {
      map.Erase(id, records);
      records[it->second].id = 0;
      free_slots.push_back(it->second);
      reference.erase(it);
    }
    ASSERT_EQ(map.size(), reference.size());
    const uint64_t probe = rng.Next() % 3002;  // 0 and 3001 are never keys
    const auto found = reference.find(probe);
    ASSERT_EQ(map.Find(probe, records), found == reference.end() ? IdMap::kMissing : found->second) << "step " << step;
  }
  EXPECT_EQ(map.Find(0, records), IdMap::kMissing);  // free records carry id 0
}

BodyDef TwoShapes(uint64_t id, double x, double friction) {
  BodyDef def;
  def.id = id;
  def.type = BodyType::kDynamic;
  def.transform.p = Vd(x, 0);
  for (int i = 0; i < 2; ++i) {
    ShapeDef sd;
    sd.shape = Shape::FromCircle({Vd(0, i), Fd(0.5)});
    sd.friction = Fd(friction);
    sd.filter.category_bits = uint64_t{1} << i;
    def.shapes.push_back(sd);
  }
  return def;
}

// Shapes share, change and drop interned filters and materials; every
// body's definition reads back, and a restored world (which interns afresh,
// in another order) has the same snapshot and hash.
TEST(InternTable, WorldReadsBackAndRestoresTheSameBytes) {
  World world;
  for (uint64_t id = 1; id <= 40; ++id) ASSERT_TRUE(world.AddBody(TwoShapes(id, 3.0 * id, 0.1 * (id % 3))).ok());
  Filter changed;
  changed.group_index = -2;
  changed.mask_bits = 6;
  ASSERT_TRUE(world.SetShapeFilter(5, 1, changed).ok());
  ASSERT_TRUE(world.SetShapeFilter(6, 0, Filter{}).ok());  // the same value back
  const std::vector<uint64_t> gone = {2, 3, 4, 9};
  ASSERT_TRUE(world.RemoveBodies(gone).ok());
  ASSERT_TRUE(world.AddBody(TwoShapes(100, -50, 0.7)).ok());
  for (int t = 0; t < 5; ++t) world.Step();

  const std::optional<BodyDef> five = world.GetBodyDef(5);
  ASSERT_TRUE(five.has_value());
  EXPECT_EQ(five->shapes[1].filter, changed);
  EXPECT_EQ(five->shapes[0].filter.category_bits, 1u);
  EXPECT_EQ(five->shapes[0].friction, Fd(0.2));
  EXPECT_EQ(world.GetBodyDef(100)->shapes[1].friction, Fd(0.7));
  EXPECT_EQ(world.GetBodyDef(6)->shapes[0].filter, Filter{});
  EXPECT_FALSE(world.GetBodyDef(3).has_value());

  World restored;
  ASSERT_TRUE(World::Restore(world.Snapshot(), &restored).ok());
  EXPECT_EQ(restored.Snapshot(), world.Snapshot());
  EXPECT_EQ(restored.StateHash(), world.StateHash());
  for (int t = 0; t < 5; ++t) {
    world.Step();
    restored.Step();
  }
  EXPECT_EQ(restored.StateHash(), world.StateHash());
}

}  // namespace
}  // namespace arbiter

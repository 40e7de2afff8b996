// Several clients query a world while another client steps it. Every
// answer must equal what the core computes in-process at the tick the reply
// names: an in-process replica steps in lockstep with the server (checked
// by state hash every tick) and keeps a snapshot of every tick; after the
// run, every recorded reply is checked against the replica restored at its
// tick. Nothing here depends on timing: however the calls interleave, each
// reply must match some tick's state exactly, the one it names.
#include <atomic>
#include <map>
#include <random>
#include <thread>

#include "arbiter/scene/scene.h"
#include "test_support.h"
#include "testing/numbers.h"

namespace arbiter::testing {
namespace {

constexpr int kTicks = 40;
constexpr int kQueryThreads = 4;
constexpr int kRaysPerCall = 48;

struct Recorded {
  std::vector<RayCastInput> rays;
  v1::CastMode mode = v1::CAST_MODE_CLOSEST;
  v1::CastRaysResponse reply;
  std::vector<Aabb> boxes;
  v1::OverlapResponse overlap;
  bool is_overlap = false;
};

TEST(ConcurrencyTest, QueriesDuringSteps_MatchTheTickTheyName) {
  scene::Scene rain;
  ASSERT_TRUE(scene::LoadSceneFile(std::string(ARBITER_SCENES_DIR) + "/rain-2k.scene.json", &rain).ok());
  rain.world.max_bodies = TestServerOptions().registry.max_bodies_per_world;
  World replica(rain.world);
  ASSERT_TRUE(replica.AddBodies(rain.bodies).ok());

  LiveServer server;
  v1::CreateWorldRequest create;
  create.set_world_id("rain");
  create.set_scene("rain-2k.scene.json");
  absl::StatusOr<v1::CreateWorldResponse> created = server.client().CreateWorld(create);
  ASSERT_THAT(created, IsOk());
  ASSERT_EQ(created->world().state_hash(), replica.StateHash());

  std::map<int64_t, std::vector<uint8_t>> snapshots;  // written by the stepper only
  snapshots[0] = replica.Snapshot();
  std::atomic<bool> stepping_done{false};
  std::vector<std::vector<Recorded>> recorded(kQueryThreads);
  std::vector<std::string> step_failures;

  std::vector<std::thread> queriers;
  for (int q = 0; q < kQueryThreads; ++q) {
    queriers.emplace_back([&, q] {
      // A client (and channel) per thread, as independent callers have.
      std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(server.address());
      std::mt19937_64 rng(1234 + static_cast<uint64_t>(q));
      std::uniform_real_distribution<double> x(-200, 200), y(0, 160), d(-60, 60);
      int call = 0;
      do {
        Recorded r;
        if (call % 3 == 2) {
          v1::OverlapRequest request;
          request.set_world_id("rain");
          for (int i = 0; i < 16; ++i) {
            const double cx = x(rng), cy = y(rng);
            r.boxes.push_back({Vd(cx - 4, cy - 4), Vd(cx + 4, cy + 4)});
            *request.add_queries() = client::MakeAabbQuery(cx - 4, cy - 4, cx + 4, cy + 4);
          }
          absl::StatusOr<v1::OverlapResponse> reply = c->Overlap(request);
          if (!reply.ok()) {
            ADD_FAILURE() << reply.status();
            return;
          }
          r.overlap = std::move(*reply);
          r.is_overlap = true;
        } else {
          v1::CastRaysRequest request;
          request.set_world_id("rain");
          r.mode = call % 3 == 0 ? v1::CAST_MODE_CLOSEST : v1::CAST_MODE_ALL;
          request.set_mode(r.mode);
          for (int i = 0; i < kRaysPerCall; ++i) {
            const RayCastInput ray{Vd(x(rng), y(rng)), Vd(d(rng), d(rng)), kFixedOne};
            r.rays.push_back(ray);
            *request.add_rays() = WireRay(ray);
          }
          absl::StatusOr<v1::CastRaysResponse> reply = c->CastRays(request);
          if (!reply.ok()) {
            ADD_FAILURE() << reply.status();
            return;
          }
          r.reply = std::move(*reply);
        }
        recorded[static_cast<size_t>(q)].push_back(std::move(r));
        ++call;
      } while (!stepping_done.load());
    });
  }

  std::thread stepper([&] {
    std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(server.address());
    v1::StepRequest request;
    request.set_world_id("rain");
    request.set_ticks(1);
    request.set_omit_events(true);
    for (int t = 1; t <= kTicks; ++t) {
      absl::StatusOr<v1::StepResponse> reply = c->Step(request);
      replica.Step();
      if (!reply.ok() || reply->tick() != t || reply->state_hash() != replica.StateHash()) {
        step_failures.push_back("tick " + std::to_string(t) + ": " +
                                (reply.ok() ? "state differs from the replica" : reply.status().ToString()));
        break;
      }
      snapshots[t] = replica.Snapshot();
    }
    stepping_done = true;
  });
  stepper.join();
  for (std::thread& t : queriers) t.join();
  ASSERT_TRUE(step_failures.empty()) << step_failures.front();

  // Check every reply against the replica at the tick it names.
  std::map<int64_t, World> at_tick;
  auto world_at = [&](int64_t tick) -> const World* {
    auto it = at_tick.find(tick);
    if (it != at_tick.end()) return &it->second;
    auto snap = snapshots.find(tick);
    if (snap == snapshots.end()) return nullptr;
    World w;
    if (!World::Restore(snap->second, &w).ok()) return nullptr;
    return &at_tick.emplace(tick, std::move(w)).first->second;
  };
  size_t replies = 0, answers = 0;
  for (const std::vector<Recorded>& thread : recorded) {
    ASSERT_FALSE(thread.empty());
    for (const Recorded& r : thread) {
      const int64_t tick = r.is_overlap ? r.overlap.tick() : r.reply.tick();
      const World* world = world_at(tick);
      ASSERT_NE(world, nullptr) << "a reply names tick " << tick << ", which never existed";
      ++replies;
      if (r.is_overlap) {
        ASSERT_EQ(r.overlap.results_size(), static_cast<int>(r.boxes.size()));
        for (size_t i = 0; i < r.boxes.size(); ++i, ++answers) {
          ASSERT_TRUE(SameShapes(r.overlap.results(static_cast<int>(i)), world->OverlapAabb(r.boxes[i])))
              << "tick " << tick << " box " << i;
        }
        continue;
      }
      ASSERT_EQ(r.reply.results_size(), static_cast<int>(r.rays.size()));
      for (size_t i = 0; i < r.rays.size(); ++i, ++answers) {
        const v1::CastResult& got = r.reply.results(static_cast<int>(i));
        if (r.mode == v1::CAST_MODE_CLOSEST) {
          ASSERT_TRUE(SameResult(got, world->CastRayClosest(r.rays[i]))) << "tick " << tick << " ray " << i;
        } else {
          ASSERT_TRUE(SameResult(got, world->CastRayAll(r.rays[i]))) << "tick " << tick << " ray " << i;
        }
      }
    }
  }
  // For the log: how the run interleaved (not asserted: it depends on timing).
  std::printf("checked %zu replies (%zu answers) across %zu distinct ticks\n", replies, answers, at_tick.size());
}

}  // namespace
}  // namespace arbiter::testing

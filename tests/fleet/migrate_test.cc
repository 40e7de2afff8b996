// Moving worlds in a real fleet (docker/cluster.sh: arbiter-server
// processes behind nginx), through the `arbiter` CLI as an operator would:
//  - `arbiter migrate` under a stepping load: a thread steps the world one
//    tick at a time (expected_tick set, so nothing runs twice), following
//    the source's "moved to" answer to the destination and retrying on
//    UNAVAILABLE, and records every acknowledged tick and hash. Afterwards
//    the destination holds every acknowledged tick (its hash at each equals
//    the acknowledged one, its tick is the last acknowledged), reads made
//    while writes were refused succeeded, and past-tick answers equal the
//    source's from before the move. The refusal window is printed;
//  - failures: an unknown world, a destination that already holds it, and
//    a destination that refuses the import (the source is thawed and keeps
//    serving);
//  - `arbiter worlds --instances` lists every instance's worlds with where
//    each lives, and with one instance down still lists the others';
//  - `arbiter rebalance` after `cluster.sh add`: exactly the worlds whose
//    owner under nginx's consistent hash changed move, and after
//    `cluster.sh reload` every world answers through the proxy with its hash.
#include <google/protobuf/util/message_differencer.h>

#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <thread>

#include "arbiter/client/fleet.h"
#include "fleet/fleet_cluster.h"
#include "server/auth_support.h"
#include "server/test_support.h"

namespace arbiter::testing {
namespace {

using google::protobuf::util::MessageDifferencer;
using ::testing::HasSubstr;

class FleetMoves : public FleetCluster {
 protected:
  static int Cli(const std::string& args, std::string* output) {
    return Run(std::string(ARBITER_CLI_BINARY) + " " + args, output);
  }
};

// Steps one world tick by tick on whichever instance holds it.
class SteppingLoad {
  const std::string world_;

 public:
  SteppingLoad(std::string world, std::string instance) : world_(std::move(world)), instance_(std::move(instance)) {}

  void Start(int64_t tick) {
    tick_ = tick;
    thread_ = std::thread([this] { Loop(); });
  }
  void Stop() {
    stop_ = true;
    thread_.join();
  }
  size_t acked() const { return acked_count_.load(); }

  struct Ack {
    int64_t tick;
    uint64_t hash;
  };
  std::vector<Ack> acks;        // every acknowledged step, in order
  int refused = 0;              // writes refused while moving
  int reads_while_refused = 0;  // reads made right after a refusal
  std::vector<std::string> errors;
  std::string instance_;

 private:
  void Loop() {
    std::unique_ptr<client::ArbiterClient> c = client::ArbiterClient::Connect(instance_);
    while (!stop_) {
      v1::StepRequest step = OneTick(world_);
      step.set_expected_tick(tick_);
      absl::StatusOr<v1::StepResponse> reply = c->Step(step);
      if (reply.ok()) {
        tick_ = reply->tick();
        acks.push_back({reply->tick(), reply->state_hash()});
        ++acked_count_;
        continue;
      }
      const std::string message(reply.status().message());
      if (reply.status().code() != absl::StatusCode::kUnavailable) {
        errors.push_back(reply.status().ToString());
        return;
      }
      const size_t moved = message.find("' moved to ");
      if (moved != std::string::npos) {  // follow the world
        const size_t from = moved + 11;
        instance_ = message.substr(from, message.find(';', from) - from);
        c = client::ArbiterClient::Connect(instance_);
        continue;
      }
      ++refused;
      v1::GetStateHashRequest read;
      read.set_world_id(world_);
      absl::StatusOr<v1::GetStateHashResponse> h = c->GetStateHash(read);
      if (h.ok()) {
        ++reads_while_refused;
      } else if (h.status().message().find("' moved to ") == std::string_view::npos) {
        errors.push_back("a read while writes were refused: " + h.status().ToString());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }

  int64_t tick_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> acked_count_{0};
  std::thread thread_;
};

void WaitForAcks(const SteppingLoad& load, size_t n) {
  for (int i = 0; i < 2000 && load.acked() < n; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

TEST_F(FleetMoves, MigrateUnderSteppingLoad_LosesNoAcknowledgedTick) {
  const std::string world = "moving-world";
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  v1::CreateWorldRequest create = SmallWorld(world);
  create.set_history_ticks(3000);
  ASSERT_THAT(proxy->CreateWorld(create), IsOk());
  const int a = OwnerOf(world);
  ASSERT_GE(a, 0);
  const std::string from = instances_[a], to = instances_[(a + 1) % kInstances];
  v1::StepRequest warmup = OneTick(world);
  warmup.set_ticks(20);
  absl::StatusOr<v1::StepResponse> warm = proxy->Step(warmup);
  ASSERT_THAT(warm, IsOk());
  // The source's answers at past ticks, to compare with the destination's.
  std::vector<std::pair<int64_t, v1::CastRaysResponse>> past;
  for (int64_t t = 5; t <= warm->tick(); t += 5) {
    absl::StatusOr<v1::CastRaysResponse> r = Connect(from)->CastRays(Rays(world, t));
    ASSERT_THAT(r, IsOk());
    past.emplace_back(t, *r);
  }

  SteppingLoad load(world, from);
  load.Start(warm->tick());
  WaitForAcks(load, 30);
  std::string output;
  const int rc = Cli("migrate --world " + world + " --from " + from + " --to " + to, &output);
  const size_t acked_at_move = load.acked();
  WaitForAcks(load, acked_at_move + 30);
  load.Stop();
  std::cout << "arbiter migrate: " << output << "stepping load: " << load.acks.size() << " steps acknowledged, "
            << load.refused << " refused while moving, " << load.reads_while_refused
            << " reads answered right after a refusal\n";
  ASSERT_EQ(rc, 0) << output;
  EXPECT_THAT(output, HasSubstr("writes refused for "));
  EXPECT_TRUE(load.errors.empty()) << load.errors.front();
  ASSERT_FALSE(load.acks.empty());
  EXPECT_EQ(load.instance_, to) << "the load followed the world";

  std::unique_ptr<client::ArbiterClient> b = Connect(to);
  absl::StatusOr<v1::GetStateHashResponse> now = Hash(*b, world);
  ASSERT_THAT(now, IsOk());
  EXPECT_EQ(now->tick(), load.acks.back().tick);
  EXPECT_EQ(now->state_hash(), load.acks.back().hash);
  // Every acknowledged tick, as the destination has it.
  v1::ReportHashesRequest report;
  report.set_world_id(world);
  report.set_first_tick(load.acks.front().tick);
  for (size_t i = 0; i < load.acks.size(); ++i) {
    ASSERT_EQ(load.acks[i].tick, load.acks.front().tick + static_cast<int64_t>(i)) << "one tick per step";
    report.add_state_hashes(load.acks[i].hash);
  }
  absl::StatusOr<v1::ReportHashesResponse> same = b->ReportHashes(report);
  ASSERT_THAT(same, IsOk());
  EXPECT_TRUE(same->in_sync()) << "first difference at tick " << same->first_divergent_tick();
  for (const auto& [tick, reply] : past) {
    absl::StatusOr<v1::CastRaysResponse> again = b->CastRays(Rays(world, tick));
    ASSERT_THAT(again, IsOk());
    EXPECT_TRUE(MessageDifferencer::Equals(*again, reply)) << "tick " << tick;
  }
  // The proxy still routes the world to the source, which says where it
  // went with a retryable status; writes do not reach a stale copy.
  absl::StatusOr<v1::StepResponse> stale = proxy->Step(OneTick(world));
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(stale.status().message()), HasSubstr("moved to " + to));
  EXPECT_EQ(OwnerOf(world), (a + 1) % kInstances);
}

TEST_F(FleetMoves, FailedMoves_LeaveTheWorldServingWhereItWas) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  ASSERT_THAT(proxy->CreateWorld(SmallWorld("staying")), IsOk());
  const int a = OwnerOf("staying");
  ASSERT_GE(a, 0);
  const std::string from = instances_[a], to = instances_[(a + 1) % kInstances];
  std::string output;
  EXPECT_EQ(Cli("migrate --world nobody --from " + from + " --to " + to, &output), 1 << 8) << output;
  EXPECT_THAT(output, HasSubstr("no world 'nobody'"));

  // The destination already holds a world of that id.
  ASSERT_THAT(Connect(to)->CreateWorld(SmallWorld("staying")), IsOk());
  output.clear();
  EXPECT_EQ(Cli("migrate --world staying --from " + from + " --to " + to, &output), 1 << 8) << output;
  EXPECT_THAT(output, HasSubstr("already holds world 'staying'"));
  EXPECT_THAT(proxy->Step(OneTick("staying")), IsOk()) << "the source was not frozen";

  // A destination that refuses the import, after the freeze: a server
  // whose one world slot is taken.
  server::ServerOptions full = TestServerOptions();
  full.registry.max_worlds = 1;
  LiveServer refusing(full);
  ASSERT_THAT(refusing.client().CreateWorld(SmallWorld("other")), IsOk());
  const auto before = WorldTickAndHash(*Connect(from), "staying");
  output.clear();
  EXPECT_EQ(Cli("migrate --world staying --from " + from + " --to " + refusing.address(), &output), 1 << 8);
  EXPECT_THAT(output, HasSubstr("RESOURCE_EXHAUSTED"));
  EXPECT_THAT(output, HasSubstr("the move was undone"));
  EXPECT_EQ(WorldTickAndHash(*Connect(from), "staying"), before);
  EXPECT_THAT(proxy->Step(OneTick("staying")), IsOk()) << "thawed: the source takes writes again";
}

// Retries a read on an instance that is replaying its journal.
absl::StatusOr<v1::WorldInfo> DescribeWhenBack(client::ArbiterClient& c, const std::string& world) {
  v1::DescribeWorldRequest r;
  r.set_world_id(world);
  absl::StatusOr<v1::DescribeWorldResponse> d = c.DescribeWorld(r);
  for (int attempt = 0; attempt < 400 && !d.ok() && d.status().message().find("not back yet") != std::string::npos;
       ++attempt) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    d = c.DescribeWorld(r);
  }
  if (!d.ok()) return d.status();
  return d->world();
}

// The crash points of a move with real processes and SIGKILL: the source
// killed after the destination imported (it comes back frozen, not live,
// and `migrate --resume` finishes the move), the destination killed after
// its import (it comes back serving the world at the frozen epoch), and
// the source killed after the move (its tombstone is still there).
TEST_F(FleetMoves, KilledMidMove_TheSourceComesBackFrozen_AndResumeFinishesTheMove) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  ASSERT_THAT(proxy->CreateWorld(SmallWorld("crashing")), IsOk());
  for (int i = 0; i < 5; ++i) ASSERT_THAT(proxy->Step(OneTick("crashing")), IsOk());
  const int a = OwnerOf("crashing");
  ASSERT_GE(a, 0);
  const int b = (a + 1) % kInstances;
  const std::string from = instances_[a], to = instances_[b];
  v1::FreezeWorldRequest freeze;
  freeze.set_world_id("crashing");
  freeze.set_destination(to);
  absl::StatusOr<v1::FreezeWorldResponse> frozen = Connect(from)->FreezeWorld(freeze);
  ASSERT_THAT(frozen, IsOk());
  v1::ExportJournalRequest ex;
  ex.set_world_id("crashing");
  absl::StatusOr<std::string> file = Connect(from)->ExportJournal(ex);
  ASSERT_THAT(file, IsOk());
  v1::ImportWorldRequest import;
  import.set_world_id("crashing");
  import.set_journal(*file);
  import.set_expected_tick(frozen->tick());
  import.set_expected_state_hash(frozen->state_hash());
  import.set_expected_epoch(frozen->epoch());
  ASSERT_THAT(Connect(to)->ImportWorld(import), IsOk());

  // Both instances die before the source's copy is deleted.
  ASSERT_EQ(Cluster("kill " + dir_.string() + " " + std::to_string(a)), 0);
  ASSERT_EQ(Cluster("kill " + dir_.string() + " " + std::to_string(b)), 0);
  ASSERT_EQ(Cluster("restart " + dir_.string() + " " + std::to_string(a)), 0);
  ASSERT_EQ(Cluster("restart " + dir_.string() + " " + std::to_string(b)), 0);
  absl::StatusOr<v1::WorldInfo> on_a = DescribeWhenBack(*Connect(from), "crashing");
  absl::StatusOr<v1::WorldInfo> on_b = DescribeWhenBack(*Connect(to), "crashing");
  ASSERT_THAT(on_a, IsOk());
  ASSERT_THAT(on_b, IsOk());
  EXPECT_EQ(on_a->moving_to(), to) << "the source comes back frozen";
  EXPECT_EQ(on_a->epoch(), frozen->epoch());
  EXPECT_TRUE(on_b->moving_to().empty()) << "the destination comes back serving";
  EXPECT_EQ(on_b->epoch(), frozen->epoch());
  EXPECT_EQ(on_b->state_hash(), frozen->state_hash());
  // One writer: the write probe is refused on the source, taken on the destination.
  v1::StepRequest probe = OneTick("crashing");
  const absl::Status refused = Connect(from)->Step(probe).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnavailable) << refused;
  EXPECT_THAT(std::string(refused.message()), HasSubstr("is moving to " + to));

  std::string output;
  EXPECT_EQ(Cli("migrate --world crashing --from " + from + " --to " + to + " --thaw", &output), 1 << 8) << output;
  EXPECT_THAT(output, HasSubstr("the move happened; finish it with --resume"));
  output.clear();
  ASSERT_EQ(Cli("migrate --world crashing --from " + from + " --to " + to + " --resume", &output), 0) << output;
  EXPECT_THAT(output, HasSubstr("finished moving world crashing from " + from + " to " + to));
  EXPECT_EQ(OwnerOf("crashing"), b);
  EXPECT_THAT(Connect(to)->Step(probe), IsOk());

  // The tombstone is in the source's journal: it outlives another kill.
  ASSERT_EQ(Cluster("kill " + dir_.string() + " " + std::to_string(a)), 0);
  ASSERT_EQ(Cluster("restart " + dir_.string() + " " + std::to_string(a)), 0);
  absl::StatusOr<v1::WorldInfo> gone = DescribeWhenBack(*Connect(from), "crashing");
  EXPECT_EQ(gone.status().code(), absl::StatusCode::kUnavailable) << gone.status();
  EXPECT_THAT(std::string(gone.status().message()), HasSubstr("moved to " + to));
}

// A fleet of its own: the moves above leave worlds off their hash owners.
class FleetRebalance : public FleetMoves {};

TEST_F(FleetRebalance, AfterAddingAnInstance_MovesExactlyTheWorldsWhoseOwnerChanged) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  std::map<std::string, uint64_t> hash;
  for (int i = 0; i < 30; ++i) {
    const std::string world = WorldName(i);
    ASSERT_THAT(proxy->CreateWorld(SmallWorld(world)), IsOk());
    absl::StatusOr<v1::StepResponse> stepped = proxy->Step(OneTick(world));
    ASSERT_THAT(stepped, IsOk());
    hash[world] = stepped->state_hash();
  }
  std::map<std::string, std::string> was;
  for (const auto& [world, h] : hash) was[world] = instances_[OwnerOf(world)];
  std::string added;
  ASSERT_EQ(Cluster("add " + dir_.string(), &added), 0);
  added = added.substr(0, added.find('\n'));
  std::vector<std::string> four = instances_;
  four.push_back(added);
  const client::ConsistentHashRing ring(four);
  std::vector<std::string> expected;
  for (const auto& [world, owner] : was) {
    if (ring.Owner(world) != owner) expected.push_back("  " + world);
  }
  std::string list = four[0];
  for (size_t i = 1; i < four.size(); ++i) list += "," + four[i];
  std::string output;
  ASSERT_EQ(Cli("rebalance --yes --instances " + list, &output), 0) << output;
  std::cout << output;
  EXPECT_THAT(output, HasSubstr(std::to_string(expected.size()) + " of 30 worlds change owner"));
  for (const std::string& line : expected) EXPECT_THAT(output, HasSubstr(line + " ")) << line;

  ASSERT_EQ(Cluster("reload " + dir_.string()), 0);
  ReadEnv();
  ASSERT_EQ(instances_, four);
  for (const auto& [world, h] : hash) {
    EXPECT_EQ(instances_[OwnerOf(world)], ring.Owner(world)) << world;
    // nginx's old workers finish their calls and retire: retry briefly.
    absl::StatusOr<v1::GetStateHashResponse> now = Hash(*proxy, world);
    for (int i = 0; i < 100 && !now.ok(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      now = Hash(*proxy, world);
    }
    ASSERT_THAT(now, IsOk()) << world;
    EXPECT_EQ(now->state_hash(), h) << world;
  }
}

class FleetListing : public FleetMoves {};

TEST_F(FleetListing, WorldsAcrossInstances_ListsEveryWorldWithItsInstance_AndReportsOneThatIsDown) {
  std::unique_ptr<client::ArbiterClient> proxy = Connect(proxy_);
  for (int i = 0; i < 12; ++i) ASSERT_THAT(proxy->CreateWorld(SmallWorld(WorldName(i))), IsOk());
  std::string list = instances_[0] + "," + instances_[1] + "," + instances_[2];
  std::string output;
  ASSERT_EQ(Cli("worlds --instances " + list, &output), 0) << output;
  for (int i = 0; i < 12; ++i) {
    const std::string world = WorldName(i);
    EXPECT_THAT(output, ::testing::ContainsRegex(world + " +" + instances_[OwnerOf(world)])) << world;
  }
  // Sorted by world id: match-00 comes before match-11.
  EXPECT_LT(output.find(WorldName(0)), output.find(WorldName(11)));

  ASSERT_EQ(Cluster("kill " + dir_.string() + " 1"), 0);
  const client::FleetListing listing = client::ListWorldsAcross(instances_);
  ASSERT_EQ(listing.unreachable.size(), 1u);
  EXPECT_EQ(listing.unreachable[0].first, instances_[1]);
  for (const client::FleetWorld& w : listing.worlds) EXPECT_NE(w.instance, instances_[1]) << w.info.world_id();
  size_t on_others = 0;
  for (int i = 0; i < 12; ++i) on_others += OwnerOf(WorldName(i)) >= 0 ? 1 : 0;  // instance 1 no longer answers
  EXPECT_EQ(listing.worlds.size(), on_others);
  output.clear();
  EXPECT_EQ(Cli("worlds --instances " + list, &output), 1 << 8) << "a partial list is flagged";
  EXPECT_THAT(output, HasSubstr("instance " + instances_[1] + " did not answer"));
  for (const client::FleetWorld& w : listing.worlds) EXPECT_THAT(output, HasSubstr(w.info.world_id()));
}

}  // namespace
}  // namespace arbiter::testing

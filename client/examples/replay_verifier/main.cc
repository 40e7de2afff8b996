// A replay verifier: exports a world's journal (ExportJournal; the server
// must run with --data_dir) and re-runs it here, in this process, on the
// arbiter core: every step's per-tick state hash and every checkpoint
// snapshot must come out the same. This is an independent check of the
// server's record (`arbiter replay verify FILE` does the same with the
// server's own replay code, and also re-asks recorded queries).
//
//   replay_verifier [HOST:PORT [WORLD]]   (default 127.0.0.1:50051; without
//                                          WORLD it makes and steps its own)
//
// Exit 0 when every tick and checkpoint matches, 1 otherwise.
#include <cstdio>
#include <string>
#include <vector>

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>

#include "arbiter/client/client.h"
#include "arbiter/v1/journal.pb.h"
#include "arbiter/wire/convert.h"

using namespace arbiter;

namespace {

constexpr std::string_view kMagic = "ARBJRNL1";  // journal.proto: the file's first 8 bytes

// The records of an export file: the magic, then length-delimited records.
bool ParseExport(const std::string& file, std::vector<v1::JournalRecord>* out) {
  if (file.compare(0, kMagic.size(), kMagic) != 0) return false;
  const int total = static_cast<int>(file.size() - kMagic.size());
  google::protobuf::io::ArrayInputStream bytes(file.data() + kMagic.size(), total);
  google::protobuf::io::CodedInputStream in(&bytes);
  while (in.CurrentPosition() < total) {
    uint32_t size = 0;
    if (!in.ReadVarint32(&size)) return false;
    const auto limit = in.PushLimit(static_cast<int>(size));
    v1::JournalRecord record;
    if (!record.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage()) return false;
    in.PopLimit(limit);
    out->push_back(std::move(record));
  }
  return true;
}

// Applies one parsed body update to the local world.
bool Apply(World& world, const v1::BodyUpdate& update) {
  wire::BodyUpdate u;
  if (!wire::ParseBodyUpdate(update, "update", &u).ok()) return false;
  if (u.transform && !world.SetBodyTransform(u.body_id, *u.transform).ok()) return false;
  if (u.velocity && !world.SetBodyVelocity(u.body_id, u.velocity->first, u.velocity->second).ok()) return false;
  for (const auto& [index, filter] : u.filters) {
    if (!world.SetShapeFilter(u.body_id, index, filter).ok()) return false;
  }
  return true;
}

struct Verifier {
  World world;
  int64_t ticks = 0, checkpoints = 0;
  std::string problem;  // the first difference, or why the replay stopped

  bool Fail(int64_t tick, const std::string& what) {
    problem = "tick " + std::to_string(tick) + ": " + what;
    return false;
  }

  bool Snapshot(const v1::JournalRecord& r, bool first) {
    const std::string& bytes = r.snapshot().snapshot();
    const std::span<const uint8_t> image(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (first || r.snapshot().restored()) {
      return World::Restore(image, &world).ok() || Fail(r.tick(), "snapshot does not restore");
    }
    ++checkpoints;  // a checkpoint: the replayed state must hash the same
    return world.StateHash() == r.snapshot().state_hash() || Fail(r.tick(), "checkpoint hash differs");
  }

  bool Step(const v1::JournalRecord& r) {
    const v1::StepRequest& step = r.step();
    for (uint32_t i = 0; i < step.ticks(); ++i) {
      for (const v1::StepCommand& c : step.commands()) {
        if (c.tick_offset() == i && !Apply(world, c.update())) return Fail(world.tick(), "a step command does not apply");
      }
      world.Step();
      ++ticks;
      if (static_cast<int>(i) < r.tick_hashes_size() && world.StateHash() != r.tick_hashes(static_cast<int>(i))) {
        return Fail(world.tick(), "state hash differs");
      }
    }
    return true;
  }

  bool Record(const v1::JournalRecord& r, bool first_snapshot) {
    switch (r.entry_case()) {
      case v1::JournalRecord::kSnapshot:
        return Snapshot(r, first_snapshot);
      case v1::JournalRecord::kAddBodies: {
        std::vector<BodyDef> defs(static_cast<size_t>(r.add_bodies().bodies_size()));
        for (size_t i = 0; i < defs.size(); ++i) {
          if (!wire::ParseBodyDef(r.add_bodies().bodies(static_cast<int>(i)), "body", &defs[i]).ok()) {
            return Fail(r.tick(), "a recorded body does not parse");
          }
        }
        return world.AddBodies(defs).ok() || Fail(r.tick(), "recorded bodies do not add");
      }
      case v1::JournalRecord::kRemoveBodies: {
        const auto& ids = r.remove_bodies().body_ids();
        return world.RemoveBodies(std::vector<uint64_t>(ids.begin(), ids.end())).ok() ||
               Fail(r.tick(), "recorded removal fails");
      }
      case v1::JournalRecord::kUpdateBodies:
        for (const v1::BodyUpdate& u : r.update_bodies().updates()) {
          if (!Apply(world, u)) return Fail(r.tick(), "a recorded update does not apply");
        }
        return true;
      case v1::JournalRecord::kStep:
        return Step(r);
      default:
        return true;  // the header, recorded queries
    }
  }
};

// Without a WORLD argument: a small world of falling disks, stepped with a
// command in the middle, so that there is a journal to verify.
bool MakeWorld(client::ArbiterClient& arbiter, const std::string& world) {
  v1::CreateWorldRequest create;
  create.set_world_id(world);
  *create.mutable_gravity() = client::MakeVec2(0, -10);
  *create.add_bodies() = client::MakeBody(1, v1::BODY_TYPE_STATIC, 0, 0, client::MakeBox(20, 1));
  for (int i = 0; i < 4; ++i) {
    *create.add_bodies() = client::MakeBody(10 + i, v1::BODY_TYPE_DYNAMIC, i * 2.5 - 4, 4 + i, client::MakeCircle(0.5));
  }
  if (!arbiter.CreateWorld(create).ok()) return false;
  v1::StepRequest step;
  step.set_world_id(world);
  step.set_ticks(90);
  v1::StepCommand* kick = step.add_commands();
  kick->set_tick_offset(45);
  kick->mutable_update()->set_body_id(11);
  *kick->mutable_update()->mutable_velocity()->mutable_linear() = client::MakeVec2(3, 6);
  return arbiter.Step(step).ok();
}

}  // namespace

int main(int argc, char** argv) {
  auto arbiter = client::ArbiterClient::Connect(argc > 1 ? argv[1] : "127.0.0.1:50051");
  const bool own = argc <= 2;
  const std::string world = own ? "replay-verifier-example" : argv[2];
  if (own && !MakeWorld(*arbiter, world)) {
    std::fprintf(stderr, "could not create and step world %s\n", world.c_str());
    return 1;
  }
  v1::ExportJournalRequest request;
  request.set_world_id(world);
  absl::StatusOr<std::string> file = arbiter->ExportJournal(request);
  if (!file.ok()) {
    std::fprintf(stderr, "ExportJournal: %s\n", file.status().ToString().c_str());
    return 1;
  }
  std::vector<v1::JournalRecord> records;
  if (!ParseExport(*file, &records)) {
    std::fprintf(stderr, "the export is not a journal file\n");
    return 1;
  }
  Verifier v;
  bool ok = true, first_snapshot = true;
  for (const v1::JournalRecord& r : records) {
    ok = v.Record(r, first_snapshot);
    if (r.has_snapshot()) first_snapshot = false;
    if (!ok) break;
  }
  if (own) {
    v1::DeleteWorldRequest done;
    done.set_world_id(world);
    arbiter->DeleteWorld(done).IgnoreError();
  }
  std::printf("world %s: %zu records, %lld ticks and %lld checkpoints replayed: %s\n", world.c_str(), records.size(),
              static_cast<long long>(v.ticks), static_cast<long long>(v.checkpoints),
              ok ? "identical" : ("DIFFERENT at " + v.problem).c_str());
  return ok && v.ticks > 0 ? 0 : 1;
}

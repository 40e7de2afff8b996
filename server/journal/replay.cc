#include "journal/replay.h"

#include <google/protobuf/util/message_differencer.h>

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>

namespace arbiter::server {
namespace {

// Raw Q32.32 and its decimal value (display only).
std::string Show(Fixed v) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.9f (raw %" PRId64 ")", static_cast<double>(v.raw()) / 4294967296.0, v.raw());
  return buffer;
}

const char* TypeName(BodyType t) {
  switch (t) {
    case BodyType::kStatic: return "static";
    case BodyType::kKinematic: return "kinematic";
    case BodyType::kDynamic: return "dynamic";
  }
  return "?";
}

template <class Reply>
std::string Compare(const Reply& recorded, const Reply& replayed) {
  std::string report;
  google::protobuf::util::MessageDifferencer differ;
  differ.ReportDifferencesToString(&report);
  if (differ.Compare(recorded, replayed)) return "";
  // The first line names the first differing field.
  return report.substr(0, report.find('\n'));
}

}  // namespace

ServiceLimits ReplayLimits() {
  ServiceLimits limits;
  limits.max_batch = std::numeric_limits<uint32_t>::max();
  limits.max_message_bytes = std::numeric_limits<size_t>::max();
  limits.max_step_ticks = std::numeric_limits<uint32_t>::max();
  limits.max_history_ticks = std::numeric_limits<uint32_t>::max();
  return limits;
}

std::vector<BodyDifference> DiffWorlds(const World& recorded, const World& replayed) {
  std::vector<BodyDifference> out;
  std::set<uint64_t> ids;
  for (uint64_t id : recorded.BodyIds()) ids.insert(id);
  for (uint64_t id : replayed.BodyIds()) ids.insert(id);
  for (uint64_t id : ids) {
    const std::optional<BodyView> a = recorded.FindBody(id);
    const std::optional<BodyView> b = replayed.FindBody(id);
    if (!a || !b) {
      out.push_back({id, "exists", a ? "yes" : "no", b ? "yes" : "no"});
      continue;
    }
    auto fixed = [&](const char* field, Fixed x, Fixed y) {
      if (x != y) out.push_back({id, field, Show(x), Show(y)});
    };
    if (a->type != b->type) out.push_back({id, "type", TypeName(a->type), TypeName(b->type)});
    fixed("transform.p.x", a->transform.p.x, b->transform.p.x);
    fixed("transform.p.y", a->transform.p.y, b->transform.p.y);
    fixed("transform.q.c", a->transform.q.c, b->transform.q.c);
    fixed("transform.q.s", a->transform.q.s, b->transform.q.s);
    fixed("linear_velocity.x", a->linear_velocity.x, b->linear_velocity.x);
    fixed("linear_velocity.y", a->linear_velocity.y, b->linear_velocity.y);
    fixed("angular_velocity", a->angular_velocity, b->angular_velocity);
    if (a->shape_count != b->shape_count) {
      out.push_back({id, "shape_count", std::to_string(a->shape_count), std::to_string(b->shape_count)});
    }
  }
  return out;
}

Replayer::Replayer(WorldRegistry* registry, Mode mode) : operations_(registry, ReplayLimits()), mode_(mode) {}

absl::Status Replayer::Diverged(int64_t tick, uint64_t recorded, uint64_t replayed, std::string what) {
  if (mode_ == Mode::kRecover) {
    return absl::DataLossError("world '" + world_id_ + "': replaying the journal gives a different state at tick " +
                               std::to_string(tick) + " (" + what + "); refusing to serve it");
  }
  if (!report_.diverged) {
    report_.diverged = true;
    report_.first_divergent_tick = tick;
    report_.recorded_hash = recorded;
    report_.replayed_hash = replayed;
    report_.divergence = std::move(what);
  }
  return absl::OkStatus();
}

absl::Status Replayer::CompareCheckpoint(const v1::JournalRecord& record) {
  const std::string& bytes = record.snapshot().snapshot();
  const auto [same, replayed_hash] = entry_->Read([&](const World& world) {
    const std::vector<uint8_t> mine = world.Snapshot();
    return std::make_pair(mine.size() == bytes.size() && std::memcmp(mine.data(), bytes.data(), mine.size()) == 0,
                          world.StateHash());
  });
  ++report_.checkpoints_checked;
  if (same) return absl::OkStatus();
  if (absl::Status s = Diverged(record.tick(), record.snapshot().state_hash(), replayed_hash,
                                "the recorded full state differs");
      !s.ok()) {
    return s;
  }
  if (report_.compared_at_tick < 0) {
    World recorded;
    const std::span<const uint8_t> span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    if (!World::Restore(span, &recorded).ok()) {
      return absl::DataLossError("journal record " + std::to_string(record.seq()) + ": unreadable snapshot");
    }
    report_.compared_at_tick = record.tick();
    report_.bodies = entry_->Read([&](const World& world) { return DiffWorlds(recorded, world); });
  }
  return absl::OkStatus();
}

absl::Status Replayer::Query(const v1::JournalRecord& record) {
  const v1::RecordedQuery& q = record.query();
  ++report_.queries_checked;
  auto run = [&](auto prepared, const auto& recorded_reply, const auto& reply, const char* kind) -> absl::Status {
    absl::Status s = prepared.status();
    if (s.ok()) s = prepared->entry->Read([&](const World& world) { return prepared->run(world, [] { return false; }); });
    std::string what = s.ok() ? Compare(recorded_reply, reply) : "now fails: " + std::string(s.message());
    if (!what.empty()) report_.queries.push_back({record.seq(), record.tick(), kind, std::move(what)});
    return absl::OkStatus();
  };
  switch (q.request_case()) {
    case v1::RecordedQuery::kCastRays: {
      v1::CastRaysResponse reply;
      return run(operations_.PrepareCastRays(q.cast_rays(), &reply), q.cast_rays_reply(), reply, "cast_rays");
    }
    case v1::RecordedQuery::kOverlap: {
      v1::OverlapResponse reply;
      return run(operations_.PrepareOverlap(q.overlap(), &reply), q.overlap_reply(), reply, "overlap");
    }
    case v1::RecordedQuery::kCastShapes: {
      v1::CastShapesResponse reply;
      return run(operations_.PrepareCastShapes(q.cast_shapes(), &reply), q.cast_shapes_reply(), reply, "cast_shapes");
    }
    case v1::RecordedQuery::kValidateHit: {
      v1::ValidateHitResponse reply;
      return run(operations_.PrepareValidateHit(q.validate_hit(), &reply), q.validate_hit_reply(), reply,
                 "validate_hit");
    }
    case v1::RecordedQuery::kValidateMove: {
      v1::ValidateMoveResponse reply;
      return run(operations_.PrepareValidateMove(q.validate_move(), &reply), q.validate_move_reply(), reply,
                 "validate_move");
    }
    case v1::RecordedQuery::kValidateShots: {
      // The recorded request carries the rewind cap the caller had.
      v1::ValidateShotsResponse reply;
      return run(operations_.PrepareValidateShots(q.validate_shots(), std::nullopt, &reply), q.validate_shots_reply(),
                 reply, "validate_shots");
    }
    case v1::RecordedQuery::kDistance: {
      v1::DistanceResponse reply;
      return run(operations_.PrepareDistance(q.distance(), &reply), q.distance_reply(), reply, "distance");
    }
    case v1::RecordedQuery::kMoveShapes: {
      v1::MoveShapesResponse reply;
      return run(operations_.PrepareMoveShapes(q.move_shapes(), &reply), q.move_shapes_reply(), reply, "move_shapes");
    }
    case v1::RecordedQuery::REQUEST_NOT_SET: break;
  }
  return absl::DataLossError("journal record after " + std::to_string(record.seq()) + ": a query of no known kind");
}

absl::Status Replayer::ApplyMove(const v1::WorldMove& move) {
  return entry_->Write([&](World&) -> absl::Status {
    switch (move.kind()) {
      case v1::WorldMove::FROZEN:
        entry_->Thaw();  // a freeze is recorded only on a live world
        if (absl::Status s = entry_->Freeze(move.destination()); !s.ok()) return s;
        break;
      case v1::WorldMove::THAWED:
      case v1::WorldMove::ARRIVED: entry_->Thaw(); break;
      default: return absl::DataLossError("a move record of no known kind");
    }
    entry_->set_epoch(move.epoch());
    return absl::OkStatus();
  });
}

absl::Status Replayer::Apply(const v1::JournalRecord& record) {
  ++report_.records;
  const std::string at = "journal record " + std::to_string(record.seq()) + ": ";
  if (record.has_header()) {
    world_id_ = record.header().world_id();
    report_.world_id = world_id_;
    history_ticks_ = record.header().history_ticks();
    return absl::OkStatus();
  }
  if (world_id_.empty()) return absl::DataLossError(at + "comes before the journal's header");
  if (record.has_query()) {
    if (entry_ == nullptr) return absl::DataLossError(at + "a query before the first snapshot");
    return Query(record);
  }
  if (entry_ == nullptr) return Start(record, at);
  if (record.seq() != last_seq_ + 1) {
    return absl::DataLossError(at + "expected record " + std::to_string(last_seq_ + 1) + " (a gap in the journal)");
  }
  last_seq_ = record.seq();
  const int64_t tick_now = entry_->Read([](const World& world) { return world.tick(); });
  if (record.tick() != tick_now && !report_.diverged) {
    if (absl::Status s = Diverged(record.tick(), 0, 0,
                                  "the record was made at tick " + std::to_string(record.tick()) +
                                      " but the replay is at tick " + std::to_string(tick_now));
        !s.ok()) {
      return s;
    }
  }
  if (record.entry_case() == v1::JournalRecord::ENTRY_NOT_SET) {
    return absl::DataLossError(at + "a record of no known kind");
  }
  if (absl::Status s = ApplyChange(record); !s.ok()) return s;
  report_.last_tick = entry_->Read([](const World& world) { return world.tick(); });
  return absl::OkStatus();
}

absl::Status Replayer::Start(const v1::JournalRecord& record, const std::string& at) {
  if (!record.has_snapshot()) return absl::DataLossError(at + "the journal does not start with a snapshot");
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry =
      operations_.AdoptWorld(world_id_, history_ticks_, record.snapshot().snapshot());
  if (!entry.ok()) return absl::DataLossError(at + std::string(entry.status().message()));
  entry_ = *entry;
  entry_->Write([&](World&) { entry_->set_epoch(record.snapshot().epoch()); });
  last_seq_ = record.seq();
  report_.first_tick = entry_->Read([](const World& world) { return world.tick(); });
  report_.last_tick = report_.first_tick;
  return absl::OkStatus();
}

absl::Status Replayer::ApplyChange(const v1::JournalRecord& record) {
  absl::Status applied;
  switch (record.entry_case()) {
    case v1::JournalRecord::kSnapshot: applied = ApplySnapshot(record); break;
    case v1::JournalRecord::kAddBodies: {
      v1::AddBodiesResponse reply;
      applied = operations_.AddBodies(record.add_bodies(), &reply);
      break;
    }
    case v1::JournalRecord::kRemoveBodies: {
      v1::RemoveBodiesResponse reply;
      applied = operations_.RemoveBodies(record.remove_bodies(), &reply);
      break;
    }
    case v1::JournalRecord::kUpdateBodies: {
      v1::UpdateBodiesResponse reply;
      applied = operations_.UpdateBodies(record.update_bodies(), &reply);
      break;
    }
    case v1::JournalRecord::kStep: {
      absl::Status diverged;
      applied = ApplyStep(record, &diverged);
      if (!diverged.ok()) return diverged;
      break;
    }
    case v1::JournalRecord::kMove: applied = ApplyMove(record.move()); break;
    default: break;  // Apply took the header, queries and records of no kind
  }
  if (applied.ok()) return absl::OkStatus();
  return Diverged(record.tick(), 0, 0,
                  "record " + std::to_string(record.seq()) + " was accepted when recorded and is rejected now: " +
                      std::string(applied.message()));
}

absl::Status Replayer::ApplySnapshot(const v1::JournalRecord& record) {
  if (!record.snapshot().restored()) return CompareCheckpoint(record);
  v1::RestoreRequest request;
  request.set_world_id(world_id_);
  request.set_snapshot(record.snapshot().snapshot());
  v1::RestoreResponse reply;
  return operations_.Restore(request, &reply);
}

absl::Status Replayer::ApplyStep(const v1::JournalRecord& record, absl::Status* diverged) {
  v1::StepRequest request = record.step();
  request.set_world_id(world_id_);
  request.set_omit_events(true);
  request.set_hash_every_tick(true);
  v1::StepResponse reply;
  if (absl::Status s = operations_.Step(request, &reply, [] { return false; }); !s.ok()) return s;
  for (int i = 0; i < reply.ticks_size() && i < record.tick_hashes_size(); ++i) {
    ++report_.ticks_checked;
    if (reply.ticks(i).state_hash() != record.tick_hashes(i)) {
      *diverged = Diverged(reply.ticks(i).tick(), record.tick_hashes(i), reply.ticks(i).state_hash(),
                           "the state hash after the step into this tick differs");
      break;
    }
  }
  return absl::OkStatus();
}

}  // namespace arbiter::server

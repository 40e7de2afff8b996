// Step: commands checked against the world first, applied at their tick
// offsets, every tick hashed; the whole run is journaled with a checkpoint
// when it crosses one, then published to watchers. A failure or cancellation
// part way returns the world to its starting tick.
#include "ops/operations.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/core/limits.h"
#include "arbiter/wire/convert.h"
#include "ops/body_updates.h"
#include "ops/request_checks.h"
#include "ops/status_convert.h"
#include "ops/world_records.h"

namespace arbiter::server {
namespace {

// The step's ticks and wall-clock duration, for /metrics only.
void CountStep(WorldCounters& counters, uint32_t ticks, std::chrono::steady_clock::time_point started) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  counters.ticks.fetch_add(ticks, std::memory_order_relaxed);
  counters.step.Observe(static_cast<uint64_t>(micros.count()));
}

// The step's commands, parsed, and the order they apply in: by tick
// offset, request order within an offset (a stable sort: deterministic).
struct StepCommands {
  std::vector<wire::BodyUpdate> updates;
  std::vector<size_t> order;
};

absl::StatusOr<StepCommands> ParseCommands(const v1::StepRequest& request, uint32_t ticks) {
  const size_t count = static_cast<size_t>(request.commands_size());
  StepCommands commands;
  commands.updates.resize(count);
  commands.order.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const v1::StepCommand& c = request.commands(static_cast<int>(i));
    const std::string field = Indexed("commands", i);
    if (c.tick_offset() >= ticks) {
      return absl::OutOfRangeError(field + ".tick_offset: " + std::to_string(c.tick_offset()) +
                                   " is not below ticks (" + std::to_string(ticks) + ")");
    }
    if (!c.has_update()) return absl::InvalidArgumentError(field + ".update: required");
    if (absl::Status s = wire::ParseBodyUpdate(c.update(), field + ".update", &commands.updates[i]); !s.ok()) {
      return s;
    }
    commands.order[i] = i;
  }
  std::stable_sort(commands.order.begin(), commands.order.end(), [&](size_t a, size_t b) {
    return request.commands(static_cast<int>(a)).tick_offset() < request.commands(static_cast<int>(b)).tick_offset();
  });
  return commands;
}

// What the ticks produced: each tick's state hash and, when events or
// per-tick hashes were asked for or somebody watches, each tick's message.
struct StepOutput {
  std::vector<uint64_t> tick_hashes;
  std::vector<std::shared_ptr<const v1::TickEvents>> published;
};

// One tick's message: its events when wanted, its hash when asked.
std::shared_ptr<const v1::TickEvents> TickMessage(const World& world, const TickEvents* events, uint64_t hash,
                                                  bool with_hash) {
  auto tick = std::make_shared<v1::TickEvents>();
  if (events != nullptr) {
    wire::ToProto(*events, world.tick(), tick.get());
  } else {
    tick->set_tick(world.tick());
  }
  if (with_hash) tick->set_state_hash(hash);
  return tick;
}

// Runs the ticks, applying each command before the tick it belongs to. On
// a failed command, or a tick refused for its contact pairs
// (World::StepWithin), the tick's updates are rolled back and the error
// returned, as is a cancellation between ticks: the caller then returns
// the world to where it started.
absl::Status RunTicks(WorldEntry& entry, World& world, const v1::StepRequest& request, const StepCommands& commands,
                      bool want_events, StepThreadPool* pool, const CancelFn& cancelled, StepOutput* out) {
  const uint32_t ticks = request.ticks();
  out->tick_hashes.reserve(ticks);
  if (want_events) out->published.reserve(ticks);
  TickEvents events;
  size_t next = 0;
  for (uint32_t t = 0; t < ticks; ++t) {
    if (t > 0 && cancelled()) return Cancelled();
    // The state at this tick is final now: the step commands below
    // belong to the step out of it.
    entry.history().Record(world);
    std::vector<Undo> undo;
    for (; next < commands.order.size() &&
           request.commands(static_cast<int>(commands.order[next])).tick_offset() == t;
         ++next) {
      const size_t i = commands.order[next];
      if (absl::Status s = ApplyUpdate(world, commands.updates[i], Indexed("commands", i) + ".update", &undo);
          !s.ok()) {
        return RollBack(entry, world, undo, s);
      }
    }
    // A tick that would pile up more contact pairs than a server holds is
    // refused before it changes the world; its commands are rolled back.
    if (Status s = world.StepWithin(kMaxStepPairs, want_events ? &events : nullptr, nullptr, pool); !s.ok()) {
      return RollBack(entry, world, undo, absl::ResourceExhaustedError("ticks: " + s.message()));
    }
    out->tick_hashes.push_back(world.StateHash());
    if (want_events || request.hash_every_tick()) {
      out->published.push_back(TickMessage(world, want_events ? &events : nullptr, out->tick_hashes.back(),
                                           request.hash_every_tick()));
    }
  }
  return absl::OkStatus();
}

// The reply's ticks: every tick's events unless omitted (none when they
// would not fit the transport: the ticks happened either way), or only
// the per-tick hashes when asked.
void FillTicks(const v1::StepRequest& request, const StepOutput& out, size_t max_message_bytes,
               v1::StepResponse* reply) {
  if (!request.omit_events()) {
    reply->mutable_ticks()->Reserve(static_cast<int>(out.published.size()));
    for (const auto& tick : out.published) *reply->add_ticks() = *tick;
    if (reply->ByteSizeLong() > max_message_bytes) {
      reply->clear_ticks();
      reply->set_events_truncated(true);
    }
  } else if (request.hash_every_tick()) {
    for (const auto& tick : out.published) {
      v1::TickEvents* t = reply->add_ticks();
      t->set_tick(tick->tick());
      t->set_state_hash(tick->state_hash());
    }
  }
}

}  // namespace

absl::Status Operations::Step(const v1::StepRequest& request, v1::StepResponse* reply, const CancelFn& cancelled) {
  const uint32_t ticks = request.ticks();
  if (ticks == 0) return absl::InvalidArgumentError("ticks: must be at least 1");
  if (ticks > limits_.max_step_ticks) {
    return absl::ResourceExhaustedError("ticks: " + std::to_string(ticks) + " exceed the limit of " +
                                        std::to_string(limits_.max_step_ticks) + " per call (--max_step_ticks)");
  }
  if (request.commands_size() > 0) {
    if (absl::Status s = CheckBatch(static_cast<size_t>(request.commands_size()), "commands"); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();
  absl::StatusOr<StepCommands> commands = ParseCommands(request, ticks);
  if (!commands.ok()) return commands.status();

  WorldEntry& world_entry = **entry;
  return world_entry.WriteLive([&](World& world) -> absl::Status {
    if (absl::Status s = CheckExpected(request, world_entry, world); !s.ok()) return s;
    const auto started = std::chrono::steady_clock::now();
    for (size_t i = 0; i < commands->updates.size(); ++i) {
      const std::string field = Indexed("commands", i) + ".update";
      if (absl::Status s = CheckUpdateAgainstWorld(world, commands->updates[i], field); !s.ok()) return s;
    }
    if (cancelled()) return Cancelled();
    // One tick can be undone with the update undo log alone (the tick itself
    // runs only after every command applied). Longer runs keep a copy to
    // return to if a later command fails or the caller cancels: a copy,
    // not a snapshot, so that returning cannot fail (issue 13).
    std::optional<World> before;
    if (ticks > 1) before = world.Clone();
    const int64_t start_tick = world.tick();
    const bool watched = world_entry.events().HasSubscribers();
    StepOutput out;
    if (absl::Status s = RunTicks(world_entry, world, request, *commands, !request.omit_events() || watched,
                                  step_pool_.get(), cancelled, &out);
        !s.ok()) {
      if (before) world = std::move(*before);
      world_entry.history().DropFrom(start_tick);
      return s;
    }
    if (absl::Status s = JournalStep(world_entry, world, request, start_tick, out.tick_hashes); !s.ok()) return s;
    for (uint64_t h : out.tick_hashes) world_entry.hashes().Push(h);
    reply->set_tick(world.tick());
    reply->set_state_hash(out.tick_hashes.back());
    FillTicks(request, out, limits_.max_message_bytes, reply);
    if (watched) world_entry.events().Publish(out.published);
    CountStep(world_entry.counters(), ticks, started);
    return absl::OkStatus();
  });
}

absl::Status Operations::JournalStep(WorldEntry& entry, const World& world, const v1::StepRequest& request,
                                     int64_t start_tick, const std::vector<uint64_t>& tick_hashes) {
  if (!Journaled(entry)) return absl::OkStatus();
  v1::JournalRecord record;
  record.set_tick(start_tick);
  *record.mutable_step() = request;
  for (uint64_t h : tick_hashes) record.add_tick_hashes(h);
  std::vector<v1::JournalRecord*> records = {&record};
  // A checkpoint when the step crossed a multiple of
  // --snapshot_every_ticks, so that a restart replays a bounded tail.
  v1::JournalRecord checkpoint;
  const int64_t every = durability_.snapshot_every_ticks;
  if (every > 0 && world.tick() / every != start_tick / every) {
    checkpoint = SnapshotRecord(world, /*restored=*/false, entry.epoch());
    records.push_back(&checkpoint);
  }
  if (absl::Status s = JournalChange(entry, records); !s.ok()) return s;
  if (records.size() > 1) CompactJournal(entry, world);
  return absl::OkStatus();
}

}  // namespace arbiter::server

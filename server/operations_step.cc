// Step: commands checked against the world first, applied at their tick
// offsets, every tick hashed; the whole run is journaled with a checkpoint
// when it crosses one, then published to watchers. A failure or cancellation
// part way returns the world to its starting tick.
#include "operations.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "arbiter/wire/convert.h"
#include "body_updates.h"
#include "request_checks.h"
#include "world_records.h"
#include "status_convert.h"

namespace arbiter::server {
namespace {

// The step's ticks and wall-clock duration, for /metrics only.
void CountStep(WorldCounters& counters, uint32_t ticks, std::chrono::steady_clock::time_point started) {
  const auto micros = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - started);
  counters.ticks.fetch_add(ticks, std::memory_order_relaxed);
  counters.step.Observe(static_cast<uint64_t>(micros.count()));
}

}  // namespace

absl::Status Operations::Step(const v1::StepRequest& request, v1::StepResponse* reply, const CancelFn& cancelled) {
  const uint32_t ticks = request.ticks();
  if (ticks == 0) return absl::InvalidArgumentError("ticks: must be at least 1");
  if (ticks > limits_.max_step_ticks) {
    return absl::ResourceExhaustedError("ticks: " + std::to_string(ticks) + " exceed the limit of " +
                                        std::to_string(limits_.max_step_ticks) + " per call (--max_step_ticks)");
  }
  const size_t command_count = static_cast<size_t>(request.commands_size());
  if (command_count > 0) {
    if (absl::Status s = CheckBatch(command_count, "commands"); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldEntry>> entry = registry_->Find(request.world_id());
  if (!entry.ok()) return entry.status();

  // Parse every command; then order them by tick offset, keeping request
  // order within an offset (stable sort: deterministic).
  std::vector<wire::BodyUpdate> updates(command_count);
  std::vector<size_t> order(command_count);
  for (size_t i = 0; i < command_count; ++i) {
    const v1::StepCommand& c = request.commands(static_cast<int>(i));
    const std::string field = Indexed("commands", i);
    if (c.tick_offset() >= ticks) {
      return absl::OutOfRangeError(field + ".tick_offset: " + std::to_string(c.tick_offset()) +
                                   " is not below ticks (" + std::to_string(ticks) + ")");
    }
    if (!c.has_update()) return absl::InvalidArgumentError(field + ".update: required");
    if (absl::Status s = wire::ParseBodyUpdate(c.update(), field + ".update", &updates[i]); !s.ok()) return s;
    order[i] = i;
  }
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return request.commands(static_cast<int>(a)).tick_offset() < request.commands(static_cast<int>(b)).tick_offset();
  });

  WorldEntry& world_entry = **entry;
  return world_entry.WriteLive([&](World& world) -> absl::Status {
    if (absl::Status s = CheckExpected(request, world_entry, world); !s.ok()) return s;
    const auto started = std::chrono::steady_clock::now();
    for (size_t i = 0; i < command_count; ++i) {
      const std::string field = Indexed("commands", i) + ".update";
      if (absl::Status s = CheckUpdateAgainstWorld(world, updates[i], field); !s.ok()) return s;
    }
    if (cancelled()) return Cancelled();
    // One tick can be undone with the update undo log alone (the tick itself
    // runs only after every command applied). Longer runs keep a copy to
    // return to if a later command fails or the caller cancels: a copy,
    // not a snapshot, so that returning cannot fail (issue 13).
    std::optional<World> before;
    if (ticks > 1) before = world.Clone();
    const int64_t start_tick = world.tick();
    auto abandon = [&](absl::Status why) {
      if (before) world = std::move(*before);
      world_entry.history().DropFrom(start_tick);
      return why;
    };
    std::vector<uint64_t> tick_hashes;
    tick_hashes.reserve(ticks);

    const bool watched = world_entry.events().HasSubscribers();
    const bool want_events = !request.omit_events() || watched;
    std::vector<std::shared_ptr<const v1::TickEvents>> published;
    if (want_events) published.reserve(ticks);
    TickEvents events;
    size_t next = 0;
    for (uint32_t t = 0; t < ticks; ++t) {
      if (t > 0 && cancelled()) return abandon(Cancelled());
      // The state at this tick is final now: the step commands below
      // belong to the step out of it.
      world_entry.history().Record(world);
      std::vector<Undo> undo;
      for (; next < command_count && request.commands(static_cast<int>(order[next])).tick_offset() == t; ++next) {
        const size_t i = order[next];
        if (absl::Status s = ApplyUpdate(world, updates[i], Indexed("commands", i) + ".update", &undo); !s.ok()) {
          return abandon(RollBack(world_entry, world, undo, s));
        }
      }
      world.Step(want_events ? &events : nullptr, nullptr, step_pool_.get());
      tick_hashes.push_back(world.StateHash());
      if (want_events || request.hash_every_tick()) {
        auto tick = std::make_shared<v1::TickEvents>();
        if (want_events) {
          wire::ToProto(events, world.tick(), tick.get());
        } else {
          tick->set_tick(world.tick());
        }
        if (request.hash_every_tick()) tick->set_state_hash(tick_hashes.back());
        published.push_back(std::move(tick));
      }
    }
    if (Journaled(world_entry)) {
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
        checkpoint = SnapshotRecord(world, /*restored=*/false, world_entry.epoch());
        records.push_back(&checkpoint);
      }
      if (absl::Status s = JournalChange(world_entry, records); !s.ok()) return s;
      if (records.size() > 1) CompactJournal(world_entry, world);
    }
    for (uint64_t h : tick_hashes) world_entry.hashes().Push(h);
    reply->set_tick(world.tick());
    reply->set_state_hash(tick_hashes.back());
    if (!request.omit_events()) {
      reply->mutable_ticks()->Reserve(static_cast<int>(published.size()));
      for (const auto& tick : published) *reply->add_ticks() = *tick;
      // Keep the reply deliverable: the ticks happened either way; a reply
      // the transport would refuse would hide that.
      if (reply->ByteSizeLong() > limits_.max_message_bytes) {
        reply->clear_ticks();
        reply->set_events_truncated(true);
      }
    } else if (request.hash_every_tick()) {
      for (const auto& tick : published) {
        v1::TickEvents* t = reply->add_ticks();
        t->set_tick(tick->tick());
        t->set_state_hash(tick->state_hash());
      }
    }
    if (watched) world_entry.events().Publish(published);
    CountStep(world_entry.counters(), ticks, started);
    return absl::OkStatus();
  });
}

}  // namespace arbiter::server

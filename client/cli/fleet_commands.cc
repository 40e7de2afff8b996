#include "fleet_commands.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <sstream>

#include "arbiter/client/fleet.h"
#include "confirm.h"
#include "output.h"

namespace arbiter::cli {
namespace {

double Millis(std::chrono::microseconds d) { return static_cast<double>(d.count()) / 1000.0; }

// "H1,H2,..." with the default port added; empty entries are an error.
std::optional<std::vector<std::string>> ParseInstances(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream list(text);
  std::string item;
  while (std::getline(list, item, ',')) {
    if (item.empty()) return std::nullopt;
    out.push_back(WithDefaultPort(item));
  }
  if (out.empty()) return std::nullopt;
  return out;
}

Json ReportJson(const std::string& world, const std::string& from, const std::string& to,
                const client::MigrationReport& r) {
  Json j = {{"world", world},
            {"from", from},
            {"to", to},
            {"tick", r.tick},
            {"state_hash", Hex(r.state_hash)},
            {"epoch", r.epoch},
            {"records", r.records},
            {"export_bytes", r.export_bytes},
            {"write_refusal_ms", Millis(r.write_refusal)},
            {"export_ms", Millis(r.export_time)},
            {"import_ms", Millis(r.import_time)}};
  if (!r.warning.empty()) j["warning"] = r.warning;
  return j;
}

void PrintReport(const std::string& world, const std::string& from, const std::string& to,
                 const client::MigrationReport& r) {
  if (r.resumed_after_import) {
    std::printf("finished moving world %s from %s to %s: it serves there at tick %" PRId64
                " (state hash %s, epoch %" PRIu64 "); the source's copy is gone\n",
                world.c_str(), from.c_str(), to.c_str(), r.tick, Hex(r.state_hash).c_str(), r.epoch);
  } else {
    std::printf("moved world %s from %s to %s at tick %" PRId64 " (state hash %s, epoch %" PRIu64 "): %" PRIu64
                " records, %" PRIu64 " bytes; writes refused for %.1f ms (export %.1f ms, import %.1f ms)\n",
                world.c_str(), from.c_str(), to.c_str(), r.tick, Hex(r.state_hash).c_str(), r.epoch, r.records,
                r.export_bytes, Millis(r.write_refusal), Millis(r.export_time), Millis(r.import_time));
  }
  if (!r.warning.empty()) std::fprintf(stderr, "arbiter migrate: warning: %s\n", r.warning.c_str());
}

// Moves one world (or, with `resume`, finishes a move cut short); prints
// the report; 0 on success.
int MoveOne(const Context& c, const std::string& world, const std::string& from, const std::string& to,
            bool resume = false) {
  std::unique_ptr<client::ArbiterClient> source = client::ArbiterClient::Connect(from, c.options);
  std::unique_ptr<client::ArbiterClient> destination = client::ArbiterClient::Connect(to, c.options);
  absl::StatusOr<client::MigrationReport> report = resume
                                                       ? client::ResumeMigration(*source, *destination, world, to)
                                                       : client::MigrateWorld(*source, *destination, world, to);
  if (!report.ok()) return Fail(c, report.status());
  if (c.json) {
    PrintJson(ReportJson(world, from, to, *report));
  } else {
    PrintReport(world, from, to, *report);
  }
  return report->warning.empty() ? 0 : 1;
}

// With --to, only once the destination is known not to serve the world
// at the epoch it was frozen at (client::ThawWorld).
int Thaw(const Context& c, const std::string& from) {
  std::unique_ptr<client::ArbiterClient> source = client::ArbiterClient::Connect(from, c.options);
  std::unique_ptr<client::ArbiterClient> destination;
  if (c.args->Has("to") && !c.args->Get("to", "").empty()) {
    destination = client::ArbiterClient::Connect(WithDefaultPort(c.args->Get("to", "")), c.options);
  }
  absl::StatusOr<v1::FreezeWorldResponse> reply = client::ThawWorld(*source, destination.get(), c.world);
  if (!reply.ok()) return Fail(c, reply.status());
  std::printf("world %s on %s accepts writes again (tick %" PRId64 ", epoch %" PRIu64 ")\n", c.world.c_str(),
              from.c_str(), reply->tick(), reply->epoch());
  return 0;
}

}  // namespace

int RunMigrate(const Context& c) {
  if (!c.args->Has("world")) return Usage(c, "--world: required (the world to move)");
  if (!c.args->Has("from") || c.args->Get("from", "").empty()) return Usage(c, "--from: required (HOST:PORT)");
  const std::string from = WithDefaultPort(c.args->Get("from", ""));
  if (c.args->Has("thaw") && c.args->Has("resume")) return Usage(c, "--thaw, --resume: one or the other");
  if (c.args->Has("thaw")) return Thaw(c, from);
  if (!c.args->Has("to") || c.args->Get("to", "").empty()) return Usage(c, "--to: required (HOST:PORT)");
  const std::string to = WithDefaultPort(c.args->Get("to", ""));
  if (to == from) return Usage(c, "--to: the same instance as --from");
  return MoveOne(c, c.world, from, to, c.args->Has("resume"));
}

int RunWorldsAcross(const Context& c) {
  const std::optional<std::vector<std::string>> instances = ParseInstances(c.args->Get("instances", ""));
  if (!instances) return Usage(c, "--instances: expected HOST:PORT[,HOST:PORT...]");
  const client::FleetListing listing = client::ListWorldsAcross(*instances, c.options);
  if (c.json) {
    Json worlds = Json::array();
    for (const client::FleetWorld& w : listing.worlds) {
      worlds.push_back({{"world_id", w.info.world_id()}, {"instance", w.instance}, {"tick", w.info.tick()},
                        {"body_count", w.info.body_count()}});
    }
    Json down = Json::array();
    for (const auto& [instance, status] : listing.unreachable) {
      down.push_back({{"instance", instance}, {"error", std::string(status.message())}});
    }
    PrintJson({{"worlds", worlds}, {"unreachable", down}});
  } else {
    std::printf("%-24s %-24s %10s %10s\n", "WORLD", "INSTANCE", "TICK", "BODIES");
    for (const client::FleetWorld& w : listing.worlds) {
      std::printf("%-24s %-24s %10" PRId64 " %10" PRIu64 "\n", w.info.world_id().c_str(), w.instance.c_str(),
                  w.info.tick(), w.info.body_count());
    }
    for (const auto& [instance, status] : listing.unreachable) {
      std::fprintf(stderr, "arbiter worlds: instance %s did not answer: %s\n", instance.c_str(),
                   std::string(status.message()).c_str());
    }
  }
  // Partial answers are still answers, but a script must notice them.
  return listing.unreachable.empty() ? 0 : 1;
}

int RunRebalance(const Context& c) {
  const std::optional<std::vector<std::string>> instances = ParseInstances(c.args->Get("instances", ""));
  if (!instances) return Usage(c, "--instances: expected HOST:PORT[,HOST:PORT...] (as in the proxy's server lines)");
  std::vector<std::string> targets = *instances;
  if (c.args->Has("drain")) {
    const std::string drained = WithDefaultPort(c.args->Get("drain", ""));
    const auto it = std::find(targets.begin(), targets.end(), drained);
    if (it == targets.end()) return Usage(c, "--drain: " + drained + " is not in --instances");
    targets.erase(it);
    if (targets.empty()) return Usage(c, "--drain: no instance would be left");
  }
  const client::FleetListing listing = client::ListWorldsAcross(*instances, c.options);
  if (!listing.unreachable.empty()) {
    return Fail(c, absl::UnavailableError("--instances: " + listing.unreachable.front().first +
                                          " did not answer (" +
                                          std::string(listing.unreachable.front().second.message()) +
                                          "); a plan needs every instance's worlds"));
  }
  const client::ConsistentHashRing ring(targets);
  struct Move {
    std::string world, from, to;
  };
  std::vector<Move> plan;
  for (const client::FleetWorld& w : listing.worlds) {
    const std::string& owner = ring.Owner(w.info.world_id());
    if (owner != w.instance) plan.push_back({w.info.world_id(), w.instance, owner});
  }
  std::printf("%zu of %zu worlds change owner\n", plan.size(), listing.worlds.size());
  for (const Move& m : plan) std::printf("  %-24s %s -> %s\n", m.world.c_str(), m.from.c_str(), m.to.c_str());
  if (plan.empty() || !c.args->Has("yes")) {
    if (!plan.empty()) std::printf("(a plan only: --yes moves them; reload the proxy with the new server list after)\n");
    return 0;
  }
  int failures = 0;
  for (const Move& m : plan) failures += MoveOne(c, m.world, m.from, m.to) != 0 ? 1 : 0;
  return failures == 0 ? 0 : 1;
}

}  // namespace arbiter::cli

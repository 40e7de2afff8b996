#include "replay_command.h"

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "args.h"
#include "journal/journal_file.h"
#include "journal/offline_replay.h"
#include "progress.h"

namespace arbiter::cli {
namespace {

using Json = nlohmann::ordered_json;

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

int Usage() {
  std::fprintf(stderr, "usage: arbiter replay verify FILE [--json]\n");
  return 2;
}

Json ReportJson(const server::ReplayReport& r) {
  Json bodies = Json::array();
  for (const server::BodyDifference& d : r.bodies) {
    bodies.push_back({{"body_id", d.body_id}, {"field", d.field}, {"recorded", d.recorded}, {"replayed", d.replayed}});
  }
  Json queries = Json::array();
  for (const server::QueryDifference& q : r.queries) {
    queries.push_back({{"after_seq", q.seq}, {"tick", q.tick}, {"kind", q.kind}, {"difference", q.what}});
  }
  Json j = {{"world", r.world_id},
            {"identical", r.ok()},
            {"first_tick", r.first_tick},
            {"last_tick", r.last_tick},
            {"records", r.records},
            {"ticks_checked", r.ticks_checked},
            {"checkpoints_checked", r.checkpoints_checked},
            {"queries_checked", r.queries_checked}};
  if (r.diverged) {
    j["first_divergent_tick"] = r.first_divergent_tick;
    j["divergence"] = r.divergence;
    j["recorded_hash"] = Hex(r.recorded_hash);
    j["replayed_hash"] = Hex(r.replayed_hash);
    j["bodies_compared_at_tick"] = r.compared_at_tick;
    j["body_differences"] = bodies;
  }
  j["query_differences"] = queries;
  return j;
}

void PrintText(const server::ReplayReport& r) {
  std::printf("world %s, ticks %" PRId64 "..%" PRId64 ": %" PRIu64 " records, %" PRIu64 " tick hashes, %" PRIu64
              " checkpoints, %" PRIu64 " queries checked\n",
              r.world_id.c_str(), r.first_tick, r.last_tick, r.records, r.ticks_checked, r.checkpoints_checked,
              r.queries_checked);
  if (r.diverged) {
    std::printf("DIVERGED at tick %" PRId64 ": %s (recorded %s, replayed %s)\n", r.first_divergent_tick,
                r.divergence.c_str(), Hex(r.recorded_hash).c_str(), Hex(r.replayed_hash).c_str());
    if (r.compared_at_tick < 0) {
      std::printf("no recorded full state at or after that tick to compare bodies with "
                  "(a smaller --snapshot_every_ticks records more)\n");
    } else {
      std::printf("bodies that differ at tick %" PRId64 " (the first recorded full state at or after it): %zu\n",
                  r.compared_at_tick, r.bodies.size());
      for (const server::BodyDifference& d : r.bodies) {
        std::printf("  body %" PRIu64 " %s: recorded %s, replayed %s\n", d.body_id, d.field.c_str(), d.recorded.c_str(),
                    d.replayed.c_str());
      }
    }
  }
  for (const server::QueryDifference& q : r.queries) {
    std::printf("ANSWER DIFFERS: %s asked at tick %" PRId64 " (after record %" PRIu64 "): %s\n", q.kind.c_str(), q.tick,
                q.seq, q.what.c_str());
  }
  if (r.ok()) std::printf("identical: every tick, checkpoint and answer matches the recording\n");
}

}  // namespace

int RunReplay(int argc, char** argv) {
  const Args args(argc, argv, 2, {});
  if (args.error() || !args.Unknown({"json"}).empty()) return Usage();
  const auto& p = args.positional();
  if (p.size() != 2 || p[0] != "verify") return Usage();
  std::ifstream in(p[1], std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "arbiter: cannot read %s\n", p[1].c_str());
    return 2;
  }
  const std::string file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<v1::JournalRecord> records;
  if (absl::Status s = server::ParseJournalFile(file, &records); !s.ok()) {
    std::fprintf(stderr, "arbiter: %s: %s\n", p[1].c_str(), std::string(s.message()).c_str());
    return 2;
  }
  absl::StatusOr<server::ReplayReport> report = server::VerifyJournal(
      records, [&](size_t done) { Progress("replay verify: records", done, records.size()); });
  if (!report.ok()) {
    std::fprintf(stderr, "arbiter: %s: %s\n", p[1].c_str(), std::string(report.status().message()).c_str());
    return 2;
  }
  if (args.Has("json")) {
    std::printf("%s\n", ReportJson(*report).dump(2).c_str());
  } else {
    PrintText(*report);
  }
  return report->ok() ? 0 : 1;
}

}  // namespace arbiter::cli

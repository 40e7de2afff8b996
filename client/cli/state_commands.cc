#include "state_commands.h"

#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/json_util.h>

#include "confirm.h"
#include "output.h"
#include "progress.h"

namespace arbiter::cli {
namespace {

// The one FILE argument of snapshot, restore and export.
std::optional<std::string> OneFile(const Context& c, std::string* out) {
  const auto& p = c.args->positional();
  if (p.empty()) return "missing FILE";
  if (p.size() > 1) return "unexpected argument '" + p[1] + "' (one FILE)";
  *out = p[0];
  return std::nullopt;
}

// Writes `bytes` to the local file `path`; false (errno set) on failure.
bool WriteFile(const std::string& path, const std::string& bytes) {
  errno = 0;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return false;
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

// Checked before asking the server, so that a bad path costs nothing (and
// an export is not read for nothing), without touching the file system:
// the file must be writable, or its folder when it does not exist yet.
bool CanWrite(const std::string& path) {
  if (access(path.c_str(), F_OK) == 0) return access(path.c_str(), W_OK) == 0;
  const size_t slash = path.rfind('/');
  const std::string folder = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  return access(folder.c_str(), W_OK | X_OK) == 0;
}

// A hash as typed: 0x-prefixed hex (as `arbiter hash` prints) or decimal.
std::optional<uint64_t> ParseHash(const std::string& s) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    char* end = nullptr;
    errno = 0;
    const unsigned long long v = std::strtoull(s.c_str() + 2, &end, 16);
    if (errno != 0 || end != s.c_str() + s.size() || s[2] == '-' || s[2] == '+') return std::nullopt;
    return v;
  }
  return ParseUint(s);
}

}  // namespace

int RunHash(const Context& c) {
  if (!c.args->positional().empty()) return Usage(c, "unexpected argument '" + c.args->positional()[0] + "'");
  v1::GetStateHashRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::GetStateHashResponse> reply = c.client->GetStateHash(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (c.json) {
    PrintJson({{"world", c.world}, {"tick", reply->tick()}, {"state_hash", Hex(reply->state_hash())}});
  } else {
    std::printf("world %s, tick %" PRId64 ": state hash %s\n", c.world.c_str(), reply->tick(),
                Hex(reply->state_hash()).c_str());
  }
  return 0;
}

int RunSnapshot(const Context& c) {
  std::string path;
  if (auto e = OneFile(c, &path)) return Usage(c, *e);
  if (!CanWrite(path)) return FileError(c, "write", path);
  v1::GetSnapshotRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::GetSnapshotResponse> reply = c.client->GetSnapshot(request);
  if (!reply.ok()) return Fail(c, reply.status());
  if (!WriteFile(path, reply->snapshot())) return FileError(c, "write", path);
  if (c.json) {
    PrintJson({{"world", c.world},
               {"file", path},
               {"bytes", reply->snapshot().size()},
               {"tick", reply->tick()},
               {"state_hash", Hex(reply->state_hash())}});
  } else {
    std::printf("wrote %zu bytes to %s: world %s at tick %" PRId64 ", state hash %s\n", reply->snapshot().size(),
                path.c_str(), c.world.c_str(), reply->tick(), Hex(reply->state_hash()).c_str());
  }
  return 0;
}

int RunRestore(const Context& c) {
  std::string path;
  if (auto e = OneFile(c, &path)) return Usage(c, *e);
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) return FileError(c, "read", path);
  v1::RestoreRequest request;
  request.set_world_id(c.world);
  request.set_snapshot(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  // Restoring replaces the whole world: ask first when it holds bodies.
  v1::DescribeWorldRequest describe;
  describe.set_world_id(c.world);
  absl::StatusOr<v1::DescribeWorldResponse> old = c.client->DescribeWorld(describe);
  if (!old.ok()) return Fail(c, old.status());
  const v1::WorldInfo& o = old->world();
  if (o.body_count() > 0 &&
      !Confirm(c, "replace", "world '" + c.world + "' (tick " + std::to_string(o.tick()) + ", " +
                                 std::to_string(o.body_count()) + " bodies) with the snapshot in " + path)) {
    return 1;
  }
  request.set_expected_tick(o.tick());  // nobody stepped it since we asked
  absl::StatusOr<v1::RestoreResponse> reply = c.client->Restore(request);
  if (!reply.ok()) return Fail(c, reply.status());
  const v1::WorldInfo& w = reply->world();
  if (c.json) {
    PrintJson({{"world", c.world}, {"tick", w.tick()}, {"body_count", w.body_count()}, {"state_hash", Hex(w.state_hash())}});
  } else {
    std::printf("restored world %s from %s: tick %" PRId64 ", %" PRIu64 " bodies, state hash %s\n", c.world.c_str(),
                path.c_str(), w.tick(), w.body_count(), Hex(w.state_hash()).c_str());
  }
  return 0;
}

int RunExport(const Context& c) {
  std::string path;
  if (auto e = OneFile(c, &path)) return Usage(c, *e);
  const std::optional<uint64_t> from = ParseUint(c.args->Get("from_tick", "0"));
  const std::optional<uint64_t> to = ParseUint(c.args->Get("to_tick", "0"));
  if (!from || *from > INT64_MAX) return Usage(c, "--from_tick: must be a non-negative integer");
  if (!to || *to > INT64_MAX) return Usage(c, "--to_tick: must be a non-negative integer");
  if (!CanWrite(path)) return FileError(c, "write", path);
  v1::ExportJournalRequest request;
  request.set_world_id(c.world);
  request.set_from_tick(static_cast<int64_t>(*from));
  request.set_to_tick(static_cast<int64_t>(*to));
  // The server reads the whole range before the first byte arrives.
  std::fprintf(stderr, "export: the server is reading world %s's journal\n", c.world.c_str());
  absl::StatusOr<std::string> file = c.client->ExportJournal(
      request, [](uint64_t done, uint64_t total) { Progress("export: bytes", done, total); });
  if (!file.ok()) {
    if (file.status().code() == absl::StatusCode::kFailedPrecondition) {
      std::fprintf(stderr, "  (the server keeps a journal only when started with --data_dir)\n");
    }
    return Fail(c, file.status());
  }
  if (!WriteFile(path, *file)) return FileError(c, "write", path);
  if (c.json) {
    PrintJson({{"world", c.world}, {"file", path}, {"bytes", file->size()}});
  } else {
    std::printf("wrote %zu bytes of world %s's journal to %s (check it with `arbiter replay verify %s`)\n",
                file->size(), c.world.c_str(), path.c_str(), path.c_str());
  }
  return 0;
}

int RunReportHashes(const Context& c) {
  const auto& p = c.args->positional();
  if (p.empty()) return Usage(c, "missing FIRST_TICK");
  if (p.size() < 2) return Usage(c, "missing HASH (the state hash after stepping into FIRST_TICK)");
  const std::optional<uint64_t> first = ParseUint(p[0]);
  if (!first || *first > INT64_MAX) return Usage(c, "FIRST_TICK: '" + p[0] + "' is not a tick number");
  std::vector<uint64_t> hashes;
  for (size_t i = 1; i < p.size(); ++i) {
    const std::optional<uint64_t> h = ParseHash(p[i]);
    if (!h) return Usage(c, "HASH " + std::to_string(i) + ": '" + p[i] + "' is not a hash (0x + 16 hex digits, or decimal)");
    hashes.push_back(*h);
  }
  absl::StatusOr<v1::ReportHashesResponse> reply =
      c.client->ReportHashes(c.world, static_cast<int64_t>(*first), hashes);
  if (!reply.ok()) return Fail(c, reply.status());
  if (c.json) {
    Json j = {{"world", c.world},          {"in_sync", reply->in_sync()},    {"server_hash", Hex(reply->server_hash())},
              {"tick", reply->tick()},     {"oldest_tick", reply->oldest_tick()}};
    if (reply->has_first_divergent_tick()) j["first_divergent_tick"] = reply->first_divergent_tick();
    PrintJson(j);
  } else if (reply->in_sync()) {
    std::printf("world %s: in sync at ticks %" PRIu64 "..%" PRIu64 " (server hash %s at the last; server at tick %" PRId64 ")\n",
                c.world.c_str(), *first, *first + hashes.size() - 1, Hex(reply->server_hash()).c_str(), reply->tick());
  } else {
    std::printf("world %s: DIVERGED from tick %" PRId64 " (server hash there %s; server at tick %" PRId64 ")\n",
                c.world.c_str(), reply->first_divergent_tick(), Hex(reply->server_hash()).c_str(), reply->tick());
  }
  return reply->in_sync() ? 0 : 3;
}

int RunHealth(const Context& c) {
  absl::StatusOr<bool> serving = c.client->CheckHealth(c.args->Get("service", ""));
  if (!serving.ok()) return Fail(c, serving.status());
  if (c.json) {
    PrintJson({{"serving", *serving}});
  } else {
    std::printf("%s\n", *serving ? "SERVING" : "NOT_SERVING");
  }
  return *serving ? 0 : 1;
}

int RunInfo(const Context& c) {
  absl::StatusOr<v1::GetServerInfoResponse> info = c.client->ServerInfo();
  if (!info.ok()) return Fail(c, info.status());
  std::string text;
  if (c.json) {
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;
    options.always_print_primitive_fields = true;
    if (!google::protobuf::util::MessageToJsonString(*info, &text, options).ok()) return 1;
    std::printf("%s\n", text.c_str());
  } else {
    // Field names as in the contract (arbiter.proto), one per line.
    google::protobuf::TextFormat::PrintToString(*info, &text);
    std::printf("server %s\n%s", c.server.c_str(), text.c_str());
  }
  return 0;
}

}  // namespace arbiter::cli

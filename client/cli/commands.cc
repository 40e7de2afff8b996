#include "commands.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "absl/status/status.h"
#include "arbiter/client/client.h"
#include "arbiter/scene/scene.h"
#include "args.h"
#include "connection.h"
#include "progress.h"

namespace arbiter::cli {
namespace {

using client::ArbiterClient;
using client::ToDouble;
using Json = nlohmann::ordered_json;

constexpr const char* kDefaultServer = "127.0.0.1:50051";
constexpr const char* kDefaultWorld = "demo";

const std::set<std::string> kValuedFlags = {"server", "world",   "timeout_ms", "batch",  "chunk",
                                            "service", "count", "from_tick", "to_tick"};
const std::set<std::string> kKnownFlags = {"server", "world", "timeout_ms", "batch",   "chunk",  "service", "count",
                                           "json",   "all",   "any",        "replace", "bodies", "from_tick", "to_tick"};

struct Context {
  ArbiterClient* client;
  const Args* args;
  bool json;
  std::string world;
};

int Usage(const std::string& message) {
  std::fprintf(stderr, "arbiter: %s\n", message.c_str());
  return 2;
}

int Fail(const absl::Status& status) {
  std::fprintf(stderr, "arbiter: %s: %s\n", absl::StatusCodeToString(status.code()).c_str(),
               std::string(status.message()).c_str());
  return 1;
}

void PrintJson(const Json& j) { std::printf("%s\n", j.dump(2).c_str()); }

std::string Hex(uint64_t v) {
  char buf[19];
  std::snprintf(buf, sizeof(buf), "0x%016" PRIx64, v);
  return buf;
}

Json VecJson(const v1::Vec2& v) { return Json::array({ToDouble(v.x()), ToDouble(v.y())}); }
Json VecRawJson(const v1::Vec2& v) { return Json::array({v.x(), v.y()}); }

Json HitJson(const v1::Hit& h) {
  return Json{{"body_id", h.body_id()},
              {"shape_index", h.shape_index()},
              {"user_tag", h.user_tag()},
              {"fraction", ToDouble(h.fraction())},
              {"point", VecJson(h.point())},
              {"normal", VecJson(h.normal())},
              {"raw", {{"fraction", h.fraction()}, {"point", VecRawJson(h.point())}, {"normal", VecRawJson(h.normal())}}}};
}

void PrintHit(const v1::Hit& h) {
  std::printf("  body %" PRIu64 " shape %u  t=%.10g  point (%.10g, %.10g)  normal (%.10g, %.10g)\n", h.body_id(),
              h.shape_index(), ToDouble(h.fraction()), ToDouble(h.point().x()), ToDouble(h.point().y()),
              ToDouble(h.normal().x()), ToDouble(h.normal().y()));
}

// Prints one cast result (ray or sweep) in the chosen format.
void PrintCastResult(const Context& c, int64_t tick, const v1::CastResult& r, const char* what) {
  if (c.json) {
    Json hits = Json::array();
    for (const v1::Hit& h : r.hits()) hits.push_back(HitJson(h));
    PrintJson({{"world", c.world}, {"tick", tick}, {"hit", r.hit()}, {"hits", hits}});
    return;
  }
  std::printf("world %s, tick %" PRId64 ": %s %s\n", c.world.c_str(), tick, what, r.hit() ? "hit" : "missed");
  for (const v1::Hit& h : r.hits()) PrintHit(h);
}

v1::CastMode ModeOf(const Args& args) {
  if (args.Has("all")) return v1::CAST_MODE_ALL;
  if (args.Has("any")) return v1::CAST_MODE_ANY;
  return v1::CAST_MODE_CLOSEST;
}

// Parses positional arguments [first, first + n) as doubles.
bool Numbers(const Args& args, size_t first, size_t n, std::vector<double>* out) {
  const auto& p = args.positional();
  if (p.size() != first + n) return false;
  for (size_t i = first; i < p.size(); ++i) {
    const std::optional<double> v = ParseDouble(p[i]);
    if (!v) return false;
    out->push_back(*v);
  }
  return true;
}

// ---- Commands -----------------------------------------------------------------------------

int Worlds(const Context& c) {
  absl::StatusOr<v1::ListWorldsResponse> reply = c.client->ListWorlds();
  if (!reply.ok()) return Fail(reply.status());
  if (c.json) {
    Json worlds = Json::array();
    for (const v1::WorldInfo& w : reply->worlds()) {
      worlds.push_back({{"world_id", w.world_id()},
                        {"tick", w.tick()},
                        {"body_count", w.body_count()},
                        {"tick_hz", w.tick_hz()},
                        {"gravity", VecJson(w.gravity())},
                        {"max_bodies", w.max_bodies()}});
    }
    PrintJson({{"worlds", worlds}});
    return 0;
  }
  if (reply->worlds_size() == 0) {
    std::printf("no worlds\n");
    return 0;
  }
  std::printf("%-24s %10s %10s %6s  %s\n", "WORLD", "TICK", "BODIES", "HZ", "GRAVITY");
  for (const v1::WorldInfo& w : reply->worlds()) {
    std::printf("%-24s %10" PRId64 " %10" PRIu64 " %6d  (%g, %g)\n", w.world_id().c_str(), w.tick(), w.body_count(),
                w.tick_hz(), ToDouble(w.gravity().x()), ToDouble(w.gravity().y()));
  }
  return 0;
}

int Describe(const Context& c) {
  v1::DescribeWorldRequest request;
  request.set_world_id(c.world);
  request.set_include_bodies(c.args->Has("bodies"));
  absl::StatusOr<v1::DescribeWorldResponse> reply = c.client->DescribeWorld(request);
  if (!reply.ok()) return Fail(reply.status());
  const v1::WorldInfo& w = reply->world();
  if (c.json) {
    Json bodies = Json::array();
    for (const v1::BodyState& b : reply->bodies()) {
      bodies.push_back({{"id", b.id()},
                        {"type", v1::BodyType_Name(b.type())},
                        {"position", VecJson(b.transform().position())},
                        {"linear_velocity", VecJson(b.linear_velocity())},
                        {"shape_count", b.shape_count()}});
    }
    PrintJson({{"world_id", w.world_id()},
               {"tick", w.tick()},
               {"body_count", w.body_count()},
               {"tick_hz", w.tick_hz()},
               {"gravity", VecJson(w.gravity())},
               {"max_bodies", w.max_bodies()},
               {"state_hash", Hex(w.state_hash())},
               {"bodies", bodies}});
    return 0;
  }
  std::printf("world %s: tick %" PRId64 ", %" PRIu64 " bodies (max %u), %d Hz, gravity (%g, %g), state hash %s\n",
              w.world_id().c_str(), w.tick(), w.body_count(), w.max_bodies(), w.tick_hz(), ToDouble(w.gravity().x()),
              ToDouble(w.gravity().y()), Hex(w.state_hash()).c_str());
  for (const v1::BodyState& b : reply->bodies()) {
    std::printf("  body %-8" PRIu64 " %-20s at (%.6g, %.6g) velocity (%.6g, %.6g), %u shape(s)\n", b.id(),
                v1::BodyType_Name(b.type()).c_str(), ToDouble(b.transform().position().x()),
                ToDouble(b.transform().position().y()), ToDouble(b.linear_velocity().x()),
                ToDouble(b.linear_velocity().y()), b.shape_count());
  }
  return 0;
}

int Load(Context c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage("usage: arbiter load SCENE.json [--world ID] [--replace] [--batch N]");
  scene::Scene loaded;
  if (const arbiter::Status s = scene::LoadSceneFile(p[0], &loaded); !s.ok()) {
    return Fail(absl::Status(static_cast<absl::StatusCode>(s.code()), s.message()));
  }
  c.world = c.args->Get("world", loaded.name);
  const std::optional<uint64_t> batch = ParseUint(c.args->Get("batch", "4096"));
  if (!batch || *batch == 0) return Usage("--batch must be a positive integer");

  if (c.args->Has("replace")) {
    v1::DeleteWorldRequest del;
    del.set_world_id(c.world);
    absl::StatusOr<v1::DeleteWorldResponse> deleted = c.client->DeleteWorld(del);
    if (!deleted.ok() && deleted.status().code() != absl::StatusCode::kNotFound) return Fail(deleted.status());
  }
  v1::CreateWorldRequest create;
  create.set_world_id(c.world);
  create.mutable_gravity()->set_x(loaded.world.gravity.x.raw());
  create.mutable_gravity()->set_y(loaded.world.gravity.y.raw());
  create.set_tick_hz(loaded.world.tick_hz);
  if (absl::StatusOr<v1::CreateWorldResponse> created = c.client->CreateWorld(create); !created.ok()) {
    return Fail(created.status());
  }
  // Big scenes go up in batches so that each request stays well inside the
  // message limit, with progress on stderr.
  const bool show = loaded.bodies.size() > *batch;
  const absl::Status s = c.client->AddBodiesInBatches(c.world, loaded.bodies, *batch, [&](uint64_t done, uint64_t total) {
    if (show) Progress("load: bodies", done, total);
  });
  if (!s.ok()) return Fail(s);
  v1::GetStateHashRequest hash_request;
  hash_request.set_world_id(c.world);
  absl::StatusOr<v1::GetStateHashResponse> hash = c.client->GetStateHash(hash_request);
  if (!hash.ok()) return Fail(hash.status());
  if (c.json) {
    PrintJson({{"world", c.world},
               {"bodies", loaded.bodies.size()},
               {"tick", hash->tick()},
               {"state_hash", Hex(hash->state_hash())}});
  } else {
    std::printf("loaded %zu bodies from %s into world %s (tick %" PRId64 ", state hash %s)\n", loaded.bodies.size(),
                p[0].c_str(), c.world.c_str(), hash->tick(), Hex(hash->state_hash()).c_str());
  }
  return 0;
}

int Delete(const Context& c) {
  v1::DeleteWorldRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::DeleteWorldResponse> reply = c.client->DeleteWorld(request);
  if (!reply.ok()) return Fail(reply.status());
  if (c.json) {
    PrintJson({{"world", c.world}, {"deleted", true}, {"tick", reply->tick()}});
  } else {
    std::printf("deleted world %s (it was at tick %" PRId64 ")\n", c.world.c_str(), reply->tick());
  }
  return 0;
}

int Ray(const Context& c) {
  std::vector<double> v;
  if (!Numbers(*c.args, 0, 4, &v)) return Usage("usage: arbiter ray OX OY TX TY [--all|--any] [--world ID]");
  v1::CastRaysRequest request;
  request.set_world_id(c.world);
  request.set_mode(ModeOf(*c.args));
  *request.add_rays() = client::MakeRay(v[0], v[1], v[2], v[3]);
  absl::StatusOr<v1::CastRaysResponse> reply = c.client->CastRays(request);
  if (!reply.ok()) return Fail(reply.status());
  PrintCastResult(c, reply->tick(), reply->results(0), "ray");
  return 0;
}

int Overlap(const Context& c) {
  const auto& p = c.args->positional();
  const char* usage = "usage: arbiter overlap point X Y | aabb X0 Y0 X1 Y1 | circle X Y R [--world ID]";
  if (p.empty()) return Usage(usage);
  std::vector<double> v;
  v1::OverlapRequest request;
  request.set_world_id(c.world);
  if (p[0] == "point" && Numbers(*c.args, 1, 2, &v)) {
    *request.add_queries() = client::MakePointQuery(v[0], v[1]);
  } else if (p[0] == "aabb" && Numbers(*c.args, 1, 4, &v)) {
    *request.add_queries() = client::MakeAabbQuery(v[0], v[1], v[2], v[3]);
  } else if (p[0] == "circle" && Numbers(*c.args, 1, 3, &v)) {
    *request.add_queries() = client::MakeShapeQuery(client::MakeCircle(v[2]), client::MakeTransform(v[0], v[1]));
  } else {
    return Usage(usage);
  }
  absl::StatusOr<v1::OverlapResponse> reply = c.client->Overlap(request);
  if (!reply.ok()) return Fail(reply.status());
  const v1::OverlapResult& r = reply->results(0);
  if (c.json) {
    Json shapes = Json::array();
    for (const v1::ShapeRef& s : r.shapes()) shapes.push_back({{"body_id", s.body_id()}, {"shape_index", s.shape_index()}});
    PrintJson({{"world", c.world}, {"tick", reply->tick()}, {"shapes", shapes}});
    return 0;
  }
  std::printf("world %s, tick %" PRId64 ": %d shape(s) overlap\n", c.world.c_str(), reply->tick(), r.shapes_size());
  for (const v1::ShapeRef& s : r.shapes()) std::printf("  body %" PRIu64 " shape %u\n", s.body_id(), s.shape_index());
  return 0;
}

int Sweep(const Context& c) {
  std::vector<double> v;
  if (!Numbers(*c.args, 0, 5, &v)) return Usage("usage: arbiter sweep X Y RADIUS TX TY [--all|--any] [--world ID]");
  v1::CastShapesRequest request;
  request.set_world_id(c.world);
  request.set_mode(ModeOf(*c.args));
  *request.add_casts() = client::MakeShapeCast(client::MakeCircle(v[2]), client::MakeTransform(v[0], v[1]), v[3], v[4]);
  absl::StatusOr<v1::CastShapesResponse> reply = c.client->CastShapes(request);
  if (!reply.ok()) return Fail(reply.status());
  PrintCastResult(c, reply->tick(), reply->results(0), "disk sweep");
  return 0;
}

int Step(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() > 1) return Usage("usage: arbiter step [N] [--chunk K] [--world ID]");
  const std::optional<uint64_t> ticks = ParseUint(p.empty() ? "1" : p[0]);
  const std::optional<uint64_t> chunk = ParseUint(c.args->Get("chunk", "60"));
  if (!ticks || *ticks == 0) return Usage("step: N must be a positive integer");
  if (!chunk || *chunk == 0 || *chunk > UINT32_MAX) return Usage("step: --chunk must be a positive integer");
  // Long runs go in chunks so that progress shows and no single call
  // outlives its deadline; events are counted along the way.
  uint64_t begins = 0, ends = 0, enters = 0, exits = 0;
  v1::StepResponse last;
  for (uint64_t done = 0; done < *ticks;) {
    v1::StepRequest request;
    request.set_world_id(c.world);
    request.set_ticks(static_cast<uint32_t>(std::min<uint64_t>(*chunk, *ticks - done)));
    absl::StatusOr<v1::StepResponse> reply = c.client->Step(request);
    if (!reply.ok()) return Fail(reply.status());
    for (const v1::TickEvents& t : reply->ticks()) {
      begins += static_cast<uint64_t>(t.contact_begin_size());
      ends += static_cast<uint64_t>(t.contact_end_size());
      enters += static_cast<uint64_t>(t.sensor_enter_size());
      exits += static_cast<uint64_t>(t.sensor_exit_size());
    }
    done += request.ticks();
    last = std::move(*reply);
    if (*ticks > *chunk) Progress("step: ticks", done, *ticks);
  }
  if (c.json) {
    PrintJson({{"world", c.world},
               {"tick", last.tick()},
               {"state_hash", Hex(last.state_hash())},
               {"events", {{"contact_begin", begins}, {"contact_end", ends}, {"sensor_enter", enters}, {"sensor_exit", exits}}}});
  } else {
    std::printf("world %s: stepped %" PRIu64 " tick(s) to tick %" PRId64 ", state hash %s\n", c.world.c_str(), *ticks,
                last.tick(), Hex(last.state_hash()).c_str());
    std::printf("  events: %" PRIu64 " contact begin, %" PRIu64 " contact end, %" PRIu64 " sensor enter, %" PRIu64
                " sensor exit\n",
                begins, ends, enters, exits);
  }
  return 0;
}

int Hash(const Context& c) {
  v1::GetStateHashRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::GetStateHashResponse> reply = c.client->GetStateHash(request);
  if (!reply.ok()) return Fail(reply.status());
  if (c.json) {
    PrintJson({{"world", c.world}, {"tick", reply->tick()}, {"state_hash", Hex(reply->state_hash())}});
  } else {
    std::printf("world %s, tick %" PRId64 ": state hash %s\n", c.world.c_str(), reply->tick(),
                Hex(reply->state_hash()).c_str());
  }
  return 0;
}

int Snapshot(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage("usage: arbiter snapshot FILE [--world ID]");
  v1::GetSnapshotRequest request;
  request.set_world_id(c.world);
  absl::StatusOr<v1::GetSnapshotResponse> reply = c.client->GetSnapshot(request);
  if (!reply.ok()) return Fail(reply.status());
  std::ofstream out(p[0], std::ios::binary | std::ios::trunc);
  out.write(reply->snapshot().data(), static_cast<std::streamsize>(reply->snapshot().size()));
  if (!out.flush()) return Fail(absl::UnavailableError("cannot write " + p[0]));
  if (c.json) {
    PrintJson({{"world", c.world},
               {"file", p[0]},
               {"bytes", reply->snapshot().size()},
               {"tick", reply->tick()},
               {"state_hash", Hex(reply->state_hash())}});
  } else {
    std::printf("wrote %zu bytes to %s: world %s at tick %" PRId64 ", state hash %s\n", reply->snapshot().size(),
                p[0].c_str(), c.world.c_str(), reply->tick(), Hex(reply->state_hash()).c_str());
  }
  return 0;
}

int Restore(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage("usage: arbiter restore FILE [--world ID]");
  std::ifstream in(p[0], std::ios::binary);
  if (!in) return Fail(absl::NotFoundError("cannot read " + p[0]));
  v1::RestoreRequest request;
  request.set_world_id(c.world);
  request.set_snapshot(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
  absl::StatusOr<v1::RestoreResponse> reply = c.client->Restore(request);
  if (!reply.ok()) return Fail(reply.status());
  const v1::WorldInfo& w = reply->world();
  if (c.json) {
    PrintJson({{"world", c.world}, {"tick", w.tick()}, {"body_count", w.body_count()}, {"state_hash", Hex(w.state_hash())}});
  } else {
    std::printf("restored world %s from %s: tick %" PRId64 ", %" PRIu64 " bodies, state hash %s\n", c.world.c_str(),
                p[0].c_str(), w.tick(), w.body_count(), Hex(w.state_hash()).c_str());
  }
  return 0;
}

int Export(const Context& c) {
  const auto& p = c.args->positional();
  if (p.size() != 1) return Usage("usage: arbiter export FILE [--from_tick N] [--to_tick M] [--world ID]");
  const std::optional<uint64_t> from = ParseUint(c.args->Get("from_tick", "0"));
  const std::optional<uint64_t> to = ParseUint(c.args->Get("to_tick", "0"));
  if (!from || !to) return Usage("export: --from_tick and --to_tick must be non-negative integers");
  v1::ExportJournalRequest request;
  request.set_world_id(c.world);
  request.set_from_tick(static_cast<int64_t>(*from));
  request.set_to_tick(static_cast<int64_t>(*to));
  // The server reads the whole range before the first byte arrives.
  std::fprintf(stderr, "export: the server is reading world %s's journal\n", c.world.c_str());
  absl::StatusOr<std::string> file = c.client->ExportJournal(
      request, [](uint64_t done, uint64_t total) { Progress("export: bytes", done, total); });
  if (!file.ok()) return Fail(file.status());
  std::ofstream out(p[0], std::ios::binary | std::ios::trunc);
  out.write(file->data(), static_cast<std::streamsize>(file->size()));
  if (!out.flush()) return Fail(absl::UnavailableError("cannot write " + p[0]));
  if (c.json) {
    PrintJson({{"world", c.world}, {"file", p[0]}, {"bytes", file->size()}});
  } else {
    std::printf("wrote %zu bytes of world %s's journal to %s\n", file->size(), c.world.c_str(), p[0].c_str());
  }
  return 0;
}

int Watch(const Context& c) {
  const std::optional<uint64_t> count = ParseUint(c.args->Get("count", "0"));
  if (!count) return Usage("watch: --count must be a non-negative integer");
  std::unique_ptr<client::EventWatch> watch = c.client->WatchEvents(c.world);
  uint64_t seen = 0;
  while (std::optional<v1::TickEvents> t = watch->Next()) {
    if (c.json) {
      std::printf("%s\n", Json{{"world", c.world},
                               {"tick", t->tick()},
                               {"contact_begin", t->contact_begin_size()},
                               {"contact_end", t->contact_end_size()},
                               {"sensor_enter", t->sensor_enter_size()},
                               {"sensor_exit", t->sensor_exit_size()}}
                              .dump()
                              .c_str());
    } else {
      std::printf("tick %" PRId64 ": %d contact begin, %d contact end, %d sensor enter, %d sensor exit\n", t->tick(),
                  t->contact_begin_size(), t->contact_end_size(), t->sensor_enter_size(), t->sensor_exit_size());
    }
    std::fflush(stdout);
    if (*count > 0 && ++seen == *count) {
      watch->Cancel();
      watch->Finish().IgnoreError();
      return 0;
    }
  }
  const absl::Status s = watch->Finish();
  return s.ok() ? 0 : Fail(s);
}

int Health(const Context& c) {
  absl::StatusOr<bool> serving = c.client->CheckHealth(c.args->Get("service", ""));
  if (!serving.ok()) return Fail(serving.status());
  if (c.json) {
    PrintJson({{"serving", *serving}});
  } else {
    std::printf("%s\n", *serving ? "SERVING" : "NOT_SERVING");
  }
  return *serving ? 0 : 1;
}

struct Command {
  const char* name;
  int (*run)(const Context&);
};

int LoadCommand(const Context& c) { return Load(c); }

const Command kCommands[] = {
    {"worlds", Worlds}, {"describe", Describe}, {"load", LoadCommand}, {"delete", Delete},
    {"ray", Ray},       {"overlap", Overlap},   {"sweep", Sweep},      {"step", Step},
    {"hash", Hash},     {"snapshot", Snapshot}, {"restore", Restore},  {"watch", Watch},
    {"health", Health}, {"export", Export},
};

}  // namespace

bool IsServerCommand(const char* command) {
  for (const Command& c : kCommands) {
    if (std::strcmp(c.name, command) == 0) return true;
  }
  return false;
}

const char* ServerCommandsUsage() {
  return "  worlds                          list the server's worlds\n"
         "  describe [--bodies]             one world's settings, tick and hash (and bodies)\n"
         "  load SCENE.json [--replace] [--batch N]\n"
         "                                  create a world from a scene file (named after the scene, or --world)\n"
         "  delete                          delete the world\n"
         "  ray OX OY TX TY [--all|--any]   cast a ray from (OX, OY) along (TX, TY)\n"
         "  overlap point X Y | aabb X0 Y0 X1 Y1 | circle X Y R\n"
         "                                  shapes overlapping a point, box or disk\n"
         "  sweep X Y R TX TY [--all|--any] sweep a disk of radius R from (X, Y) along (TX, TY)\n"
         "  step [N] [--chunk K]            advance N ticks (default 1), K per call (default 60)\n"
         "  hash                            the world's state hash\n"
         "  snapshot FILE | restore FILE    save or restore the world's state\n"
         "  export FILE [--from_tick N] [--to_tick M]\n"
         "                                  save the world's journal (server with --data_dir) for replay verify\n"
         "  watch [--count N]               print each tick's events as the world steps\n"
         "  health [--service S]            gRPC health check (exit 0 when SERVING)\n"
         "common flags: --server HOST:PORT (default 127.0.0.1:50051), --world ID (default demo),\n"
         "              --json, --timeout_ms MS (default 60000)\n";
}

int RunServerCommand(int argc, char** argv) {
  std::set<std::string> valued = kValuedFlags;
  valued.insert(ConnectionValuedFlags().begin(), ConnectionValuedFlags().end());
  std::set<std::string> known = kKnownFlags;
  known.insert(ConnectionFlags().begin(), ConnectionFlags().end());
  const Args args(argc, argv, 2, valued);
  if (args.error()) return Usage(*args.error());
  if (const std::vector<std::string> unknown = args.Unknown(known); !unknown.empty()) {
    return Usage("unknown flag --" + unknown.front());
  }
  const std::optional<uint64_t> timeout = ParseUint(args.Get("timeout_ms", "60000"));
  if (!timeout) return Usage("--timeout_ms must be a non-negative integer");
  client::ClientOptions options;
  options.timeout = std::chrono::milliseconds(*timeout);
  if (std::optional<std::string> error = ApplyConnectionFlags(args, &options)) return Usage(*error);
  std::unique_ptr<ArbiterClient> client = ArbiterClient::Connect(args.Get("server", kDefaultServer), options);
  const Context context{client.get(), &args, args.Has("json"), args.Get("world", kDefaultWorld)};
  for (const Command& c : kCommands) {
    if (std::strcmp(c.name, argv[1]) == 0) return c.run(context);
  }
  return Usage(std::string("unknown command '") + argv[1] + "'");
}

}  // namespace arbiter::cli

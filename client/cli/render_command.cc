#include "render_command.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arbiter/render/exact_decimal.h"
#include "arbiter/render/svg_world.h"
#include "arbiter/scene/scene.h"
#include "args.h"
#include "connection.h"
#include "render_source.h"

namespace arbiter::cli {
namespace {

using render::ParseExactDecimal;

constexpr const char* kUsage =
    "usage: arbiter render --out FILE.svg (--world W [--at TICK[:FRACTION]] | --snapshot FILE |\n"
    "                      --journal FILE --tick TICK[:FRACTION]) [--ray X Y DX DY]... [--box X0 Y0 X1 Y1]...\n"
    "                      [--queries FILE] [--view X0 Y0 X1 Y1] [--server HOST:PORT] [connection flags]\n";

// How many values each flag takes; connection flags are passed on to Args.
const std::map<std::string, int>& FlagArity() {
  static const std::map<std::string, int> kArity = {
      {"--out", 1},      {"--world", 1},   {"--at", 1},  {"--snapshot", 1}, {"--journal", 1},
      {"--tick", 1},     {"--ray", 4},     {"--box", 4}, {"--queries", 1},  {"--view", 4},
      {"--server", 1},   {"--token_file", 1}, {"--tls_ca", 1}, {"--tls_cert", 1}, {"--tls_key", 1},
      {"--tls", 0}};
  return kArity;
}

struct RenderArgs {
  std::map<std::string, std::vector<std::string>> single;  // flag -> its values (last wins)
  std::vector<std::vector<std::string>> rays, boxes;
  std::vector<std::string> connection;  // argv-style, for Args
};

std::optional<std::string> Parse(int argc, char** argv, RenderArgs* out) {
  for (int i = 2; i < argc; ++i) {
    const std::string flag = argv[i];
    const auto it = FlagArity().find(flag);
    if (it == FlagArity().end()) return "unknown argument '" + flag + "'";
    if (i + it->second >= argc) return flag + ": needs " + std::to_string(it->second) + " value(s)";
    std::vector<std::string> values(argv + i + 1, argv + i + 1 + it->second);
    i += it->second;
    if (flag == "--ray") {
      out->rays.push_back(values);
    } else if (flag == "--box") {
      out->boxes.push_back(values);
    } else if (flag.rfind("--tls", 0) == 0 || flag == "--token_file") {
      out->connection.push_back(flag);
      out->connection.insert(out->connection.end(), values.begin(), values.end());
    } else {
      out->single[flag] = values;
    }
  }
  return std::nullopt;
}

// Exact decimals -> Q32.32 values; the error names the flag and value.
std::optional<std::string> Numbers(const std::string& flag, const std::vector<std::string>& text,
                                   std::vector<Fixed>* out) {
  for (const std::string& t : text) {
    const std::optional<int64_t> raw = ParseExactDecimal(t);
    if (!raw) return flag + ": '" + t + "' is not a decimal number below 2^31 in magnitude";
    out->push_back(Fixed::FromRaw(*raw));
  }
  return std::nullopt;
}

// TICK[:FRACTION], FRACTION a decimal in [0, 1).
std::optional<std::string> ParseTickAt(const std::string& flag, const std::string& text, TickAt* out) {
  const size_t colon = text.find(':');
  const std::optional<uint64_t> tick = ParseUint(text.substr(0, colon));
  if (!tick || *tick >= (uint64_t{1} << 62)) return flag + ": '" + text + "' does not start with a tick (0..2^62)";
  out->tick = static_cast<int64_t>(*tick);
  if (colon == std::string::npos) return std::nullopt;
  const std::optional<int64_t> f = ParseExactDecimal(text.substr(colon + 1));
  if (!f || *f < 0 || *f >= (int64_t{1} << 32)) return flag + ": the fraction after ':' must be a decimal in [0, 1)";
  out->fraction_raw = *f;
  return std::nullopt;
}

std::optional<std::string> Queries(const RenderArgs& a, render::RenderQueries* q, render::RenderOptions* o) {
  for (const auto& ray : a.rays) {
    std::vector<Fixed> v;
    if (auto e = Numbers("--ray", ray, &v)) return e;
    q->rays.push_back({{v[0], v[1]}, {v[2], v[3]}, kFixedOne});
  }
  for (const auto& box : a.boxes) {
    std::vector<Fixed> v;
    if (auto e = Numbers("--box", box, &v)) return e;
    q->boxes.push_back({{v[0], v[1]}, {v[2], v[3]}});
  }
  if (auto it = a.single.find("--queries"); it != a.single.end()) {
    scene::QuerySet set;
    if (Status s = scene::LoadQuerySetFile(it->second[0], &set); !s.ok()) return "--queries: " + s.message();
    q->rays.insert(q->rays.end(), set.rays.begin(), set.rays.end());
    q->boxes.insert(q->boxes.end(), set.aabbs.begin(), set.aabbs.end());
    if (!set.disks.empty() || !set.sweeps.empty()) {
      std::fprintf(stderr, "render: %zu disk and %zu sweep queries in %s are not drawn (rays and aabbs are)\n",
                   set.disks.size(), set.sweeps.size(), it->second[0].c_str());
    }
  }
  if (auto it = a.single.find("--view"); it != a.single.end()) {
    std::vector<Fixed> v;
    if (auto e = Numbers("--view", it->second, &v)) return e;
    o->view = Aabb{{v[0], v[1]}, {v[2], v[3]}};
  }
  return std::nullopt;
}

int Usage(const std::string& error) {
  std::fprintf(stderr, "arbiter render: %s\n%s", error.c_str(), kUsage);
  return 2;
}

absl::StatusOr<World> LoadWorld(const RenderArgs& a, const std::optional<TickAt>& at, std::string* caption) {
  auto get = [&](const char* flag) { return a.single.at(flag)[0]; };
  if (a.single.count("--snapshot")) {
    *caption = "snapshot " + get("--snapshot");
    return WorldFromSnapshotFile(get("--snapshot"));
  }
  if (a.single.count("--journal")) {
    *caption = "journal " + get("--journal");
    return WorldFromJournalFile(get("--journal"), *at);
  }
  client::ClientOptions options;
  std::vector<char*> argv = {const_cast<char*>("render")};
  for (const std::string& s : a.connection) argv.push_back(const_cast<char*>(s.c_str()));
  const Args connection(static_cast<int>(argv.size()), argv.data(), 1, ConnectionValuedFlags());
  if (auto e = ApplyConnectionFlags(connection, &options)) return absl::InvalidArgumentError(*e);
  const std::string server = a.single.count("--server") ? get("--server") : "127.0.0.1:50051";
  std::unique_ptr<client::ArbiterClient> client = client::ArbiterClient::Connect(server, options);
  *caption = "world " + get("--world") + " on " + server;
  return WorldFromServer(*client, get("--world"), at);
}

}  // namespace

const char* RenderUsage() {
  return "  render --out F.svg [--world W [--at T[:F]] | --snapshot F | --journal F --tick T[:F]]\n"
         "         [--ray X Y DX DY]... [--box X0 Y0 X1 Y1]... [--queries F] [--view X0 Y0 X1 Y1]\n"
         "                                  draw the world (exact SVG) with queries and their answers\n";
}

int RunRender(int argc, char** argv) {
  RenderArgs a;
  if (auto e = Parse(argc, argv, &a)) return Usage(*e);
  if (!a.single.count("--out")) return Usage("--out: required");
  const int sources = static_cast<int>(a.single.count("--world") + a.single.count("--snapshot") +
                                       a.single.count("--journal"));
  if (sources != 1) return Usage("give exactly one of --world, --snapshot and --journal");
  if (a.single.count("--journal") != a.single.count("--tick")) return Usage("--journal and --tick go together");
  if (a.single.count("--at") && !a.single.count("--world")) return Usage("--at: only with --world");
  std::optional<TickAt> at;
  for (const char* flag : {"--at", "--tick"}) {
    if (!a.single.count(flag)) continue;
    at.emplace();
    if (auto e = ParseTickAt(flag, a.single[flag][0], &*at)) return Usage(*e);
  }
  render::RenderQueries queries;
  render::RenderOptions options;
  if (auto e = Queries(a, &queries, &options)) return Usage(*e);
  if (Status s = render::CheckRenderInput(queries, options); !s.ok()) return Usage(s.message());

  absl::StatusOr<World> world = LoadWorld(a, at, &options.caption);
  if (!world.ok()) {
    std::fprintf(stderr, "arbiter render: %s\n", world.status().ToString().c_str());
    return 1;
  }
  options.caption += " at tick " + std::to_string(world->tick());
  const std::string svg = render::RenderSvg(*world, queries, options);
  const std::string& path = a.single["--out"][0];
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(svg.data(), static_cast<std::streamsize>(svg.size()));
  if (!out.flush()) {
    std::fprintf(stderr, "arbiter render: --out: cannot write %s\n", path.c_str());
    return 1;
  }
  size_t shapes = 0;
  for (uint64_t id : world->BodyIds()) shapes += world->FindBody(id)->shape_count;
  std::printf("wrote %s: tick %lld, %zu bodies, %zu shapes, %zu rays, %zu boxes\n", path.c_str(),
              static_cast<long long>(world->tick()), world->body_count(), shapes, queries.rays.size(),
              queries.boxes.size());
  return 0;
}

}  // namespace arbiter::cli

// arbiter_digest: the determinism runner (issue 6).
//
// Runs a fixed set of scenarios on the core alone and prints one digest per
// scenario and an overall digest; compares them with the committed
// expected_digests.txt and exits non-zero on any mismatch. With a per-item
// trace (--trace / --compare) it names the first tick, query or script that
// differs. See --help and docs/determinism.md.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "arbiter/core/wide.h"
#ifdef ARBITER_DIGEST_THREADS
#include "arbiter/core/step_thread_pool.h"
#endif
#include "digest.h"
#include "runner_world.h"
#include "scenarios.h"
#include "scene_reader.h"

#ifndef ARBITER_SCENES_DIR
#define ARBITER_SCENES_DIR "scenes"
#endif
#ifndef ARBITER_EXPECTED_DIGESTS
#define ARBITER_EXPECTED_DIGESTS "tests/determinism/expected_digests.txt"
#endif

namespace arbiter::determinism {
namespace {

constexpr const char* kUsage =
    "usage: arbiter_digest [options]\n"
    "  --quick            run the quick prefix of every scenario (for emulated cells)\n"
    "  --scenes DIR       the standard scene files (default: " ARBITER_SCENES_DIR ")\n"
    "  --expected FILE    committed digests (default: " ARBITER_EXPECTED_DIGESTS ")\n"
    "  --no-check         do not compare with the expected digests\n"
    "  --print            print this mode's lines in expected_digests.txt form (no check)\n"
    "  --update           rewrite this mode's lines of the expected file (no check)\n"
    "  --trace FILE       write every per-item digest (tick, query, script) to FILE\n"
    "  --compare FILE     compare per-item digests with a trace; report the first difference\n"
    "  --only LIST        comma-separated scenario prefixes (rain, arena, scripts, terrain); no overall check\n"
    "  --scripts N        run N scripts instead of the mode's count (no scripts check)\n"
    "  --script-detail I  print a per-operation digest trace of script I\n"
    "  --stats            print coverage counters of the scripts\n"
    "  --threads N        step every world with a StepThreadPool of N threads (1..64; C++ runner only):\n"
    "                     the digests must be the same for every N\n"
    "exit status: 0 all digests match, 1 a mismatch, 2 a usage or file error\n";

struct Options {
  bool quick = false;
  std::string scenes_dir = ARBITER_SCENES_DIR;
  std::string expected_path = ARBITER_EXPECTED_DIGESTS;
  bool check = true;
  bool print = false;
  bool update = false;
  std::string trace_path;
  std::string compare_path;
  std::vector<std::string> only;
  int scripts = -1;
  int script_detail = -1;
  bool stats = false;
  int threads = 1;
};

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

bool ParseHex(const std::string& s, uint64_t* out) {
  if (s.empty() || s.size() > 16) return false;
  uint64_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else return false;
    v = (v << 4) | static_cast<uint64_t>(d);
  }
  *out = v;
  return true;
}

bool Selected(const Options& o, const std::string& name) {
  if (o.only.empty()) return true;
  for (const std::string& prefix : o.only) {
    if (name.compare(0, prefix.size(), prefix) == 0) return true;
  }
  return false;
}

std::string BuildDescription() {
  std::string s;
#if defined(__clang__)
  s += "clang " __clang_version__;
#elif defined(__GNUC__)
  s += "g++ " __VERSION__;
#else
  s += "unknown compiler";
#endif
  s += std::endian::native == std::endian::little ? ", little-endian" : ", big-endian";
  s += ", " + std::to_string(sizeof(void*) * 8) + "-bit";
  s += ARBITER_NATIVE_INT128 ? ", __int128" : ", portable Int128";
#if defined(__OPTIMIZE__)
  s += ", optimized";
#else
  s += ", -O0";
#endif
#if defined(__FAST_MATH__)
  s += ", -ffast-math";
#endif
#if defined(__SANITIZE_ADDRESS__)
  s += ", ASan";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  s += ", ASan";
#endif
#endif
  return s;
}

// "tick 37", "rays[1234]", "script 17": what an item index means.
std::string ItemLabel(const ScenarioResult& r, size_t index) {
  if (r.item_kind == "tick") {
    return index == 0 ? std::string("tick 0 (the state after loading)") : "tick " + std::to_string(index);
  }
  if (r.item_kind == "query") {
    const std::string kind = r.name.substr(r.name.find('.') + 1);
    return "query " + kind + "[" + std::to_string(index) + "]";
  }
  if (r.item_kind == "script") {
    return "script " + std::to_string(index) + " (see its operations: --only scripts --scripts " +
           std::to_string(index + 1) + " --script-detail " + std::to_string(index) + ")";
  }
  return "item " + std::to_string(index);
}

uint64_t Overall(const std::vector<ScenarioResult>& results) {
  Digest d;
  for (const ScenarioResult& r : results) {
    d.Str(r.name);
    d.U64(r.digest);
  }
  return d.Value();
}

// ---- expected_digests.txt: "mode name hex" lines, '#' comments ---------------

struct ExpectedFile {
  std::vector<std::string> lines;                 // verbatim, for --update
  std::map<std::string, uint64_t> digests;        // "mode name" -> digest
};

bool ReadExpected(const std::string& path, ExpectedFile* out, std::string* error) {
  std::string text;
  if (!ReadTextFile(path, &text, error)) return false;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    out->lines.push_back(line);
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string mode, name, hex;
    uint64_t v = 0;
    if (!(fields >> mode >> name >> hex) || !ParseHex(hex, &v)) {
      *error = path + ":" + std::to_string(number) + ": expected \"MODE NAME HEX\"";
      return false;
    }
    out->digests[mode + " " + name] = v;
  }
  return true;
}

bool WriteText(const std::string& path, const std::string& text, std::string* error) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) {
    *error = path + ": cannot write";
    return false;
  }
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) {
    *error = path + ": write failed";
    return false;
  }
  return true;
}

// ---- traces: "# arbiter_digest trace mode=M", then "name index hex" -----------

bool WriteTrace(const std::string& path, const std::string& mode, const std::vector<ScenarioResult>& results,
                std::string* error) {
  std::string text = "# arbiter_digest trace mode=" + mode + "\n";
  for (const ScenarioResult& r : results) {
    for (size_t i = 0; i < r.items.size(); ++i) {
      text += r.name + " " + std::to_string(i) + " " + Hex(r.items[i]) + "\n";
    }
  }
  return WriteText(path, text, error);
}

bool ReadTrace(const std::string& path, std::string* mode, std::map<std::string, std::vector<uint64_t>>* out,
               std::string* error) {
  std::string text;
  if (!ReadTextFile(path, &text, error)) return false;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("# arbiter_digest trace mode=", 0) == 0) {
      *mode = line.substr(std::strlen("# arbiter_digest trace mode="));
      continue;
    }
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, hex;
    size_t index = 0;
    uint64_t v = 0;
    if (!(fields >> name >> index >> hex) || !ParseHex(hex, &v) || index != (*out)[name].size()) {
      *error = path + ":" + std::to_string(number) + ": expected \"NAME INDEX HEX\" in order";
      return false;
    }
    (*out)[name].push_back(v);
  }
  return true;
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* what) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "arbiter_digest: %s needs %s\n%s", a.c_str(), what, kUsage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--quick") o.quick = true;
    else if (a == "--scenes") o.scenes_dir = value("a directory");
    else if (a == "--expected") o.expected_path = value("a file");
    else if (a == "--no-check") o.check = false;
    else if (a == "--print") o.print = true;
    else if (a == "--update") o.update = true;
    else if (a == "--trace") o.trace_path = value("a file");
    else if (a == "--compare") o.compare_path = value("a file");
    else if (a == "--scripts") o.scripts = std::atoi(value("a count").c_str());
    else if (a == "--stats") o.stats = true;
    else if (a == "--threads") o.threads = std::atoi(value("a thread count").c_str());
    else if (a == "--script-detail") o.script_detail = std::atoi(value("an index").c_str());
    else if (a == "--only") {
      std::stringstream list(value("a list"));
      std::string item;
      while (std::getline(list, item, ',')) {
        if (!item.empty()) o.only.push_back(item);
      }
    } else if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return 0;
    } else {
      std::fprintf(stderr, "arbiter_digest: unknown option %s\n%s", a.c_str(), kUsage);
      return 2;
    }
  }
  if (o.threads < 1 || o.threads > 64) {
    std::fprintf(stderr, "arbiter_digest: --threads needs 1..64\n");
    return 2;
  }
#ifdef ARBITER_DIGEST_THREADS
  std::unique_ptr<StepThreadPool> pool;
  if (o.threads > 1) {
    pool = std::make_unique<StepThreadPool>(static_cast<uint32_t>(o.threads));
    g_step_executor = pool.get();
  }
#else
  if (o.threads != 1) {
    std::fprintf(stderr, "arbiter_digest: this runner steps on one thread only (--threads is the C++ runner's)\n");
    return 2;
  }
#endif
  const std::string mode = o.quick ? "quick" : "full";
  const RunSize size = o.quick ? QuickSize() : FullSize();
  const bool partial = !o.only.empty() || o.scripts >= 0;
  if ((o.print || o.update) && partial) {
    std::fprintf(stderr, "arbiter_digest: --print/--update need every scenario (no --only, --scripts)\n");
    return 2;
  }

  std::string error;
  std::vector<ScenarioResult> results;
  const std::string dir = o.scenes_dir + "/";
  if (Selected(o, "rain-2k")) {
    SceneData rain;
    if (!LoadScene(dir + "rain-2k.scene.json", &rain, &error)) {
      std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
      return 2;
    }
    results.push_back(RunRain(rain, size.rain_ticks));
  }
  if (Selected(o, "arena-10k")) {
    SceneData arena;
    QueryData queries;
    if (!LoadScene(dir + "arena-10k.scene.json", &arena, &error) ||
        !LoadQueries(dir + "arena-10k.queries.json", &queries, &error)) {
      std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
      return 2;
    }
    for (ScenarioResult& r : RunArena(arena, queries, size)) {
      if (Selected(o, r.name)) results.push_back(std::move(r));
    }
  }
  if (Selected(o, "scripts")) {
    results.push_back(RunScripts(o.scripts >= 0 ? o.scripts : size.scripts, o.script_detail));
  }
  const uint64_t overall = Overall(results);
  // Scenarios added after "overall" was pinned: checked on their own lines,
  // printed after it and not folded into it, so every earlier line of
  // expected_digests.txt stays byte-identical.
  const size_t pinned = results.size();
  if (Selected(o, "terrain")) {
    SceneData terrain;
    if (!LoadScene(dir + "terrain.scene.json", &terrain, &error)) {
      std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
      return 2;
    }
    results.push_back(RunTerrain(terrain, size.terrain_ticks, size.terrain_queries));
  }

  if (o.print || o.update) {
    std::string lines;
    for (size_t i = 0; i < pinned; ++i) lines += mode + " " + results[i].name + " " + Hex(results[i].digest) + "\n";
    lines += mode + " overall " + Hex(overall) + "\n";
    for (size_t i = pinned; i < results.size(); ++i) lines += mode + " " + results[i].name + " " + Hex(results[i].digest) + "\n";
    if (o.print) std::fputs(lines.c_str(), stdout);
    if (o.update) {
      ExpectedFile file;
      if (!ReadExpected(o.expected_path, &file, &error)) {
        std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
        return 2;
      }
      // Keep comments and the other mode's lines; replace this mode's.
      std::string text;
      bool placed = false;
      for (const std::string& line : file.lines) {
        if (line.rfind(mode + " ", 0) == 0) {
          if (!placed) text += lines;
          placed = true;
          continue;
        }
        text += line + "\n";
      }
      if (!placed) text += lines;
      if (!WriteText(o.expected_path, text, &error)) {
        std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
        return 2;
      }
      std::printf("arbiter_digest: updated the %s digests in %s\n", mode.c_str(), o.expected_path.c_str());
    }
    return 0;
  }

  ExpectedFile expected;
  if (o.check && !ReadExpected(o.expected_path, &expected, &error)) {
    std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
    return 2;
  }

  std::printf("# arbiter_digest mode=%s; %s; %d step thread%s\n", mode.c_str(), BuildDescription().c_str(), o.threads,
              o.threads == 1 ? "" : "s");
  int mismatches = 0;
  auto report = [&](const std::string& name, uint64_t digest, const std::string& detail) {
    std::string status = "unchecked";
    if (o.check && !(name == "overall" && partial) && !(name == "scripts" && o.scripts >= 0)) {
      const auto it = expected.digests.find(mode + " " + name);
      if (it == expected.digests.end()) {
        status = "MISMATCH (no expected digest for " + mode + " " + name + ")";
        ++mismatches;
      } else if (it->second != digest) {
        status = "MISMATCH (expected " + Hex(it->second) + ")";
        ++mismatches;
      } else {
        status = "ok";
      }
    }
    std::printf("%-18s %s  # %s%s\n", name.c_str(), Hex(digest).c_str(), detail.c_str(), status.c_str());
  };
  for (size_t i = 0; i < results.size(); ++i) {
    if (i == pinned) report("overall", overall, "");
    const ScenarioResult& r = results[i];
    char detail[96];
    const bool one = r.items.size() == 1;
    const std::string kind = one ? r.item_kind : (r.item_kind == "query" ? "queries" : r.item_kind + "s");
    std::snprintf(detail, sizeof detail, "%zu %s, %.2f s, ", r.items.size(), kind.c_str(), r.seconds);
    report(r.name, r.digest, detail);
  }
  if (pinned == results.size()) report("overall", overall, "");
  if (o.stats) PrintScriptStats();
  std::fflush(stdout);

  if (!o.trace_path.empty()) {
    if (!WriteTrace(o.trace_path, mode, results, &error)) {
      std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
      return 2;
    }
  }

  int trace_differences = 0;
  if (!o.compare_path.empty()) {
    std::string ref_mode;
    std::map<std::string, std::vector<uint64_t>> ref;
    if (!ReadTrace(o.compare_path, &ref_mode, &ref, &error)) {
      std::fprintf(stderr, "arbiter_digest: %s\n", error.c_str());
      return 2;
    }
    if (ref_mode != mode) {
      std::fprintf(stderr, "arbiter_digest: %s is a %s-mode trace; this run is %s\n", o.compare_path.c_str(),
                   ref_mode.c_str(), mode.c_str());
      return 2;
    }
    for (const ScenarioResult& r : results) {
      const auto it = ref.find(r.name);
      if (it == ref.end()) {
        std::printf("compare: %s: not in %s\n", r.name.c_str(), o.compare_path.c_str());
        ++trace_differences;
        continue;
      }
      const std::vector<uint64_t>& want = it->second;
      const size_t n = std::min(want.size(), r.items.size());
      size_t first = n;
      for (size_t i = 0; i < n; ++i) {
        if (want[i] != r.items[i]) {
          first = i;
          break;
        }
      }
      if (first < n) {
        size_t count = 0;
        for (size_t i = first; i < n; ++i) count += want[i] != r.items[i] ? 1 : 0;
        std::printf("compare: %s: first difference at %s (reference %s, this build %s); %zu of %zu items differ\n",
                    r.name.c_str(), ItemLabel(r, first).c_str(), Hex(want[first]).c_str(),
                    Hex(r.items[first]).c_str(), count, n);
        ++trace_differences;
      } else if (want.size() != r.items.size()) {
        std::printf("compare: %s: %zu items here, %zu in the reference (the common prefix matches)\n",
                    r.name.c_str(), r.items.size(), want.size());
        ++trace_differences;
      }
    }
    if (trace_differences == 0) std::printf("compare: every item matches %s\n", o.compare_path.c_str());
  }

  if (mismatches > 0) {
    std::printf("arbiter_digest: %d digest(s) differ from %s (%s mode)%s\n", mismatches, o.expected_path.c_str(),
                mode.c_str(),
                o.compare_path.empty()
                    ? "; to find the first differing tick/query/script, run a known-good build with --trace REF "
                      "and this one with --compare REF (scripts/determinism-matrix.sh does this)"
                    : "");
  }
  return mismatches > 0 || trace_differences > 0 ? 1 : 0;
}

}  // namespace
}  // namespace arbiter::determinism

int main(int argc, char** argv) { return arbiter::determinism::Main(argc, argv); }

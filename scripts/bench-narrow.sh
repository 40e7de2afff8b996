#!/usr/bin/env bash
# The narrow phase of core/ (Q32.32) against the double reference of
# tests/reference, function by function and shape pair by shape pair:
# builds narrow_bench in Release (build-release/), runs it (Google
# Benchmark's table is shown as it goes), then prints the fixed/double
# CPU-time ratio of every function and case from the JSON output
# (build-release/narrow_bench.json), the ratio matrices of the pair
# functions, and a per-function summary.
#
# Extra arguments go to narrow_bench, e.g.
#   scripts/bench-narrow.sh --benchmark_filter='^(Collide|ShapeCast)/'
#   scripts/bench-narrow.sh --benchmark_repetitions=5   # the medians are used
#   scripts/bench-narrow.sh --benchmark_min_time=1      # default here: 0.2 s per case
# Environment: ARBITER_BUILD_DIR (default build-release), ARBITER_JOBS
# (build jobs, default 2).
# Run it on an otherwise idle machine: every case is single-thread.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/release-build.sh
release_build narrow_bench

json="$build/narrow_bench.json"
"$build/bench/narrow_bench" --benchmark_min_time=0.2 \
  --benchmark_out="$json" --benchmark_out_format=json "$@"

python3 - "$json" <<'EOF'
import json, math, sys

with open(sys.argv[1]) as f:
    data = json.load(f)

NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
runs = data.get("benchmarks", [])
# With --benchmark_repetitions the medians stand for each case; otherwise the
# single run does.
use_median = any(r.get("run_type") == "aggregate" for r in runs)
times = {}     # (function, case) -> {side: ns}
counters = {}  # (function, case) -> {side: "hit=0.48"}
order = []
for r in runs:
    if use_median and not (r.get("run_type") == "aggregate" and r.get("aggregate_name") == "median"):
        continue
    if r.get("error_occurred"):
        continue
    parts = r.get("run_name", r["name"]).split("/")
    if len(parts) != 3:
        continue
    function, case, side = parts
    key = (function, case)
    if key not in times:
        times[key] = {}
        counters[key] = {}
        order.append(key)
    times[key][side] = r["cpu_time"] * NS[r.get("time_unit", "ns")]
    for c in ("hit", "pts"):
        if c in r:
            counters[key][side] = "%s=%.2f" % (c, r[c])

rows = [(k, times[k]) for k in order if "fixed" in times[k] and "double" in times[k]]
if not rows:
    sys.exit("bench-narrow: no fixed/double pair in %s" % sys.argv[1])

ctx = data.get("context", {})
load = ctx.get("load_avg") or []
print()
print("narrow phase: CPU time per call, fixed = core (Q32.32), double = tests/reference/reference.cc")
print("(<cmath> for MakeRot, Atan2, Sqrt). ratio = fixed / double: above 1 fixed is slower, below 1 faster.")
print("%s; %d configurations per case, cycled." % (
    "medians of repetitions" if use_median else "one run per case",
    int(ctx.get("narrow_bench.configs_per_case", "0") or 0)))
if load:
    print("load average at start: %s%s" % (", ".join("%.2f" % x for x in load),
          "  (BUSY machine: > 1.5, timings are noisy)" if load[0] > 1.5 else ""))
print()
print("%-14s %-16s %11s %11s %8s   %s" % ("function", "case", "fixed ns", "double ns", "ratio", "counters (fixed | double)"))
print("-" * 96)
by_function = {}
for (function, case), t in rows:
    ratio = t["fixed"] / t["double"]
    by_function.setdefault(function, []).append((case, ratio))
    c = counters[(function, case)]
    extra = "%s | %s" % (c["fixed"], c["double"]) if "fixed" in c and "double" in c else ""
    print("%-14s %-16s %11.1f %11.1f %8.2f   %s" % (function, case, t["fixed"], t["double"], ratio, extra))

# Ratio matrices of the pair functions (case "A-B").
kinds = ["circle", "capsule", "segment", "box", "6gon", "6gon_r"]
for function, cases in by_function.items():
    pairs = {c: r for c, r in cases if "-" in c}
    if not pairs:
        continue
    print()
    print("%s fixed/double (row A, column B):" % function)
    print("%-8s" % "" + "".join("%9s" % k for k in kinds))
    for i, a in enumerate(kinds):
        line = "%-8s" % a
        for j, b in enumerate(kinds):
            r = pairs.get("%s-%s" % (a, b)) if i <= j else None
            line += "%9s" % ("%.2f" % r if r is not None else "")
        print(line)

print()
print("summary per function: geometric mean of fixed/double over its cases, and the extremes")
print("%-14s %6s %8s   %-24s %-24s" % ("function", "cases", "geomean", "lowest", "highest"))
print("-" * 82)
for function, cases in by_function.items():
    g = math.exp(sum(math.log(r) for _, r in cases) / len(cases))
    lo = min(cases, key=lambda x: x[1])
    hi = max(cases, key=lambda x: x[1])
    print("%-14s %6d %8.2f   %-24s %-24s" % (function, len(cases), g, "%.2f %s" % (lo[1], lo[0]),
                                           "%.2f %s" % (hi[1], hi[0])))
EOF

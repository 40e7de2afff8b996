#!/usr/bin/env bash
# Arbiter against Box2D 2.4.1 and Chipmunk 7 (and Box2D v3, see below), in
# one run, on the same files: builds peer_bench in Release (build-release/),
# runs every query of scenes/arena-10k, then the ray cost-growth table on
# arena-1k/10k/100k with memory per body, then every query of
# scenes/cast-grid (Box2D's query benchmark). The arena-N files are
# generated on first use into build/bench-scenes/ (python3 scenes/generate.py DIR --arena N). Then
# step_bench: ms per tick of rain-2k (600 ticks) in Arbiter, Box2D and
# Chipmunk, with the Arbiter/peer time ratios, and the same for pyramid-5k.
#
# Extra arguments go to peer_bench, e.g.
#   scripts/bench-peers.sh --max-bodies 1000000   # adds arena-1M (GBs of RAM, minutes)
#   scripts/bench-peers.sh --reps 5 --show 3
# STEP_BENCH_ARGS goes to step_bench, e.g. STEP_BENCH_ARGS="--ticks 300".
# ARBITER_BOX2D3_DIR=<a tree built by Box2D v3.1+'s own CMake> adds Box2D v3
# (kept in build-release/'s cache once given).
# The exit status is peer_bench's when it failed, else step_bench's.
# Run it on an otherwise idle machine: timings are single-thread wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
bash scripts/install-deps.sh
jobs="${ARBITER_JOBS:-2}"

cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DARBITER_BUILD_TESTS=OFF \
  ${ARBITER_BOX2D3_DIR:+"-DARBITER_BOX2D3_DIR=$ARBITER_BOX2D3_DIR"} >/dev/null
cmake --build build-release -j "$jobs" --target peer_bench step_bench

if [ -f scenes/arena-10k.scene.json ]; then
  scenes="$root/scenes"
else
  scenes="$root/../shared/scenes"
fi
mkdir -p build/bench-scenes
peer_rc=0
build-release/bench/peer_bench \
  --scene "$scenes/arena-10k.scene.json" \
  --queries "$scenes/arena-10k.queries.json" \
  --growth "$root/build/bench-scenes" \
  "$@" || peer_rc=$?

# Box2D v3's own query benchmark scene (scenes/cast_grid.py): 100k boxes,
# rays and disk sweeps across the whole grid, radius-5 overlaps.
echo
build-release/bench/peer_bench \
  --scene "$root/scenes/cast-grid.scene.json" \
  --queries "$root/scenes/cast-grid.queries.json" \
  "$@" || peer_rc=$?

echo
step_rc=0
# shellcheck disable=SC2086  # STEP_BENCH_ARGS is split into arguments on purpose
build-release/bench/step_bench --scene "$scenes/rain-2k.scene.json" ${STEP_BENCH_ARGS:-} || step_rc=$?

# pyramid-5k: Box2D's large_pyramid (5,050 boxes resting on each other), a
# stack rather than a rain; it prints whether the pyramid still stands.
echo
# shellcheck disable=SC2086
build-release/bench/step_bench --scene "$root/scenes/pyramid-5k.scene.json" ${STEP_BENCH_ARGS:-} || step_rc=$?
if [ "$peer_rc" -ne 0 ]; then exit "$peer_rc"; fi
exit "$step_rc"

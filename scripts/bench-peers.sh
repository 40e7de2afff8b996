#!/usr/bin/env bash
# Arbiter against Box2D 2.4.1 and Chipmunk 7, in one run, on the same files:
# builds peer_bench in Release (build-release/), runs every query of
# scenes/arena-10k, then the ray cost-growth table on arena-1k/10k/100k with
# memory per body. The arena-N files are generated on first use into
# build/bench-scenes/ (python3 scenes/generate.py DIR --arena N).
#
# Extra arguments go to peer_bench, e.g.
#   scripts/bench-peers.sh --max-bodies 1000000   # adds arena-1M (GBs of RAM, minutes)
#   scripts/bench-peers.sh --reps 5 --show 3
# Run it on an otherwise idle machine: timings are single-thread wall clock.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
bash scripts/install-deps.sh
jobs="${ARBITER_JOBS:-2}"

cmake -S . -B build-release -G Ninja -DCMAKE_BUILD_TYPE=Release -DARBITER_BUILD_TESTS=OFF >/dev/null
cmake --build build-release -j "$jobs" --target peer_bench

if [ -f scenes/arena-10k.scene.json ]; then
  scenes="$root/scenes"
else
  scenes="$root/../shared/scenes"
fi
mkdir -p build/bench-scenes
exec build-release/bench/peer_bench \
  --scene "$scenes/arena-10k.scene.json" \
  --queries "$scenes/arena-10k.queries.json" \
  --growth "$root/build/bench-scenes" \
  "$@"

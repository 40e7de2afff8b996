#!/usr/bin/env bash
# CastRays through a fleet's nginx against direct to the world's owner
# (issue 16): builds arbiter-server and fleet_bench in Release
# (build-release/), starts a local fleet of 3 instances and nginx on
# loopback (docker/cluster.sh), runs fleet_bench (unary and 256-ray batch
# calls at 1, 8 and 32 caller threads; calls/s, rays/s, p50/p99 and the
# proxy/direct ratio), and stops the fleet.
#
# Extra arguments go to fleet_bench, e.g.
#   scripts/bench-fleet.sh --seconds 5 --concurrency 1,4,16,64 --batch 1024
# Environment: ARBITER_BUILD_DIR (default build-release), ARBITER_JOBS
# (build jobs, default 2), FLEET_INSTANCES (default 3).
# Run it on an otherwise idle machine: nginx, the servers and the callers
# share its cores.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/release-build.sh
release_build arbiter_server fleet_bench

export PATH="/usr/sbin:$PATH"  # Debian's nginx
ARBITER_SERVER="$(pwd)/$build/server/arbiter-server" \
  bash bench/run_fleet_bench.sh "$build/bench/fleet_bench" "$@"

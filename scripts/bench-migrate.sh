#!/usr/bin/env bash
# Moves a large world between two local arbiter-server instances with
# `arbiter migrate` (the export streamed into ImportWorldStream, issue 27)
# and prints, per world size: bodies, the seconds the source took to step
# the 30 ticks the move will replay, export bytes, the move's seconds, the
# window writes were refused, the source's peak resident memory (VmHWM)
# before and after the move, and the destination's after it.
#
#   scripts/bench-migrate.sh [N ...]   arena-N worlds (scenes/generate.py
#                                      --arena N: N static shapes and N/10
#                                      dynamic); default 100000
#
# ARBITER_BUILD_DIR (default build) names the build with arbiter-server and
# arbiter. The scenes and journals go to a temporary folder, removed after.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${ARBITER_BUILD_DIR:-build}"
server="$build/server/arbiter-server"
cli="$build/client/arbiter"
[ -x "$server" ] && [ -x "$cli" ] || { echo "bench-migrate: build $server and $cli first" >&2; exit 2; }

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
peak_kb() { awk '/VmHWM/ { print $2 }' "/proc/$1/status"; }

work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

start() {  # start NAME PORT: one instance with a journal of its own
  mkdir -p "$work/$1"
  "$server" --listen="127.0.0.1:$2" --data_dir="$work/$1" --max_bodies_per_world=4000000 \
    --max_scene_bytes=4000000000 --max_message_bytes=268435456 >"$work/$1.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 200); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "bench-migrate: $1 did not start" >&2
  return 1
}

printf '%-8s %10s %12s %14s %10s %14s %22s %16s\n' world bodies step30_s export_bytes move_s refused_ms source_peak_MB_before/after dest_peak_MB
for n in "${@:-100000}"; do
  python3 scenes/generate.py "$work" --arena "$n" >/dev/null
  scene="$work/arena-$n.scene.json"
  pa="$(free_port)"
  pb="$(free_port)"
  start "a$n" "$pa"
  pid_a="${pids[-1]}"
  start "b$n" "$pb"
  pid_b="${pids[-1]}"
  "$cli" load "$scene" --server "127.0.0.1:$pa" --world big --timeout_ms 3600000 >"$work/load.log" 2>&1 ||
    { cat "$work/load.log" >&2; exit 1; }
  step_started=$(date +%s.%N)
  "$cli" step 30 --server "127.0.0.1:$pa" --world big --timeout_ms 3600000 >/dev/null
  step_s="$(echo "$(date +%s.%N) - $step_started" | bc)"
  bodies="$("$cli" describe --server "127.0.0.1:$pa" --world big --json --timeout_ms 3600000 | python3 -c 'import json,sys; print(json.load(sys.stdin)["body_count"])')"
  source_before=$(($(peak_kb "$pid_a") / 1024))
  started=$(date +%s.%N)
  report="$("$cli" migrate --json --timeout_ms 3600000 --world big --from "127.0.0.1:$pa" --to "127.0.0.1:$pb")"
  ended=$(date +%s.%N)
  read -r bytes refused < <(python3 -c 'import json,sys; r = json.loads(sys.argv[1]); print(r["export_bytes"], r["write_refusal_ms"])' "$report")
  printf '%-8s %10s %12.2f %14s %10.2f %14s %22s %16d\n' "arena-$n" "$bodies" "$step_s" "$bytes" "$(echo "$ended - $started" | bc)" \
    "$refused" "$source_before/$(($(peak_kb "$pid_a") / 1024))" "$(($(peak_kb "$pid_b") / 1024))"
  kill "$pid_a" "$pid_b"
  wait "$pid_a" "$pid_b" 2>/dev/null || true
  rm -rf "$work/a$n" "$work/b$n" "$scene"
done

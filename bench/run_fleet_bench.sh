#!/usr/bin/env bash
# Runs fleet_bench against a fresh local fleet: docker/cluster.sh starts
# $FLEET_INSTANCES (default 3) arbiter-server instances ($ARBITER_SERVER)
# and nginx in a temporary folder, the bench gets their addresses, and the
# fleet is stopped by PID whatever happens. The exit status is the bench's.
#
#   bench/run_fleet_bench.sh FLEET_BENCH [fleet_bench arguments...]
#
# Afterwards it prints what each process used over the run: CPU seconds
# (user + system, from /proc) and peak resident memory, the figures the
# Kubernetes manifests' resource requests are sized from.
#
# scripts/bench-fleet.sh runs it in Release; CTest's fleet_bench_smoke runs
# it with --quick (the proxy-equals-direct check, not the speed).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bench="$1"
shift
dir="$(mktemp -d "${TMPDIR:-/tmp}/arbiter-fleet-bench.XXXXXX")"
cleanup() {
  bash "$here/../docker/cluster.sh" stop "$dir" || true
  rm -rf "$dir"
}
trap cleanup EXIT
bash "$here/../docker/cluster.sh" start "$dir" "${FLEET_INSTANCES:-3}" >/dev/null
# shellcheck disable=SC1091  # written by cluster.sh start
. "$dir/cluster.env"

# "NAME PID": CPU seconds and peak RSS of PID and its children (nginx's workers).
usage() {
  local name="$1" pid="$2" ticks=0 kb=0 p
  for p in "$pid" $(cat "/proc/$pid/task/$pid/children" 2>/dev/null); do
    [ -r "/proc/$p/stat" ] || continue
    # Fields 14 and 15 after the command name: utime and stime in clock ticks.
    ticks=$((ticks + $(sed 's/.*) //' "/proc/$p/stat" | awk '{ print $12 + $13 }')))
    kb=$((kb + $(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status")))
  done
  awk -v n="$name" -v t="$ticks" -v hz="$(getconf CLK_TCK)" -v kb="$kb" \
    'BEGIN { printf "usage: %-10s cpu %7.2f s  peak rss %6.1f MiB\n", n, t / hz, kb / 1024 }'
}

rc=0
"$bench" --proxy "$PROXY" --instances "$INSTANCES" "$@" || rc=$?
for pidfile in "$dir"/i*.pid; do
  name="$(basename "$pidfile" .pid)"
  usage "instance${name#i}" "$(cat "$pidfile")"
done
usage nginx "$(cat "$dir/nginx/nginx.pid")"
exit "$rc"

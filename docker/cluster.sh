#!/usr/bin/env bash
# A local Arbiter fleet on loopback: N arbiter-server instances (each with
# its own journal directory) behind nginx routing by x-arbiter-world. No
# containers; free ports are chosen at start; processes are stopped by PID.
#
#   docker/cluster.sh start DIR [N]      start N instances (default 3) and nginx;
#                                        writes DIR/cluster.env (PROXY, INSTANCES)
#   docker/cluster.sh stop DIR           stop everything started in DIR
#   docker/cluster.sh kill DIR I         SIGKILL instance I (0-based)
#   docker/cluster.sh restart DIR I      start instance I again on its port and journal
#   docker/cluster.sh add DIR            start one more instance (not routed to yet);
#                                        prints its address
#   docker/cluster.sh reload DIR [I,J..] route to instances I,J,... (default: all
#                                        started) and reload nginx; rewrites cluster.env
#
# Adding or draining an instance: `add`, then `arbiter rebalance --yes` over
# the new list, then `reload` (docs/fleet.md).
#
# ARBITER_SERVER (default build/server/arbiter-server) and NGINX_BIN (default
# nginx) name the binaries; NGINX_TEMPLATE another configuration template
# (default docker/nginx/arbiter-fleet.conf.template, e.g. to measure a
# change). Each instance logs to DIR/iI.log, nginx to DIR/nginx/error.log.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
server_bin="${ARBITER_SERVER:-$here/../build/server/arbiter-server}"
nginx_bin="${NGINX_BIN:-nginx}"
nginx_template="${NGINX_TEMPLATE:-$here/nginx/arbiter-fleet.conf.template}"

free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits until the process with PID $1 listens on port $2 (or has exited).
wait_listening() {
  local pid="$1" port="$2"
  for _ in $(seq 1 200); do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "cluster: process $pid exited before listening on $port" >&2
      return 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    sleep 0.05
  done
  echo "cluster: nothing listens on $port after 10 s" >&2
  return 1
}

start_instance() {
  local dir="$1" i="$2" port
  port="$(cat "$dir/i$i.port")"
  mkdir -p "$dir/i$i"
  "$server_bin" --listen="127.0.0.1:$port" --data_dir="$dir/i$i" --journal_sync=off \
    >>"$dir/i$i.log" 2>&1 &
  echo $! >"$dir/i$i.pid"
  wait_listening "$(cat "$dir/i$i.pid")" "$port"
}

# The instances started in DIR, by index: 0 1 2 ...
all_instances() {
  local dir="$1" i=0 list=""
  while [ -e "$dir/i$i.port" ]; do list+="${list:+,}$i"; i=$((i + 1)); done
  echo "$list"
}

# Writes DIR/nginx/nginx.conf routing to instances $2 ("0,1,2") and
# DIR/cluster.env; the proxy's port is kept in DIR/proxy.port.
write_config() {
  local dir="$1" servers="" instances="" i addr
  for i in ${2//,/ }; do
    addr="127.0.0.1:$(cat "$dir/i$i.port")"
    servers+="    server $addr max_fails=0;"$'\n'
    instances+="${instances:+,}$addr"
  done
  sed -e "s|@PREFIX@|$dir/nginx|g" -e "s|@LISTEN@|127.0.0.1:$(cat "$dir/proxy.port")|g" \
    "$nginx_template" |
    awk -v servers="$servers" '{ if ($0 == "@SERVERS@") printf "%s", servers; else print }' \
      >"$dir/nginx/nginx.conf"
  "$nginx_bin" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -t -q
  printf 'PROXY=127.0.0.1:%s\nINSTANCES=%s\n' "$(cat "$dir/proxy.port")" "$instances" >"$dir/cluster.env"
}

start() {
  local dir="$1" n="${2:-3}"
  mkdir -p "$dir/nginx"/{body,proxy,fastcgi,uwsgi,scgi}
  for i in $(seq 0 $((n - 1))); do
    free_port >"$dir/i$i.port"
    start_instance "$dir" "$i"
  done
  free_port >"$dir/proxy.port"
  write_config "$dir" "$(all_instances "$dir")"
  "$nginx_bin" -p "$dir/nginx" -c "$dir/nginx/nginx.conf"
  # nginx daemonizes: its pid file appears once it runs.
  for _ in $(seq 1 100); do [ -s "$dir/nginx/nginx.pid" ] && break; sleep 0.05; done
  wait_listening "$(cat "$dir/nginx/nginx.pid")" "$(cat "$dir/proxy.port")"
  cat "$dir/cluster.env"
}

add() {
  local dir="$1" i=0
  while [ -e "$dir/i$i.port" ]; do i=$((i + 1)); done
  free_port >"$dir/i$i.port"
  start_instance "$dir" "$i"
  echo "127.0.0.1:$(cat "$dir/i$i.port")"
}

# nginx -s reload: new workers take the new configuration, old ones finish
# their calls; routing changes within moments, not at once.
reload() {
  local dir="$1"
  write_config "$dir" "${2:-$(all_instances "$dir")}"
  "$nginx_bin" -p "$dir/nginx" -c "$dir/nginx/nginx.conf" -s reload
  cat "$dir/cluster.env"
}

stop() {
  local dir="$1"
  if [ -s "$dir/nginx/nginx.pid" ]; then kill "$(cat "$dir/nginx/nginx.pid")" 2>/dev/null || true; fi
  for pidfile in "$dir"/i*.pid; do
    [ -e "$pidfile" ] || continue
    kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  # SIGTERM lets servers finish calls in flight; wait for them.
  for pidfile in "$dir"/i*.pid; do
    [ -e "$pidfile" ] || continue
    local pid
    pid="$(cat "$pidfile")"
    for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
}

case "${1:-}" in
  start) start "$(realpath -m "$2")" "${3:-3}" ;;
  stop) stop "$(realpath -m "$2")" ;;
  kill)
    dir="$(realpath -m "$2")"
    pid="$(cat "$dir/i$3.pid")"
    kill -9 "$pid"
    while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
    ;;
  restart) start_instance "$(realpath -m "$2")" "$3" ;;
  add) add "$(realpath -m "$2")" ;;
  reload) reload "$(realpath -m "$2")" "${3:-}" ;;
  *)
    sed -n '2,22p' "$0" >&2
    exit 2
    ;;
esac

#!/bin/sh
# Container entry point: arbiter-server on 0.0.0.0:$ARBITER_PORT, preloading
# $ARBITER_SCENES (comma-separated scene files; empty for none) and letting
# CreateWorld load scenes from $ARBITER_SCENE_DIR. Arguments are passed on
# after these, so they override them (e.g. --max_worlds=16).
set -eu
port="${ARBITER_PORT:-50051}"
scene_dir="${ARBITER_SCENE_DIR:-/opt/arbiter/scenes}"
server="${ARBITER_SERVER:-/usr/local/bin/arbiter-server}"
scenes="${ARBITER_SCENES:-}"
if [ -n "$scenes" ]; then
  set -- "--scene=$scenes" "$@"
fi
# exec: the server is PID 1 and receives docker's SIGTERM itself, which it
# answers with a clean shutdown.
exec "$server" "--listen=0.0.0.0:$port" "--scene_dir=$scene_dir" "$@"

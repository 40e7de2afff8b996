#!/bin/sh
# Container entry point: arbiter-server on 0.0.0.0:$ARBITER_PORT, preloading
# $ARBITER_SCENES (comma-separated scene files; empty for none), letting
# CreateWorld load scenes from $ARBITER_SCENE_DIR, journaling to
# $ARBITER_DATA_DIR (a volume), with the tokens of
# $ARBITER_TOKEN_FILE (see below). Arguments are passed on
# after these, so they override them (e.g. --max_worlds=16).
set -eu
port="${ARBITER_PORT:-50051}"
scene_dir="${ARBITER_SCENE_DIR:-/opt/arbiter/scenes}"
server="${ARBITER_SERVER:-/usr/local/bin/arbiter-server}"
scenes="${ARBITER_SCENES:-}"
if [ -n "$scenes" ]; then
  set -- "--scene=$scenes" "$@"
fi
# The durable journal (empty ARBITER_DATA_DIR: worlds in memory only).
set -- "--data_dir=${ARBITER_DATA_DIR:-}" "$@"
# Inside a container the server must listen on 0.0.0.0, which it refuses
# without a token file. With $ARBITER_TOKEN_FILE it uses those tokens;
# without, it serves open access, and the port publishing is the boundary
# (compose.yaml publishes on the host's 127.0.0.1 only).
if [ -n "${ARBITER_TOKEN_FILE:-}" ]; then
  set -- "--token_file=$ARBITER_TOKEN_FILE" "$@"
else
  set -- "--allow_insecure_open_access" "$@"
fi
# exec: the server is PID 1 and receives docker's SIGTERM itself, which it
# answers with a clean shutdown.
exec "$server" "--listen=0.0.0.0:$port" "--scene_dir=$scene_dir" "$@"

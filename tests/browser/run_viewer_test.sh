#!/bin/sh
# CTest entry of the viewer's browser test: starts arbiter-server with the
# demo scene and an HTTP listener on free ports, runs viewer_test.mjs
# against it (one Chromium launch), stops the server.
# usage: run_viewer_test.sh ARBITER_SERVER ARBITER_CLI SCENES_DIR SCREENSHOT.png VALIDATE_HIT
set -eu
server_bin=$1 cli=$2 scenes=$3 screenshot=$4 validate_hit=$5
here=$(cd "$(dirname "$0")" && pwd)

command -v node >/dev/null || { echo "node is missing: apt-get install nodejs npm (scripts/install-deps.sh)"; exit 1; }
[ -x /usr/bin/chromium ] || { echo "chromium is missing: apt-get install chromium (scripts/install-deps.sh)"; exit 1; }
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi

work=$(mktemp -d)
"$server_bin" --listen=127.0.0.1:0 --http_listen=127.0.0.1:0 --data_dir= --threads=2 \
  --scene="$scenes/demo.scene.json" >"$work/stdout" 2>"$work/stderr" &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$work"' EXIT
# The two stdout lines: "... listening on HOST:PORT ..." then "... http on URL ...".
for _ in $(seq 300); do
  grep -q 'http on' "$work/stdout" 2>/dev/null && break
  kill -0 $pid 2>/dev/null || { cat "$work/stderr"; exit 1; }
  sleep 0.1
done
grpc=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$work/stdout")
http=$(sed -n 's/.*http on \([^ ]*\).*/\1/p' "$work/stdout")
[ -n "$grpc" ] && [ -n "$http" ] || { echo "server did not start:"; cat "$work/stdout" "$work/stderr"; exit 1; }
mkdir -p "$(dirname "$screenshot")"
node "$here/viewer_test.mjs" "$http" "$grpc" "$cli" "$screenshot" "$validate_hit"

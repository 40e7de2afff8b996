#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and starts
# arbiter-server in the foreground on 127.0.0.1:50051 with the demo world
# (scenes/demo.scene.json, world "demo") until Ctrl-C. Extra arguments go to
# the server, e.g. `scripts/run.sh --listen=0.0.0.0:50051 --threads=4`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
cli=./build/client/arbiter
cat <<MSG

arbiter-server: starting on 127.0.0.1:50051 with world "demo" (scenes/demo.scene.json).
In another terminal, try:
  $cli worlds
  $cli ray --world demo 0 10 0 -20          # ray from (0, 10) along (0, -20)
  $cli overlap --world demo circle -20 1 2   # shapes touching a disk
  $cli sweep --world demo -30 20 0.5 0 -30   # a disk swept downwards
  $cli step --world demo 600                 # ten simulated seconds
  $cli hash --world demo --json
  $cli load scenes/arena-10k.scene.json      # a second world, 11,000 bodies
Stop the server with Ctrl-C.

MSG
exec ./build/server/arbiter-server --listen=127.0.0.1:50051 --scene=scenes/demo.scene.json --scene_dir=scenes "$@"

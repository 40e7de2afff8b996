#!/usr/bin/env bash
# The README's main command: installs what is missing, builds, and runs the
# main program.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/client/arbiter demo

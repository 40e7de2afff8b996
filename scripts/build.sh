#!/usr/bin/env bash
# Configures and builds the main tree in build/ (RelWithDebInfo, ccache when
# present). Extra arguments go to cmake's configure step.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs="${ARBITER_JOBS:-2}"
cmake -S . -B build -G Ninja "$@" >/dev/null
cmake --build build -j "$jobs"

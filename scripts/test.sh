#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything and
# runs every test suite through CTest: first the fleet chaos test (label
# `chaos`, shown in full so its seed and counts are printed), then the rest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build -L chaos --verbose --timeout 900
ctest --test-dir build -LE chaos -j "${ARBITER_JOBS:-2}" --output-on-failure --timeout 900

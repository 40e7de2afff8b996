#!/usr/bin/env bash
# The README's test command: installs what is missing, builds everything and
# runs every test suite through CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
ctest --test-dir build -j "${ARBITER_JOBS:-2}" --output-on-failure --timeout 900

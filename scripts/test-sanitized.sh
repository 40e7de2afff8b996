#!/usr/bin/env bash
# Builds the core and its tests with AddressSanitizer and
# UndefinedBehaviorSanitizer (no recovery: the first report fails the run)
# in build-asan/, on both Int128 paths, and runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build-asan -G Ninja -DARBITER_SANITIZE=ON -DARBITER_CORE_ONLY=ON -DARBITER_BUILD_BENCH=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-asan -j "${ARBITER_JOBS:-2}"
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
ctest --test-dir build-asan -j "${ARBITER_JOBS:-2}" --output-on-failure --timeout 1800

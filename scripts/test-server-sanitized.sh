#!/usr/bin/env bash
# The server's tests under a sanitizer, in its own build directory:
#   scripts/test-server-sanitized.sh asan   AddressSanitizer + UBSan (build-asan-server/)
#   scripts/test-server-sanitized.sh tsan   ThreadSanitizer (build-tsan/)
# The server, the CLI and the tests are instrumented (the processes the
# tests start too); the system's gRPC, Protobuf and Abseil are not, so
# TSan sees our threads' accesses and the locks we take, not gRPC's inside.
#
# asan runs the whole suite (server_tests and lock_tests; about 2 min under
# ASan). tsan builds and runs only lock_tests, the tests of our own thread
# machinery that do not go through gRPC (the world lock, the per-caller
# limiter), so it does not instrument the whole server: Debian's gRPC is
# not built with TSan, so every test through a channel reports races inside
# gRPC's own call hand-offs (see scripts/tsan.supp) and runs minutes per
# test. ARBITER_SANITIZED_FILTER (a GoogleTest filter) overrides the asan
# run's server_tests filter.
set -euo pipefail
cd "$(dirname "$0")/.."
kind="${1:-}"
case "$kind" in
  asan) dir=build-asan-server; flag=-DARBITER_SANITIZE=ON; targets=(server_tests lock_tests arbiter_server arbiter) ;;
  tsan) dir=build-tsan; flag=-DARBITER_TSAN=ON; targets=(lock_tests) ;;
  *) echo "usage: $0 asan|tsan" >&2; exit 2 ;;
esac
bash scripts/install-deps.sh
cmake -S . -B "$dir" -G Ninja "$flag" -DARBITER_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$dir" -j "${ARBITER_JOBS:-2}" --target "${targets[@]}"

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export LSAN_OPTIONS="suppressions=$PWD/scripts/lsan.supp"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
"$dir/tests/lock_tests" --gtest_brief=1
if [ "$kind" = asan ]; then
  "$dir/tests/server_tests" --gtest_filter="${ARBITER_SANITIZED_FILTER:-*}" --gtest_brief=1
fi

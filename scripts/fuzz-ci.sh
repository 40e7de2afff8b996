#!/usr/bin/env bash
# A bounded fuzzing pass (CI runs it): builds the libFuzzer targets of
# tests/fuzz in build-fuzz/ (clang++, ASan + UBSan, -DARBITER_FUZZ=ON) and
# runs each for FUZZ_SECONDS (default 60) on a scratch copy of its committed
# seed corpus. Any crash, sanitizer report or failed check fails the script;
# the input is kept in build-fuzz/fuzz-artifacts/<target>/ and the log in
# build-fuzz/fuzz-run/<target>.log. Reproduce with
#   build-fuzz/tests/fuzz/<target> <input>
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

seconds="${FUZZ_SECONDS:-60}"
jobs="${ARBITER_JOBS:-2}"
targets=(fuzz_narrow fuzz_requests fuzz_scene)

start=$SECONDS
cmake -S . -B build-fuzz -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DARBITER_FUZZ=ON \
  -DARBITER_BUILD_BENCH=OFF -DARBITER_BUILD_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$jobs" --target "${targets[@]}"
echo "fuzz-ci: build took $((SECONDS - start)) s"

export ASAN_OPTIONS=abort_on_error=1:detect_leaks=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
failed=()
for t in "${targets[@]}"; do
  work="build-fuzz/fuzz-run/$t"
  artifacts="build-fuzz/fuzz-artifacts/$t"
  log="build-fuzz/fuzz-run/$t.log"
  rm -rf "$work" "$artifacts"
  mkdir -p "$work" "$artifacts"
  cp tests/fuzz/corpus/"$t"/* "$work"/
  seeds=$(ls "$work" | wc -l)
  extra=()
  if [ "$t" = fuzz_scene ]; then extra=(-dict=tests/fuzz/scene.dict -max_len=16384); fi
  if "build-fuzz/tests/fuzz/$t" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts/" \
      "${extra[@]}" "$work" 2>"$log"; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    echo "fuzz-ci: $t ok: $runs runs in ${seconds} s ($rate/s), corpus $seeds -> $(ls "$work" | wc -l) files"
  else
    echo "fuzz-ci: $t FAILED (input in $artifacts/):"
    grep -v '^#' "$log" | tail -40
    failed+=("$t")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-ci: failed: ${failed[*]}"
  exit 1
fi
echo "fuzz-ci: all ${#targets[@]} targets clean"

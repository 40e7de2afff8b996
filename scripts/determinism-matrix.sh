#!/usr/bin/env bash
# The determinism matrix (issue 6; docs/determinism.md): builds the
# determinism runner (tests/determinism, core only) in every cell below,
# runs it, and prints a table of configuration | overall digest | match.
# Exits non-zero when any cell fails to build or run, or prints a digest that
# differs from the committed tests/determinism/expected_digests.txt.
#
# The reference cell (gcc-O2) runs first and writes a per-item trace; every
# other cell compares against it, so a mismatch names its first differing
# tick, query or script, not just the scenario.
#
# Usage: scripts/determinism-matrix.sh [--quick] [--cells a,b,c] [--list]
#   --quick       every cell runs the quick prefix (arbiter_digest --quick)
#   --cells LIST  only these cells (the reference cell always runs first)
#   --list        print the cells and exit
# Environment: ARBITER_JOBS (build jobs, default 2).
#
# Cells: g++ and clang++ at -O0, -O2, -O3 -march=native and -O2 -ffast-math;
# the portable two-word Int128 (-DARBITER_PORTABLE_INT128=ON) with both
# compilers; ASan + UBSan (-DARBITER_SANITIZE=ON) on both Int128 paths;
# static cross builds for aarch64 (qemu-aarch64), i686 (32-bit x86, no
# __int128, run directly by the x86-64 kernel, or under qemu-i386 where the
# kernel has no 32-bit support) and s390x (big-endian,
# qemu-s390x); wasm32: emscripten's em++ -O2, the runner built over the C
# interface (arbiter_digest_c, as browsers embed the core) and run under
# node. Every cell runs the full scenarios by default: measured on
# 2 cores, the slowest (s390x under qemu) takes about a minute.
# Thread count: gcc-O2-threads4 is the reference build run with
# --threads 4 (every world stepped with a StepThreadPool of 4 threads,
# issue 23): it must print the same digests and the same per-item trace as
# the 1-thread reference cell.
#
# Build directories: build-det/<cell>. ccache, when present, makes re-runs
# cheap.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

mode_flag=""
mode=full
only=""
list=0
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode_flag=--quick; mode=quick ;;
    --cells) only="$2"; shift ;;
    --list) list=1 ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "determinism-matrix: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

# name | compiler (g++, clang++ or a toolchain name) | CXX flags | extra CMake options | how to run
#   | runner arguments (optional)
cells=(
  "gcc-O2|g++|-O2 -DNDEBUG||"
  "gcc-O2-threads4|g++|-O2 -DNDEBUG|||--threads 4"
  "gcc-O0|g++|-O0||"
  "gcc-O3-native|g++|-O3 -march=native -DNDEBUG||"
  "gcc-O2-fast-math|g++|-O2 -ffast-math -DNDEBUG||"
  "gcc-O2-portable|g++|-O2 -DNDEBUG|-DARBITER_PORTABLE_INT128=ON|"
  "clang-O0|clang++|-O0||"
  "clang-O2|clang++|-O2 -DNDEBUG||"
  "clang-O3-native|clang++|-O3 -march=native -DNDEBUG||"
  "clang-O2-fast-math|clang++|-O2 -ffast-math -DNDEBUG||"
  "clang-O3-portable|clang++|-O3 -DNDEBUG|-DARBITER_PORTABLE_INT128=ON|"
  "gcc-asan-ubsan|g++|-O1 -g|-DARBITER_SANITIZE=ON|"
  "clang-asan-ubsan-portable|clang++|-O1 -g|-DARBITER_SANITIZE=ON -DARBITER_PORTABLE_INT128=ON|"
  "aarch64-O2|aarch64-linux-gnu|-O2 -DNDEBUG||qemu-aarch64"
  "i686-O2|i686-linux-gnu|-O2 -DNDEBUG||native-or-qemu-i386"
  "s390x-O2|s390x-linux-gnu|-O2 -DNDEBUG||qemu-s390x"
  "wasm32-O2|emcc|-O2 -DNDEBUG||node"
)
reference_cell=gcc-O2

if [ "$list" = 1 ]; then
  for c in "${cells[@]}"; do echo "${c%%|*}"; done
  exit 0
fi

selected() {
  local name="$1"
  [ -z "$only" ] && return 0
  [ "$name" = "$reference_cell" ] && return 0
  case ",$only," in *",$name,"*) return 0 ;; esac
  return 1
}

# Every selected cell must exist.
if [ -n "$only" ]; then
  IFS=, read -r -a wanted <<<"$only"
  for w in "${wanted[@]}"; do
    found=0
    for c in "${cells[@]}"; do [ "${c%%|*}" = "$w" ] && found=1; done
    [ "$found" = 1 ] || { echo "determinism-matrix: no cell named $w (see --list)" >&2; exit 2; }
  done
fi

# A fingerprint of the core's sources: printed with the table, and checked
# again at the end (other work in core/ during a run would mix two cores).
core_fingerprint() {
  find core tests/determinism -type f \( -name '*.cc' -o -name '*.h' -o -name 'CMakeLists.txt' \) -print0 |
    sort -z | xargs -0 sha256sum | sha256sum | cut -c1-16
}
fingerprint=$(core_fingerprint)

jobs="${ARBITER_JOBS:-2}"
mkdir -p build-det
reference_trace="$root/build-det/reference.$mode.trace"
rm -f "$reference_trace"

declare -a rows=()
declare -a notes=()
failed=0

run_cell() {
  local name="$1" compiler="$2" flags="$3" extra="$4" runner="$5" args="$6"
  local dir="build-det/$name"
  local log="$dir/digest.log"
  local -a configure=(cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=$flags"
    -DARBITER_BUILD_BENCH=OFF)
  local target=arbiter_digest binary=arbiter_digest
  case "$compiler" in
    g++|clang++)
      # Native cells configure the CORE_ONLY tree (core tests included) and
      # build just the runner.
      configure+=(-DCMAKE_CXX_COMPILER="$compiler" -DARBITER_CORE_ONLY=ON -DARBITER_BUILD_TESTS=ON)
      ;;
    emcc)
      # WebAssembly: emcmake supplies emscripten's toolchain file; its
      # optimizer needs Debian's acorn (NODE_PATH). The runner goes through
      # the C interface and its output is JavaScript + wasm for node.
      command -v emcmake >/dev/null || {
        notes+=("$name: emcmake not found (run scripts/install-deps.sh emscripten)")
        rows+=("$name|-|NOT BUILT|-|-")
        failed=1
        return
      }
      export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
      configure=(emcmake "${configure[@]}" -DARBITER_DIGEST_ONLY=ON)
      target=arbiter_digest_c
      binary=arbiter_digest_c.js
      ;;
    *)
      # Cross cells: no GoogleTest for the target, so only the runner.
      command -v "$compiler-g++" >/dev/null || {
        notes+=("$name: $compiler-g++ not found (run scripts/install-cross.sh)")
        rows+=("$name|-|NOT BUILT|-|-")
        failed=1
        return
      }
      configure+=(-DCMAKE_TOOLCHAIN_FILE="$root/cmake/toolchains/$compiler.cmake" -DARBITER_DIGEST_ONLY=ON)
      ;;
  esac
  # shellcheck disable=SC2206
  configure+=($extra)
  mkdir -p "$dir"
  echo "=== $name: configure and build ($compiler $flags $extra)"
  local start=$SECONDS
  if ! { "${configure[@]}" >"$dir/configure.log" 2>&1 &&
    cmake --build "$dir" --target "$target" -j "$jobs" >"$dir/build.log" 2>&1; }; then
    notes+=("$name: build failed, see $dir/configure.log and $dir/build.log")
    rows+=("$name|-|BUILD FAILED|$((SECONDS - start))|-")
    failed=1
    return
  fi
  local build_secs=$((SECONDS - start))
  # A 32-bit x86 binary runs directly on kernels with IA-32 emulation; some
  # x86-64 kernels have it off ("Exec format error"), so qemu-i386 then.
  if [ "$runner" = "native-or-qemu-i386" ]; then
    runner=""
    if ! "$dir/tests/determinism/arbiter_digest" --help >/dev/null 2>&1; then
      runner="qemu-i386"
      echo "=== $name: this kernel does not run 32-bit x86 binaries; running under qemu-i386"
    fi
  fi
  local -a cmd=()
  # node 20 fetches the .wasm unless told not to (the file is beside the .js).
  if [ "$runner" = node ]; then
    cmd+=(node --no-experimental-fetch)
  elif [ -n "$runner" ]; then
    cmd+=("$runner")
  fi
  cmd+=("$dir/tests/determinism/$binary")
  [ -n "$mode_flag" ] && cmd+=("$mode_flag")
  # shellcheck disable=SC2206
  [ -n "$args" ] && cmd+=($args)
  if [ "$name" = "$reference_cell" ]; then
    cmd+=(--trace "$reference_trace")
  elif [ -f "$reference_trace" ]; then
    cmd+=(--compare "$reference_trace")
  fi
  echo "=== $name: ${cmd[*]}"
  start=$SECONDS
  local status=0
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
    "${cmd[@]}" >"$log" 2>&1 || status=$?
  local run_secs=$((SECONDS - start))
  cat "$log"
  local digest
  digest=$(awk '$1 == "overall" { print $2 }' "$log")
  local match=yes
  if [ "$status" -ne 0 ]; then
    match="NO (exit $status)"
    failed=1
    while IFS= read -r line; do notes+=("$name: $line"); done < <(grep -E "MISMATCH|^compare: .*(difference|not in|items here)|runtime error|AddressSanitizer" "$log" | head -20)
  fi
  rows+=("$name|${digest:--}|$match|$build_secs|$run_secs")
}

for c in "${cells[@]}"; do
  IFS='|' read -r name compiler flags extra runner args <<<"$c"
  selected "$name" || continue
  run_cell "$name" "$compiler" "$flags" "$extra" "$runner" "$args"
done

expected=$(awk -v m="$mode" '$1 == m && $2 == "overall" { print $3 }' tests/determinism/expected_digests.txt)
echo
echo "Determinism matrix ($mode mode; committed overall digest ${expected:-missing}; sources $fingerprint)"
printf '%-26s | %-16s | %-14s | %7s | %5s\n' "config" "digest" "match" "build s" "run s"
printf '%-26s-+-%-16s-+-%-14s-+-%7s-+-%5s\n' "--------------------------" "----------------" "--------------" "-------" "-----"
for r in "${rows[@]}"; do
  IFS='|' read -r name digest match build run <<<"$r"
  printf '%-26s | %-16s | %-14s | %7s | %5s\n' "$name" "$digest" "$match" "$build" "$run"
done
if [ ${#notes[@]} -gt 0 ]; then
  echo
  for n in "${notes[@]}"; do echo "  $n"; done
fi
if [ "$(core_fingerprint)" != "$fingerprint" ]; then
  echo "  WARNING: core/ or tests/determinism/ changed during the run; cells may have built different sources"
  failed=1
fi
echo "total: ${SECONDS} s"
exit "$failed"

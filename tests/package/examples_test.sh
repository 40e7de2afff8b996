#!/usr/bin/env bash
# The C++ package end to end: installs the build into a fresh prefix,
# builds client/examples/ against it alone (find_package(arbiter), its own
# build directory, Ninja, ccache when present) and runs every example
# against a live arbiter-server on a free loopback port (journaled, for the
# replay verifier). Fails if any step or any example fails.
#
#   examples_test.sh BUILD_DIR SOURCE_DIR SERVER_BINARY
set -euo pipefail
build=$(cd "$1" && pwd) source=$(cd "$2" && pwd) server=$3

# Under the build tree rather than mktemp: ccache's base_dir then makes
# the paths relative, so a rerun compiles from the cache.
work="$build/package-test"
rm -rf "$work"
mkdir -p "$work"

server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
}
trap cleanup EXIT

# The documented first program (between <!-- snippet: cpp-first-program -->
# markers, in README.md or docs/*.md: exactly one) is this example, verbatim.
echo "== the documented C++ package program = client/examples/first_program/main.cc"
marker='<!-- snippet: cpp-first-program -->'
count=$(cat "$source/README.md" "$source"/docs/*.md | grep -c -x -- "$marker" || true)
[ "$count" = 1 ] || { echo "FAILED: snippet cpp-first-program appears $count times in README.md and docs/*.md, not once"; exit 1; }
page=$(grep -l -x -- "$marker" "$source/README.md" "$source"/docs/*.md)
awk -v marker="$marker" '$0 == marker {on=1; next} on && /^```cpp$/{code=1; next} code && /^```$/{exit} code' "$page" >"$work/readme_program.cc"
diff -u "$source/client/examples/first_program/main.cc" "$work/readme_program.cc"

echo "== install into $work/prefix"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log"
test -f "$work/prefix/lib/cmake/arbiter/arbiterConfig.cmake"
test -f "$work/prefix/include/arbiter/v1/arbiter.grpc.pb.h"

echo "== configure and build client/examples against it"
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S "$source/client/examples" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_PREFIX_PATH="$work/prefix" "${launcher[@]}" >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/build" -j2

echo "== start arbiter-server"
"$server" --listen=127.0.0.1:0 --threads=2 --data_dir="$work/data" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
# It prints "arbiter-server listening on 127.0.0.1:PORT ..." once it listens.
address=
for _ in $(seq 1 600); do
  address=$(sed -n 's/.*listening on \([0-9.]*:[0-9]*\).*/\1/p' "$work/server.out" | head -n 1)
  [ -n "$address" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err"; exit 1; }
  sleep 0.1
done
[ -n "$address" ] || { echo "the server did not start"; cat "$work/server.err"; exit 1; }
echo "server at $address"

# run NAME EXPECTED_TEXT: the example must exit 0 and print the text.
run() {
  echo "== $1"
  local out
  out=$("$work/build/$1/$1" "$address") || { echo "$out"; echo "FAILED: $1 exited non-zero"; exit 1; }
  echo "$out"
  grep -qF -- "$2" <<<"$out" || { echo "FAILED: $1 did not print '$2'"; exit 1; }
}
run first_program "hit body 1 at y = 0.5 (t = 0.475)"
run hit_validation "all verdicts as expected"
run lockstep_peer "lockstep check as expected"
run replay_verifier ": identical"
echo "all examples passed"

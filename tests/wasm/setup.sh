#!/usr/bin/env bash
# Prepares the WebAssembly suite (CTest fixture wasm.setup; issue 18):
# installs what only this suite needs (emscripten, Debian's chromium, and
# node + npm when absent), builds the wasm module (client/wasm) with
# emscripten into BUILD_DIR/wasm, and installs the npm packages of
# tests/wasm/package-lock.json when node_modules is missing.
# Usage: tests/wasm/setup.sh BUILD_DIR
set -euo pipefail
build_dir="$(cd "${1:?usage: setup.sh BUILD_DIR}" && pwd)"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

packages=(emscripten chromium)
# node may come from elsewhere (e.g. NodeSource, whose nodejs ships npm).
command -v node >/dev/null || packages+=(nodejs)
command -v npm >/dev/null || packages+=(npm)
INSTALL_NAME=install-wasm-deps bash "$root/scripts/install-deps.sh" "${packages[@]}"

# emscripten's optimizer needs Debian's acorn.
export NODE_PATH="${NODE_PATH:-/usr/share/nodejs}"
if [ ! -f "$build_dir/wasm/build.ninja" ]; then
  emcmake cmake -S "$root" -B "$build_dir/wasm" -G Ninja -DCMAKE_BUILD_TYPE=None "-DCMAKE_CXX_FLAGS=-O2 -DNDEBUG" \
    -DARBITER_DIGEST_ONLY=ON -DARBITER_BUILD_BENCH=OFF
fi
cmake --build "$build_dir/wasm" --target arbiter_wasm -j "${ARBITER_JOBS:-2}"

if [ ! -d "$here/node_modules" ]; then
  (cd "$here" && npm ci --no-audit --no-fund)
fi

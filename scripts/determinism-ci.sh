#!/usr/bin/env bash
# The CI subset of the determinism matrix (scripts/determinism-matrix.sh):
# cells that still cross every real boundary within CI's time budget:
#   gcc-O2             the reference cell (writes the per-item trace)
#   gcc-O2-threads4    the same build stepping with 4 threads: 1 vs 4 threads
#   gcc-O0             g++ without optimisation ...
#   clang-O3-portable  ... against clang++ -O3, on the portable two-word Int128
#   i686-O2            a real 32-bit target with no __int128 at all
#   s390x-O2           big-endian, under qemu-s390x
#   wasm32-O2          WebAssembly (emscripten), through the C interface, under
#                      node: what a browser runs
# All run the full scenarios (measured on 2 cores: about 5 minutes including
# cold builds; the s390x cell runs for about a minute under qemu). The full
# matrix stays one command away: scripts/determinism-matrix.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
bash scripts/install-cross.sh
# emscripten is large and only this cell and the wasm suite need it.
INSTALL_NAME=install-emscripten bash scripts/install-deps.sh emscripten nodejs
exec bash scripts/determinism-matrix.sh --cells gcc-O2-threads4,gcc-O0,clang-O3-portable,i686-O2,s390x-O2,wasm32-O2 "$@"

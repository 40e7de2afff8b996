#!/usr/bin/env bash
# Installs what the determinism matrix (scripts/determinism-matrix.sh) needs
# beyond scripts/install-deps.sh: Debian's cross compilers for aarch64, i686
# (32-bit x86, no __int128) and s390x (big-endian), and qemu-user to run
# their static binaries. Idempotent: packages already present are skipped,
# and apt-get update runs once, only when something is missing. Needs root
# (or sudo).
#
# Note: g++-multilib conflicts with these cross compilers; 32-bit x86 uses
# the i686 cross compiler, never -m32.
set -euo pipefail
cd "$(dirname "$0")/.."
INSTALL_NAME=install-cross exec bash scripts/install-deps.sh \
  g++-aarch64-linux-gnu g++-i686-linux-gnu g++-s390x-linux-gnu qemu-user

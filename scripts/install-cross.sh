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

packages=(
  g++-aarch64-linux-gnu g++-i686-linux-gnu g++-s390x-linux-gnu qemu-user
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-cross: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "install-cross: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg run (e.g. install-deps.sh) instead of failing.
apt_opts=(-o DPkg::Lock::Timeout=600)
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" update -qq
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}"

#!/usr/bin/env bash
# Installs the Debian 12 packages Arbiter builds, tests and benchmarks with,
# or, given package names as arguments, those instead (scripts/install-cross.sh
# uses that). Idempotent: packages already present are skipped, and apt-get
# update runs only when something is missing. Needs root (or sudo).
set -euo pipefail

default_packages=(
  build-essential cmake ninja-build ccache pkg-config clang
  libgtest-dev libgmock-dev libbenchmark-dev
  libabsl-dev libxxhash-dev nlohmann-json3-dev
  libbox2d-dev libchipmunk-dev
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libsqlite3-dev libclang-rt-14-dev openssl libssl-dev
  libcpp-httplib-dev prometheus chromium
  nginx-light
  python3-grpcio python3-protobuf python3-pytest python3-yaml python3-venv python3-pip
)
if [ $# -gt 0 ]; then
  packages=("$@")
else
  packages=("${default_packages[@]}")
  # client/node's tests: Debian's node 18 and npm, unless a node (with its
  # own npm, as other distributions of node ship it) is already there.
  command -v node >/dev/null || packages+=(nodejs)
  command -v npm >/dev/null || packages+=(npm)
fi
name="$(basename "${INSTALL_NAME:-install-deps}")"

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "$name: all ${#packages[@]} packages present"
  exit 0
fi

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
echo "$name: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Wait for another apt/dpkg run instead of failing.
apt_opts=(-o DPkg::Lock::Timeout=600)
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" update -qq
"${sudo_cmd[@]}" apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends "${missing[@]}"

# Sourced by the benchmark scripts (from the repository root): `release_build
# TARGET...` installs what is missing, configures $build
# (ARBITER_BUILD_DIR, default build-release) in Release without the tests and
# builds the targets with ARBITER_JOBS jobs (default 2).
build="${ARBITER_BUILD_DIR:-build-release}"

release_build() {
  bash scripts/install-deps.sh
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DARBITER_BUILD_TESTS=OFF >/dev/null
  cmake --build "$build" -j "${ARBITER_JOBS:-2}" --target "$@"
}

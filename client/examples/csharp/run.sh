#!/usr/bin/env bash
# Builds the C# prediction loop with mcs and runs it with mono against
# libarbiter_c.so (CTest csharp.prediction_loop; issue 18). Installs
# Debian's mono-mcs and mono-runtime first when missing (only this example
# needs them).
# Usage: client/examples/csharp/run.sh LIB_DIR OUT_DIR
set -euo pipefail
lib_dir="${1:?usage: run.sh LIB_DIR OUT_DIR}"
out_dir="${2:?usage: run.sh LIB_DIR OUT_DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
INSTALL_NAME=install-mono bash "$here/../../../scripts/install-deps.sh" mono-mcs mono-runtime
mkdir -p "$out_dir"
mcs -unsafe -warnaserror -out:"$out_dir/prediction.exe" "$here/Arbiter.cs" "$here/PredictionLoop.cs"
LD_LIBRARY_PATH="$lib_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" mono "$out_dir/prediction.exe"

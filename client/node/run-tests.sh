#!/usr/bin/env bash
# CTest's node_client: installs the locked npm packages when node_modules is
# missing, type-checks the hand-written index.d.ts against a usage sample
# (tsc --noEmit), then runs node's test runner against live servers.
# Needs ARBITER_SERVER_BINARY and ARBITER_FIXED_HELPER (set by CTest).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
node_modules/.bin/tsc --noEmit -p test/tsconfig.json
node --test test/*.test.js

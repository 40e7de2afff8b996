#!/usr/bin/env bash
# CTest's node_client: installs the locked npm packages when node_modules is
# missing, type-checks the hand-written index.d.ts against a usage sample
# (tsc --noEmit), then runs node's test runner against live servers.
# With --install (CTest's node_client.npm_install): the package installed
# the documented ways into fresh projects outside the repository
# (test/package.test.js) instead.
# Needs ARBITER_SERVER_BINARY and ARBITER_FIXED_HELPER (set by CTest).
set -euo pipefail
cd "$(dirname "$0")"
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
if [ "${1:-}" = --install ]; then
  exec node --test test/package.test.js
fi
node_modules/.bin/tsc --noEmit -p test/tsconfig.json
node --test $(ls test/*.test.js | grep -v '^test/package\.test\.js$')

#!/usr/bin/env bash
# `npm test`: install what the suite needs when missing (node modules, PgBouncer, Chromium), bring
# up the stack, type-check, run the suite against a separate test database (doorman_test) and
# Redis database 1. With no file arguments it is the whole suite: first the smoke stage
# (scripts/smoke.mjs: a clean copy of the committed tree, built and run as a user runs it), then
# the mocha suite, the fault-injection suite (scripts/test-faults.sh) and the fuzzer
# (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
[ -d node_modules ] || npm ci --no-audit --no-fund

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
export PG_EXTRA_DATABASES=""
# The checkout's .env configures `npm start` and the CLI; the tests set their own configuration.
export DOORMAN_ENV_FILE=none
bash scripts/stack.sh up

# Installed here, as for a clean machine, so that no test skips for a missing package:
# PgBouncer for the transaction-pooling test, Debian's Chromium for the browser tests.
command -v pgbouncer >/dev/null || apt_install pgbouncer
bash scripts/chromium.sh >/dev/null

whole_suite=$(( $# == 0 ))
if [ "$whole_suite" = 1 ]; then
  echo "[test] the smoke stage: the built service and CLI from a clean copy of the committed tree"
  node scripts/smoke.mjs
fi

# The TypeScript client (clients/typescript/) has its own dependencies; its tests import its build.
[ -d clients/typescript/node_modules ] || npm ci --prefix clients/typescript --no-audit --no-fund
echo "[test] building the TypeScript client"
npm run --prefix clients/typescript --silent build
echo "[test] type-checking"
tsc_native -p tsconfig.test.json --noEmit
tsc_native -p sdk/tsconfig.json
tsc_native -p console/tsconfig.json
# The server runs from source here, but serves the browser SDK and the analyst console from their
# bundles in dist/browser/ (about a second each; the server's build in dist/server/ is untouched).
node scripts/build-sdk.mjs
node scripts/build-console.mjs
echo "[test] running the suite"
# With no arguments, the whole suite; with paths, only those files (mocha would add them to a
# configured spec instead of replacing it, so the default lives here).
if [ $# -eq 0 ]; then set -- 'test/**/*.test.ts'; fi
npx mocha "$@"
# The whole suite also runs the fault-injection suite and the external fuzzer (docs/reliability.md).
if [ "$whole_suite" = 1 ]; then
  DOORMAN_STACK_READY=1 bash scripts/test-faults.sh
  DOORMAN_STACK_READY=1 bash scripts/fuzz.sh
fi

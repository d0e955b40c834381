#!/usr/bin/env bash
# `npm test`: install dependencies if missing, bring up the stack, type-check, run the suite
# against a separate test database (doorman_test) and Redis database 1; with no file arguments,
# then the fault-injection suite (scripts/test-faults.sh) and the fuzzer (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
export PG_EXTRA_DATABASES=""
bash scripts/stack.sh up

# The TypeScript client (clients/typescript/) has its own dependencies; its tests import its build.
[ -d clients/typescript/node_modules ] || npm ci --prefix clients/typescript --no-audit --no-fund
echo "[test] building the TypeScript client"
npm run --prefix clients/typescript --silent build
echo "[test] type-checking"
npx tsc -p tsconfig.test.json --noEmit
npx tsc -p clients/typescript/tsconfig.examples.json
npx tsc -p sdk/tsconfig.json
npx tsc -p console/tsconfig.json
# The server runs from source here, but serves the browser SDK and the analyst console from their
# bundles (about a second each).
node scripts/build-sdk.mjs
node scripts/build-console.mjs
echo "[test] running the suite"
# With no arguments, the whole suite; with paths, only those files (mocha would add them to a
# configured spec instead of replacing it, so the default lives here).
whole_suite=$(( $# == 0 ))
if [ $# -eq 0 ]; then set -- 'test/**/*.test.ts'; fi
npx mocha "$@"
# The whole suite also runs the fault-injection suite and the external fuzzer (docs/reliability.md).
if [ "$whole_suite" = 1 ]; then
  DOORMAN_STACK_READY=1 bash scripts/test-faults.sh
  DOORMAN_STACK_READY=1 bash scripts/fuzz.sh
fi

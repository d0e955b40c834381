#!/usr/bin/env bash
# `npm run bench`: bring up the stack, build, migrate, then run bench/run-bench.ts against the
# service's own database (a fresh tenant per run). BENCH_QUICK=1 for a short smoke run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d node_modules ] || npm ci --no-audit --no-fund
bash scripts/stack.sh up
npx tsc -p tsconfig.json
node bin/doorman.js migrate
exec node --import tsx bench/run-bench.ts

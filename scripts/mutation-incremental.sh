#!/usr/bin/env bash
# `npm run mutation:incremental` (and a background stage of `npm test`): Stryker on the engine,
# incrementally from the report kept in mutation/engine-incremental.json. It runs from a copy in
# reports/mutation/, so the kept report stays as committed (`npm run mutation` refreshes it), and
# only the mutants of engine code changed since the kept report are tested. Exits 1 under 95%.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p reports/mutation
cp mutation/engine-incremental.json reports/mutation/incremental-run.json
npx stryker run --incremental --incrementalFile reports/mutation/incremental-run.json --reporters clear-text
node scripts/mutation-tests-digest.mjs --check || echo "[mutation] warning: the score above reuses results of engine tests since changed"

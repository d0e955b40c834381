#!/usr/bin/env bash
# `npm run verify:histories -- --runs N [--seed S] [--max-ops M] [--strict] [--verbose]`: the
# randomized histories with faults (test/histories/histories.test.ts) for as many
# histories as asked, against the test stores as `npm test` sets them up for one file (the stack
# brought up, the test database and Redis database 1 unless TEST_DATABASE_URL / TEST_REDIS_URL say
# otherwise). Prints each failing history shrunk, with its seed, and a summary: histories run,
# operations, faults injected by kind, anomalies found, the seed range. Seeds run from S (default:
# from the clock) upwards, one per history, after the histories of what was found
# (test/histories/findings.ts); HISTORY_REPLAY='[…]' runs one printed history again.
# Bounded: the run is ended after HISTORIES_MAX_SECONDS (default 60 s per history, plus 300).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh
# Checked, not installed: `npm ci` through a node_modules that is a link (a worktree sharing an
# install) would empty the install it points to.
[ -f node_modules/mocha/bin/mocha.js ] || die "node_modules is missing: run npm ci (or npm test) first"

runs=15
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seed) export HISTORY_SEED="$2"; shift 2 ;;
    --max-ops) export HISTORY_MAX_OPS="$2"; shift 2 ;;
    --strict) export HISTORY_STRICT=1; shift ;;
    --verbose) export HISTORY_VERBOSE=1; shift ;;
    *) die "unknown argument $1 (usage: npm run verify:histories -- --runs N [--seed S] [--max-ops M] [--strict] [--verbose])" ;;
  esac
done
case "$runs" in ''|*[!0-9]*) die "--runs takes a number (got $runs)" ;; esac
export HISTORY_RUNS="$runs"

export DATABASE_URL="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
# The checkout's .env configures `npm start` and the CLI; the tests set their own configuration.
export DOORMAN_ENV_FILE=none
[ -n "${DOORMAN_STACK_READY:-}" ] || PG_EXTRA_DATABASES="" bash scripts/stack.sh up

echo "[histories] $runs histories${HISTORY_SEED:+ from seed $HISTORY_SEED} against $(url_part "$DATABASE_URL" db)"
exec timeout --signal=TERM "${HISTORIES_MAX_SECONDS:-$(( runs * 60 + 300 ))}" node node_modules/mocha/bin/mocha.js test/histories/histories.test.ts

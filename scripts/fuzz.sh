#!/usr/bin/env bash
# `npm run test:fuzz` (also run by `npm test`): the external fuzzer. Installs schemathesis from
# PyPI into a project-local virtualenv (scripts/fuzz-install.sh: .venv/fuzz, once per version),
# brings up the stack, then scripts/fuzz/run-fuzz.ts starts a Doorman server of its own on a free
# loopback port with a freshly minted tenant and runs every check, the stateful phase included,
# twice: a fixed seed and a rotating one. The gate: no 5xx (not_a_server_error), no hang, no crash.
#
# Environment: FUZZ_EXAMPLES (cases per operation and phase, default 60), FUZZ_SEED (the
# rotating seed, default random), TEST_DATABASE_URL / TEST_REDIS_URL as for `npm test`.
set -euo pipefail
# The checkout's .env configures `npm start` and the CLI; this run sets its own configuration.
export DOORMAN_ENV_FILE=none
cd "$(dirname "$0")/.."
source scripts/lib.sh
# A database made afresh each run: a fresh master key for its sealed secrets.
export SECRETS_KEY="$(fresh_secrets_key)"

export SCHEMATHESIS_BIN="$(bash scripts/fuzz-install.sh)"

ensure_node_modules
# A database of its own, recreated each run: what a run leaves behind (pending jobs, events of
# failed stores) never reaches the next run or the main suite's database.
test_db_url="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export DATABASE_URL="${test_db_url%/*}/$(url_part "$test_db_url" db)_fuzz"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
# Called from scripts/test.sh the stack is already up.
[ -n "${DOORMAN_STACK_READY:-}" ] || PG_EXTRA_DATABASES="" bash scripts/stack.sh up
db="$(url_part "$DATABASE_URL" db)"
psql -X -q -h "$(url_part "$DATABASE_URL" host)" -p "$(url_part "$DATABASE_URL" port)" -d postgres \
  -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" -c "CREATE DATABASE \"$db\""
node --import tsx scripts/fuzz/run-fuzz.ts
# One truth: whatever the fuzzer sent, the graph holds what Postgres says it must.
echo "[fuzz] graph verify over the fuzzed scopes"
npx tsx scripts/verify-graphs.ts --concurrency 6

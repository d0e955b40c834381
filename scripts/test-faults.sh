#!/usr/bin/env bash
# `npm run test:faults` (also run by `npm test`): the fault-injection suite, test/faults/*.faults.ts.
# Builds toxiproxy once (scripts/toxiproxy.sh), brings up the stack, and runs the suite against
# the test stores with a real TCP fault proxy between Doorman processes and each store. Bounded:
# every test has its own time limit, and the whole run is ended after FAULTS_MAX_SECONDS (600).
set -euo pipefail
# The checkout's .env configures `npm start` and the CLI; this run sets its own configuration.
export DOORMAN_ENV_FILE=none
cd "$(dirname "$0")/.."
source scripts/lib.sh
ensure_node_modules
export TOXIPROXY_BIN="$(bash scripts/toxiproxy.sh)"
# A database of its own, recreated each run: what a run leaves behind (pending jobs, events of
# failed stores) never reaches the next run or the main suite's database.
test_db_url="${TEST_DATABASE_URL:-postgres://localhost:5432/doorman_test}"
export DATABASE_URL="${test_db_url%/*}/$(url_part "$test_db_url" db)_faults"
export REDIS_URL="${TEST_REDIS_URL:-redis://127.0.0.1:6379/1}"
[ -n "${DOORMAN_STACK_READY:-}" ] || PG_EXTRA_DATABASES="" bash scripts/stack.sh up
db="$(url_part "$DATABASE_URL" db)"
psql -X -q -h "$(url_part "$DATABASE_URL" host)" -p "$(url_part "$DATABASE_URL" port)" -d postgres \
  -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" -c "CREATE DATABASE \"$db\""
# The load test last: links a Neo4j outage under load leaves pending must not queue before the others'.
whole=$(( $# == 0 ))
if [ $# -eq 0 ]; then
  set -- test/faults/postgres.faults.ts test/faults/neo4j.faults.ts test/faults/redis.faults.ts \
    test/faults/worker-kill.faults.ts test/faults/client.faults.ts test/faults/flapping-load.faults.ts
fi
echo "[faults] running the fault-injection suite"
timeout --signal=TERM "${FAULTS_MAX_SECONDS:-600}" npx mocha "$@"
# One truth: after every fault, each scope's graph holds what Postgres says it must.
if [ "$whole" = 1 ]; then
  echo "[faults] graph verify over every scope the faults left"
  npx tsx scripts/verify-graphs.ts --concurrency 6
fi

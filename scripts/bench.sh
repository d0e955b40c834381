#!/usr/bin/env bash
# `npm run bench`: bring up the stack, build, then run bench/run-bench.ts in a database of its
# own (doorman_bench, recreated each run, so "10,000 stored events" means that) and Redis
# database 2. The run deletes its graph data from Neo4j when it ends. BENCH_QUICK=1 for a short
# smoke run of the harness. `--graph` runs only the graph-quality bench (npm run bench:graph).
# `--runtimes` runs only the verdict-against-floor steps, on this Node and an older one side by
# side (bench/runtime-compare.ts; BENCH_BASELINE_NODE names the older, /usr/bin/node by default).
set -euo pipefail
# The checkout's .env configures `npm start` and the CLI; this run sets its own configuration.
export DOORMAN_ENV_FILE=none
cd "$(dirname "$0")/.."
source scripts/lib.sh
# A database made afresh each run: a fresh master key for its sealed secrets.
export SECRETS_KEY="$(fresh_secrets_key)"
ensure_node_modules
export DATABASE_URL="${BENCH_DATABASE_URL:-postgres://localhost:5432/doorman_bench}"
export REDIS_URL="${BENCH_REDIS_URL:-redis://127.0.0.1:6379/2}"
bash scripts/stack.sh up
recreate_database
# `bash scripts/bench.sh --graph [options]` (npm run bench:graph): only the graph-quality step
# (docs/graph-quality.md), with the options of bench/graph-quality/run-graph-quality.ts.
if [ "${1:-}" = "--graph" ]; then
  shift
  exec node --import tsx bench/graph-quality/run-graph-quality.ts "$@"
fi
if [ "${1:-}" = "--runtimes" ]; then
  exec node --import tsx bench/runtime-compare.ts
fi
exec node --import tsx bench/run-bench.ts

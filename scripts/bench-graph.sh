#!/usr/bin/env bash
# `npm run bench:graph`: the graph-quality bench (docs/graph-quality.md). Brings up the stack,
# builds and migrates a database of its own (doorman_graphq, recreated each run) and Redis
# database 3, then replays the synthetic population through the API and scores it. Arguments go
# to bench/graph-quality/run-graph-quality.ts (--label NAME, --seed N, --scale F).
set -euo pipefail
export DOORMAN_ENV_FILE=none
cd "$(dirname "$0")/.."
source scripts/lib.sh
export SECRETS_KEY="$(fresh_secrets_key)"
[ -d node_modules ] || npm ci --no-audit --no-fund
export DATABASE_URL="${GRAPHQ_DATABASE_URL:-postgres://localhost:5432/doorman_graphq}"
export REDIS_URL="${GRAPHQ_REDIS_URL:-redis://127.0.0.1:6379/3}"
bash scripts/stack.sh up
recreate_database
redis-cli -u "$REDIS_URL" flushdb >/dev/null 2>&1 || node -e "const R=require('ioredis');const r=new R(process.env.REDIS_URL);r.flushdb().then(()=>r.quit())"
exec node --import tsx bench/graph-quality/run-graph-quality.ts "$@"

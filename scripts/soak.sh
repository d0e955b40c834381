#!/usr/bin/env bash
# `npm run soak`: the soak (bench/soak.ts), not part of `npm test`. Brings up the stack, builds,
# recreates its own database (doorman_soak) and uses Redis database 3, then runs SOAK_MINUTES
# (30) at SOAK_RATE (100 req/s) and writes SOAK_OUT (docs/soak.md) and its raw samples.
# Run it on a quiet machine: the figures are only as steady as the machine.
set -euo pipefail
# The checkout's .env configures `npm start` and the CLI; this run sets its own configuration.
export DOORMAN_ENV_FILE=none
cd "$(dirname "$0")/.."
source scripts/lib.sh
# A database made afresh each run: a fresh master key for its sealed secrets.
export SECRETS_KEY="$(fresh_secrets_key)"
ensure_node_modules
export DATABASE_URL="${SOAK_DATABASE_URL:-postgres://localhost:5432/doorman_soak}"
export REDIS_URL="${SOAK_REDIS_URL:-redis://127.0.0.1:6379/3}"
bash scripts/stack.sh up
recreate_database
exec node --import tsx bench/soak.ts

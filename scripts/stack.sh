#!/usr/bin/env bash
# The whole local stack: Postgres, Redis and Neo4j, each brought up idempotently from nothing
# (or used as found when the configured URL already answers, e.g. docker compose).
# Usage: scripts/stack.sh up|down|status
set -euo pipefail
here="$(dirname "$0")"
cmd="${1:-}"
case "$cmd" in
  up)
    bash "$here/postgres.sh" up
    bash "$here/redis.sh" up
    bash "$here/neo4j.sh" up
    ;;
  down)
    bash "$here/neo4j.sh" down || true
    bash "$here/redis.sh" down || true
    bash "$here/postgres.sh" down || true
    ;;
  status)
    rc=0
    bash "$here/postgres.sh" status || rc=3
    bash "$here/redis.sh" status || rc=3
    bash "$here/neo4j.sh" status || rc=3
    exit $rc
    ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac

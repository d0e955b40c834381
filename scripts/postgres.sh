#!/usr/bin/env bash
# Local PostgreSQL from Debian's packages: install when absent, start the cluster when stopped,
# and make sure the login role and the databases the service uses exist.
# Usage: scripts/postgres.sh up|down|status  (DATABASE_URL picks host, port and database)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

URL="${DATABASE_URL:-postgres://localhost:5432/doorman}"
HOST="$(url_part "$URL" host)"; PORT="$(url_part "$URL" port)"; PORT="${PORT:-5432}"
DB="$(url_part "$URL" db)"; ROLE="$(url_part "$URL" user)"; ROLE="${ROLE:-$(id -un)}"
EXTRA_DBS="${PG_EXTRA_DATABASES:-}"

ready() { command -v pg_isready >/dev/null && pg_isready -q -h "${HOST:-localhost}" -p "$PORT"; }

cluster() {
  # The Debian cluster listening on $PORT, as "version name".
  pg_lsclusters -h 2>/dev/null | awk -v p="$PORT" '$3==p {print $1, $2; exit}'
}

# The configuration folder of that cluster.
cluster_conf_dir() { local ver name; read -r ver name <<<"$(cluster)"; echo "/etc/postgresql/$ver/$name"; }

as_postgres() { if [ "$(id -un)" = postgres ]; then "$@"; else as_root runuser -u postgres -- "$@"; fi; }

psql_admin() { as_postgres psql -X -q -v ON_ERROR_STOP=1 -p "$PORT" -d postgres "$@"; }

ensure_role_and_dbs() {
  psql_admin -tAc "SELECT 1 FROM pg_roles WHERE rolname = '$ROLE'" | grep -q 1 \
    || psql_admin -c "CREATE ROLE \"$ROLE\" LOGIN SUPERUSER"
  for d in $DB $EXTRA_DBS; do
    psql_admin -tAc "SELECT 1 FROM pg_database WHERE datname = '$d'" | grep -q 1 \
      || { say "creating database $d"; psql_admin -c "CREATE DATABASE \"$d\" OWNER \"$ROLE\""; }
  done
}

# Local development only: the service's default URL carries no password, so loopback
# connections for this role are trusted. Production sets DATABASE_URL with credentials.
ensure_loopback_trust() {
  local hba; hba="$(cluster_conf_dir)/pg_hba.conf"
  if ! grep -q "doorman-local" "$hba"; then
    say "trusting loopback connections for role $ROLE in $hba (local development)"
    local tmp; tmp="$(mktemp)"
    { echo "host all $ROLE 127.0.0.1/32 trust # doorman-local"; echo "host all $ROLE ::1/128 trust # doorman-local"; cat "$hba"; } >"$tmp"
    as_root install -o postgres -g postgres -m 640 "$tmp" "$hba"; rm -f "$tmp"
    as_postgres psql -X -q -p "$PORT" -d postgres -c "SELECT pg_reload_conf()" >/dev/null
  fi
}

# Local development only: room for `npm start`'s service beside `npm test`, whose two shards
# (scripts/test-shards.mjs) each run servers, workers and pools of their own; Debian's default of
# 100 connections is exhausted by them. Set in the cluster's conf.d, so a new cluster starts with
# it; a running cluster with less is restarted once (its clients reconnect).
MAX_CONNECTIONS=400
ensure_max_connections() {
  local conf; conf="$(cluster_conf_dir)/conf.d/doorman-local.conf"
  if ! grep -qs "^max_connections = $MAX_CONNECTIONS\$" "$conf"; then
    say "allowing $MAX_CONNECTIONS connections in $conf (local development)"
    printf '# Written by doorman scripts/postgres.sh: room for npm start beside npm test.\nmax_connections = %s\n' "$MAX_CONNECTIONS" \
      | as_root install -o postgres -g postgres -m 644 /dev/stdin "$conf"
  fi
  if ready && [ "$(as_postgres psql -X -tAq -p "$PORT" -d postgres -c 'SHOW max_connections')" -lt "$MAX_CONNECTIONS" ]; then
    local ver name; read -r ver name <<<"$(cluster)"
    say "restarting PostgreSQL $ver/$name to raise max_connections to $MAX_CONNECTIONS"
    as_root pg_ctlcluster "$ver" "$name" restart
    for _ in $(seq 1 60); do ready && break; sleep 0.5; done
  fi
}

up() {
  if ! is_local_host "$HOST"; then
    ready || die "Postgres at $HOST:$PORT does not answer (DATABASE_URL points elsewhere; not starting a local one)"
    return 0
  fi
  if ready && [ -z "$(cluster 2>/dev/null)" ]; then
    say "Postgres answers on :$PORT and is not ours (e.g. docker compose); using it"; return 0
  fi
  apt_install postgresql
  if [ -z "$(cluster)" ]; then
    local ver; ver="$(ls /usr/lib/postgresql | sort -V | tail -1)"
    say "creating a PostgreSQL $ver cluster on port $PORT"
    as_root pg_createcluster "$ver" main --port "$PORT" >/dev/null
  fi
  ensure_max_connections
  local ver name; read -r ver name <<<"$(cluster)"
  if ! ready; then
    say "starting PostgreSQL $ver/$name on :$PORT"
    as_root pg_ctlcluster "$ver" "$name" start
    for _ in $(seq 1 60); do ready && break; sleep 0.5; done
    ready || die "Postgres did not become ready; see /var/log/postgresql/postgresql-$ver-$name.log"
  fi
  ensure_role_and_dbs
  ensure_loopback_trust
  say "Postgres ready on :$PORT (databases: $DB $EXTRA_DBS)"
}

down() {
  local c; c="$(cluster)"; [ -n "$c" ] || { say "no local Postgres cluster on :$PORT"; return 0; }
  local ver name; read -r ver name <<<"$c"
  ready && as_root pg_ctlcluster "$ver" "$name" stop && say "Postgres stopped" || say "Postgres already stopped"
}

status() { if ready; then say "Postgres up on ${HOST:-localhost}:$PORT"; else say "Postgres down on ${HOST:-localhost}:$PORT"; return 3; fi; }

case "${1:-}" in up) up;; down) down;; status) status;; *) die "usage: $0 up|down|status";; esac

#!/usr/bin/env bash
# Local Redis from Debian's packages: install when absent, run our own server process on
# loopback with its data and pid under .stack/redis. Stopped by its pid, never by name.
# Usage: scripts/redis.sh up|down|status  (REDIS_URL picks host and port)
set -euo pipefail
source "$(dirname "$0")/lib.sh"

URL="${REDIS_URL:-redis://127.0.0.1:6379}"
HOST="$(url_part "$URL" host)"; PORT="$(url_part "$URL" port)"; PORT="${PORT:-6379}"
DIR="$STACK_DIR/redis-$PORT"; PIDFILE="$DIR/redis.pid"

ready() { command -v redis-cli >/dev/null && [ "$(redis-cli -h "${HOST:-127.0.0.1}" -p "$PORT" ping 2>/dev/null)" = PONG ]; }
ours() { [ -f "$PIDFILE" ] && kill -0 "$(cat "$PIDFILE")" 2>/dev/null; }

up() {
  if ! is_local_host "$HOST"; then
    ready || die "Redis at $HOST:$PORT does not answer (REDIS_URL points elsewhere)"; return 0
  fi
  apt_install redis-server redis-tools
  if ready; then ours || say "Redis answers on :$PORT and is not ours (e.g. docker compose); using it"; return 0; fi
  mkdir -p "$DIR"
  say "starting redis-server on 127.0.0.1:$PORT"
  # Debian's package may start its own service on 6379; ours runs only when the port is free.
  redis-server --bind 127.0.0.1 --port "$PORT" --daemonize yes --pidfile "$PIDFILE" \
    --dir "$DIR" --logfile "$DIR/redis.log" --save 300 100 --appendonly no >/dev/null
  for _ in $(seq 1 50); do ready && break; sleep 0.1; done
  ready || die "Redis did not start; see $DIR/redis.log"
  say "Redis ready on :$PORT"
}

down() {
  if ours; then
    local pid; pid="$(cat "$PIDFILE")"; kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    say "Redis stopped"
  else say "no Redis of ours on :$PORT"; fi
}

status() { if ready; then say "Redis up on :$PORT"; else say "Redis down on :$PORT"; return 3; fi; }

case "${1:-}" in up) up;; down) down;; status) status;; *) die "usage: $0 up|down|status";; esac

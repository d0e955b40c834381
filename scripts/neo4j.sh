#!/usr/bin/env bash
# Local Neo4j 5.26 LTS Community server without Docker: the server jars come from Maven
# (scripts/neo4j/pom.xml, cached outside the repo), and we run
# org.neo4j.server.CommunityEntryPoint on the Debian OpenJDK 17 with Bolt on loopback only.
# State (conf, data, logs, pid) lives under $STACK_DIR/neo4j. Stopped by its pid, never by name.
#
# Usage: scripts/neo4j.sh up|down|status|logs [N]
#
# Environment:
#   NEO4J_BOLT_PORT   Bolt port on 127.0.0.1 (default: port of a loopback NEO4J_URI, else 7687).
#                     Another port gets its own state folder, $STACK_DIR/neo4j-<port>.
#   NEO4J_URI         when it names another host (and NEO4J_BOLT_PORT is unset), up/status only
#                     check that it answers; nothing is started or stopped.
#   NEO4J_HEAP        -Xms/-Xmx (default 1g)      NEO4J_PAGECACHE  page cache (default 512m)
#   STACK_DIR         default <repo>/.stack       DOORMAN_CACHE    default ~/.cache/doorman
#   NEO4J_JAVA        java binary (default /usr/lib/jvm/java-17-openjdk-amd64/bin/java)
#   NEO4J_WAIT_SECS   how long `up` waits for Bolt (default 90)
#
# Exit codes: status gives 0 when Bolt answers and 3 when it does not; others 0 or 1.
set -euo pipefail

NEO4J_VERSION=5.26.30   # keep in sync with <neo4j.version> in scripts/neo4j/pom.xml

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/.." && pwd)"
STACK_DIR="${STACK_DIR:-$REPO_DIR/.stack}"
CACHE_ROOT="${DOORMAN_CACHE:-$HOME/.cache/doorman}"
LIB_DIR="$CACHE_ROOT/neo4j-$NEO4J_VERSION/lib"
JDK_HOME="/usr/lib/jvm/java-17-openjdk-amd64"
JAVA="${NEO4J_JAVA:-$JDK_HOME/bin/java}"
HEAP="${NEO4J_HEAP:-1g}"
PAGECACHE="${NEO4J_PAGECACHE:-512m}"
# The cap on one transaction's memory: bounds an analyst's own Cypher (docs/graph.md); the
# writer's batches and a rebuild use far less.
TX_MEMORY_MAX="${NEO4J_TX_MEMORY_MAX:-512m}"
WAIT_SECS="${NEO4J_WAIT_SECS:-90}"
MAIN_CLASS=org.neo4j.server.CommunityEntryPoint

say() { printf '[neo4j] %s\n' "$*" >&2; }
die() { printf '[neo4j] error: %s\n' "$*" >&2; exit 1; }

# Bolt port: NEO4J_BOLT_PORT, else the port of a loopback NEO4J_URI, else 7687.
# A NEO4J_URI on another host (and no NEO4J_BOLT_PORT) is only checked, never started.
# uri_info URI prints "local <port>" or "remote".
uri_info() {
  node -e 'let u; try { u = new URL(process.argv[1]) } catch { process.exit(0) }
    const local = /^(localhost|127\.[0-9.]+|\[::1\])$/.test(u.hostname);
    process.stdout.write(local ? "local " + u.port : "remote")' "$1"
}
PORT="${NEO4J_BOLT_PORT:-}"
REMOTE_URI=""
if [ -z "$PORT" ] && [ -n "${NEO4J_URI:-}" ]; then
  case "$(uri_info "$NEO4J_URI")" in
    remote) REMOTE_URI="$NEO4J_URI" ;;
    "local "*) PORT="$(uri_info "$NEO4J_URI" | cut -d' ' -f2)" ;;
  esac
fi
PORT="${PORT:-7687}"
case "$PORT" in ''|*[!0-9]*) die "NEO4J_BOLT_PORT must be a number, got '$PORT'";; esac
BOLT_URI="bolt://127.0.0.1:$PORT"

if [ "$PORT" = 7687 ]; then HOME_DIR="$STACK_DIR/neo4j"; else HOME_DIR="$STACK_DIR/neo4j-$PORT"; fi
CONF_DIR="$HOME_DIR/conf"
LOG_DIR="$HOME_DIR/logs"
RUN_DIR="$HOME_DIR/run"
PIDFILE="$RUN_DIR/neo4j.pid"
CONSOLE_LOG="$LOG_DIR/console.log"

# --- helpers -----------------------------------------------------------------------------

# Prints the pid from the pid file when it names a live CommunityEntryPoint of this home dir.
our_pid() {
  [ -s "$PIDFILE" ] || return 1
  local pid; pid="$(tr -dc '0-9' < "$PIDFILE")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  # Guard against a recycled pid: the command line must be our server with our home dir.
  tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$MAIN_CLASS --home-dir=$HOME_DIR " || return 1
  echo "$pid"
}

# True when something accepts TCP connections on 127.0.0.1:$PORT.
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; }

# wait_bolt SECONDS [PID]: 0 when Bolt answers RETURN 1, 2 on refused credentials, else 1.
wait_bolt() {
  local args=(--uri "$BOLT_URI" --timeout "$1")
  [ -n "${2:-}" ] && args+=(--pid "$2")
  [ -n "${QUIET:-}" ] && args+=(--quiet)
  node "$SCRIPT_DIR/wait-neo4j.mjs" "${args[@]}"
}

bolt_answers() { port_open && QUIET=1 wait_bolt 3 >/dev/null 2>&1; }

ensure_java() {
  if [ ! -x "$JAVA" ]; then
    [ -n "${NEO4J_JAVA:-}" ] && die "NEO4J_JAVA=$JAVA is not executable"
    [ "$(id -u)" = 0 ] || die "OpenJDK 17 missing ($JAVA); install openjdk-17-jdk-headless"
    say "installing openjdk-17-jdk-headless from Debian packages"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jdk-headless >/dev/null
  fi
  command -v mvn >/dev/null && return 0
  [ "$(id -u)" = 0 ] || die "Maven missing; install the maven package"
  say "installing maven from Debian packages"
  DEBIAN_FRONTEND=noninteractive apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends maven >/dev/null
}

# Copies the server's jars into $LIB_DIR once; lib/.complete marks a finished copy.
ensure_jars() {
  [ -f "$LIB_DIR/.complete" ] && return 0
  ensure_java
  say "fetching Neo4j $NEO4J_VERSION jars into $LIB_DIR (first run only)"
  mkdir -p "$LIB_DIR"
  local mvn_log="$LIB_DIR/../mvn.log"
  if ! JAVA_HOME="$JDK_HOME" mvn -q -B -f "$SCRIPT_DIR/neo4j/pom.xml" package \
      -Dneo4j.version="$NEO4J_VERSION" -Ddoorman.cache="$CACHE_ROOT" -Dneo4j.lib.dir="$LIB_DIR" \
      > "$mvn_log" 2>&1; then
    tail -n 40 "$mvn_log" >&2
    die "mvn could not fetch the Neo4j jars (full output in $mvn_log)"
  fi
  [ -f "$LIB_DIR/neo4j-$NEO4J_VERSION.jar" ] || die "neo4j-$NEO4J_VERSION.jar missing from $LIB_DIR after mvn"
  local count; count="$(find "$LIB_DIR" -maxdepth 1 -name '*.jar' | wc -l)"
  [ "$count" -ge 150 ] || die "only $count jars in $LIB_DIR; expected 200 or so"
  printf 'org.neo4j:neo4j:%s jars=%s\n' "$NEO4J_VERSION" "$count" > "$LIB_DIR/.complete"
  say "cached $count jars ($(du -sh "$LIB_DIR" | cut -f1))"
}

write_conf() {
  mkdir -p "$CONF_DIR" "$HOME_DIR"/{data,logs,run,plugins,import}
  # Only keys that exist in 5.26: an unknown or duplicated key aborts startup.
  cat > "$CONF_DIR/neo4j.conf.tmp" <<EOF
# Written by scripts/neo4j.sh on every start; edits here are overwritten.
server.default_listen_address=127.0.0.1
server.bolt.enabled=true
server.bolt.listen_address=127.0.0.1:$PORT
server.bolt.tls_level=DISABLED
server.http.enabled=false
server.https.enabled=false
server.directories.data=$HOME_DIR/data
server.directories.logs=$HOME_DIR/logs
server.directories.run=$HOME_DIR/run
server.directories.plugins=$HOME_DIR/plugins
server.directories.import=$HOME_DIR/import
server.memory.pagecache.size=$PAGECACHE
db.memory.transaction.max=$TX_MEMORY_MAX
dbms.usage_report.enabled=false
db.tx_log.preallocate=false
# Transaction logs are kept for recovery only (no backups or clusters read them here): the default,
# two days of them, grew to 11 GB under the bench and its checkpoints slowed with it.
db.tx_log.rotation.retention_policy=512M size
dbms.security.auth_enabled=false
# Internal 5.26 setting (default 5 s, paid once per Bolt event-loop group): makes 'down' ~10 s faster.
internal.dbms.bolt.netty_server_shutdown_quiet_period=1
EOF
  mv "$CONF_DIR/neo4j.conf.tmp" "$CONF_DIR/neo4j.conf"
}

start_server() {
  [ -x "$JAVA" ] || ensure_java
  write_conf
  rm -f "$PIDFILE"
  : > "$CONSOLE_LOG"
  local jvm=(
    "-Xms$HEAP" "-Xmx$HEAP"
    -XX:+UseG1GC -XX:-OmitStackTraceInFastThrow -XX:+DisableExplicitGC -XX:+ExitOnOutOfMemoryError
    -XX:+UnlockExperimentalVMOptions -XX:+TrustFinalNonStaticFields
    "-XX:ErrorFile=$LOG_DIR/hs_err_pid%p.log"
    --add-opens=java.base/java.nio=ALL-UNNAMED
    --add-opens=java.base/java.io=ALL-UNNAMED
    --add-opens=java.base/sun.nio.ch=ALL-UNNAMED
    -Dio.netty.tryReflectionSetAccessible=true
    -Djdk.nio.maxCachedBufferSize=1024
    -Dlog4j2.disable.jmx=true
    -Dfile.encoding=UTF-8
  )
  say "starting Neo4j $NEO4J_VERSION on $BOLT_URI (heap $HEAP, page cache $PAGECACHE)"
  # setsid: own session, so the server outlives this shell and its terminal. The inner shell
  # writes its own pid and then execs java, so the pid file names the java process itself.
  (
    cd "$HOME_DIR"
    # shellcheck disable=SC2016  # $$ and $@ belong to the inner shell
    setsid bash -c 'echo $$ > "$1"; shift; exec "$@"' neo4j-start "$PIDFILE" \
      "$JAVA" "${jvm[@]}" -cp "$HOME_DIR/plugins/*:$LIB_DIR/*" \
      "$MAIN_CLASS" "--home-dir=$HOME_DIR" "--config-dir=$CONF_DIR" --console-mode \
      >> "$CONSOLE_LOG" 2>&1 < /dev/null 9>&- &
  )
  local _
  for _ in $(seq 1 50); do [ -s "$PIDFILE" ] && break; sleep 0.1; done
  [ -s "$PIDFILE" ] || die "no pid file after launching java; see $CONSOLE_LOG"
}

show_log_tail() { if [ -f "$CONSOLE_LOG" ]; then tail -n "${1:-30}" "$CONSOLE_LOG" >&2; fi; }

# --- subcommands -----------------------------------------------------------------------

up() {
  mkdir -p "$RUN_DIR"
  # One `up` at a time per instance.
  exec 9> "$RUN_DIR/up.lock"
  flock -w 180 9 || die "another 'neo4j.sh up' holds $RUN_DIR/up.lock"

  local pid rc=0
  if pid="$(our_pid)"; then
    say "already running (pid $pid); waiting for Bolt on $BOLT_URI"
    wait_bolt "$WAIT_SECS" "$pid" || rc=$?
    [ "$rc" = 0 ] || { show_log_tail; die "our server (pid $pid) does not answer on $BOLT_URI"; }
    return 0
  fi
  if port_open; then
    rc=0; QUIET=1 wait_bolt 5 >/dev/null 2>&1 || rc=$?
    case "$rc" in
      0) say "Bolt already answers on $BOLT_URI but not from a server of this script (docker compose?); using it, not starting another"; return 0;;
      2) say "Bolt already answers on $BOLT_URI (not ours) but refuses the credentials in NEO4J_USER/NEO4J_PASSWORD; not starting another"; return 0;;
      *) die "port $PORT on 127.0.0.1 is taken by something that does not speak Bolt; set NEO4J_BOLT_PORT";;
    esac
  fi

  ensure_jars
  local t0=$SECONDS
  start_server
  pid="$(tr -dc '0-9' < "$PIDFILE")"
  rc=0; wait_bolt "$WAIT_SECS" "$pid" || rc=$?
  if [ "$rc" != 0 ]; then
    show_log_tail 40
    die "Neo4j (pid $pid) not ready on $BOLT_URI after $((SECONDS - t0))s; logs in $LOG_DIR"
  fi
  say "Neo4j $NEO4J_VERSION ready on $BOLT_URI (pid $pid, ${SECONDS}s in all, $((SECONDS - t0))s from launch)"
}

down() {
  local pid
  if ! pid="$(our_pid)"; then
    rm -f "$PIDFILE"
    if port_open && bolt_answers; then
      say "no server of ours for $HOME_DIR; Bolt on $BOLT_URI belongs to something else, left alone"
    else
      say "not running ($HOME_DIR)"
    fi
    return 0
  fi
  say "stopping pid $pid (SIGTERM)"
  kill -TERM "$pid" 2>/dev/null || true
  local _
  for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    say "pid $pid still alive after 30s; SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  fi
  rm -f "$PIDFILE"
  say "stopped"
}

status() {
  local pid answers=no
  bolt_answers && answers=yes
  if pid="$(our_pid)"; then
    if [ "$answers" = yes ]; then
      say "running (pid $pid), Bolt answers on $BOLT_URI"; return 0
    fi
    say "running (pid $pid) but Bolt does not answer on $BOLT_URI yet"; return 3
  fi
  if [ "$answers" = yes ]; then
    say "Bolt answers on $BOLT_URI from a server not started by this script"; return 0
  fi
  if port_open; then
    say "down: port $PORT is open but no Bolt server answers there"; return 3
  fi
  say "down (no server on $BOLT_URI)"; return 3
}

logs() {
  [ -f "$CONSOLE_LOG" ] || die "no log yet at $CONSOLE_LOG"
  tail -n "${1:-50}" "$CONSOLE_LOG"
}

# NEO4J_URI names another host: nothing to start or stop here, only check it answers.
remote() {
  case "$1" in
    up|status)
      local rc=0
      node "$SCRIPT_DIR/wait-neo4j.mjs" --uri "$REMOTE_URI" --timeout "$([ "$1" = up ] && echo 30 || echo 3)" || rc=$?
      if [ "$rc" = 0 ] || [ "$rc" = 2 ]; then say "NEO4J_URI=$REMOTE_URI answers (not a local server; nothing started)"; return 0; fi
      say "NEO4J_URI=$REMOTE_URI does not answer (not a local server; nothing started)"
      [ "$1" = status ] && return 3
      return 1 ;;
    down) say "NEO4J_URI=$REMOTE_URI is not local; nothing to stop" ;;
    logs) die "NEO4J_URI=$REMOTE_URI is not local; no local log" ;;
  esac
}
if [ -n "$REMOTE_URI" ]; then
  case "${1:-}" in up|down|status|logs) remote "$1"; exit $? ;; esac
fi

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  logs) logs "${2:-50}" ;;
  *) die "usage: $0 up|down|status|logs [N]" ;;
esac

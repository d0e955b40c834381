# Shared shell helpers for the stack scripts: repo paths, logging, privileged apt installs.
# Sourced, never run.
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${STACK_DIR:-$REPO_DIR/.stack}"

say() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi
}

# Installs Debian packages once; `apt-get update` runs only when a package is missing.
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]} from Debian packages"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# url_part URL host|port|db|user: tiny parser for postgres:// and redis:// URLs (defaults filled by caller).
url_part() {
  node -e 'const u=new URL(process.argv[1]);const k=process.argv[2];
    const v={host:u.hostname,port:u.port,db:u.pathname.replace(/^\//,""),user:decodeURIComponent(u.username)}[k];
    process.stdout.write(v||"")' "$1" "$2"
}

# recreate_database: drops and creates the database DATABASE_URL names (the bench's and the soak's
# own, so "N stored events" means that), then builds and migrates into it.
recreate_database() {
  local db; db="$(url_part "$DATABASE_URL" db)"
  psql -X -q -h "$(url_part "$DATABASE_URL" host)" -p "$(url_part "$DATABASE_URL" port)" -d postgres \
    -c "DROP DATABASE IF EXISTS \"$db\"" -c "CREATE DATABASE \"$db\""
  npx tsc -p tsconfig.json
  node bin/doorman.js migrate
}

is_local_host() { case "$1" in localhost|127.*|::1|\[::1\]|"") return 0;; *) return 1;; esac; }

# The checkout's configuration file, .env (gitignored), read by bin/doorman.js for the server and
# every CLI command alike. ensure_env_file writes the local-development settings `npm start`
# needs into it, adding only the variables it does not set yet (a value you chose stays).
ENV_FILE="${DOORMAN_ENV_FILE:-$REPO_DIR/.env}"
ensure_env_file() {
  [ "$ENV_FILE" = none ] && return 0
  if [ ! -f "$ENV_FILE" ]; then
    cat >"$ENV_FILE" <<'TEXT'
# This checkout's configuration (gitignored), written by `npm start`. The server and every
# `npx doorman` command of this checkout read it; a variable set in the environment wins over it.
# The variables are listed in the README's Configuration section.
TEXT
    chmod 600 "$ENV_FILE"
  fi
  local line key
  # A file someone edited may lack its last newline; an appended line must not join that one.
  [ -z "$(tail -c1 "$ENV_FILE")" ] || echo >>"$ENV_FILE"
  for line in "$@"; do
    key="${line%%=*}"
    grep -qE "^[[:space:]]*(export[[:space:]]+)?$key=" "$ENV_FILE" || { printf '%s\n' "$line" >>"$ENV_FILE"; say "$(basename "$ENV_FILE"): $line"; }
  done
}

# load_env_file: the file's variables for this script's own children (the stack scripts), with
# the environment winning, as it does for bin/doorman.js.
load_env_file() {
  [ "$ENV_FILE" = none ] || [ ! -f "$ENV_FILE" ] && return 0
  local key value
  while IFS='=' read -r key value; do
    key="${key#export }"; key="${key//[[:space:]]/}"
    [[ "$key" =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]] || continue
    value="${value%\"}"; value="${value#\"}"; value="${value%\'}"; value="${value#\'}"
    [ -n "${!key+x}" ] || export "$key=$value"
  done < <(grep -vE '^[[:space:]]*(#|$)' "$ENV_FILE")
}

# A new random master key for the vault (SECRETS_KEY): 32 bytes, base64. For `npm start`'s .env
# and for the bench, soak, fuzz and fault runs, whose databases are made afresh each time.
fresh_secrets_key() { node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64"))'; }

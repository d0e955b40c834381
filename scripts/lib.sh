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

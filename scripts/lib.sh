# Shared shell helpers for the stack scripts: repo paths, logging, privileged apt installs.
# Sourced, never run.
REPO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
STACK_DIR="${STACK_DIR:-$REPO_DIR/.stack}"

say() { printf '[stack] %s\n' "$*" >&2; }
die() { printf '[stack] error: %s\n' "$*" >&2; exit 1; }

# The Node.js runtime. Doorman runs on Node 24 LTS: the version in .nvmrc, which `engines` (the
# floor), the Dockerfile and the README follow (test/operations/runtime.test.ts checks that they
# agree). Where the machine's `node` is older than engines' floor, the pinned version is installed
# once, without root, from the npm registry's node-linux-<arch> package (npm checks its integrity)
# into a cache folder shared by every checkout of this user, and put first on PATH: every script
# that sources this file, the npm and npx they call, and the CLI (bin/doorman.js finds the same
# folder).
NODE_VERSION_PINNED="$(tr -d '[:space:]v' <"$REPO_DIR/.nvmrc")"
NODE_FLOOR="$(sed -n 's/^ *"node": *">=\([0-9.]*\)".*/\1/p' "$REPO_DIR/package.json" | head -n1)"
NODE_CACHE_DIR="${DOORMAN_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/doorman/node}"

# version_at_least A B: A >= B, both x.y.z.
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

ensure_node() {
  local current; current="$(node --version 2>/dev/null | tr -d v || true)"
  if [ -n "$current" ] && version_at_least "$current" "$NODE_FLOOR"; then return 0; fi
  local dir="$NODE_CACHE_DIR/v$NODE_VERSION_PINNED"
  if [ ! -x "$dir/bin/node" ]; then
    local arch
    case "$(uname -m)" in x86_64) arch=x64;; aarch64|arm64) arch=arm64;; *) die "no Node $NODE_VERSION_PINNED package for $(uname -m); install Node $NODE_VERSION_PINNED";; esac
    command -v npm >/dev/null || die "neither Node >= $NODE_FLOOR nor npm found; install Node $NODE_VERSION_PINNED"
    say "Node ${current:-(none)} is older than $NODE_FLOOR: installing Node $NODE_VERSION_PINNED into $dir"
    local tmp; tmp="$(mktemp -d)"
    ( cd "$tmp" && npm pack --silent "node-linux-$arch@$NODE_VERSION_PINNED" >/dev/null ) || { rm -rf "$tmp"; die "could not fetch node-linux-$arch@$NODE_VERSION_PINNED"; }
    tar -xzf "$tmp"/node-linux-*.tgz -C "$tmp" package/bin/node package/LICENSE
    mkdir -p "$NODE_CACHE_DIR"
    # Moved into place whole, so a concurrent run never sees half a binary.
    rm -rf "$dir.partial.$$" && mv "$tmp/package" "$dir.partial.$$"
    mv -T "$dir.partial.$$" "$dir" 2>/dev/null || rm -rf "$dir.partial.$$"
    rm -rf "$tmp"
  fi
  export PATH="$dir/bin:$PATH"
  hash -r
}
ensure_node

# ensure_node_modules [DIR]: installs DIR's (default the checkout's) dependencies with `npm ci`
# when they are missing or were installed from another package-lock.json or on another Node line
# (a pull that changed the lockfile, the move to a new runtime). A stamp in node_modules records
# what they were installed from.
ensure_node_modules() {
  local dir="${1:-$REPO_DIR}" want have=""
  want="$(node -e 'const c=require("node:crypto");process.stdout.write(c.createHash("sha256").update(require("node:fs").readFileSync(process.argv[1])).digest("hex")+" node"+process.versions.node.split(".")[0])' "$dir/package-lock.json")"
  [ -f "$dir/node_modules/.doorman-installed" ] && have="$(cat "$dir/node_modules/.doorman-installed")"
  [ "$have" = "$want" ] && return 0
  [ -d "$dir/node_modules" ] && say "$(basename "$dir")/node_modules was installed from another package-lock.json or Node: npm ci"
  npm ci --prefix "$dir" --no-audit --no-fund
  printf '%s' "$want" >"$dir/node_modules/.doorman-installed"
}

# The compiler that type-checks and builds: TypeScript 7's native one, the `typescript-native`
# package. Named by its path, because node_modules/.bin/tsc may link either it or TypeScript 5.9
# (`typescript`, kept for its compiler API: README "Dependencies").
tsc_native() { node "$REPO_DIR/node_modules/typescript-native/bin/tsc" "$@"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else die "need root for: $*"; fi
}

# Installs Debian packages once; `apt-get update` runs only when a package is missing.
apt_install() {
  local missing=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  say "installing ${missing[*]} from Debian packages"
  # Two installs at once (npm test prepares tools in the background) wait for dpkg's lock.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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
  tsc_native -p tsconfig.json
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

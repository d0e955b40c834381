#!/usr/bin/env bash
# `npm start`: from a fresh clone to a serving API on :8080. Installs dependencies if missing,
# brings up the local stack (or uses the services the configured URLs point at), builds,
# migrates, creates a demo tenant on the first run and prints its keys, then serves.
# Local development settings (the demo pages, local webhook receivers) go into the checkout's
# .env, which the server and every `npx doorman` command of this checkout read alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

ensure_node_modules
# Local development: the demo pages on, webhook receivers on this machine allowed (for the server
# and the CLI alike), and a master key for the secrets stored sealed (made once; keep the file:
# without that key the stored webhook secrets and device keys cannot be opened).
ensure_env_file DEMO_PAGES=true WEBHOOK_ALLOW_PRIVATE=true "SECRETS_KEY=$(fresh_secrets_key)"
load_env_file
bash scripts/stack.sh up
say "building"
npm run --silent build
node bin/doorman.js migrate

demo="$STACK_DIR/demo-tenant.json"
if [ ! -s "$demo" ]; then
  mkdir -p "$STACK_DIR"
  node bin/doorman.js --json tenant create --name demo >"$demo.tmp" && mv "$demo.tmp" "$demo"
  chmod 600 "$demo"
  say "created a demo tenant; its keys (also kept in $demo for local use only):"
else
  say "demo tenant keys (from $demo):"
fi
node -e 'const d=require(process.argv[1]); console.error("  tenant  "+d.tenant_id); for (const [k,v] of Object.entries(d.keys)) console.error("  "+k.padEnd(8)+v)' "$demo"
# The local demo pages (GET /demo/device): on through .env (DEMO_PAGES=true).
node -e 'const d=require(process.argv[1]); console.error("[stack] device token demo: http://localhost:"+(process.env.PORT||8080)+"/demo/device#pk="+d.keys.pk_test+"&sk="+d.keys.sk_test)' "$demo"
# The analyst console: how to make the first account (the link it prints signs in once).
node -e 'const d=require(process.argv[1]); const port=process.env.PORT||8080; console.error("[stack] analyst console: http://localhost:"+port+"/console\n[stack]   add the first analyst (prints a one-time sign-in link, valid 24 h):\n[stack]   npx doorman analyst add --tenant "+d.tenant_id+" --email you@example.com --role admin")' "$demo"
exec node bin/doorman.js serve

#!/usr/bin/env bash
# `npm start`: from a fresh clone to a serving API on :8080. Installs dependencies if missing,
# brings up the local stack (or uses the services the configured URLs point at), builds,
# migrates, creates a demo tenant on the first run and prints its keys, then serves (with the
# demo pages on).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

[ -d node_modules ] || npm ci --no-audit --no-fund
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
# The local demo pages (GET /demo/device); off unless set, on here.
export DEMO_PAGES="${DEMO_PAGES:-true}"
if [ "$DEMO_PAGES" = true ]; then
  node -e 'const d=require(process.argv[1]); console.error("[stack] device token demo: http://localhost:"+(process.env.PORT||8080)+"/demo/device#pk="+d.keys.pk_test+"&sk="+d.keys.sk_test)' "$demo"
fi
# The analyst console: how to make the first account (the link it prints signs in once).
node -e 'const d=require(process.argv[1]); const port=process.env.PORT||8080; console.error("[stack] analyst console: http://localhost:"+port+"/console\n[stack]   add the first analyst (prints a one-time sign-in link, valid 24 h):\n[stack]   npx doorman analyst add --tenant "+d.tenant_id+" --email you@example.com --role admin")' "$demo"
# Local demo: a webhook receiver on this machine (e.g. http://localhost:4000) is allowed.
export WEBHOOK_ALLOW_PRIVATE="${WEBHOOK_ALLOW_PRIVATE:-true}"
exec node bin/doorman.js serve

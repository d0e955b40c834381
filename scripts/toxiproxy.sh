#!/usr/bin/env bash
# Toxiproxy, the TCP fault proxy of the fault-injection suite (test/faults/): built once from
# its Go module with the machine's Go toolchain and cached outside the repo, like the Neo4j
# jars. Prints the server binary's path.
#
# Environment: DOORMAN_CACHE (default ~/.cache/doorman).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

TOXIPROXY_VERSION=2.12.0
BIN="${DOORMAN_CACHE:-$HOME/.cache/doorman}/toxiproxy-$TOXIPROXY_VERSION/toxiproxy-server"

if [ ! -x "$BIN" ]; then
  GO="$(command -v go || true)"
  if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
  # Debian's Go is older than the module asks for; GOTOOLCHAIN=auto then fetches the newer
  # toolchain, itself a Go module.
  if [ -z "$GO" ]; then apt_install golang-go; GO=go; fi
  printf '[faults] building toxiproxy %s with %s\n' "$TOXIPROXY_VERSION" "$("$GO" version)" >&2
  build="$(mktemp -d)"
  trap 'rm -rf "$build"' EXIT
  GOTOOLCHAIN=auto GOBIN="$build" "$GO" install "github.com/Shopify/toxiproxy/v2/cmd/server@v$TOXIPROXY_VERSION" >&2
  mkdir -p "$(dirname "$BIN")"
  mv "$build/server" "$BIN"
fi
echo "$BIN"

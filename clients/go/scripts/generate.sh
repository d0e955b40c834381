#!/usr/bin/env bash
# Regenerates the Go client's types from a served OpenAPI document, or with -check says whether
# the checked-in ones are out of date (exit 1). A thin wrapper over internal/cmd/generate that
# works from any folder.
#   bash clients/go/scripts/generate.sh [-check] [URL or file; default http://127.0.0.1:8080/v1/openapi.json]
#   bash clients/go/scripts/generate.sh -prefetch     (download and build the pinned generator only)
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"

GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then echo "[generate] no go on PATH (Go 1.23 or later)" >&2; exit 1; fi

# A document given as a relative path is relative to where this was called from.
args=()
for arg in "$@"; do
  if [[ "$arg" != -* && "$arg" != http://* && "$arg" != https://* && -e "$arg" ]]; then
    arg="$(cd "$(dirname "$arg")" && pwd)/$(basename "$arg")"
  fi
  args+=("$arg")
done
cd "$here"
exec "$GO" run ./internal/cmd/generate "${args[@]}"

#!/usr/bin/env bash
# The Go client's checks, in order: gofmt (prints nothing when every file is formatted), go vet,
# then the whole suite with the race detector (the shared vectors always; the integration tests
# when DOORMAN_BASE_URL and the rest of the integration environment are set by the caller).
# Modules are read-only (GOFLAGS=-mod=readonly: go.mod and go.sum are never rewritten) and come
# from wherever Go keeps its module cache.
#   bash clients/go/scripts/check.sh        (from anywhere)
set -euo pipefail
cd "$(dirname "$0")/.."

GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then echo "[check] no go on PATH (Go 1.23 or later)" >&2; exit 1; fi
GOFMT="$("$GO" env GOROOT)/bin/gofmt"
export GOFLAGS="${GOFLAGS:+$GOFLAGS }-mod=readonly"

unformatted="$("$GOFMT" -l .)"
if [ -n "$unformatted" ]; then
  echo "[check] gofmt: these files are not formatted (run gofmt -w on them):" >&2
  echo "$unformatted" >&2
  exit 1
fi
"$GO" vet ./...

if [ -z "${DOORMAN_BASE_URL:-}" ]; then
  echo "[check] DOORMAN_BASE_URL is unset: the integration tests are skipped (README, \"Tests\", says how to run them)" >&2
fi
# -v: every test's line, so a skipped one shows (--- SKIP).
"$GO" test -race -count=1 -v ./...

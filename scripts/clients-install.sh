#!/usr/bin/env bash
# The toolchains of the Python and Go clients' suites (test/client/python-client.test.ts and
# go-client.test.ts): a project-local virtualenv (.venv/clients-python) with clients/python's
# pinned development requirements from PyPI (clients/python/scripts/install.sh: again only when
# they change), and the Go client's generator from the module proxy with its test binaries compiled. Run by
# `npm test` early and in the background, like the fuzzer's install, and by the test itself
# (then it finds everything in place). Its last lines say where the toolchains are:
# PYTHON_VENV=… and GO_BIN=….
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

# One install at a time: npm test starts one in the background and the test may start another.
mkdir -p .venv
exec 9>.venv/clients-install.lock
flock 9

VENV=.venv/clients-python
# Debian's python3 needs python3-venv for ensurepip; other pythons carry it.
python3 -c 'import ensurepip' 2>/dev/null || apt_install python3-venv
bash clients/python/scripts/install.sh "$VENV" >&2
# mypy's cache warmed here too, so the suite's own run reads it.
python="$PWD/$VENV/bin/python"
( cd clients/python && "$python" -m mypy >&2 )

GO="$(command -v go || true)"
if [ -z "$GO" ] && [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; fi
if [ -z "$GO" ]; then apt_install golang-go; GO="$(command -v go)"; fi
# The client has no dependencies; its type generator (oapi-codegen, pinned) is fetched and built
# here, and the race-enabled test binaries compiled (a cold build cache spends most of its time
# there), so the suite's own run only links and runs them. GOTOOLCHAIN=auto: an older Go fetches
# the toolchain the module asks for (itself a module).
export GOTOOLCHAIN=auto
bash clients/go/scripts/generate.sh -prefetch >&2
( cd clients/go && "$GO" vet ./... >&2 && "$GO" test -race -count=1 -run '^$' ./... >&2 )

echo "PYTHON_VENV=$PWD/$VENV"
echo "GO_BIN=$(dirname "$GO")"

#!/usr/bin/env bash
# The external fuzzer's install: schemathesis from PyPI into a project-local virtualenv
# (.venv/fuzz), once per version. Prints the `st` binary's path. Run by scripts/fuzz.sh, and by
# `npm test` early and in the background, so a fresh clone's install overlaps the suite.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib.sh

SCHEMATHESIS_VERSION=4.32.5
VENV=.venv/fuzz
if ! "$VENV/bin/st" --version 2>/dev/null | grep -qF "$SCHEMATHESIS_VERSION"; then
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
  rm -rf "$VENV"
  # Debian's python3 needs python3-venv for ensurepip; other pythons carry it.
  python3 -m venv "$VENV" 2>/dev/null || { rm -rf "$VENV"; apt_install python3-venv; python3 -m venv "$VENV"; }
  "$VENV/bin/pip" install -q --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
fi
echo "$PWD/$VENV/bin/st"

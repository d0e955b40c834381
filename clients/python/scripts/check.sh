#!/usr/bin/env bash
# Type-checks and tests clients/python in the virtualenv VENV_DIR (made or brought up to date by
# scripts/install.sh first), then runs mypy --strict and pytest.
# The integration tests read DOORMAN_BASE_URL and the rest from the caller's environment, and are
# skipped without it. Extra arguments go to pytest.
#   clients/python/scripts/check.sh VENV_DIR [pytest args...]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:?usage: scripts/check.sh VENV_DIR [pytest args...]}"
shift
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac

bash "$here/scripts/install.sh" "$venv"

cd "$here"
started=$SECONDS
"$venv/bin/python" -m mypy
echo "[clients/python] mypy --strict in $((SECONDS - started)) s" >&2
started=$SECONDS
"$venv/bin/python" -m pytest "$@"
echo "[clients/python] pytest in $((SECONDS - started)) s" >&2

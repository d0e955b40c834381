#!/usr/bin/env bash
# Makes the virtualenv VENV_DIR ready for clients/python's checks: creates it when missing, and
# installs requirements-dev.txt and the package (editable) whenever the pinned requirements or
# pyproject.toml changed since its last install. Run by scripts/check.sh, and by the repository's
# scripts/clients-install.sh ahead of the suite.
#   clients/python/scripts/install.sh VENV_DIR
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
venv="${1:?usage: scripts/install.sh VENV_DIR}"
case "$venv" in /*) ;; *) venv="$PWD/$venv" ;; esac

stamp="$venv/.doorman-client-python-requirements"
want="$(cat "$here/requirements-dev.txt" "$here/pyproject.toml" | sha256sum | cut -d' ' -f1)"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]; then
  started=$SECONDS
  echo "[clients/python] installing requirements-dev.txt into $venv" >&2
  if [ ! -x "$venv/bin/python" ]; then
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' || { echo "[clients/python] python3 is older than 3.10" >&2; exit 1; }
    python3 -m venv "$venv" || { echo "[clients/python] python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; exit 1; }
  fi
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements-dev.txt"
  # Editable, so a change to src/ needs no reinstall; hatchling is pinned in requirements-dev.txt.
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$here"
  echo "$want" > "$stamp"
  echo "[clients/python] installed in $((SECONDS - started)) s" >&2
fi


#!/usr/bin/env bash
# Debian's Chromium for the browser tests (never a downloaded browser build): installs the
# `chromium` package and a font set when missing, then prints the binary's path.
# Exits non-zero when it cannot be installed (the tests then skip loudly, or fail under CI).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

bin="${CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$bin" ]; then
  # fonts-liberation: metric-compatible fonts, so pages and canvas text render with real glyphs.
  apt_install chromium fonts-liberation
fi
[ -x "$bin" ] || die "chromium is not at $bin after installing"
echo "$bin"

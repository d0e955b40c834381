"""type_tests/compile_errors.py holds lines that must not type-check (a signup without `ip`,
`payment` on a login, ...), each marked ``# type: ignore[code]``. The main mypy run passes only
while every marker still suppresses an error (warn_unused_ignores); this test removes the markers
and checks that mypy --strict then FAILS, on exactly the marked lines, with the codes they name."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from .support import CLIENT_DIR

SOURCE = CLIENT_DIR / "type_tests" / "compile_errors.py"
MARKER = re.compile(r"\s*# type: ignore\[([^\]]+)\]\s*$")
ERROR = re.compile(r"^[^:]+:(\d+): error: .*\[([a-z-]+)\]$")


def test_each_marked_line_fails_under_mypy_strict(tmp_path: Path) -> None:
    expected: dict[int, set[str]] = {}
    stripped: list[str] = []
    for number, line in enumerate(SOURCE.read_text().splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            expected[number] = {code.strip() for code in match.group(1).split(",")}
        stripped.append(MARKER.sub("", line))
    assert len(expected) >= 20, "the type tests lost their cases"
    copy = tmp_path / "compile_errors_unmarked.py"
    copy.write_text("\n".join(stripped) + "\n")

    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CLIENT_DIR / "pyproject.toml"), "--no-error-summary", str(copy)],
        cwd=CLIENT_DIR,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1, f"mypy --strict passed the unmarked type tests:\n{run.stdout}{run.stderr}"
    found: dict[int, set[str]] = {}
    for line in run.stdout.splitlines():
        match = ERROR.match(line)
        if match:
            found.setdefault(int(match.group(1)), set()).add(match.group(2))
    unexpected = sorted(set(found) - set(expected))
    missing = sorted(set(expected) - set(found))
    assert not unexpected, f"lines that must type-check did not: {unexpected}\n{run.stdout}"
    assert not missing, f"lines that must fail type-checked: {missing}\n{run.stdout}"
    for number, codes in expected.items():
        assert found[number] == codes, f"line {number}: mypy said {sorted(found[number])}, the marker names {sorted(codes)}"

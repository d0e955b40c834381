"""The package builds into a wheel that holds the typed package (py.typed, the generated types)
and nothing else, declares its dependencies, and imports from the wheel alone."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from .support import CLIENT_DIR


def test_the_wheel_builds_and_imports(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(tmp_path / "dist"), str(CLIENT_DIR)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert build.returncode == 0, build.stdout + build.stderr
    [wheel] = list((tmp_path / "dist").glob("doorman_client-0.1.0-py3-none-any.whl"))
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read("doorman_client-0.1.0.dist-info/METADATA").decode()
    assert {
        "doorman_client/__init__.py",
        "doorman_client/py.typed",
        "doorman_client/client.py",
        "doorman_client/async_client.py",
        "doorman_client/webhooks.py",
        "doorman_client/_generated/answers.py",
        "doorman_client/_generated/requests.py",
        "doorman_client/_generated/known_values.py",
    } <= names
    assert not any(name.startswith(("tests/", "examples/", "scripts/", "type_tests/")) for name in names)
    assert "Requires-Python: >=3.10" in metadata
    for dependency in ("httpx", "pydantic", "anyio", "typing-extensions"):
        assert f"Requires-Dist: {dependency}" in metadata

    # Unpacked alone (no source tree on the path), beside this environment's dependencies.
    target = tmp_path / "installed"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(target)
    probe = subprocess.run(
        [sys.executable, "-S", "-c", "import doorman_client, sys; print(doorman_client.__file__, doorman_client.__version__)"],
        env={"PYTHONPATH": f"{target}:{sysconfig.get_paths()['purelib']}"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.startswith(str(target)) and probe.stdout.strip().endswith("0.1.0")

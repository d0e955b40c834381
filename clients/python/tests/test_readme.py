"""The README shows the example files as they are: each ```python block that opens with
``# examples/NAME.py`` is that file, byte for byte, so the code a reader copies is the code the
suite runs."""

from __future__ import annotations

import re

from .support import CLIENT_DIR

BLOCK = re.compile(r"```python\n# (examples/[\w.]+)\n(.*?)\n```", re.DOTALL)


def test_the_readme_shows_the_example_files_as_they_are() -> None:
    readme = (CLIENT_DIR / "README.md").read_text()
    shown = dict(BLOCK.findall(readme))
    assert set(shown) == {"examples/quickstart.py", "examples/django_views.py", "examples/fastapi_app.py"}
    for path, code in shown.items():
        assert code == (CLIENT_DIR / path).read_text().rstrip("\n"), f"README.md's copy of {path} differs from the file"
    # The README opens with the first integration.
    assert readme.index("## Your first integration") < readme.index("## What `screen()` does for you")

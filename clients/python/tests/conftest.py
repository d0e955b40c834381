from __future__ import annotations

import pytest


@pytest.fixture
def anyio_backend() -> str:
    # The async client is tested on asyncio, the loop FastAPI and most async frameworks run.
    return "asyncio"

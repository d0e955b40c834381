"""The client's configuration, checked when the client is made.

A mistake then fails the process at start-up instead of failing open on every ``screen()`` for
ever: the key's shape (a secret key, nothing around it), the base URL's shape (an absolute
http(s) URL with no credentials, query or fragment), and the numbers (budgets, retries).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Literal
from urllib.parse import urlsplit

from .errors import DoormanError

Mode = Literal["live", "test"]


@dataclass(frozen=True)
class RetryInfo:
    """What ``on_retry`` is called with, before each retry."""

    retry: int
    """1 for the first retry."""
    delay_ms: int
    """How long the client waits before sending again (``retry-after``, or the backoff)."""
    error: DoormanError
    """Why the previous attempt failed."""


OnRetry = Callable[[RetryInfo], None]


@dataclass(frozen=True)
class Settings:
    secret_key: str
    base_url: str
    mode: Mode
    screen_timeout_ms: int
    timeout_ms: int
    ping_timeout_ms: int
    max_retries: int
    on_retry: OnRetry | None
    fail_open_on_configuration_error: bool


_KEY = re.compile(r"^sk_(live|test)_(.*)$", re.DOTALL)


def check_secret_key(secret_key: object) -> Mode:
    if not isinstance(secret_key, str) or secret_key == "":
        raise ValueError(
            "secret_key is missing: pass your secret key (sk_live_... or sk_test_...), " 'e.g. os.environ["DOORMAN_SECRET_KEY"]'
        )
    if re.match(r"^pk_(live|test)_", secret_key):
        raise ValueError(
            "secret_key is a publishable key (pk_...): it only works for the browser's device token; "
            "pass a secret key (sk_live_... or sk_test_...)"
        )
    if re.search(r"\s", secret_key):
        raise ValueError("secret_key holds a space or a line break: copy the key alone")
    match = _KEY.match(secret_key)
    if match is None:
        raise ValueError("secret_key must start sk_live_ or sk_test_")
    if match.group(2) == "":
        raise ValueError(f"secret_key is only its prefix (sk_{match.group(1)}_): the rest of the key is missing")
    return "live" if match.group(1) == "live" else "test"


def check_base_url(base_url: object) -> str:
    if not isinstance(base_url, str) or base_url.strip() == "":
        raise ValueError("base_url is missing: pass where your Doorman listens, e.g. https://doorman.internal.example")
    if re.search(r"\s", base_url):
        raise ValueError(f"base_url holds a space or a line break: {base_url!r}")
    try:
        url = urlsplit(base_url)
        port = url.port
    except ValueError as err:
        raise ValueError(f"base_url is not a valid URL ({err}): {base_url!r}") from None
    if url.scheme == "" or url.netloc == "":
        raise ValueError(f"base_url is not an absolute URL (start it with https:// or http://): {base_url!r}")
    if url.scheme.lower() not in ("http", "https"):
        raise ValueError(f"base_url must be http or https, not {url.scheme}")
    if url.username is not None or url.password is not None:
        raise ValueError("base_url must not hold credentials: the secret key is the only credential")
    if url.hostname is None or url.hostname == "":
        raise ValueError(f"base_url has no host: {base_url!r}")
    if url.query != "" or url.fragment != "" or "?" in base_url or "#" in base_url:
        raise ValueError("base_url must not have a query or a fragment")
    if port == 0:
        raise ValueError("base_url's port 0 is not a port a server listens on")
    # A path prefix (a Doorman behind a path on a shared host) is kept, without its last slash.
    return base_url.rstrip("/")


def check_budget(name: str, value: object) -> int:
    # bool is an int in Python: refuse it explicitly, `timeout_ms=True` is a mistake.
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"{name} must be a whole number of milliseconds above 0, not {value!r}")
    return value


def check_retries(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"max_retries must be a whole number, 0 or more, not {value!r}")
    return value


def check_settings(
    *,
    secret_key: object,
    base_url: object,
    screen_timeout_ms: object,
    timeout_ms: object,
    ping_timeout_ms: object,
    max_retries: object,
    on_retry: OnRetry | None,
    fail_open_on_configuration_error: bool,
) -> Settings:
    mode = check_secret_key(secret_key)
    assert isinstance(secret_key, str)
    if on_retry is not None and not callable(on_retry):
        raise ValueError("on_retry must be a function taking a RetryInfo")
    return Settings(
        secret_key=secret_key,
        base_url=check_base_url(base_url),
        mode=mode,
        screen_timeout_ms=check_budget("screen_timeout_ms", screen_timeout_ms),
        timeout_ms=check_budget("timeout_ms", timeout_ms),
        ping_timeout_ms=check_budget("ping_timeout_ms", ping_timeout_ms),
        max_retries=check_retries(max_retries),
        on_retry=on_retry,
        fail_open_on_configuration_error=fail_open_on_configuration_error is True,
    )

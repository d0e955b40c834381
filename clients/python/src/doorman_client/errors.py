"""The one error the client raises for a call that did not succeed.

An answer that is not 2xx (its status, the contract's ``error`` code as an open string,
``details``), no usable answer at all (a timeout, a network failure, a body that is not the
contract's), or a configuration that can never work (the host does not resolve, a redirect, a TLS
failure). It says whether a retry may help.
"""

from __future__ import annotations

import email.utils
import json
import time
from datetime import timezone
from typing import Literal, cast

from pydantic import JsonValue

from ._generated.answers import ValidationIssue

FailureKind = Literal["response", "timeout", "network", "invalid_response", "configuration"]
"""``configuration``: the same call would fail the same way every time until the configuration is
fixed, so it is never retried, and ``screen()`` fails open on it only when the client was made
with ``fail_open_on_configuration_error=True``."""


class DoormanError(Exception):
    """A call to Doorman that did not succeed; ``kind`` says how."""

    kind: FailureKind
    status: int | None
    """The HTTP status, when Doorman (or something in front of it) answered."""
    code: str | None
    """The contract's ``error`` code: an open set, so a code added later comes through as it is."""
    details: dict[str, JsonValue] | None
    request_id: str | None
    """The answer's ``x-request-id``: quote it when reporting a 500."""
    retry_after_ms: int | None
    """From the answer's ``retry-after`` (delta-seconds or an HTTP date; a date in the past is 0)."""
    attempts: int
    """How many requests were sent for this call, retries included."""

    def __init__(
        self,
        kind: FailureKind,
        message: str,
        *,
        status: int | None = None,
        code: str | None = None,
        details: dict[str, JsonValue] | None = None,
        request_id: str | None = None,
        retry_after_ms: int | None = None,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.status = status
        self.code = code
        self.details = details
        self.request_id = request_id
        self.retry_after_ms = retry_after_ms
        self.attempts = 1

    @property
    def retryable(self) -> bool:
        """429 and 5xx are retried with the same Idempotency-Key and bytes, and so are timeouts,
        network failures and unreadable answers; a 409 (``conflict``, ``idempotency_conflict``),
        every other 4xx and a configuration error never succeed on a retry."""
        if self.kind == "configuration":
            return False
        if self.kind != "response":
            return True
        return self.status is not None and (self.status == 429 or self.status >= 500)

    @property
    def issues(self) -> list[ValidationIssue]:
        """The fields a 400 ``invalid_request`` names, one ``{path, message}`` per failure."""
        raw = (self.details or {}).get("issues")
        if not isinstance(raw, list):
            return []
        return [
            ValidationIssue.model_validate(item)
            for item in raw
            if isinstance(item, dict) and isinstance(item.get("path"), str) and isinstance(item.get("message"), str)
        ]

    def __reduce__(self) -> tuple[type[DoormanError], tuple[FailureKind, str], dict[str, object]]:
        # Its fields survive pickling (a task queue, a process pool), not only its message.
        return (type(self), (self.kind, self.message), dict(self.__dict__))

    def __repr__(self) -> str:
        return f"DoormanError(kind={self.kind!r}, status={self.status!r}, code={self.code!r}, message={self.message!r})"


def error_from_answer(status: int, body: bytes, request_id: str | None, retry_after: str | None) -> DoormanError:
    """The error for an answer that is not 2xx. A body that is not the contract's error object (a
    proxy's HTML page, an empty body) leaves ``code`` and ``details`` None."""
    code: str | None = None
    details: dict[str, JsonValue] | None = None
    text = ""
    try:
        parsed = cast(JsonValue, json.loads(body)) if body else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), str):
        code = cast(str, parsed["error"])
        message = parsed.get("message")
        text = f"{code}: {message}" if isinstance(message, str) else code
        raw_details = parsed.get("details")
        if isinstance(raw_details, dict):
            details = raw_details
    return DoormanError(
        "response",
        f"Doorman answered {status} ({text or f'HTTP {status}'})",
        status=status,
        code=code,
        details=details,
        request_id=request_id,
        retry_after_ms=retry_after_ms(retry_after),
    )


def retry_after_ms(header: str | None, now: float | None = None) -> int | None:
    """``retry-after`` is delta-seconds (what Doorman sends) or an HTTP date (what a proxy may send)."""
    if header is None or header.strip() == "":
        return None
    value = header.strip()
    if value.isdigit():
        return int(value) * 1000
    try:
        at = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    current = time.time() if now is None else now
    return max(0, round((at.timestamp() - current) * 1000))

"""What ``screen()`` returns, and the parts of it the sync and the async client share.

``screen()`` is the verdict call made inline before the caller commits an action: one
Idempotency-Key per attempt of the action (a UUID unless the caller brings one), the body
serialised once so every retry sends the same bytes, and, by default, a clearly marked ``allow``
when Doorman is slow, unreachable or failing: screening must never be the reason a signup breaks.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from ._calls import Answer, parse
from ._generated.answers import Reason, VerdictResponse
from ._generated.requests import VerdictRequest
from .errors import DoormanError

MAX_KEY_LENGTH = 255

FailOpenReason = Literal["timeout", "network_error", "server_error", "rate_limited", "invalid_response", "configuration_error"]


class Screened(VerdictResponse):
    """Doorman's verdict. Fields a later Doorman adds are kept (``model_extra``)."""

    failed_open: Literal[False] = False
    idempotency_key: str
    """The key this call sent: screen the identical event again with it to get the same answer."""
    degraded: list[str] = []
    """The signal sources Doorman decided without (it answered, but a source ran past its deadline
    or was down), read from the ``timeout_failopen`` and ``partial_enrichment`` reasons, sorted.
    Empty when the verdict had every signal. ``graph`` or ``lists`` here means the verdict did not
    see the identity cluster or your lists."""


@dataclass(frozen=True)
class FailedOpen:
    """No verdict: Doorman was slow, unreachable or failing, and the call failed open."""

    reason: FailOpenReason
    idempotency_key: str
    """Screen the identical event again later with this key to learn the verdict, if the call did
    reach a decision after all (Doorman replays it), or to get one now."""
    error: DoormanError
    verdict: Literal["allow"] = "allow"
    failed_open: Literal[True] = True
    reasons: tuple[()] = field(default=())


ScreenResult = Screened | FailedOpen


def idempotency_key_of(given: str | None) -> str:
    if given is None:
        return str(uuid.uuid4())
    # Doorman ignores an empty or over-long key as if it were absent: refuse it here instead, or
    # retries would silently stop being safe.
    if not isinstance(given, str):
        raise TypeError(f"idempotency_key must be a string, not {type(given).__name__}")
    if not 1 <= len(given) <= MAX_KEY_LENGTH:
        raise ValueError(f"idempotency_key must be 1 to {MAX_KEY_LENGTH} characters, not {len(given)}")
    return given


def body_of(event: VerdictRequest) -> bytes:
    """The request's bytes, made once per call: None values (an absent User-Agent, say) are left
    out, at the top level and in ``payment``."""
    if not isinstance(event, Mapping) or not isinstance(event.get("event_type"), str):
        raise TypeError('screen() takes the event as a dict with its "event_type", e.g. {"event_type": "signup", "ip": ...}')
    body: dict[str, object] = {}
    for key, value in event.items():
        if value is None:
            continue
        if key == "payment" and isinstance(value, Mapping):
            value = {k: v for k, v in value.items() if v is not None}
        body[key] = value
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")


def screened_from(answer: Answer, idempotency_key: str) -> Screened:
    if not isinstance(answer.body, dict):
        invalid = DoormanError(
            "invalid_response", "Doorman answered 200 without a verdict", status=answer.status, request_id=answer.request_id
        )
        invalid.attempts = answer.attempts
        raise invalid
    verdict = parse(VerdictResponse, answer, "Doorman's 200")
    fields: dict[str, object] = dict(answer.body)
    fields.update(failed_open=False, idempotency_key=idempotency_key, degraded=degraded_sources(verdict.reasons))
    return Screened.model_validate(fields)


def fail_open_or_raise(error: DoormanError, idempotency_key: str, fail_open: bool, fail_open_on_configuration_error: bool) -> FailedOpen:
    """The fail-open result for an error that allows it; raises the error otherwise. Your own
    mistakes (400, 401, 404, both 409s) are always raised, and so is a configuration error unless
    the client was told otherwise."""
    if not fail_open:
        raise error
    fails_open = fail_open_on_configuration_error if error.kind == "configuration" else error.retryable
    if not fails_open:
        raise error
    return FailedOpen(reason=fail_open_reason(error), idempotency_key=idempotency_key, error=error)


# The reasons that say a source was missing name it in `detail.sources` (comma-separated); one
# without it (a later Doorman's) still counts, as `unknown`.
DEGRADED_CODES = frozenset({"timeout_failopen", "partial_enrichment"})


def degraded_sources(reasons: Iterable[Reason]) -> list[str]:
    sources: set[str] = set()
    for reason in reasons:
        if reason.code not in DEGRADED_CODES:
            continue
        named = reason.detail.sources if reason.detail is not None else None
        parts = [part.strip() for part in named.split(",") if part.strip()] if isinstance(named, str) else []
        sources.update(parts or ["unknown"])
    return sorted(sources)


def fail_open_reason(error: DoormanError) -> FailOpenReason:
    if error.kind == "configuration":
        return "configuration_error"
    if error.kind == "timeout":
        return "timeout"
    if error.kind == "network":
        return "network_error"
    if error.kind == "invalid_response":
        return "invalid_response"
    return "rate_limited" if error.status == 429 else "server_error"

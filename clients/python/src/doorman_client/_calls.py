"""What the sync and the async client share about one call, without doing any I/O.

A call is sent under the contract's retry rules (section 7), within one time budget: a 429 or a
5xx is retried after its ``retry-after`` when it has one, and a 5xx, a network failure, a timeout
or an unreadable 2xx otherwise after a short jittered backoff; every other answer is final. Each
attempt sends the same request (the same Idempotency-Key and the same bytes), so a retry can
never be judged twice. The drivers (``client.py``, ``async_client.py``) only send, sleep and loop.
"""

from __future__ import annotations

import json
import random
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeVar, cast

import httpx
from pydantic import BaseModel, JsonValue, ValidationError

from ._config import Settings
from .errors import DoormanError, error_from_answer

VERSION = "0.1.0"
USER_AGENT = f"doorman-client-python/{VERSION}"

BACKOFF_BASE_MS = 100
BACKOFF_CAP_MS = 2000


@dataclass(frozen=True)
class Call:
    method: str
    path: str
    params: Mapping[str, str] | None = None
    body: bytes | None = None
    headers: Mapping[str, str] | None = None
    # A status that is an answer for this call although not 2xx (ping(): /health's 503).
    accept_status: int | None = None


@dataclass(frozen=True)
class Answer:
    status: int
    body: JsonValue
    request_id: str | None
    attempts: int


class Deadline:
    """The end of a call's budget, on the monotonic clock: every attempt and wait fits before it."""

    def __init__(self, budget_ms: int) -> None:
        self.end = time.monotonic() + budget_ms / 1000

    def remaining_s(self) -> float:
        return self.end - time.monotonic()


def build_request(http: httpx.Client | httpx.AsyncClient, settings: Settings, call: Call, remaining_s: float) -> httpx.Request:
    headers = {
        "Authorization": f"Bearer {settings.secret_key}",
        "Accept": "application/json",
        "User-Agent": USER_AGENT,
    }
    if call.body is not None:
        headers["Content-Type"] = "application/json"
    headers.update(call.headers or {})
    return http.build_request(
        call.method,
        settings.base_url + call.path,
        params=dict(call.params) if call.params else None,
        content=call.body,
        headers=headers,
        # Each phase (connect, write, read, pool) may take at most what is left of the budget.
        timeout=httpx.Timeout(max(remaining_s, 0.001)),
    )


def answer_or_error(response: httpx.Response, call: Call, attempts: int) -> Answer | DoormanError:
    status = response.status_code
    request_id = response.headers.get("x-request-id")
    if 300 <= status < 400:
        where = response.headers.get("location")
        return DoormanError(
            "configuration",
            f"Doorman answered {status} with a redirect{f' to {where}' if where else ''}, which the client never "
            "follows (the secret key would go along): set base_url to where it points",
            status=status,
            request_id=request_id,
        )
    if 200 <= status < 300 or status == call.accept_status:
        try:
            body = cast(JsonValue, json.loads(response.content))
        except ValueError as err:
            invalid = DoormanError(
                "invalid_response",
                f"Doorman's answer ({status}) is not JSON: {err}",
                status=status,
                request_id=request_id,
            )
            invalid.__cause__ = err
            return invalid
        return Answer(status=status, body=body, request_id=request_id, attempts=attempts)
    return error_from_answer(status, response.content, request_id, response.headers.get("retry-after"))


def timeout_error() -> DoormanError:
    return DoormanError("timeout", "no answer from Doorman within the time budget")


def error_from_exception(exc: BaseException) -> DoormanError:
    """A request that got no answer: a configuration that can never work, a timeout, or a network
    failure that a retry may get past."""
    if isinstance(exc, (httpx.TimeoutException, TimeoutError)):
        error = timeout_error()
    else:
        problem = configuration_problem(exc)
        if problem is not None:
            error = DoormanError("configuration", f"Doorman cannot be reached as configured: {problem}")
        else:
            error = DoormanError("network", f"cannot reach Doorman: {describe(exc)}")
    error.__cause__ = exc
    return error


def causes(exc: BaseException) -> list[BaseException]:
    """The exception and what it was raised from (httpx wraps httpcore, which wraps the OSError)."""
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain and len(chain) < 10:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


# https to a port that speaks plain http: OpenSSL's reason, by version.
PLAIN_HTTP_REASONS = ("WRONG_VERSION_NUMBER", "RECORD_LAYER_FAILURE", "PACKET_LENGTH_TOO_LONG", "HTTP_REQUEST", "UNKNOWN_PROTOCOL")


def configuration_problem(exc: BaseException) -> str | None:
    """Failures that repeat identically on every attempt until the configuration changes, with
    what to check."""
    for cause in causes(exc):
        if isinstance(cause, (httpx.UnsupportedProtocol, httpx.InvalidURL)):
            return f"base_url cannot be requested ({cause})"
        if isinstance(cause, socket.gaierror) and cause.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", socket.EAI_NONAME)):
            # A temporary DNS failure (EAI_AGAIN) is a network error, and retried.
            return f"the host of base_url does not resolve (DNS: {cause.strerror})"
        if isinstance(cause, ssl.SSLCertVerificationError):
            return f"the server's TLS certificate cannot be trusted: {cause.verify_message or cause.reason} (pass an httpx client with verify= set to your CA to trust it)"
        if isinstance(cause, ssl.SSLError) and (cause.reason or "") in PLAIN_HTTP_REASONS:
            return f"base_url says https but the server speaks plain http ({cause.reason})"
    return None


def describe(exc: BaseException) -> str:
    for cause in reversed(causes(exc)):
        if isinstance(cause, OSError) and cause.strerror:
            return cause.strerror
    return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__


def backoff_ms(retry: int) -> int:
    """Exponential with jitter (half fixed, half random), so clients that failed together do not
    come back together."""
    ceiling: int = min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * (1 << min(retry, 16)))
    return round(ceiling / 2 + random.random() * ceiling / 2)


def next_delay_ms(error: DoormanError, retry: int, max_retries: int, deadline: Deadline) -> int | None:
    """How long to wait before the next attempt, or None to give up now."""
    if not error.retryable or retry >= max_retries:
        return None
    # Doorman sends retry-after with a 429, and with a 503 while a fresh instance warms up.
    delay = error.retry_after_ms if error.retry_after_ms is not None else backoff_ms(retry)
    # A wait that would end past the budget cannot help: honour retry-after by giving up.
    if delay / 1000 >= deadline.remaining_s():
        return None
    return delay


M = TypeVar("M", bound=BaseModel)


def parse(model: type[M], answer: Answer, what: str) -> M:
    """The answer as the contract's model, or ``invalid_response`` naming what did not fit."""
    try:
        return model.model_validate(answer.body)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the body"
        invalid = DoormanError(
            "invalid_response",
            f"{what} is not the contract's {model.__name__} ({where}: {first['msg']})",
            status=answer.status,
            request_id=answer.request_id,
        )
        invalid.attempts = answer.attempts
        invalid.__cause__ = err
        raise invalid from err

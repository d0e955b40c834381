"""The asynchronous client: ``AsyncDoormanClient(secret_key=..., base_url=...)``, for asyncio
(FastAPI, Starlette, aiohttp) and anything else anyio runs on.

The same calls, options, results and errors as ``DoormanClient``; each call is awaited, and
``events.list()`` / ``events.pages()`` are async iterators. Cancelling the task cancels the call.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from types import TracebackType
from urllib.parse import quote

import anyio
import httpx

from ._calls import Answer, Call, Deadline, answer_or_error, build_request, error_from_exception, next_delay_ms, parse, timeout_error
from ._config import Mode, OnRetry, RetryInfo, Settings, check_budget, check_retries, check_settings
from ._generated.answers import EventList, FeedbackResponse, StoredEvent
from ._generated.known_values import EventType, FeedbackOutcome, Verdict
from ._generated.requests import FeedbackSubject, VerdictRequest
from ._shared import FeedbackReceipt, PingResult, attach_body, events_query, feedback_body, health_from
from .errors import DoormanError
from .screening import ScreenResult, body_of, fail_open_or_raise, idempotency_key_of, screened_from


class AsyncDoormanClient:
    """Doorman's server-side client for async code. The configuration is checked here, and a
    mistake raises ValueError saying what is wrong. The options are ``DoormanClient``'s;
    ``http_client`` is an ``httpx.AsyncClient``."""

    def __init__(
        self,
        *,
        secret_key: str,
        base_url: str,
        screen_timeout_ms: int = 2000,
        timeout_ms: int = 10_000,
        ping_timeout_ms: int = 3000,
        max_retries: int = 2,
        on_retry: OnRetry | None = None,
        fail_open_on_configuration_error: bool = False,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._settings: Settings = check_settings(
            secret_key=secret_key,
            base_url=base_url,
            screen_timeout_ms=screen_timeout_ms,
            timeout_ms=timeout_ms,
            ping_timeout_ms=ping_timeout_ms,
            max_retries=max_retries,
            on_retry=on_retry,
            fail_open_on_configuration_error=fail_open_on_configuration_error,
        )
        self._owns_http = http_client is None
        self._http = http_client if http_client is not None else httpx.AsyncClient(follow_redirects=False)
        self.events = AsyncEvents(self)
        self.feedback = AsyncFeedback(self)

    @property
    def mode(self) -> Mode:
        """``live`` or ``test``, from the key."""
        return self._settings.mode

    async def screen(
        self,
        event: VerdictRequest,
        *,
        idempotency_key: str | None = None,
        fail_open: bool = True,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> ScreenResult:
        """As ``DoormanClient.screen()``."""
        key = idempotency_key_of(idempotency_key)
        call = Call("POST", "/v1/verdict", body=body_of(event), headers={"Idempotency-Key": key})
        try:
            answer = await self._send(call, self._budget(timeout_ms, self._settings.screen_timeout_ms), max_retries)
            return screened_from(answer, key)
        except DoormanError as err:
            return fail_open_or_raise(err, key, fail_open, self._settings.fail_open_on_configuration_error)

    async def ping(self, *, timeout_ms: int | None = None, max_retries: int | None = None) -> PingResult:
        """As ``DoormanClient.ping()``: both requests within ``ping_timeout_ms`` (3000 ms) unless
        ``timeout_ms`` is given."""
        started = time.monotonic()
        deadline = self._budget(timeout_ms, self._settings.ping_timeout_ms)
        health = health_from(await self._send(Call("GET", "/health", accept_status=503), deadline, max_retries), self._settings.base_url)
        await self._send(Call("GET", "/v1/events", params=events_query(1, None, None, None)), deadline, max_retries)
        return PingResult(
            status=health.status,
            checks=health.checks,
            mode=self._settings.mode,
            latency_ms=round((time.monotonic() - started) * 1000),
        )

    async def aclose(self) -> None:
        """Closes the connections, unless the httpx client was yours."""
        if self._owns_http:
            await self._http.aclose()

    async def __aenter__(self) -> AsyncDoormanClient:
        return self

    async def __aexit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        await self.aclose()

    def _budget(self, timeout_ms: int | None, default_ms: int) -> Deadline:
        return Deadline(default_ms if timeout_ms is None else check_budget("timeout_ms", timeout_ms))

    async def _send(self, call: Call, deadline: Deadline, max_retries: int | None) -> Answer:
        retries = self._settings.max_retries if max_retries is None else check_retries(max_retries)
        retry = 0
        while True:
            outcome = await self._attempt(call, deadline, retry + 1)
            if isinstance(outcome, Answer):
                return outcome
            outcome.attempts = retry + 1
            delay_ms = next_delay_ms(outcome, retry, retries, deadline)
            if delay_ms is None:
                raise outcome
            retry += 1
            if self._settings.on_retry is not None:
                self._settings.on_retry(RetryInfo(retry=retry, delay_ms=delay_ms, error=outcome))
            await anyio.sleep(delay_ms / 1000)

    async def _attempt(self, call: Call, deadline: Deadline, attempts: int) -> Answer | DoormanError:
        remaining = deadline.remaining_s()
        if remaining <= 0:
            return timeout_error()
        request = build_request(self._http, self._settings, call, remaining)
        try:
            # httpx's timeouts bound each phase; this bounds the whole attempt, a slow trickle too.
            with anyio.fail_after(remaining):
                response = await self._http.send(request, follow_redirects=False)
        except (httpx.HTTPError, OSError) as exc:
            # TimeoutError (anyio's deadline) is an OSError: error_from_exception names it a timeout.
            return error_from_exception(exc)
        return answer_or_error(response, call, attempts)


class AsyncEvents:
    """As ``DoormanClient.events``, awaited; ``list()`` and ``pages()`` are async iterators."""

    def __init__(self, client: AsyncDoormanClient) -> None:
        self._client = client

    async def pages(
        self,
        *,
        limit: int | None = None,
        event_type: EventType | None = None,
        verdict: Verdict | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> AsyncIterator[EventList]:
        cursor: str | None = None
        while True:
            query = events_query(limit, event_type, verdict, cursor)
            client = self._client
            answer = await client._send(
                Call("GET", "/v1/events", params=query), client._budget(timeout_ms, client._settings.timeout_ms), max_retries
            )
            page = parse(EventList, answer, "GET /v1/events")
            yield page
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    async def list(
        self,
        *,
        limit: int | None = None,
        event_type: EventType | None = None,
        verdict: Verdict | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> AsyncIterator[StoredEvent]:
        async for page in self.pages(limit=limit, event_type=event_type, verdict=verdict, timeout_ms=timeout_ms, max_retries=max_retries):
            for event in page.events:
                yield event

    async def get(self, event_id: str, *, timeout_ms: int | None = None, max_retries: int | None = None) -> StoredEvent:
        client = self._client
        answer = await client._send(
            Call("GET", f"/v1/events/{quote(event_id, safe='')}"), client._budget(timeout_ms, client._settings.timeout_ms), max_retries
        )
        return parse(StoredEvent, answer, f"GET /v1/events/{event_id}")

    async def attach_user(
        self, event_id: str, external_user_id: str, *, timeout_ms: int | None = None, max_retries: int | None = None
    ) -> None:
        client = self._client
        await client._send(
            Call("PATCH", f"/v1/events/{quote(event_id, safe='')}", body=attach_body(external_user_id)),
            client._budget(timeout_ms, client._settings.timeout_ms),
            max_retries,
        )


class AsyncFeedback:
    def __init__(self, client: AsyncDoormanClient) -> None:
        self._client = client

    async def report(
        self,
        *,
        subject: FeedbackSubject,
        outcome: FeedbackOutcome,
        note: str | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> FeedbackReceipt:
        client = self._client
        answer = await client._send(
            Call("POST", "/v1/feedback", body=feedback_body(subject, outcome, note)),
            client._budget(timeout_ms, client._settings.timeout_ms),
            max_retries,
        )
        receipt = parse(FeedbackResponse, answer, "POST /v1/feedback")
        return FeedbackReceipt(ok=True, duplicate=receipt.duplicate is True)

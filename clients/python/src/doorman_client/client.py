"""The synchronous client: ``DoormanClient(secret_key=..., base_url=...)``.

``screen()`` for the inline verdict call, ``ping()`` for a start-up check, ``events`` (list, pages,
get, attach_user) and ``feedback.report()``, all retried by the contract's rules. Safe to share
between threads (one per process is enough). ``AsyncDoormanClient`` is the same for asyncio.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from types import TracebackType
from urllib.parse import quote

import httpx

from ._calls import Answer, Call, Deadline, answer_or_error, build_request, error_from_exception, next_delay_ms, parse, timeout_error
from ._config import Mode, OnRetry, RetryInfo, Settings, check_budget, check_retries, check_settings
from ._generated.answers import EventList, FeedbackResponse, StoredEvent
from ._generated.known_values import EventType, FeedbackOutcome, Verdict
from ._generated.requests import FeedbackSubject, VerdictRequest
from ._shared import FeedbackReceipt, PingResult, attach_body, events_query, feedback_body, health_from
from .errors import DoormanError
from .screening import ScreenResult, body_of, fail_open_or_raise, idempotency_key_of, screened_from


class DoormanClient:
    """Doorman's server-side client. The configuration is checked here, and a mistake raises
    ValueError saying what is wrong."""

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
        http_client: httpx.Client | None = None,
    ) -> None:
        """
        :param secret_key: ``sk_live_...`` or ``sk_test_...``: server-side only. The key alone
            decides the tenant and the mode.
        :param base_url: where your Doorman listens, e.g. ``https://doorman.internal.example``
            (a path prefix is kept).
        :param screen_timeout_ms: ``screen()``'s whole budget, retries and waits included: it
            runs while your user waits.
        :param timeout_ms: the budget of ``events`` and ``feedback`` calls.
        :param ping_timeout_ms: ``ping()``'s budget, both of its requests together: a server that
            accepts and never answers holds a start-up check this long, no longer.
        :param max_retries: retries after the first request, within the budget.
        :param on_retry: called before each retry with a ``RetryInfo`` (``retry``, ``delay_ms``,
            ``error``), e.g. to log it.
        :param fail_open_on_configuration_error: when Doorman cannot be reached as configured
            (the host does not resolve, a redirect, https to a plain-http port, an untrusted
            certificate), ``screen()`` raises DoormanError kind ``configuration`` at once, by
            default: such a failure repeats on every call until someone fixes it. True: return
            a fail-open ``allow`` with reason ``configuration_error`` instead (also at once).
        :param http_client: an ``httpx.Client`` of your own (proxies, your CA, mTLS). The client
            never follows a redirect with it, and does not close it.
        """
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
        self._http = http_client if http_client is not None else httpx.Client(follow_redirects=False)
        self.events = Events(self)
        self.feedback = Feedback(self)

    @property
    def mode(self) -> Mode:
        """``live`` or ``test``, from the key."""
        return self._settings.mode

    def screen(
        self,
        event: VerdictRequest,
        *,
        idempotency_key: str | None = None,
        fail_open: bool = True,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> ScreenResult:
        """Screens one funnel moment and returns the verdict (``Screened``), or a fail-open
        ``allow`` (``FailedOpen``) when Doorman is slow, down, or answers 429/5xx past the budget.

        :param idempotency_key: your key for this attempt (1 to 255 characters); by default a
            fresh UUID. Reuse it only to resend the identical event: a changed event under the
            same key is 409 ``idempotency_conflict``, raised.
        :param fail_open: False raises the DoormanError instead of failing open. Your own
            mistakes (400, 401, 404, 409) are always raised, and so is a configuration error
            unless the client has ``fail_open_on_configuration_error``.
        """
        key = idempotency_key_of(idempotency_key)
        call = Call("POST", "/v1/verdict", body=body_of(event), headers={"Idempotency-Key": key})
        try:
            answer = self._send(call, self._budget(timeout_ms, self._settings.screen_timeout_ms), max_retries)
            return screened_from(answer, key)
        except DoormanError as err:
            return fail_open_or_raise(err, key, fail_open, self._settings.fail_open_on_configuration_error)

    def ping(self, *, timeout_ms: int | None = None, max_retries: int | None = None) -> PingResult:
        """A start-up check that screens nothing: Doorman answers at base_url (``GET /health``; a
        503 is an answer, ``status`` ``unavailable``), and it accepts the secret key (the cheapest
        authenticated call, ``GET /v1/events?limit=1``). Raises DoormanError otherwise. Both
        requests share one budget, ``ping_timeout_ms`` (3000 ms) unless ``timeout_ms`` is given."""
        started = time.monotonic()
        deadline = self._budget(timeout_ms, self._settings.ping_timeout_ms)
        health = health_from(self._send(Call("GET", "/health", accept_status=503), deadline, max_retries), self._settings.base_url)
        self._send(Call("GET", "/v1/events", params=events_query(1, None, None, None)), deadline, max_retries)
        return PingResult(
            status=health.status,
            checks=health.checks,
            mode=self._settings.mode,
            latency_ms=round((time.monotonic() - started) * 1000),
        )

    def close(self) -> None:
        """Closes the connections, unless the httpx client was yours."""
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> DoormanClient:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None) -> None:
        self.close()

    def _budget(self, timeout_ms: int | None, default_ms: int) -> Deadline:
        return Deadline(default_ms if timeout_ms is None else check_budget("timeout_ms", timeout_ms))

    def _send(self, call: Call, deadline: Deadline, max_retries: int | None) -> Answer:
        retries = self._settings.max_retries if max_retries is None else check_retries(max_retries)
        retry = 0
        while True:
            outcome = self._attempt(call, deadline, retry + 1)
            if isinstance(outcome, Answer):
                return outcome
            outcome.attempts = retry + 1
            delay_ms = next_delay_ms(outcome, retry, retries, deadline)
            if delay_ms is None:
                raise outcome
            retry += 1
            if self._settings.on_retry is not None:
                self._settings.on_retry(RetryInfo(retry=retry, delay_ms=delay_ms, error=outcome))
            time.sleep(delay_ms / 1000)

    def _attempt(self, call: Call, deadline: Deadline, attempts: int) -> Answer | DoormanError:
        remaining = deadline.remaining_s()
        if remaining <= 0:
            return timeout_error()
        request = build_request(self._http, self._settings, call, remaining)
        try:
            response = self._http.send(request, follow_redirects=False)
        except (httpx.HTTPError, OSError) as exc:
            return error_from_exception(exc)
        return answer_or_error(response, call, attempts)


class Events:
    """Stored events. These calls are idempotent, so 429 and 5xx are retried like the verdict
    call, within ``timeout_ms``; they never fail open."""

    def __init__(self, client: DoormanClient) -> None:
        self._client = client

    def pages(
        self,
        *,
        limit: int | None = None,
        event_type: EventType | None = None,
        verdict: Verdict | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> Iterator[EventList]:
        """Every matching event, newest first, a page (``limit``, default 50) at a time, following
        ``next_cursor`` until it no longer appears. Each page has its own budget."""
        cursor: str | None = None
        while True:
            query = events_query(limit, event_type, verdict, cursor)
            client = self._client
            answer = client._send(
                Call("GET", "/v1/events", params=query), client._budget(timeout_ms, client._settings.timeout_ms), max_retries
            )
            page = parse(EventList, answer, "GET /v1/events")
            yield page
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    def list(
        self,
        *,
        limit: int | None = None,
        event_type: EventType | None = None,
        verdict: Verdict | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> Iterator[StoredEvent]:
        """Every matching event, newest first; leaving the loop stops the paging."""
        for page in self.pages(limit=limit, event_type=event_type, verdict=verdict, timeout_ms=timeout_ms, max_retries=max_retries):
            yield from page.events

    def get(self, event_id: str, *, timeout_ms: int | None = None, max_retries: int | None = None) -> StoredEvent:
        """A 404 (an unknown id, or another tenant's or mode's) raises DoormanError code ``not_found``."""
        client = self._client
        answer = client._send(
            Call("GET", f"/v1/events/{quote(event_id, safe='')}"), client._budget(timeout_ms, client._settings.timeout_ms), max_retries
        )
        return parse(StoredEvent, answer, f"GET /v1/events/{event_id}")

    def attach_user(self, event_id: str, external_user_id: str, *, timeout_ms: int | None = None, max_retries: int | None = None) -> None:
        """Binds your user id to the event, write-once: the same id again is fine, another raises
        DoormanError 409 ``conflict``."""
        client = self._client
        client._send(
            Call("PATCH", f"/v1/events/{quote(event_id, safe='')}", body=attach_body(external_user_id)),
            client._budget(timeout_ms, client._settings.timeout_ms),
            max_retries,
        )


class Feedback:
    def __init__(self, client: DoormanClient) -> None:
        self._client = client

    def report(
        self,
        *,
        subject: FeedbackSubject,
        outcome: FeedbackOutcome,
        note: str | None = None,
        timeout_ms: int | None = None,
        max_retries: int | None = None,
    ) -> FeedbackReceipt:
        """Reports what happened. Doorman deduplicates an identical (subject, outcome), so a retry is
        safe (``duplicate``). A subject that resolves to nothing raises DoormanError ``not_found``."""
        client = self._client
        answer = client._send(
            Call("POST", "/v1/feedback", body=feedback_body(subject, outcome, note)),
            client._budget(timeout_ms, client._settings.timeout_ms),
            max_retries,
        )
        receipt = parse(FeedbackResponse, answer, "POST /v1/feedback")
        return FeedbackReceipt(ok=True, duplicate=receipt.duplicate is True)

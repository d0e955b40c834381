"""screen()'s promises, each shown with the sync and the async client against real loopback
servers: one Idempotency-Key and the same bytes on every retry, the time budget, fail-open and
its reasons, configuration errors raised at once, and the request as sent."""

from __future__ import annotations

import json
import pickle
import shutil
import ssl
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from doorman_client import AsyncDoormanClient, DoormanClient, DoormanError, FailedOpen, RetryInfo, Screened, ScreenResult
from doorman_client.types import VerdictRequest

from .support import KEY, Received, Reply, a_signup, reply, silent_server, stand_in, stopped_server_url

VERDICT = {"id": "evt_1", "verdict": "allow", "reasons": [], "policy_version": "2026-11-20.4"}


def screen_with(
    kind: str, base_url: str, event: VerdictRequest | None = None, options: dict[str, object] | None = None, **screen: object
) -> ScreenResult:
    """screen() once with the sync or the async client."""
    settings: dict[str, object] = {"secret_key": KEY, "base_url": base_url, **(options or {})}
    request = event or a_signup()
    if kind == "sync":
        with DoormanClient(**settings) as doorman:  # type: ignore[arg-type]
            return doorman.screen(request, **screen)  # type: ignore[arg-type]

    async def run_async() -> ScreenResult:
        async with AsyncDoormanClient(**settings) as doorman:  # type: ignore[arg-type]
            return await doorman.screen(request, **screen)  # type: ignore[arg-type]

    return anyio.run(run_async)


def screen_both(
    base_url: str, event: VerdictRequest | None = None, options: dict[str, object] | None = None, **screen: object
) -> list[ScreenResult]:
    """screen() once with the sync client and once with the async one, the same way."""
    return [screen_with(kind, base_url, event, options, **screen) for kind in ("sync", "async")]


def raised_both(base_url: str, options: dict[str, object] | None = None, **screen: object) -> list[DoormanError]:
    errors: list[DoormanError] = []
    settings: dict[str, object] = {"secret_key": KEY, "base_url": base_url, **(options or {})}
    with DoormanClient(**settings) as doorman, pytest.raises(DoormanError) as sync_raised:  # type: ignore[arg-type]
        doorman.screen(a_signup(), **screen)  # type: ignore[arg-type]
    errors.append(sync_raised.value)

    async def run_async() -> None:
        async with AsyncDoormanClient(**settings) as doorman:  # type: ignore[arg-type]
            await doorman.screen(a_signup(), **screen)  # type: ignore[arg-type]

    with pytest.raises(DoormanError) as async_raised:
        anyio.run(run_async)
    errors.append(async_raised.value)
    return errors


def answers(*replies: Reply) -> Callable[[Received], Reply]:
    """The replies in order, the last one for every later request."""
    left = list(replies)

    def respond(_: Received) -> Reply:
        return left.pop(0) if len(left) > 1 else left[0]

    return respond


def test_retries_send_the_same_key_and_the_same_bytes() -> None:
    for kind in ("sync", "async"):
        seen: list[RetryInfo] = []
        with stand_in(answers(reply(0), reply(503, {"error": "internal", "message": "x"}), reply(200, VERDICT))) as server:
            result = screen_with(kind, server.url, options={"on_retry": seen.append})
            mine = server.received
        assert isinstance(result, Screened), result
        assert len(mine) == 3
        assert len({r.headers["idempotency-key"] for r in mine}) == 1
        assert len({r.body for r in mine}) == 1
        assert result.idempotency_key == mine[0].headers["idempotency-key"]
        assert [(info.retry, info.error.kind) for info in seen] == [(1, "network"), (2, "response")]
        assert all(0 < info.delay_ms <= 200 for info in seen)


def test_a_fresh_key_per_call_and_the_callers_key_when_given() -> None:
    with stand_in(lambda _: reply(200, VERDICT)) as server:
        results = screen_both(server.url) + screen_both(server.url, idempotency_key="signup-attempt-7")
        keys = [r.headers["idempotency-key"] for r in server.received]
    assert len(set(keys[:2])) == 2 and all(len(k) == 36 for k in keys[:2])
    assert keys[2:] == ["signup-attempt-7", "signup-attempt-7"]
    assert [r.idempotency_key for r in results] == keys


@pytest.mark.parametrize("key", ["", "k" * 256])
def test_an_empty_or_over_long_key_is_refused(key: str) -> None:
    with stand_in(lambda _: reply(200, VERDICT)) as server, DoormanClient(secret_key=KEY, base_url=server.url) as doorman:
        with pytest.raises(ValueError, match="1 to 255 characters"):
            doorman.screen(a_signup(), idempotency_key=key)
        assert doorman.screen(a_signup(), idempotency_key="k" * 255).failed_open is False
        assert len(server.received) == 1


def test_the_body_leaves_out_none_and_keeps_everything_else() -> None:
    event: VerdictRequest = {
        "event_type": "checkout_attempt",
        "ip": "2001:db8::1",
        "email": "zoë@example.com",
        "user_agent": None,
        "device_token": None,
        "payment": {"amount": 4900, "currency": "usd", "card_country": None},
        "context": {"plan": "pro", "note": None},
    }
    with stand_in(lambda _: reply(200, VERDICT)) as server:
        screen_both(server.url, event)
        bodies = [r.body for r in server.received]
        headers = server.received[0].headers
    assert bodies[0] == bodies[1]
    assert json.loads(bodies[0]) == {
        "event_type": "checkout_attempt",
        "ip": "2001:db8::1",
        "email": "zoë@example.com",
        "payment": {"amount": 4900, "currency": "usd"},
        "context": {"plan": "pro", "note": None},
    }
    assert headers["authorization"] == f"Bearer {KEY}"
    assert headers["content-type"] == "application/json"
    assert server.received[0].path == "/v1/verdict"


def test_a_base_url_path_prefix_is_kept() -> None:
    with stand_in(lambda _: reply(200, VERDICT)) as server:
        screen_both(server.url + "/doorman/")
        assert [r.path for r in server.received] == ["/doorman/v1/verdict"] * 2


def test_a_server_that_never_answers_fails_open_within_the_budget() -> None:
    with silent_server() as url:
        started = time.monotonic()
        results = screen_both(url, options={"screen_timeout_ms": 300})
        elapsed = time.monotonic() - started
    for result in results:
        assert isinstance(result, FailedOpen)
        assert (result.reason, result.error.kind, result.verdict, result.reasons) == ("timeout", "timeout", "allow", ())
    assert elapsed < 2 * 0.3 + 0.5, f"two calls of 300 ms took {elapsed:.2f} s"


def test_a_stopped_server_fails_open_after_the_retries() -> None:
    for result in screen_both(stopped_server_url()):
        assert isinstance(result, FailedOpen)
        assert (result.reason, result.error.kind, result.error.attempts, result.error.retryable) == ("network_error", "network", 3, True)


def test_fail_open_false_raises_instead() -> None:
    for error in raised_both(stopped_server_url(), fail_open=False):
        assert error.kind == "network"


def test_an_unreadable_200_is_retried_and_a_wrong_shape_is_not() -> None:
    for kind in ("sync", "async"):
        with stand_in(answers(reply(200, "<html>maintenance</html>"), reply(200, VERDICT))) as server:
            assert isinstance(screen_with(kind, server.url), Screened)
            assert len(server.received) == 2
    with stand_in(lambda _: reply(200, {"id": "evt_1", "verdict": 7, "reasons": []})) as server:
        for result in screen_both(server.url):
            assert isinstance(result, FailedOpen) and result.reason == "invalid_response"
            assert "verdict" in str(result.error)
        assert len(server.received) == 2


def test_a_redirect_is_never_followed_and_never_retried() -> None:
    with stand_in(lambda _: reply(200, VERDICT)) as target:
        with stand_in(lambda _: reply(307, {}, {"Location": target.url + "/v1/verdict"})) as server:
            for error in raised_both(server.url):
                assert (error.kind, error.status, error.attempts, error.retryable) == ("configuration", 307, 1, False)
                assert "redirect" in str(error) and target.url in str(error)
            for result in screen_both(server.url, options={"fail_open_on_configuration_error": True}):
                assert isinstance(result, FailedOpen) and result.reason == "configuration_error"
            assert len(server.received) == 4
        assert target.received == []  # the key never went along


def test_a_host_that_does_not_resolve_is_a_configuration_error() -> None:
    # .invalid never resolves (RFC 6761).
    for error in raised_both("http://doorman.invalid"):
        assert (error.kind, error.attempts) == ("configuration", 1)
        assert "does not resolve" in str(error)


def test_https_to_a_plain_http_port_is_a_configuration_error() -> None:
    with stand_in(lambda _: reply(200, VERDICT)) as server:
        for error in raised_both(server.url.replace("http://", "https://")):
            assert (error.kind, error.attempts) == ("configuration", 1)
            assert "plain http" in str(error)


@contextmanager
def self_signed_server(tmp_path: Path) -> Iterator[str]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("openssl is not installed: cannot make a self-signed certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            openssl,
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.send_response(200)
            self.end_headers()

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def test_an_untrusted_certificate_is_a_configuration_error(tmp_path: Path) -> None:
    with self_signed_server(tmp_path) as url:
        for error in raised_both(url):
            assert (error.kind, error.attempts) == ("configuration", 1)
            assert "certificate" in str(error)


def test_your_own_mistakes_raise_even_with_fail_open() -> None:
    body = {"error": "invalid_request", "message": "bad", "details": {"issues": [{"path": "/ip", "message": "is required"}]}}
    with stand_in(lambda _: reply(400, body, {"X-Request-Id": "req_1"})) as server:
        for error in raised_both(server.url):
            assert (error.kind, error.status, error.code, error.request_id, error.attempts) == (
                "response",
                400,
                "invalid_request",
                "req_1",
                1,
            )
            assert [(i.path, i.message) for i in error.issues] == [("/ip", "is required")]
            assert "invalid_request: bad" in str(error)
            # Pickled (a task queue, a process pool), it keeps its fields.
            copy = pickle.loads(pickle.dumps(error))
            assert (copy.kind, copy.status, copy.code, copy.request_id, copy.issues, str(copy)) == (
                error.kind,
                error.status,
                error.code,
                error.request_id,
                error.issues,
                str(error),
            )
        assert len(server.received) == 2


def test_a_per_call_budget_and_retry_count_override_the_clients() -> None:
    with stand_in(lambda _: reply(500, {"error": "internal", "message": "x"})) as server:
        for result in screen_both(server.url, max_retries=0):
            assert isinstance(result, FailedOpen) and result.error.attempts == 1
    with silent_server() as url:
        started = time.monotonic()
        for result in screen_both(url, options={"screen_timeout_ms": 5000}, timeout_ms=200):
            assert isinstance(result, FailedOpen) and result.reason == "timeout"
        assert time.monotonic() - started < 1.5


@pytest.mark.anyio
async def test_cancelling_the_task_cancels_the_call() -> None:
    with silent_server() as url:
        async with AsyncDoormanClient(secret_key=KEY, base_url=url, screen_timeout_ms=10_000) as doorman:
            started = time.monotonic()
            with anyio.move_on_after(0.2) as scope:
                await doorman.screen(a_signup())
            assert scope.cancelled_caught
            assert time.monotonic() - started < 1

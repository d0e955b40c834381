"""Integration tests against a real Doorman (npm test runs them through
test/client/python-client.test.ts): the README's example as written, fail-open against a stopped
and a silent server, retries across a real 503 with retry-after, idempotent replay, events and
feedback, a real webhook delivery verified by the README's receiver during a secret rotation,
and the generated types against the served document.

They read DOORMAN_BASE_URL, DOORMAN_SECRET_KEY, DOORMAN_REVIEW_IP, DOORMAN_FLAKY_URL and
DOORMAN_CONTROL_URL, and are skipped without DOORMAN_BASE_URL.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar, cast

import anyio
import httpx
import pytest
from flask import Flask
from werkzeug.serving import make_server

from doorman_client import AsyncDoormanClient, DoormanClient, DoormanError, FailedOpen, RetryInfo, ReviewResolvedWebhook, Screened
from doorman_client.screening import body_of
from doorman_client.types import SignupRequest
from examples import quickstart

from .support import CLIENT_DIR, silent_server, stopped_server_url

if TYPE_CHECKING:
    from _typeshed.wsgi import StartResponse, WSGIEnvironment

BASE_URL = os.environ.get("DOORMAN_BASE_URL", "")
if BASE_URL == "":
    pytest.skip(
        "the integration tests need a real Doorman: run `npm test` (test/client/python-client.test.ts), or set "
        "DOORMAN_BASE_URL, DOORMAN_SECRET_KEY, DOORMAN_REVIEW_IP, DOORMAN_FLAKY_URL and DOORMAN_CONTROL_URL "
        "and run scripts/check.sh VENV_DIR",
        allow_module_level=True,
    )

T = TypeVar("T")


def env(name: str) -> str:
    value = os.environ.get(name, "")
    assert value, f"{name} is not set"
    return value


def control(method: str, path: str, body: dict[str, object] | None = None) -> dict[str, object]:
    answer = httpx.request(method, env("DOORMAN_CONTROL_URL") + path, json=body, timeout=10)
    assert answer.status_code == 200, answer.text
    return cast(dict[str, object], answer.json())


def doorman(**options: object) -> DoormanClient:
    return DoormanClient(secret_key=env("DOORMAN_SECRET_KEY"), base_url=BASE_URL, **options)  # type: ignore[arg-type]


# A domain the suite's DNS stand-in answers with an MX record, and addresses in none of its intel
# ranges (test/support/verdict-harness.ts: 203.0.113.0/24 is a Tor exit there), so an ordinary
# signup gives `allow`. Each test uses its own addresses, well under the per-address velocity.
DOMAIN = "shop-mail.com"


def signup(ip: str, external_user_id: str | None = None) -> SignupRequest:
    email = f"ada.{uuid.uuid4().hex[:8]}@{DOMAIN}"
    return {"event_type": "signup", "ip": ip, "email": email, "external_user_id": external_user_id}


def eventually(what: str, probe: Callable[[], T | None], within_s: float = 20) -> T:
    deadline = time.monotonic() + within_s
    while True:
        value = probe()
        if value is not None:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {within_s} s")
        time.sleep(0.1)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Receiver:
    url: str
    secrets: list[str]
    revoked: list[ReviewResolvedWebhook] = field(default_factory=list)
    created: list[str] = field(default_factory=list)
    signatures: list[str] = field(default_factory=list)


@contextmanager
def readme_app(client: DoormanClient) -> Iterator[Receiver]:
    """The quickstart's own Flask app (examples/quickstart.py: create_app, as the README shows it),
    served on loopback by werkzeug, trusting one proxy hop so a test can say which address a
    signup comes from. The signature header of each delivery is noted on the way in."""
    secrets: list[str] = []
    port = free_port()
    receiver = Receiver(url=f"http://127.0.0.1:{port}", secrets=secrets)
    app: Flask = quickstart.create_app(
        client, secrets, lambda user_id, email: receiver.created.append(user_id), receiver.revoked.append, trusted_proxies=1
    )

    def noting(environ: WSGIEnvironment, start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO") == "/webhooks/doorman":
            receiver.signatures.append(str(environ.get("HTTP_SERVICE_SIGNATURE", "")))
        return app(environ, start_response)

    server = make_server("127.0.0.1", port, noting, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()


def test_the_readme_quickstart_runs_as_written() -> None:
    """examples/quickstart.py started as the README says (`python examples/quickstart.py`): it pings,
    listens, and a signup through it is screened and stored under the user id it made."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "examples/quickstart.py"],
        cwd=CLIENT_DIR,
        env={
            **os.environ,
            "DOORMAN_URL": BASE_URL,
            "DOORMAN_SECRET_KEY": env("DOORMAN_SECRET_KEY"),
            "DOORMAN_WEBHOOK_SECRETS": "whsec_not_used_here",
            "PORT": str(port),
            "TRUSTED_PROXIES": "1",
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(cast(Iterable[str], process.stdout))), daemon=True)
    reader.start()
    try:

        def listening() -> bool | None:
            assert process.poll() is None, "the quickstart exited:\n" + "".join(lines)
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    return True
            except OSError:
                return None

        eventually("the quickstart listening", listening, within_s=15)
        assert any(line.startswith("doorman ok, test mode") for line in lines), "".join(lines)
        answer = httpx.post(
            f"http://127.0.0.1:{port}/signup",
            json={"email": f"grace.{uuid.uuid4().hex[:8]}@{DOMAIN}"},
            headers={"X-Forwarded-For": "100.64.10.21", "User-Agent": "integration/1"},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        user_id = answer.json()["user_id"]
        eventually("the created line", lambda: True if any(user_id in line for line in lines) else None, within_s=5)
        with doorman() as client:
            stored = next(event for event in client.events.list(limit=100) if event.external_user_id == user_id)
        assert (stored.event_type, stored.verdict) == ("signup", "allow"), [reason.code for reason in stored.reasons]
    finally:
        process.terminate()
        process.wait(timeout=10)
        reader.join(timeout=5)  # the pipe ends with the process
        if process.stdout is not None:
            process.stdout.close()


def test_fail_open_against_a_stopped_server_and_a_silent_one_within_the_default_budget() -> None:
    with DoormanClient(secret_key=env("DOORMAN_SECRET_KEY"), base_url=stopped_server_url()) as client:
        result = client.screen(signup("100.64.10.22"))
        assert isinstance(result, FailedOpen) and result.reason == "network_error" and result.error.attempts == 3
    with silent_server() as url:

        async def screen_async() -> object:
            async with AsyncDoormanClient(secret_key=env("DOORMAN_SECRET_KEY"), base_url=url) as client:
                return await client.screen(signup("100.64.10.22"))

        with DoormanClient(secret_key=env("DOORMAN_SECRET_KEY"), base_url=url) as client:
            started = time.monotonic()
            result = client.screen(signup("100.64.10.22"))
            elapsed = time.monotonic() - started
            assert isinstance(result, FailedOpen) and result.reason == "timeout"
            assert 1.9 < elapsed < 2.6, f"screen() took {elapsed:.2f} s against a silent server (budget 2000 ms)"

            started = time.monotonic()
            with pytest.raises(DoormanError) as raised:
                client.ping()
            elapsed = time.monotonic() - started
            assert raised.value.kind == "timeout"
            assert 2.9 < elapsed < 3.6, f"ping() took {elapsed:.2f} s against a silent server (budget 3000 ms)"
        started = time.monotonic()
        result_async = anyio.run(screen_async)
        assert isinstance(result_async, FailedOpen) and result_async.reason == "timeout"
        assert time.monotonic() - started < 2.6


def retry_through_flaky(kind: str, ip: str) -> None:
    control("POST", "/flaky", {"count": 1, "status": 503, "retry_after": "1"})
    retries: list[RetryInfo] = []
    event = signup(ip)
    options = {
        "secret_key": env("DOORMAN_SECRET_KEY"),
        "base_url": env("DOORMAN_FLAKY_URL"),
        "screen_timeout_ms": 5000,
        "on_retry": retries.append,
    }
    if kind == "sync":
        with DoormanClient(**options) as client:  # type: ignore[arg-type]
            result = client.screen(event)
    else:

        async def run() -> object:
            async with AsyncDoormanClient(**options) as client:  # type: ignore[arg-type]
                return await client.screen(event)

        result = anyio.run(run)  # type: ignore[assignment]
    assert isinstance(result, Screened), result
    assert [(r.retry, r.delay_ms, r.error.status) for r in retries] == [(1, 1000, 503)]
    seen = cast(list[dict[str, object]], control("GET", "/flaky")["requests"])
    assert [(r["method"], r["path"], r["status"]) for r in seen] == [("POST", "/v1/verdict", 503), ("POST", "/v1/verdict", 200)]
    assert {r["idempotency_key"] for r in seen} == {result.idempotency_key}
    assert {r["body_sha256"] for r in seen} == {hashlib.sha256(body_of(event)).hexdigest()}
    with doorman() as client:
        stored = client.events.get(result.id)
    assert (stored.id, stored.verdict, stored.event_type) == (result.id, result.verdict, "signup")


def test_a_503_with_retry_after_is_retried_with_the_same_key_and_bytes() -> None:
    retry_through_flaky("sync", "100.64.10.23")
    retry_through_flaky("async", "100.64.10.24")


def test_idempotent_replay_and_conflict() -> None:
    key = f"signup-{uuid.uuid4()}"
    event = signup("100.64.10.25", external_user_id=f"user_{uuid.uuid4().hex[:8]}")
    with doorman() as client:
        first = client.screen(event, idempotency_key=key)
        again = client.screen(event, idempotency_key=key)
        assert isinstance(first, Screened) and isinstance(again, Screened)
        assert (again.id, again.verdict) == (first.id, first.verdict)
        changed: SignupRequest = {**event, "user_agent": "a different agent"}
        with pytest.raises(DoormanError) as raised:
            client.screen(changed, idempotency_key=key)  # fail-open is on: a 409 is raised all the same
        assert (raised.value.status, raised.value.code, raised.value.attempts) == (409, "idempotency_conflict", 1)


def test_ping_events_and_feedback_against_the_real_server() -> None:
    with doorman() as client:
        ping = client.ping()
        assert (ping.status, ping.mode) == ("ok", "test")
        result = client.screen(signup("100.64.10.26"))
        assert isinstance(result, Screened)
        client.events.attach_user(result.id, "user_first")
        client.events.attach_user(result.id, "user_first")  # the same again is fine
        with pytest.raises(DoormanError) as raised:
            client.events.attach_user(result.id, "user_second")
        assert (raised.value.status, raised.value.code) == (409, "conflict")
        assert client.events.get(result.id).external_user_id == "user_first"
        first = client.feedback.report(subject={"kind": "event_id", "value": result.id}, outcome="false_positive")
        again = client.feedback.report(subject={"kind": "event_id", "value": result.id}, outcome="false_positive")
        assert (first.duplicate, again.duplicate) == (False, True)
        with pytest.raises(DoormanError) as missing:
            client.events.get("evt_does_not_exist")
        assert (missing.value.status, missing.value.code) == (404, "not_found")
        assert len(list(client.events.pages(limit=1))) >= 2


def test_a_real_delivery_is_verified_by_the_readme_receiver_during_a_rotation() -> None:
    with doorman() as client, readme_app(client) as receiver:
        old = str(control("POST", "/webhook", {"url": receiver.url + "/webhooks/doorman"})["secret"])
        receiver.secrets.append(old)  # the receiver holds the OLD secret only
        new = str(control("POST", "/webhook", {"url": receiver.url + "/webhooks/doorman"})["secret"])
        assert new != old

        answer = httpx.post(
            receiver.url + "/signup",
            json={"email": f"mallory.{uuid.uuid4().hex[:8]}@{DOMAIN}"},
            headers={"X-Forwarded-For": env("DOORMAN_REVIEW_IP")},
            timeout=10,
        )
        assert answer.status_code == 201, answer.text
        user_id = answer.json()["user_id"]
        event = next(e for e in client.events.list(verdict="review", limit=100) if e.external_user_id == user_id)

        delivery = str(control("POST", "/resolve", {"event_id": event.id, "resolution": "denied"})["delivery_id"])
        revoked = eventually("the denial delivered and verified", lambda: receiver.revoked[0] if receiver.revoked else None)
        assert (revoked.type, revoked.resolution, revoked.final_verdict, revoked.event_id) == (
            "review.resolved",
            "denied",
            "block",
            event.id,
        )
        assert revoked.external_user_id == user_id
        # Signed with both secrets during the overlap, the new one first.
        assert len(re.findall(r"sha256=[0-9a-f]{64}", receiver.signatures[-1])) == 2
        attempts = cast(list[int], control("GET", f"/deliveries/{delivery}")["attempts"])
        assert attempts[-1] == 204

    # A receiver holding a wrong secret refuses the delivery with 401.
    with doorman() as client, readme_app(client) as wrong:
        wrong.secrets.append("whsec_" + "0" * 43)
        control("POST", "/webhook", {"url": wrong.url + "/webhooks/doorman"})
        result = client.screen(signup(env("DOORMAN_REVIEW_IP")))
        assert isinstance(result, Screened) and result.verdict == "review"
        delivery = str(control("POST", "/resolve", {"event_id": result.id, "resolution": "denied"})["delivery_id"])

        def refused() -> list[int] | None:
            attempts = cast(list[int], control("GET", f"/deliveries/{delivery}")["attempts"])
            return attempts or None

        assert eventually("an attempt recorded", refused)[0] == 401
        assert wrong.revoked == []


def test_the_generated_types_match_the_served_document(tmp_path: Path) -> None:
    script = [sys.executable, "scripts/generate_types.py", "--check"]
    same = subprocess.run([*script, f"{BASE_URL}/v1/openapi.json"], cwd=CLIENT_DIR, capture_output=True, text=True, check=False)
    assert same.returncode == 0, same.stderr
    document = httpx.get(f"{BASE_URL}/v1/openapi.json", timeout=10).json()
    document["x-service-known-values"]["reason_codes"].append("brand_new_code")
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(document))
    stale = subprocess.run([*script, str(changed)], cwd=CLIENT_DIR, capture_output=True, text=True, check=False)
    assert stale.returncode == 1
    assert "known_values.py is out of date" in stale.stderr

"""events (list, pages, get, attach_user), feedback.report and ping, sync and async, against a
stand-in Doorman on a real loopback socket: what is sent, how answers are read, what is raised."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import TypeVar
from urllib.parse import parse_qs, urlsplit

import anyio
import pytest

from doorman_client import AsyncDoormanClient, DoormanClient, DoormanError, StoredEvent

from .support import KEY, Received, Reply, reply, silent_server, stand_in

T = TypeVar("T")

HEALTHY = {
    "status": "ok",
    "checks": {name: {"status": "up", "latency_ms": 1.5} for name in ("postgres", "neo4j", "redis")},
}


def stored(number: int) -> dict[str, object]:
    return {
        "id": f"evt_{number}",
        "event_type": "signup",
        "verdict": "review",
        "reasons": [{"code": "proxy_ip"}],
        "policy_version": "2026-11-20.4",
        "created_at": "2026-11-24T22:03:17.412Z",
        "external_user_id": f"user_{number}",
        "review": {"status": "pending"},
        "risk_band": "later field",
    }


def paged(received: Received) -> Reply:
    """Five events, two a page: cursors c2 and c4."""
    query = parse_qs(urlsplit(received.path).query)
    start = int(query.get("cursor", ["c0"])[0][1:])
    limit = int(query.get("limit", ["2"])[0])
    events = [stored(n) for n in range(start, min(start + limit, 5))]
    page: dict[str, object] = {"events": events}
    if start + limit < 5:
        page["next_cursor"] = f"c{start + limit}"
    return reply(200, page)


def both(run: Callable[[DoormanClient], T], run_async: Callable[[AsyncDoormanClient], object], url: str, **options: object) -> list[T]:
    """The same call through the sync and the async client; the async one's result must be T too."""
    with DoormanClient(secret_key=KEY, base_url=url, **options) as doorman:  # type: ignore[arg-type]
        first = run(doorman)

    async def go() -> T:
        async with AsyncDoormanClient(secret_key=KEY, base_url=url, **options) as doorman:  # type: ignore[arg-type]
            return await run_async(doorman)  # type: ignore[no-any-return, misc]

    return [first, anyio.run(go)]


async def collect_list(doorman: AsyncDoormanClient) -> list[str]:
    return [event.id async for event in doorman.events.list(limit=2, verdict="review")]


def test_list_follows_next_cursor_until_it_is_gone() -> None:
    with stand_in(paged) as server:
        results = both(lambda d: [e.id for e in d.events.list(limit=2, verdict="review")], collect_list, server.url)
        queries = [parse_qs(urlsplit(r.path).query) for r in server.received]
    assert results == [[f"evt_{n}" for n in range(5)]] * 2
    assert queries[:3] == [
        {"limit": ["2"], "verdict": ["review"]},
        {"limit": ["2"], "verdict": ["review"], "cursor": ["c2"]},
        {"limit": ["2"], "verdict": ["review"], "cursor": ["c4"]},
    ]
    assert len(queries) == 6


async def first_two_async(doorman: AsyncDoormanClient) -> list[str]:
    ids: list[str] = []
    async for event in doorman.events.list(limit=2):
        ids.append(event.id)
        if len(ids) == 2:
            break
    return ids


def test_leaving_the_loop_stops_the_paging() -> None:
    def first_two(doorman: DoormanClient) -> list[str]:
        ids: list[str] = []
        for event in doorman.events.list(limit=2):
            ids.append(event.id)
            if len(ids) == 2:
                break
        return ids

    with stand_in(paged) as server:
        assert both(first_two, first_two_async, server.url) == [["evt_0", "evt_1"]] * 2
        assert len(server.received) == 2


async def pages_async(doorman: AsyncDoormanClient) -> list[int]:
    return [len(page.events) async for page in doorman.events.pages(limit=2)]


def test_pages_yields_whole_pages() -> None:
    with stand_in(paged) as server:
        assert both(lambda d: [len(page.events) for page in d.events.pages(limit=2)], pages_async, server.url) == [[2, 2, 1]] * 2


def test_get_reads_a_stored_event_with_its_later_fields() -> None:
    with stand_in(lambda r: reply(200, stored(7))) as server:
        events = both(lambda d: d.events.get("evt_7/../x"), lambda d: d.events.get("evt_7/../x"), server.url)
        paths = [r.path for r in server.received]
    for event in events:
        assert isinstance(event, StoredEvent)
        assert (event.id, event.verdict, event.review and event.review.status) == ("evt_7", "review", "pending")
        assert event.created_at.year == 2026 and event.created_at.utcoffset() is not None
        assert (event.model_extra or {})["risk_band"] == "later field"
    # The id is one path segment, whatever it holds.
    assert paths == ["/v1/events/evt_7%2F..%2Fx"] * 2


def test_a_404_raises_not_found_at_once() -> None:
    with stand_in(lambda r: reply(404, {"error": "not_found", "message": "No such event."})) as server:
        with DoormanClient(secret_key=KEY, base_url=server.url) as doorman, pytest.raises(DoormanError) as raised:
            doorman.events.get("evt_x")
        assert (raised.value.status, raised.value.code, raised.value.attempts) == (404, "not_found", 1)

        async def get_async() -> None:
            async with AsyncDoormanClient(secret_key=KEY, base_url=server.url) as doorman:
                await doorman.events.get("evt_x")

        with pytest.raises(DoormanError, match="not_found"):
            anyio.run(get_async)
        assert len(server.received) == 2


async def attach_async(doorman: AsyncDoormanClient) -> None:
    await doorman.events.attach_user("evt_1", "user_1")


def test_attach_user_patches_and_a_conflict_is_raised_not_retried() -> None:
    with stand_in(lambda r: reply(200, {"ok": True})) as server:
        assert both(lambda d: d.events.attach_user("evt_1", "user_1"), attach_async, server.url) == [None, None]
        assert [(r.method, r.path, json.loads(r.body)) for r in server.received] == [
            ("PATCH", "/v1/events/evt_1", {"external_user_id": "user_1"})
        ] * 2
    with stand_in(lambda r: reply(409, {"error": "conflict", "message": "Another user is bound."})) as server:
        with DoormanClient(secret_key=KEY, base_url=server.url) as doorman, pytest.raises(DoormanError) as raised:
            doorman.events.attach_user("evt_1", "user_2")
        assert (raised.value.status, raised.value.code, raised.value.retryable, raised.value.attempts) == (409, "conflict", False, 1)

        async def attach_other() -> None:
            async with AsyncDoormanClient(secret_key=KEY, base_url=server.url) as doorman:
                await doorman.events.attach_user("evt_1", "user_2")

        with pytest.raises(DoormanError, match="409"):
            anyio.run(attach_other)
        assert len(server.received) == 2


async def report_async(doorman: AsyncDoormanClient) -> bool:
    receipt = await doorman.feedback.report(subject={"kind": "external_user_id", "value": "user_1"}, outcome="chargeback")
    return receipt.duplicate


def test_feedback_report_says_whether_it_was_a_duplicate() -> None:
    answers = iter([reply(200, {"ok": True}), reply(200, {"ok": True, "duplicate": True})] * 2)
    with stand_in(lambda r: next(answers)) as server:
        with DoormanClient(secret_key=KEY, base_url=server.url) as doorman:
            first = doorman.feedback.report(
                subject={"kind": "external_user_id", "value": "user_1"}, outcome="chargeback", note="dispute dp_1"
            )
            again = doorman.feedback.report(subject={"kind": "external_user_id", "value": "user_1"}, outcome="chargeback")
        assert (first.ok, first.duplicate, again.duplicate) == (True, False, True)

        async def twice() -> list[bool]:
            async with AsyncDoormanClient(secret_key=KEY, base_url=server.url) as doorman:
                return [await report_async(doorman), await report_async(doorman)]

        assert anyio.run(twice) == [False, True]
        bodies = [json.loads(r.body) for r in server.received]
    assert bodies[0] == {"subject": {"kind": "external_user_id", "value": "user_1"}, "outcome": "chargeback", "note": "dispute dp_1"}
    assert bodies[1] == {"subject": {"kind": "external_user_id", "value": "user_1"}, "outcome": "chargeback"}


def routed(health: Reply, events: Reply) -> Callable[[Received], Reply]:
    return lambda r: health if r.path == "/health" else events


async def ping_async(doorman: AsyncDoormanClient) -> object:
    return await doorman.ping()


def test_ping_checks_health_and_the_key() -> None:
    with stand_in(routed(reply(200, HEALTHY), reply(200, {"events": []}))) as server:
        for result in both(lambda d: d.ping(), ping_async, server.url):
            assert (getattr(result, "status"), getattr(result, "mode")) == ("ok", "test")
            assert getattr(result, "checks").redis.status == "up"
        paths = [(r.path, "authorization" in r.headers) for r in server.received]
    assert paths == [("/health", True), ("/v1/events?limit=1", True)] * 2


def test_ping_reads_a_503_as_unavailable() -> None:
    down = {**HEALTHY, "status": "unavailable", "error": "internal", "message": "redis is down"}
    down["checks"] = {**HEALTHY["checks"], "redis": {"status": "down", "latency_ms": 0, "error": "ECONNREFUSED"}}  # type: ignore[dict-item]
    with stand_in(routed(reply(503, down), reply(200, {"events": []}))) as server:
        for result in both(lambda d: d.ping(), ping_async, server.url):
            assert getattr(result, "status") == "unavailable"
            assert getattr(result, "checks").redis.error == "ECONNREFUSED"
        assert len(server.received) == 4  # a 503 on /health is an answer, not retried


def test_ping_raises_on_a_refused_key_and_on_a_server_that_is_not_doorman() -> None:
    with stand_in(routed(reply(200, HEALTHY), reply(401, {"error": "unauthorized", "message": "Unknown key."}))) as server:
        with DoormanClient(secret_key=KEY, base_url=server.url) as doorman, pytest.raises(DoormanError) as raised:
            doorman.ping()
        assert (raised.value.status, raised.value.code) == (401, "unauthorized")
    with stand_in(lambda r: reply(200, {"hello": "world"})) as server:
        with DoormanClient(secret_key=KEY, base_url=server.url) as doorman, pytest.raises(DoormanError) as raised:
            doorman.ping()
        assert raised.value.kind == "invalid_response"
        assert "is base_url a Doorman?" in str(raised.value)


def test_ping_against_a_server_that_never_answers_raises_within_its_budget() -> None:
    with silent_server() as url:
        for timeout_ms in (300, None):
            options: dict[str, object] = {"ping_timeout_ms": 400} if timeout_ms is None else {}
            started = time.monotonic()
            with DoormanClient(secret_key=KEY, base_url=url, **options) as doorman, pytest.raises(DoormanError) as raised:  # type: ignore[arg-type]
                doorman.ping() if timeout_ms is None else doorman.ping(timeout_ms=timeout_ms)
            elapsed = time.monotonic() - started
            assert raised.value.kind == "timeout"
            assert elapsed < 0.9, f"ping took {elapsed:.2f} s"

        async def ping_silent() -> None:
            async with AsyncDoormanClient(secret_key=KEY, base_url=url, ping_timeout_ms=300) as doorman:
                await doorman.ping()

        started = time.monotonic()
        with pytest.raises(DoormanError, match="time budget"):
            anyio.run(ping_silent)
        assert time.monotonic() - started < 0.9

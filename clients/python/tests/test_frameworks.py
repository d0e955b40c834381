"""The README's framework snippets (examples/): Flask (the quickstart), Django and FastAPI, each
through the framework's own test client. Their webhook receivers meet every webhook vector (204
and the payload handed on, or 401 with the reason), and their signup routes screen against a
stand-in Doorman (allow, block, and a Doorman that is down: fail-open)."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import cast

import django
import pytest
from django.conf import settings
from django.test import Client as DjangoClient
from django.test import override_settings
from django.urls import path
from fastapi.testclient import TestClient

from doorman_client import AsyncDoormanClient, DoormanClient, ReviewResolvedWebhook
from examples import django_views, fastapi_app, quickstart

from .support import KEY, Reply, reply, stand_in, stopped_server_url, vector_cases

WEBHOOKS = vector_cases("webhooks.json")

settings.configure(
    DEBUG=False,
    SECRET_KEY="django-insecure-tests-only",
    ALLOWED_HOSTS=["testserver"],
    ROOT_URLCONF=__name__,
    MIDDLEWARE=["django.middleware.csrf.CsrfViewMiddleware"],
    DOORMAN_SECRET_KEY=KEY,
    DOORMAN_URL="http://127.0.0.1:1",
    DOORMAN_WEBHOOK_SECRETS=[],
)
django.setup()
urlpatterns = [path("signup", django_views.signup), path("webhooks/doorman", django_views.doorman_webhook)]


def header_pairs(case: dict[str, object]) -> list[tuple[str, str]]:
    """The vector's headers as a list of pairs: a header sent twice is two pairs."""
    headers = cast(dict[str, "str | list[str]"], case["headers"])
    return [(name, one) for name, value in headers.items() for one in ([value] if isinstance(value, str) else value)]


def check(case: dict[str, object], status: int, text: str, revoked: Sequence[ReviewResolvedWebhook]) -> None:
    want = cast(dict[str, object], case["expect"])
    if not want["ok"]:
        assert (status, text) == (401, want["error"])
        assert revoked == []
        return
    assert status == 204, text
    payload = cast(dict[str, object], want.get("payload") or {})
    if want["known"] and payload.get("resolution") == "denied":
        assert revoked == [ReviewResolvedWebhook.model_validate(payload)]
    else:
        assert revoked == []


@pytest.fixture
def doorman() -> Iterator[DoormanClient]:
    with DoormanClient(secret_key=KEY, base_url=stopped_server_url()) as client:
        yield client


@pytest.mark.parametrize("case", WEBHOOKS, ids=lambda c: str(c["name"]))
def test_flask_receiver(case: dict[str, object], doorman: DoormanClient) -> None:
    revoked: list[ReviewResolvedWebhook] = []
    app = quickstart.create_app(doorman, cast(list[str], case["secrets"]), lambda *_: None, revoked.append)
    answer = app.test_client().post("/webhooks/doorman", data=cast(str, case["body"]).encode("utf-8"), headers=header_pairs(case))
    check(case, answer.status_code, answer.get_data(as_text=True), revoked)


@pytest.mark.parametrize("case", WEBHOOKS, ids=lambda c: str(c["name"]))
def test_django_receiver(case: dict[str, object], monkeypatch: pytest.MonkeyPatch) -> None:
    revoked: list[ReviewResolvedWebhook] = []
    monkeypatch.setattr(django_views, "revoke_account", revoked.append)
    # A WSGI server joins a header sent twice with a comma: so does Django's test client here.
    headers: dict[str, str] = {}
    for name, value in header_pairs(case):
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    # CSRF checks on: Doorman cannot send Django's token, so the view must be exempt.
    client = DjangoClient(enforce_csrf_checks=True)
    with override_settings(DOORMAN_WEBHOOK_SECRETS=case["secrets"]):
        answer = client.post(
            "/webhooks/doorman", data=cast(str, case["body"]).encode("utf-8"), content_type="application/json", headers=headers
        )
    check(case, answer.status_code, answer.content.decode(), revoked)


@pytest.mark.parametrize("case", WEBHOOKS, ids=lambda c: str(c["name"]))
def test_fastapi_receiver(case: dict[str, object]) -> None:
    revoked: list[ReviewResolvedWebhook] = []

    async def revoke(event: ReviewResolvedWebhook) -> None:
        revoked.append(event)

    app = fastapi_app.create_app(
        AsyncDoormanClient(secret_key=KEY, base_url=stopped_server_url()), cast(list[str], case["secrets"]), revoke
    )
    with TestClient(app) as client:
        answer = client.post("/webhooks/doorman", content=cast(str, case["body"]).encode("utf-8"), headers=header_pairs(case))
    check(case, answer.status_code, answer.text, revoked)


VERDICT = {"id": "evt_1", "reasons": [], "policy_version": "2026-11-20.4"}
SIGNUPS: list[tuple[str, Reply | None, int]] = [
    ("allow", reply(200, {**VERDICT, "verdict": "allow"}), 201),
    ("review", reply(200, {**VERDICT, "verdict": "review"}), 201),
    ("block", reply(200, {**VERDICT, "verdict": "block"}), 403),
    ("doorman down: fail-open", None, 201),
]


@pytest.mark.parametrize(("name", "answer", "status"), SIGNUPS, ids=[s[0] for s in SIGNUPS])
def test_signup_routes_screen_and_act_on_the_verdict(name: str, answer: Reply | None, status: int, monkeypatch: pytest.MonkeyPatch) -> None:
    with stand_in(lambda _: answer or reply(200, {})) as server:
        url = server.url if answer is not None else stopped_server_url()
        created: list[str] = []
        form = {"email": "ada@example.com"}

        with DoormanClient(secret_key=KEY, base_url=url) as doorman:
            flask_app = quickstart.create_app(doorman, ["whsec_x"], lambda user_id, email: created.append(email), lambda _: None)
            flask_answer = flask_app.test_client().post("/signup", json=form, headers={"User-Agent": "tests/1"})

        monkeypatch.setattr(django_views, "create_user", lambda user_id, email: created.append(email))
        django_views.doorman.cache_clear()
        with override_settings(DOORMAN_URL=url):
            django_answer = DjangoClient().post("/signup", data=form, content_type="application/json", headers={"User-Agent": "tests/1"})
        django_views.doorman.cache_clear()

        fastapi = TestClient(fastapi_app.create_app(AsyncDoormanClient(secret_key=KEY, base_url=url), ["whsec_x"], lambda _: None))  # type: ignore[arg-type, return-value]
        with fastapi as client:
            fastapi_answer = client.post("/signup", json=form, headers={"User-Agent": "tests/1"})

        statuses = [flask_answer.status_code, django_answer.status_code, fastapi_answer.status_code]
        assert statuses == [status] * 3, name
        assert len(created) == (2 if status == 201 else 0)  # the FastAPI snippet creates nothing itself
        if status == 201:
            assert json.loads(flask_answer.data)["user_id"].startswith("user_")
            assert fastapi_answer.json()["user_id"].startswith("user_")
        if answer is not None:
            sent = [json.loads(r.body) for r in server.received]
            assert len(sent) == 3
            for body in sent:
                assert body["event_type"] == "signup" and body["email"] == "ada@example.com"
                assert body["ip"] in ("127.0.0.1", "testclient")
                assert body["user_agent"] == "tests/1" and body["external_user_id"].startswith("user_")

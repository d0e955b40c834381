"""The shared test vectors (clients/test-vectors/), which the TypeScript and Go clients' suites read
too: every webhook vector verified as it says, every verdict answer and every error answer served
by a real loopback server and met by both the sync and the async client exactly as it says."""

from __future__ import annotations

import hashlib
import hmac
import json
import pickle
from collections.abc import Mapping, Sequence
from typing import cast

import pytest

from doorman_client import AsyncDoormanClient, DoormanClient, DoormanError, FailedOpen, Screened, WebhookVerificationError, verify_webhook
from doorman_client.types import ReviewResolvedWebhook

from .support import KEY, Reply, a_signup, stand_in, vector_cases

WEBHOOKS = vector_cases("webhooks.json")
VERDICTS = vector_cases("verdict-responses.json")
ERRORS = vector_cases("errors.json")


def name_of(case: Mapping[str, object]) -> str:
    return str(case["name"])


def served(case: Mapping[str, object]) -> Reply:
    return {
        "status": cast(int, case["status"]),
        "headers": cast(Mapping[str, str], case["headers"]),
        "body": cast(str, case["body"]),
    }


def expectation(case: Mapping[str, object]) -> dict[str, object]:
    return cast(dict[str, object], case["expect"])


def test_every_outcome_is_held_by_the_webhook_vectors() -> None:
    outcomes = set()
    for case in WEBHOOKS:
        want = expectation(case)
        outcomes.add(("known" if want["known"] else "unknown") if want["ok"] else want["error"])
    assert outcomes == {
        "known",
        "unknown",
        "no_secret",
        "missing_signature",
        "malformed_signature",
        "signature_mismatch",
        "invalid_payload",
    }


@pytest.mark.parametrize("case", WEBHOOKS, ids=name_of)
def test_webhook_vector(case: dict[str, object]) -> None:
    body = cast(str, case["body"])
    headers = cast(dict[str, "str | list[str]"], case["headers"])
    secrets = cast(list[str], case["secrets"])
    want = expectation(case)
    try:
        payload = verify_webhook(body, headers, secrets)
    except WebhookVerificationError as err:
        assert not want["ok"], f"refused ({err.reason}: {err})"
        assert err.reason == want["error"]
        assert pickle.loads(pickle.dumps(err)).reason == err.reason
        return
    assert want["ok"], f"verified, but the vector expects {want.get('error')}"
    if not want["known"]:
        assert payload is None
        return
    assert payload is not None
    assert payload.type == want["type"]
    assert payload == ReviewResolvedWebhook.model_validate(want["payload"])
    # Every field of the payload comes through, as sent.
    assert payload.model_dump(mode="json", exclude_unset=True).keys() == cast(dict[str, object], want["payload"]).keys()
    # The bytes verify the same way passed as bytes, and a signature that verified is an
    # HMAC-SHA256 of those bytes (computed here apart from the client).
    assert verify_webhook(body.encode("utf-8"), headers, secrets) == payload
    made = {hmac.new(s.encode(), body.encode("utf-8"), hashlib.sha256).hexdigest() for s in secrets if s}
    sent = [v for value in headers.values() for v in ([value] if isinstance(value, str) else value)]
    assert any(part.lower().removeprefix("sha256=") in made for value in sent for part in value.split())


def expect_screened(result: object, case: Mapping[str, object]) -> None:
    want = expectation(case)
    if not want["ok"]:
        assert isinstance(result, FailedOpen), f"expected fail-open, got {result!r}"
        assert result.reason == want["fail_open_reason"]
        assert result.verdict == "allow" and result.reasons == ()
        return
    if isinstance(result, FailedOpen):
        pytest.fail(f"failed open: {result.error}")
    assert isinstance(result, Screened)
    assert {
        "id": result.id,
        "verdict": result.verdict,
        "policy_version": result.policy_version,
        "reason_codes": [reason.code for reason in result.reasons],
        "recommended_action": result.recommended_action,
        "degraded": result.degraded,
    } == {key: want[key] for key in ("id", "verdict", "policy_version", "reason_codes", "recommended_action", "degraded")}
    assert result.failed_open is False
    for field, value in cast(dict[str, object], want["passes_through"]).items():
        assert (result.model_extra or {}).get(field) == value, field
    # The reasons (and their details, unknown keys included) come through as sent.
    sent = json.loads(cast(str, case["body"]))["reasons"]
    assert [reason.model_dump(mode="json", exclude_unset=True) for reason in result.reasons] == sent


@pytest.mark.parametrize("case", VERDICTS, ids=name_of)
def test_verdict_vector_sync(case: dict[str, object]) -> None:
    with stand_in(lambda _: served(case)) as server, DoormanClient(secret_key=KEY, base_url=server.url, max_retries=0) as doorman:
        result = doorman.screen(a_signup())
    expect_screened(result, case)
    if isinstance(result, Screened):
        assert result.idempotency_key == server.received[0].headers["idempotency-key"]


@pytest.mark.anyio
@pytest.mark.parametrize("case", VERDICTS, ids=name_of)
async def test_verdict_vector_async(case: dict[str, object]) -> None:
    with stand_in(lambda _: served(case)) as server:
        async with AsyncDoormanClient(secret_key=KEY, base_url=server.url, max_retries=0) as doorman:
            result = await doorman.screen(a_signup())
    expect_screened(result, case)


def expect_error(error: DoormanError, case: Mapping[str, object], sent: int) -> None:
    want = expectation(case)
    assert {
        "status": error.status,
        "code": error.code,
        "retryable": error.retryable,
        "retry_after_ms": error.retry_after_ms,
        "attempts": error.attempts,
    } == {key: want[key] for key in ("status", "code", "retryable", "retry_after_ms", "attempts")}
    assert sent == want["attempts"], "requests the stand-in received"
    assert error.kind == "response"
    headers = cast(Mapping[str, str], case["headers"])
    assert error.request_id == next((v for k, v in headers.items() if k.lower() == "x-request-id"), None)
    if "issues" in want:
        assert [issue.model_dump() for issue in error.issues] == want["issues"]
    else:
        assert error.issues == []


def expect_fail_open_outcome(result: object, case: Mapping[str, object]) -> None:
    screen = cast(dict[str, str], expectation(case)["screen"])
    assert screen["outcome"] == "fail_open"
    assert isinstance(result, FailedOpen)
    assert result.reason == screen["reason"]
    assert result.error.status == expectation(case)["status"]


def same_requests(received: Sequence[object]) -> None:
    # Every retry sent the same Idempotency-Key and the same bytes.
    keys = {getattr(r, "headers")["idempotency-key"] for r in received}
    bodies = {getattr(r, "body") for r in received}
    assert len(keys) == 1 and len(bodies) == 1


@pytest.mark.parametrize("case", ERRORS, ids=name_of)
def test_error_vector_sync(case: dict[str, object]) -> None:
    with stand_in(lambda _: served(case)) as server, DoormanClient(secret_key=KEY, base_url=server.url, screen_timeout_ms=5000) as doorman:
        with pytest.raises(DoormanError) as raised:
            doorman.screen(a_signup(), fail_open=False)
        expect_error(raised.value, case, len(server.received))
        same_requests(server.received)
        # With fail-open on; one attempt is enough, the stand-in answers every request alike.
        if cast(dict[str, str], expectation(case)["screen"])["outcome"] == "throw":
            with pytest.raises(DoormanError) as again:
                doorman.screen(a_signup(), max_retries=0)
            assert again.value.status == expectation(case)["status"]
        else:
            expect_fail_open_outcome(doorman.screen(a_signup(), max_retries=0), case)


@pytest.mark.anyio
@pytest.mark.parametrize("case", ERRORS, ids=name_of)
async def test_error_vector_async(case: dict[str, object]) -> None:
    with stand_in(lambda _: served(case)) as server:
        async with AsyncDoormanClient(secret_key=KEY, base_url=server.url, screen_timeout_ms=5000) as doorman:
            with pytest.raises(DoormanError) as raised:
                await doorman.screen(a_signup(), fail_open=False)
            expect_error(raised.value, case, len(server.received))
            same_requests(server.received)
            if cast(dict[str, str], expectation(case)["screen"])["outcome"] == "throw":
                with pytest.raises(DoormanError) as again:
                    await doorman.screen(a_signup(), max_retries=0)
                assert again.value.status == expectation(case)["status"]
            else:
                expect_fail_open_outcome(await doorman.screen(a_signup(), max_retries=0), case)

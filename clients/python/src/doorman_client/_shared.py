"""The parts of a call's request and result that the sync and the async client share."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

from ._calls import Answer, parse
from ._config import Mode
from ._generated.answers import Health, HealthChecks
from ._generated.known_values import EventType, FeedbackOutcome, Verdict
from ._generated.requests import AttachUserRequest, FeedbackRequest, FeedbackSubject
from .errors import DoormanError


@dataclass(frozen=True)
class PingResult:
    status: Literal["ok", "unavailable"]
    """``ok`` when Postgres, Neo4j and Redis all answer; ``unavailable`` names the one that does not
    in ``checks`` (verdicts then fail open on the server's side, or answer 500)."""
    checks: HealthChecks
    mode: Mode
    """The key was accepted (a refused key raises DoormanError code ``unauthorized``), in this mode."""
    latency_ms: int
    """From the first request to the last answer."""


@dataclass(frozen=True)
class FeedbackReceipt:
    ok: Literal[True]
    duplicate: bool
    """True when Doorman already held this (subject, outcome) and stored nothing new."""


def events_query(limit: int | None, event_type: EventType | None, verdict: Verdict | None, cursor: str | None) -> dict[str, str]:
    query = {"limit": limit, "event_type": event_type, "verdict": verdict, "cursor": cursor}
    # Only the parameters that are set: the query string carries no `limit=None`.
    return {name: str(value) for name, value in query.items() if value is not None}


def feedback_body(subject: FeedbackSubject, outcome: FeedbackOutcome, note: str | None) -> bytes:
    request: FeedbackRequest = {"subject": subject, "outcome": outcome}
    if note is not None:
        request["note"] = note
    return json.dumps(request, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def health_from(answer: Answer, base_url: str) -> Health:
    try:
        return parse(Health, answer, "GET /health")
    except DoormanError as err:
        err.message = f"GET /health at {base_url} did not answer Doorman's health report: is base_url a Doorman? ({err.message})"
        err.args = (err.message,)
        raise


def attach_body(external_user_id: str) -> bytes:
    request: AttachUserRequest = {"external_user_id": external_user_id}
    return json.dumps(request, ensure_ascii=False).encode("utf-8")

"""The generated types (src/doorman_client/_generated/) and the generator's own reading of the
document: what the generator cannot take from a schema directly (VerdictRequest's if/then, payment
only on checkout_attempt) it derives, and the checked-in TypedDicts carry it. The drift check
against the served document is in test_integration.py (and in npm test's
test/client/python-client.test.ts)."""

from __future__ import annotations

import importlib.util
import typing
from types import ModuleType
from typing import cast

import pytest

from doorman_client._generated import requests
from doorman_client._generated.known_values import IP_REQUIRED_EVENT_TYPES, PAYMENT_EVENT_TYPES, EventType

from .support import CLIENT_DIR


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generate_types", CLIENT_DIR / "scripts" / "generate_types.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def pascal(event_type: str) -> str:
    return "".join(part.capitalize() for part in event_type.split("_"))


def test_the_checked_in_variants_require_ip_and_offer_payment_as_the_document_says() -> None:
    event_types = typing.get_args(EventType)
    assert set(event_types) == {"signup", "trial_start", "trial_convert", "checkout_attempt", "login"}
    for event_type in event_types:
        variant = getattr(requests, f"{pascal(event_type)}Request")
        assert ("ip" in variant.__required_keys__) == (event_type in IP_REQUIRED_EVENT_TYPES), event_type
        assert ("payment" in variant.__annotations__) == (event_type in PAYMENT_EVENT_TYPES), event_type
        assert variant.__required_keys__ <= {"event_type", "ip"}
    assert typing.get_args(requests.VerdictRequest) == tuple(getattr(requests, f"{pascal(t)}Request") for t in event_types)


def a_document(conditionals: list[dict[str, object]]) -> dict[str, object]:
    return {
        "openapi": "3.1.0",
        "info": {"version": "9.9.9"},
        "components": {
            "schemas": {
                "VerdictRequest": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["event_type"],
                    "properties": {
                        "event_type": {"type": "string", "enum": ["signup", "login", "checkout_attempt"]},
                        "ip": {"type": "string"},
                        "payment": {"type": "object"},
                    },
                    "allOf": conditionals,
                },
                # The other request schemas the generator reads, as stubs.
                **{
                    name: {"type": "object", "properties": {}}
                    for name in ("Payment", "FeedbackSubject", "FeedbackRequest", "AttachUserRequest")
                },
            }
        },
    }


def test_the_ip_rule_is_read_from_the_if_then() -> None:
    make = generator()
    document = a_document(
        [
            {"if": {"properties": {"event_type": {"enum": ["signup"]}}}, "then": {"required": ["ip"]}},
            {"if": {"properties": {"event_type": {"enum": ["login"]}}}, "then": {"required": ["email"]}},
        ]
    )
    assert make.ip_required_event_types(document) == ["signup"]
    schemas = cast(dict[str, dict[str, object]], make.request_document(document)["components"]["schemas"])
    assert schemas["SignupRequest"]["required"] == ["event_type", "ip"]
    assert schemas["LoginRequest"]["required"] == ["event_type"]
    assert "payment" not in cast(dict[str, object], schemas["LoginRequest"]["properties"])
    assert "payment" in cast(dict[str, object], schemas["CheckoutAttemptRequest"]["properties"])
    # An optional field takes None too; a required one does not.
    assert cast(dict[str, object], schemas["LoginRequest"]["properties"])["ip"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert cast(dict[str, object], schemas["SignupRequest"]["properties"])["ip"] == {"type": "string"}


def test_a_document_without_the_conditional_stops_the_generator() -> None:
    with pytest.raises(SystemExit, match="no conditional that requires ip"):
        generator().ip_required_event_types(a_document([]))


def test_the_answers_leave_out_the_servers_limits_and_keep_the_types() -> None:
    make = generator()
    schema = {
        "type": "object",
        "properties": {"pattern": {"type": "string", "pattern": "^x$", "maxLength": 3}, "n": {"type": "integer", "minimum": 0}},
    }
    assert make.without_limits(schema) == {"type": "object", "properties": {"pattern": {"type": "string"}, "n": {"type": "integer"}}}

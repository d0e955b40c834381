"""``verify_webhook()``: checks a delivery's ``Service-Signature`` against the exact raw body before
anything parses it (contract 6.1).

The body is accepted when any ``sha256=`` signature of the header (several during a secret
rotation, the current secret's first) matches the HMAC-SHA256 of the raw bytes under any secret
you hold. Every pair is compared with ``hmac.compare_digest``, so the time taken says nothing
about which byte differed or which signature matched.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
from collections.abc import Iterable, Sequence
from typing import Literal, Protocol, Union

from pydantic import ValidationError

from ._generated.answers import ReviewResolvedWebhook

WebhookFailure = Literal["no_secret", "missing_signature", "malformed_signature", "signature_mismatch", "invalid_payload"]

SIGNATURE_HEADER = "service-signature"
# Doorman signs with every secret still valid, so a header carries one signature per rotation
# within the overlap; past this many, the rest are not looked at.
MAX_SIGNATURES = 32
_SIGNATURE = re.compile(r"^sha256=([0-9a-fA-F]{64})$")
# Signatures are separated by spaces; a WSGI server joins a header sent twice with a comma.
_SEPARATORS = re.compile(r"[\s,]+")


class WebhookVerificationError(Exception):
    """The delivery is not verified: answer 401 (Doorman retries it) and do nothing else."""

    def __init__(self, reason: WebhookFailure, message: str) -> None:
        super().__init__(message)
        self.reason: WebhookFailure = reason

    def __reduce__(self) -> tuple[type[WebhookVerificationError], tuple[WebhookFailure, str]]:
        return (type(self), (self.reason, str(self)))


class HeaderItems(Protocol):
    """Headers as frameworks hold them: anything with ``items()`` giving (name, value) pairs,
    a header sent twice as two pairs or as a list of values. A dict, Django's ``request.headers``,
    Flask's and Starlette's ``request.headers`` all fit."""

    def items(self) -> Iterable[tuple[str, Union[str, Sequence[str]]]]: ...


Headers = HeaderItems
RawBody = Union[bytes, bytearray, memoryview, str]


def verify_webhook(raw_body: RawBody, headers: Headers, secrets: str | Sequence[str]) -> ReviewResolvedWebhook | None:
    """Returns the verified ``review.resolved`` payload, or None for a verified delivery of a type
    this client does not know yet (answer it 2xx and ignore it: Doorman retries anything else).

    :param raw_body: the body exactly as received (bytes, or the text decoded as UTF-8), never
        parsed JSON: Django ``request.body``, Flask ``request.get_data()``, FastAPI
        ``await request.body()``.
    :param headers: the request's headers (``Service-Signature`` is looked up in any case).
    :param secrets: the ``whsec_...`` secret, or several during a rotation.
    :raises WebhookVerificationError: ``reason`` says why, checked in this order: ``no_secret``,
        ``missing_signature``, ``malformed_signature``, ``signature_mismatch``, ``invalid_payload``.
    """
    body = _bytes_of(raw_body)
    keys = [secret for secret in ([secrets] if isinstance(secrets, str) else list(secrets)) if isinstance(secret, str) and secret != ""]
    if not keys:
        raise WebhookVerificationError("no_secret", "no webhook secret (whsec_...) to verify with")

    values = _header_values(headers, SIGNATURE_HEADER)
    parts = [part for value in values for part in _SEPARATORS.split(value) if part != ""]
    if not parts:
        raise WebhookVerificationError("missing_signature", "no Service-Signature header")
    candidates = [bytes.fromhex(match.group(1)) for part in parts[:MAX_SIGNATURES] if (match := _SIGNATURE.match(part))]
    if not candidates:
        raise WebhookVerificationError("malformed_signature", "the Service-Signature header holds no sha256=<64 hex digits> signature")

    verified = False
    for key in keys:
        expected = hmac.new(key.encode("utf-8"), body, hashlib.sha256).digest()
        for candidate in candidates:
            # No early exit: every pair is compared, each in constant time.
            verified = hmac.compare_digest(candidate, expected) or verified
    if not verified:
        raise WebhookVerificationError("signature_mismatch", "no signature matches the body with any of the secrets")

    try:
        payload = json.loads(body)
    except ValueError:
        raise WebhookVerificationError("invalid_payload", "the signed body is not JSON") from None
    if not isinstance(payload, dict) or not isinstance(payload.get("type"), str):
        raise WebhookVerificationError("invalid_payload", "the signed body has no `type`")
    if payload["type"] != "review.resolved":
        return None
    try:
        return ReviewResolvedWebhook.model_validate(payload)
    except ValidationError as err:
        raise WebhookVerificationError(
            "invalid_payload", f"the signed review.resolved is not the contract's: {err.errors()[0]['msg']}"
        ) from err


def _bytes_of(raw_body: object) -> bytes:
    if isinstance(raw_body, bytes):
        return raw_body
    if isinstance(raw_body, (bytearray, memoryview)):
        return bytes(raw_body)
    if isinstance(raw_body, str):
        return raw_body.encode("utf-8")
    raise TypeError(
        "raw_body must be the request body as received (bytes or str), not parsed JSON: "
        "Django request.body, Flask request.get_data(), FastAPI await request.body()"
    )


def _header_values(headers: object, name: str) -> list[str]:
    items = getattr(headers, "items", None)
    if not callable(items):
        raise TypeError("headers must be the request's headers: a mapping, or anything with items() giving (name, value) pairs")
    values: list[str] = []
    for key, value in items():
        if not isinstance(key, str) or key.lower() != name:
            continue
        if isinstance(value, str):
            values.append(value)
        elif isinstance(value, bytes):
            values.append(value.decode("latin-1"))
        elif isinstance(value, Iterable):
            values.extend(v for v in value if isinstance(v, str))
    return values

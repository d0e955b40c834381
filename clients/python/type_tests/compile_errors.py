"""Type tests: each line marked ``# type: ignore[...]`` must FAIL to type-check under mypy --strict,
and every other line must pass.

mypy --strict runs with ``warn_unused_ignores``, so a marked line that stopped failing fails the
check; and tests/test_type_tests.py runs mypy on this file with the markers removed and expects an
error on exactly the marked lines, with the code each marker names. Never run: it only has to
type-check.
"""

from __future__ import annotations

from doorman_client import DoormanClient, DoormanError, FailedOpen, Screened, ScreenResult, verify_webhook
from doorman_client.types import CheckoutAttemptRequest, LoginRequest, Payment, TrialConvertRequest, VerdictRequest

maybe: str | None = None
doorman = DoormanClient(secret_key="sk_test_x", base_url="http://127.0.0.1:8080")

# ip: required on signup, trial_start and checkout_attempt; a string everywhere.
signup: VerdictRequest = {"event_type": "signup", "ip": "203.0.113.7"}
signup_without_ip: VerdictRequest = {"event_type": "signup", "email": "a@example.org"}  # type: ignore[misc, assignment]
trial_without_ip: VerdictRequest = {"event_type": "trial_start"}  # type: ignore[misc, assignment]
checkout_without_ip: VerdictRequest = {"event_type": "checkout_attempt", "payment": {"amount": 100}}  # type: ignore[assignment]
numeric_ip: VerdictRequest = {"event_type": "signup", "ip": 42}  # type: ignore[misc, assignment]
maybe_ip: VerdictRequest = {"event_type": "signup", "ip": maybe}  # type: ignore[misc, assignment]
login: VerdictRequest = {"event_type": "login", "external_user_id": "usr_1"}
login_maybe_ip: LoginRequest = {"event_type": "login", "ip": maybe}
convert: TrialConvertRequest = {"event_type": "trial_convert", "ip": maybe}

# Optional fields take a value that may be absent (None is left out of the JSON).
with_maybes: VerdictRequest = {"event_type": "signup", "ip": "203.0.113.7", "user_agent": maybe, "email": maybe, "device_token": maybe}
# payment: only on checkout_attempt (Doorman ignores it elsewhere).
checkout: CheckoutAttemptRequest = {"event_type": "checkout_attempt", "ip": "203.0.113.7", "payment": {"amount": 4900, "currency": "usd"}}
signup_with_payment: VerdictRequest = {"event_type": "signup", "ip": "203.0.113.7", "payment": {"amount": 1}}  # type: ignore[typeddict-item]
login_with_payment: LoginRequest = {"event_type": "login", "payment": {"amount": 1}}  # type: ignore[typeddict-unknown-key]
# event_type is a closed set; the request is closed: an unknown top-level field is a 400.
unknown_type: VerdictRequest = {"event_type": "purchase", "ip": "203.0.113.7"}  # type: ignore[misc, assignment]
extra_field: LoginRequest = {"event_type": "login", "plan": "pro"}  # type: ignore[typeddict-unknown-key]
identity_number: LoginRequest = {"event_type": "login", "identity": {"phone": 5550100}}  # type: ignore[dict-item]

# Payment: its known fields typed.
payment: Payment = {"card_fingerprint": "fp_1", "amount": 4900, "currency": "usd", "card_funding": "prepaid"}
payment_amount: Payment = {"amount": "49.00"}  # type: ignore[typeddict-item]
payment_funding: Payment = {"card_funding": "gift"}  # type: ignore[typeddict-item]


def results(result: ScreenResult) -> None:
    result.degraded  # type: ignore[union-attr]
    if not result.failed_open:
        sources: list[str] = result.degraded
        code: int = result.reasons[0].code  # type: ignore[assignment]
        print(sources, code, result.id, result.idempotency_key)
    else:
        print(result.reason, result.error.kind, result.idempotency_key)
    if isinstance(result, FailedOpen):
        result.id  # type: ignore[attr-defined]
    elif isinstance(result, Screened):
        print(result.model_extra)


def calls() -> None:
    doorman.screen(signup, fail_open="no")  # type: ignore[arg-type]
    doorman.screen(signup, idempotency_key=42)  # type: ignore[arg-type]
    doorman.screen({"event_type": "signup"})  # type: ignore[misc, arg-type]
    doorman.feedback.report(subject={"kind": "email", "value": "a@example.org"}, outcome="chargeback", note=maybe)
    doorman.feedback.report(subject={"kind": "ip", "value": "203.0.113.7"}, outcome="chargeback")  # type: ignore[typeddict-item]
    doorman.feedback.report(subject={"kind": "email", "value": "a@example.org"}, outcome="fraud")  # type: ignore[arg-type]
    doorman.feedback.report(subject={"kind": "email"}, outcome="chargeback")  # type: ignore[typeddict-item]
    for event in doorman.events.list(verdict="review", limit=10):
        print(event.id, event.created_at.isoformat())
    doorman.events.list(verdict="maybe")  # type: ignore[arg-type]
    stored = doorman.events.get("evt_1")
    verdict: int = stored.verdict  # type: ignore[assignment]
    mode: str = doorman.ping().mode
    print(verdict, mode)
    try:
        doorman.events.attach_user("evt_1", "usr_1")
    except DoormanError as err:
        status: str = err.status  # type: ignore[assignment]
        print(status, err.code, err.retryable, err.issues)


verify_webhook({"type": "review.resolved"}, {}, "whsec_x")  # type: ignore[arg-type]
verify_webhook(b"{}", "sha256=00", "whsec_x")  # type: ignore[arg-type]
DoormanClient("sk_test_x")  # type: ignore[call-arg]

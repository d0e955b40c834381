"""The contract's shapes, named: generated from the OpenAPI document Doorman serves
(``_generated/``), plus the client's own results.

Open sets (reason codes, error codes, recommended actions, signal sources) are typed ``str``: a
code added to Doorman later passes through instead of failing to parse. The values this version
knows are in ``KNOWN_REASON_CODES`` and its siblings. Answers are pydantic models with
``extra='allow'``: fields a later Doorman adds are kept (``model_extra``), not dropped.
"""

from __future__ import annotations

from pydantic import JsonValue
from typing_extensions import TypeAlias

from ._config import Mode, OnRetry, RetryInfo
from ._generated.answers import (
    Error as ErrorBody,
)
from ._generated.answers import (
    ErrorDetails,
    EventList,
    FeedbackResponse,
    Health,
    HealthCheck,
    HealthChecks,
    Reason,
    ReasonDetail,
    ReviewResolvedWebhook,
    StoredEvent,
    StoredEventReview,
    ValidationIssue,
    VerdictResponse,
)
from ._generated.known_values import (
    IP_REQUIRED_EVENT_TYPES,
    KNOWN_ERROR_CODES,
    KNOWN_REASON_CODES,
    KNOWN_RECOMMENDED_ACTIONS,
    KNOWN_SIGNAL_SOURCES,
    PAYMENT_EVENT_TYPES,
    EventType,
    EventTypeRequiringIp,
    FeedbackOutcome,
    Verdict,
)
from ._generated.requests import (
    CheckoutAttemptRequest,
    FeedbackSubject,
    LoginRequest,
    Payment,
    SignupRequest,
    TrialConvertRequest,
    TrialStartRequest,
    VerdictRequest,
)
from ._shared import FeedbackReceipt, PingResult
from .errors import FailureKind
from .screening import FailedOpen, FailOpenReason, Screened, ScreenResult
from .webhooks import HeaderItems, RawBody, WebhookFailure

ReasonCode: TypeAlias = str
"""An open set: treat an unknown code as informational, never as a reason to refuse."""
ErrorCode: TypeAlias = str
RecommendedAction: TypeAlias = str
SignalSource: TypeAlias = str
"""A source of signals a verdict can be decided without (``Screened.degraded``)."""
EventPage: TypeAlias = EventList

__all__ = [
    "IP_REQUIRED_EVENT_TYPES",
    "KNOWN_ERROR_CODES",
    "KNOWN_REASON_CODES",
    "KNOWN_RECOMMENDED_ACTIONS",
    "KNOWN_SIGNAL_SOURCES",
    "PAYMENT_EVENT_TYPES",
    "CheckoutAttemptRequest",
    "ErrorBody",
    "ErrorCode",
    "ErrorDetails",
    "EventPage",
    "EventType",
    "EventTypeRequiringIp",
    "FailOpenReason",
    "FailedOpen",
    "FailureKind",
    "FeedbackOutcome",
    "FeedbackReceipt",
    "FeedbackResponse",
    "FeedbackSubject",
    "HeaderItems",
    "Health",
    "HealthCheck",
    "HealthChecks",
    "JsonValue",
    "LoginRequest",
    "Mode",
    "OnRetry",
    "Payment",
    "PingResult",
    "RawBody",
    "Reason",
    "ReasonCode",
    "ReasonDetail",
    "RecommendedAction",
    "RetryInfo",
    "ReviewResolvedWebhook",
    "ScreenResult",
    "Screened",
    "SignalSource",
    "SignupRequest",
    "StoredEvent",
    "StoredEventReview",
    "TrialConvertRequest",
    "TrialStartRequest",
    "ValidationIssue",
    "Verdict",
    "VerdictRequest",
    "VerdictResponse",
    "WebhookFailure",
]

"""Doorman's Python client: fail-open screening with safe retries, stored events, feedback and
webhook verification.

    from doorman_client import DoormanClient            # or AsyncDoormanClient
    from doorman_client import verify_webhook

The contract's types are in ``doorman_client.types`` (and the common ones here).
"""

from __future__ import annotations

from ._calls import VERSION as __version__
from .async_client import AsyncDoormanClient, AsyncEvents, AsyncFeedback
from .client import DoormanClient, Events, Feedback
from .errors import DoormanError, FailureKind
from .types import (
    EventPage,
    EventType,
    FailedOpen,
    FailOpenReason,
    FeedbackReceipt,
    PingResult,
    Reason,
    RetryInfo,
    ReviewResolvedWebhook,
    Screened,
    ScreenResult,
    StoredEvent,
    ValidationIssue,
    Verdict,
    VerdictRequest,
)
from .webhooks import WebhookFailure, WebhookVerificationError, verify_webhook

__all__ = [
    "AsyncDoormanClient",
    "AsyncEvents",
    "AsyncFeedback",
    "DoormanClient",
    "DoormanError",
    "EventPage",
    "EventType",
    "Events",
    "FailOpenReason",
    "FailedOpen",
    "FailureKind",
    "Feedback",
    "FeedbackReceipt",
    "PingResult",
    "Reason",
    "RetryInfo",
    "ReviewResolvedWebhook",
    "ScreenResult",
    "Screened",
    "StoredEvent",
    "ValidationIssue",
    "Verdict",
    "VerdictRequest",
    "WebhookFailure",
    "WebhookVerificationError",
    "__version__",
    "verify_webhook",
]

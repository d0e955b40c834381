"""Django: the webhook receiver, and a signup view that screens with the sync client.

settings.py::

    DOORMAN_URL = os.environ["DOORMAN_URL"]
    DOORMAN_SECRET_KEY = os.environ["DOORMAN_SECRET_KEY"]
    DOORMAN_WEBHOOK_SECRETS = os.environ["DOORMAN_WEBHOOK_SECRETS"].split(",")  # new and old during a rotation

urls.py::

    path("signup", django_views.signup), path("webhooks/doorman", django_views.doorman_webhook)
"""

from __future__ import annotations

import functools
import json
import logging
import uuid

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from doorman_client import DoormanClient, ReviewResolvedWebhook, WebhookVerificationError, verify_webhook

log = logging.getLogger(__name__)


@functools.cache
def doorman() -> DoormanClient:
    # One client per process: it is thread-safe and keeps its connections.
    return DoormanClient(secret_key=settings.DOORMAN_SECRET_KEY, base_url=settings.DOORMAN_URL)


def create_user(user_id: str, email: str) -> None:
    """Yours: create the account."""
    log.info("created %s %s", user_id, email)


def revoke_account(event: ReviewResolvedWebhook) -> None:
    """Yours: deactivate the account named by ``event.external_user_id`` (else ``event.email``).
    Make it idempotent: Doorman retries a delivery until it gets a 2xx."""
    log.info("revoke %s, event %s", event.external_user_id or event.email, event.event_id)


@require_POST
def signup(request: HttpRequest) -> HttpResponse:
    try:
        form = json.loads(request.body)
    except ValueError:
        form = None
    email = form.get("email") if isinstance(form, dict) else None
    ip = request.META.get("REMOTE_ADDR")  # behind your proxies: the address they forward
    if not isinstance(email, str) or not isinstance(ip, str):
        return JsonResponse({"error": "An email address is required."}, status=400)
    user_id = f"user_{uuid.uuid4()}"
    result = doorman().screen(
        {"event_type": "signup", "external_user_id": user_id, "email": email, "ip": ip, "user_agent": request.headers.get("User-Agent")}
    )
    if result.failed_open:
        log.warning("doorman failed open: %s (%s)", result.reason, result.error)
    if result.verdict == "block":
        return JsonResponse({"error": "We could not create your account."}, status=403)
    create_user(user_id, email)
    return JsonResponse({"user_id": user_id}, status=201)


@csrf_exempt  # Doorman signs its deliveries; it cannot send Django's CSRF token
@require_POST
def doorman_webhook(request: HttpRequest) -> HttpResponse:
    try:
        # request.body: the raw bytes, before anything parses them.
        event = verify_webhook(request.body, request.headers, settings.DOORMAN_WEBHOOK_SECRETS)
    except WebhookVerificationError as err:
        return HttpResponse(err.reason, status=401, content_type="text/plain")
    if event is not None and event.resolution == "denied":
        revoke_account(event)
    return HttpResponse(status=204)

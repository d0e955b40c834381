"""FastAPI: a signup route that screens with the async client, and the webhook receiver.

app = create_app(AsyncDoormanClient(secret_key=..., base_url=...), ["whsec_..."], revoke_account)
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from fastapi import BackgroundTasks, FastAPI, HTTPException, Request, Response
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel

from doorman_client import AsyncDoormanClient, ReviewResolvedWebhook, WebhookVerificationError, verify_webhook

log = logging.getLogger(__name__)


class SignupForm(BaseModel):
    email: str
    device_token: str | None = None


class SignupCreated(BaseModel):
    user_id: str


def create_app(
    doorman: AsyncDoormanClient,
    webhook_secrets: Sequence[str],
    revoke_account: Callable[[ReviewResolvedWebhook], Awaitable[None]],
) -> FastAPI:
    app = FastAPI()

    @app.post("/signup", status_code=201)
    async def signup(form: SignupForm, request: Request) -> SignupCreated:
        # Behind your own proxies, run uvicorn with --forwarded-allow-ips naming them.
        if request.client is None:
            raise HTTPException(400, "The client address is unknown.")
        user_id = f"user_{uuid.uuid4()}"
        result = await doorman.screen(
            {
                "event_type": "signup",
                "external_user_id": user_id,
                "email": form.email,
                "ip": request.client.host,
                "user_agent": request.headers.get("user-agent"),
                "device_token": form.device_token,
            }
        )
        if result.failed_open:
            log.warning("doorman failed open: %s (%s)", result.reason, result.error)
        if result.verdict == "block":
            raise HTTPException(403, "We could not create your account.")
        return SignupCreated(user_id=user_id)  # `review` too: proceed, revoke if a human denies it

    @app.post("/webhooks/doorman", status_code=204)
    async def doorman_webhook(request: Request, background: BackgroundTasks) -> Response:
        try:
            # The raw bytes, before anything parses them.
            event = verify_webhook(await request.body(), request.headers, webhook_secrets)
        except WebhookVerificationError as err:
            return PlainTextResponse(err.reason, status_code=401)
        if event is not None and event.resolution == "denied":
            background.add_task(revoke_account, event)  # runs after the 204 is sent
        return Response(status_code=204)

    return app

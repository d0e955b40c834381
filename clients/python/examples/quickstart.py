"""The README's first integration: a Flask app that screens each signup with Doorman and revokes the
account when a human denies its review (the signed ``review.resolved`` webhook).

    pip install ./clients/python flask==3.1.3
    DOORMAN_URL=http://127.0.0.1:8080 DOORMAN_SECRET_KEY=sk_test_... \\
      DOORMAN_WEBHOOK_SECRETS=whsec_... PORT=3000 python examples/quickstart.py
"""

from __future__ import annotations

import logging
import os
import re
import uuid
from collections.abc import Callable, Sequence

from flask import Flask, Response, jsonify, request
from werkzeug.middleware.proxy_fix import ProxyFix

from doorman_client import DoormanClient, ReviewResolvedWebhook, WebhookVerificationError, verify_webhook

log = logging.getLogger("quickstart")


def create_app(
    doorman: DoormanClient,
    webhook_secrets: Sequence[str],
    create_user: Callable[[str, str], None],
    revoke_account: Callable[[ReviewResolvedWebhook], None],
    trusted_proxies: int = 0,
) -> Flask:
    app = Flask(__name__)
    if trusted_proxies > 0:
        # Behind your own proxies, the person's address is in X-Forwarded-For: trust exactly as
        # many hops as you run, never more (anyone can send that header).
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=trusted_proxies)  # type: ignore[method-assign]

    @app.post("/signup")
    def signup() -> tuple[Response, int]:
        form = request.get_json(silent=True)
        email = form.get("email") if isinstance(form, dict) else None
        if not isinstance(email, str) or request.remote_addr is None:
            return jsonify(error="An email address is required."), 400
        device_token = form.get("device_token") if isinstance(form, dict) else None
        user_id = f"user_{uuid.uuid4()}"
        result = doorman.screen(
            {
                "event_type": "signup",
                "external_user_id": user_id,
                "email": email,
                "ip": request.remote_addr,  # the person's address, never your server's
                "user_agent": request.headers.get("User-Agent"),
                "device_token": device_token if isinstance(device_token, str) else None,
            }
        )
        if result.failed_open:
            log.warning("doorman failed open: %s (%s)", result.reason, result.error)
        elif result.degraded:
            log.warning("doorman decided without %s, event %s", ", ".join(result.degraded), result.id)
        if result.verdict == "block":
            return jsonify(error="We could not create your account."), 403
        create_user(user_id, email)  # `review` too: proceed, and revoke if a human denies it
        return jsonify(user_id=user_id), 201

    @app.post("/webhooks/doorman")
    def doorman_webhook() -> tuple[str, int]:
        try:
            event = verify_webhook(request.get_data(), request.headers, webhook_secrets)
        except WebhookVerificationError as err:
            return err.reason, 401  # Doorman retries; nothing was done
        if event is not None and event.resolution == "denied":
            revoke_account(event)  # idempotent: a retried delivery calls it again
        return "", 204  # 2xx for a type this version does not know (event None) too

    return app


def main() -> None:
    logging.basicConfig(level=logging.INFO)
    logging.getLogger("httpx").setLevel(logging.WARNING)  # not a line per request
    doorman = DoormanClient(secret_key=os.environ.get("DOORMAN_SECRET_KEY", ""), base_url=os.environ.get("DOORMAN_URL", ""))
    ping = doorman.ping()  # raises on a wrong URL or key: fail the deploy, not every signup
    print(f"doorman {ping.status}, {ping.mode} mode", flush=True)
    secrets = [s for s in re.split(r"[\s,]+", os.environ.get("DOORMAN_WEBHOOK_SECRETS", "")) if s]
    app = create_app(
        doorman,
        secrets,
        create_user=lambda user_id, email: print(f"created {user_id} {email}", flush=True),
        revoke_account=lambda event: print(f"revoke {event.external_user_id or event.email} event {event.event_id}", flush=True),
        trusted_proxies=int(os.environ.get("TRUSTED_PROXIES", "0")),
    )
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "3000")))


if __name__ == "__main__":
    main()

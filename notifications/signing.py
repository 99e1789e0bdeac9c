"""Standard Webhooks signatures (https://www.standardwebhooks.com/).

Every request carries ``webhook-id`` (the delivery's id: the same on every retry, so a receiver
dedupes by it), ``webhook-timestamp`` (Unix seconds of this attempt: a receiver refuses old ones)
and ``webhook-signature: v1,<base64(HMAC-SHA256(key, f"{id}.{timestamp}.{body}"))>``, where the key
is the base64 part of the ``whsec_`` secret.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

SECRET_PREFIX = "whsec_"
SECRET_BYTES = 24


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(SECRET_BYTES)).decode()


def signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def headers(secret: str, webhook_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(secret, webhook_id, timestamp, body),
    }

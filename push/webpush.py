"""Web Push: the message encrypted for the browser's keys (RFC 8291, aes128gcm, by pywebpush),
signed with the server's VAPID key (RFC 8292, by py-vapid), POSTed to the subscription's endpoint.

An endpoint is a URL the player gave, so it is sent to as a webhook is (``notifications.sending.
reply``): its host resolved once, every address checked unless ``PUSH_ALLOW_PRIVATE_ADDRESSES``,
and the connection made to the checked addresses.
"""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import time
from functools import cache
from urllib.parse import urlsplit

import structlog
from cryptography.hazmat.primitives import serialization
from django.conf import settings
from py_vapid import Vapid02
from pywebpush import WebPusher

from notifications.addresses import AddressRefused, target
from notifications.sending import reply
from push.answers import Answer, retry_after
from push.messages import Message
from push.models import Device

logger = structlog.get_logger(__name__)

#: The endpoint's answers that say the subscription is gone for good (RFC 8030 §7.3: 404, 410).
GONE = (404, 410)


@cache
def vapid(pem: str) -> Vapid02:
    return Vapid02.from_pem(pem.encode())


def public_key() -> str:
    """The VAPID public key as a browser's ``applicationServerKey`` takes it (base64url, the
    uncompressed P-256 point)."""
    key = vapid(settings.WEBPUSH_VAPID_PRIVATE_KEY).public_key
    raw = key.public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def topic(collapse_key: str) -> str:
    """RFC 8030 §5.4: at most 32 characters of the URL-safe base64 alphabet; a pending push of
    the same topic is replaced by this one."""
    return hashlib.sha256(collapse_key.encode()).hexdigest()[:32]


def send(device: Device, message: Message) -> Answer:
    subscription = {"endpoint": device.address, "keys": device.keys}
    payload = json.dumps(
        {"title": message.title, "body": message.body, "data": message.data}, sort_keys=True
    ).encode()
    body = WebPusher(subscription).encode(payload, "aes128gcm")["body"]
    parts = urlsplit(device.address)
    claims = {
        "sub": settings.WEBPUSH_SUBJECT,
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + 12 * 3600,
    }
    headers = {
        **vapid(settings.WEBPUSH_VAPID_PRIVATE_KEY).sign(claims),
        "content-encoding": "aes128gcm",
        "content-type": "application/octet-stream",
        "ttl": str(message.ttl),
        "urgency": "high" if message.urgent else "normal",
        "topic": topic(message.collapse_key),
    }
    try:
        where = target(device.address, allow_private=settings.PUSH_ALLOW_PRIVATE_ADDRESSES)
        status, answered = reply(where, body, headers)
    except AddressRefused:
        return Answer("webpush", None, "the endpoint's address is refused", gone=True)
    except (OSError, http.client.HTTPException, ValueError) as failure:
        logger.info("push.no_answer", platform="webpush", error=repr(failure))
        return Answer("webpush", None, "the push service did not answer")
    return Answer(
        "webpush",
        status,
        "" if 200 <= status < 300 else f"HTTP {status}",
        gone=status in GONE,
        retry_after=retry_after(answered.get("retry-after")),
    )

"""Apple Push Notification service over HTTP/2 (httpx with h2), authenticated by a provider
token: a JWT signed ES256 with the team's key (PyJWT), kept for 50 minutes (Apple refuses one
older than an hour, and one renewed more often than every 20 minutes).

aioapns, the kept APNs library, fixes Apple's two hosts in its code and takes no CA of its own,
so a local fake APNs could not stand in for Apple; httpx reaches ``APNS_HOST`` and trusts
``APNS_CA_FILE`` when it is given.
"""

from __future__ import annotations

import ssl
import threading
import time
from functools import cache
from pathlib import Path
from typing import Any

import httpx
import jwt
import structlog
from django.conf import settings

from push.answers import Answer, retry_after
from push.messages import Message
from push.models import Device

logger = structlog.get_logger(__name__)

TOKEN_SECONDS = 50 * 60
#: APNs' reasons that say the device token is dead for good (with a 410, or a 400 for a token
#: that was never one).
GONE = ("Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic")

_lock = threading.Lock()
_token: dict[str, Any] = {}


def provider_token() -> str:
    with _lock:
        if time.time() - _token.get("at", 0) > TOKEN_SECONDS:
            issued = int(time.time())
            _token["jwt"] = jwt.encode(
                {"iss": settings.APNS_TEAM_ID, "iat": issued},
                Path(settings.APNS_KEY_FILE).read_text(),
                algorithm="ES256",
                headers={"kid": settings.APNS_KEY_ID},
            )
            _token["at"] = issued
        return str(_token["jwt"])


@cache
def client(host: str, ca_file: str) -> httpx.Client:
    """One HTTP/2 connection a worker, kept (APNs asks providers to keep theirs open)."""
    trusted = ssl.create_default_context(cafile=ca_file or None)
    return httpx.Client(
        base_url=host, http2=True, verify=trusted, timeout=settings.PUSH_TIMEOUT_SECONDS
    )


def body(message: Message) -> dict[str, Any]:
    return {
        "aps": {
            "alert": {"title": message.title, "body": message.body},
            "badge": message.badge,
            "sound": "default",
            "thread-id": message.collapse_key,
            "interruption-level": "time-sensitive" if message.urgent else "active",
        },
        **message.data,
    }


def send(device: Device, message: Message) -> Answer:
    headers = {
        "authorization": f"bearer {provider_token()}",
        "apns-topic": device.topic,
        "apns-push-type": "alert",
        "apns-priority": "10" if message.urgent else "5",
        "apns-collapse-id": message.collapse_key[:64],
        "apns-expiration": str(int(time.time()) + message.ttl),
    }
    try:
        response = client(settings.APNS_HOST, settings.APNS_CA_FILE).post(
            f"/3/device/{device.address}", json=body(message), headers=headers
        )
    except httpx.HTTPError as failure:
        logger.info("push.no_answer", platform="apns", error=repr(failure))
        return Answer("apns", None, "the push service did not answer")
    status = response.status_code
    if status == 200:
        return Answer("apns", status)
    try:
        reason = str(response.json().get("reason", ""))
    except ValueError:
        reason = ""
    return Answer(
        "apns",
        status,
        f"HTTP {status} {reason}".strip(),
        gone=status == 410 or reason in GONE,
        retry_after=retry_after(response.headers.get("retry-after")),
    )

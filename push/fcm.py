"""Firebase Cloud Messaging, HTTP v1: a service account's OAuth token (google-auth), then one
POST a message. The token URL is the service account's ``token_uri`` and the send URL starts with
``FCM_BASE_URL``, so a test points both at a local fake; google-auth keeps the token until it is
about to expire."""

from __future__ import annotations

import json
import threading
from functools import cache
from typing import Any

import google.auth.exceptions
import httpx
import structlog
from django.conf import settings
from google.auth.transport.requests import Request
from google.oauth2 import service_account

from push.answers import Answer, retry_after
from push.messages import Message
from push.models import Device

logger = structlog.get_logger(__name__)

SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
#: FCM's error codes that say the token is dead for good: the app was uninstalled, the token
#: rotated (UNREGISTERED), or it was never a token (INVALID_ARGUMENT about the token).
GONE = ("UNREGISTERED",)

_lock = threading.Lock()


@cache
def credentials(path: str) -> service_account.Credentials:
    # google-auth's hints are partial (no annotation on these two).
    found: service_account.Credentials = service_account.Credentials.from_service_account_file(  # type: ignore[no-untyped-call]
        path, scopes=[SCOPE]
    )
    return found


def token() -> str:
    """A valid access token, fetched again only when it is about to expire."""
    found = credentials(settings.FCM_SERVICE_ACCOUNT_FILE)
    with _lock:
        if not found.valid:
            found.refresh(Request())  # type: ignore[no-untyped-call]
        return str(found.token)


@cache
def client(base_url: str) -> httpx.Client:
    """One client a worker, its connections kept: a new one per push would load the system's
    CAs each time (about 0.2 s of CPU on a busy machine, bench/README.md)."""
    return httpx.Client(base_url=base_url, timeout=settings.PUSH_TIMEOUT_SECONDS)


def body(device: Device, message: Message) -> dict[str, Any]:
    """One message: the notification, the data (strings only), and each platform's collapse
    key, badge and priority."""
    return {
        "message": {
            "token": device.address,
            "notification": {"title": message.title, "body": message.body},
            "data": message.data,
            "android": {
                "collapse_key": message.collapse_key,
                "priority": "high" if message.urgent else "normal",
                "ttl": f"{message.ttl}s",
                "notification": {
                    "tag": message.collapse_key,
                    "notification_count": message.badge,
                },
            },
            "apns": {
                "headers": {
                    "apns-collapse-id": message.collapse_key,
                    "apns-priority": "10" if message.urgent else "5",
                },
                "payload": {"aps": {"badge": message.badge, "thread-id": message.collapse_key}},
            },
            "webpush": {"headers": {"Topic": message.collapse_key[:32]}},
        }
    }


def send(device: Device, message: Message) -> Answer:
    found = credentials(settings.FCM_SERVICE_ACCOUNT_FILE)
    try:
        response = client(settings.FCM_BASE_URL.rstrip("/")).post(
            f"/v1/projects/{found.project_id}/messages:send",
            json=body(device, message),
            headers={"authorization": f"Bearer {token()}"},
        )
    except google.auth.exceptions.GoogleAuthError as failure:
        logger.warning("push.fcm_token_failed", error=repr(failure))
        return Answer("fcm", None, "no access token from the service account's token URL")
    except httpx.HTTPError as failure:
        logger.info("push.no_answer", platform="fcm", error=repr(failure))
        return Answer("fcm", None, "the push service did not answer")
    status = response.status_code
    if 200 <= status < 300:
        return Answer("fcm", status)
    code = error_code(response.content)
    return Answer(
        "fcm",
        status,
        f"HTTP {status} {code}".strip(),
        gone=code in GONE or status == 404,
        retry_after=retry_after(response.headers.get("retry-after")),
    )


def error_code(content: bytes) -> str:
    """FCM's ``errorCode`` from the error's details (``google.firebase.fcm.v1.FcmError``)."""
    try:
        details = json.loads(content)["error"].get("details", [])
    except (ValueError, KeyError, TypeError, AttributeError):
        return ""
    for detail in details if isinstance(details, list) else []:
        if isinstance(detail, dict) and "errorCode" in detail:
            return str(detail["errorCode"])
    return ""

"""Fixtures of the push tests: a server configured for Web Push, and a browser's subscription
made of a real P-256 key pair and auth secret (``Browser``), which can decrypt what it gets."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings

from streams import bus
from tests.games.conftest import Client, make_client, table  # noqa: F401  (fixtures)

DEVICES = "/api/players/me/devices"
SETTINGS = "/api/players/me/notifications"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def new_pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()


@dataclass
class Browser:
    """A browser's push subscription: its own key pair and auth secret (RFC 8291)."""

    endpoint: str
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self) -> dict[str, Any]:
        point = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }


@pytest.fixture(autouse=True)
def webpush_on(settings: Any) -> str:
    """Web Push configured; endpoints on 127.0.0.1 allowed (production refuses them)."""
    settings.WEBPUSH_VAPID_PRIVATE_KEY = new_pem()
    settings.WEBPUSH_SUBJECT = "mailto:ops@truc.example"
    settings.PUSH_ALLOW_PRIVATE_ADDRESSES = True
    settings.PUSH_QUEUE = ""  # the test worker consumes the default queue
    return str(settings.WEBPUSH_VAPID_PRIVATE_KEY)


def leave_tables() -> None:
    """Forget who read which game (streams/presence.py): the fixtures read games to find whose
    turn it is, which counts as being at the table."""
    client = bus.redis_client()
    for key in client.scan_iter(f"{settings.STREAMS_CHANNEL_PREFIX}.at:*"):
        client.delete(key)


def register(client: Client, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
    response = client.post(DEVICES, body)
    assert response.status_code == status, response.json()
    return response.json()


@pytest.fixture
def browser_of() -> Callable[[str], Browser]:
    return Browser

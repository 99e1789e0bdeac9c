"""Fixtures of the push tests: a server configured for Web Push, and a browser's subscription
made of a real P-256 key pair and auth secret (fakes.py's ``Browser``): it decrypts what it gets."""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from streams import bus
from tests.games.conftest import Client, make_client, table  # noqa: F401  (fixtures)
from tests.push.fakes import new_pem

DEVICES = "/api/players/me/devices"
SETTINGS = "/api/players/me/notifications"


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

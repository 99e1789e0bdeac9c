"""A player's devices: register (or refresh), list, remove; and his choices of what to receive.

A device is known by what its push service calls it (the token, or the Web Push endpoint), so
registering it again refreshes its row instead of adding one; a player keeps at most
``PUSH_MAX_DEVICES``, the most recently refreshed (an app reinstalled many times leaves dead
tokens behind, which would otherwise be pushed to for ever).
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from notifications.addresses import AddressRefused, check_url
from players.models import Player
from push import senders
from push.errors import DeviceNotFound, EndpointRefused, PlatformNotConfigured
from push.models import DEFAULT_KINDS, Device, Platform, PushSettings


def register(player: Player, data: dict[str, Any]) -> tuple[Device, bool]:
    """The device, and whether it is new; ``data`` is the validated body
    (``DeviceCreateSerializer``)."""
    platform = data["kind"]
    if not senders.configured(platform):
        raise PlatformNotConfigured(platform)
    subscription = data.get("subscription") or {}
    address = subscription.get("endpoint") or data["token"]
    if platform == Platform.WEBPUSH:
        try:
            check_url(address, allow_private=settings.PUSH_ALLOW_PRIVATE_ADDRESSES)
        except AddressRefused as refused:
            raise EndpointRefused(str(refused), refused.code) from None
    with transaction.atomic():
        device, created = Device.objects.select_for_update().update_or_create(
            platform=platform,
            address=address,
            defaults={
                "player": player,
                "keys": subscription.get("keys", {}),
                "topic": data.get("topic", ""),
                "locale": data.get("locale", "en"),
                "label": data.get("label", ""),
                "refreshed_at": timezone.now(),
            },
        )
        _keep_most_recent(player)
    return device, created


def _keep_most_recent(player: Player) -> None:
    kept = Device.objects.filter(player=player).order_by("-refreshed_at", "-created_at")
    stale = list(kept.values_list("pk", flat=True)[settings.PUSH_MAX_DEVICES :])
    if stale:
        Device.objects.filter(pk__in=stale).delete()


def device(player: Player, device_id: uuid.UUID | str) -> Device:
    try:
        return Device.objects.get(player=player, pk=device_id)
    except (Device.DoesNotExist, ValidationError):  # no such row, or not even a UUID
        raise DeviceNotFound() from None


def remove(player: Player, device_id: uuid.UUID | str) -> None:
    """Its pushes go with it; a task that finds its push gone does nothing."""
    device(player, device_id).delete()


def choices(player: Player) -> PushSettings:
    """The player's choices, or the defaults (everything but chat, no quiet hours)."""
    found = PushSettings.objects.filter(player=player).first()
    return found or PushSettings(player=player, kinds=list(DEFAULT_KINDS))


def choose(player: Player, changes: dict[str, Any]) -> PushSettings:
    """Change some of the player's choices; the others stay."""
    with transaction.atomic():
        current = PushSettings.objects.select_for_update().filter(player=player).first()
        current = current or PushSettings(player=player, kinds=list(DEFAULT_KINDS))
        for name, value in changes.items():
            setattr(current, name, sorted(set(value)) if name == "kinds" else value)
        current.save()
    return current

"""The players' rules for pushes: the kinds each chose, and quiet hours in his own time zone.

Checked when a push is written (``outbox``); whether the player is at the table and whether the
cause still holds are checked again when it is sent (``sending.still_wanted``).
"""

from __future__ import annotations

from datetime import datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ObjectDoesNotExist
from django.utils import timezone

from push.models import DEFAULT_KINDS, Device, PushKind, PushSettings


def choices_of(device: Device) -> PushSettings | None:
    try:
        return device.player.push_settings
    except ObjectDoesNotExist:
        return None


def wanted(device: Device, kind: PushKind, now: datetime | None = None) -> bool:
    """Whether the device's player receives ``kind`` now: he chose it (everything but chat until
    he chooses), and it is not his quiet hours, unless it is "time almost up" and he let it
    through them."""
    chosen = choices_of(device)
    if kind not in (chosen.kinds if chosen is not None else DEFAULT_KINDS):
        return False
    if chosen is None or not quiet(chosen, now or timezone.now()):
        return True
    return kind == PushKind.TIME_ALMOST_UP and chosen.urgent_in_quiet_hours


def quiet(chosen: PushSettings, now: datetime) -> bool:
    """Whether ``now`` falls in the player's quiet hours, read on his own clock; hours that
    cross midnight (22:00 to 08:00) are quiet on both sides of it."""
    start, end = chosen.quiet_from, chosen.quiet_until
    if start is None or end is None or start == end:
        return False
    try:
        zone = ZoneInfo(chosen.time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        zone = ZoneInfo("UTC")
    local: time = now.astimezone(zone).time()
    if start < end:
        return start <= local < end
    return local >= start or local < end

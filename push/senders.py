"""The push services, one module each (``webpush``, ``fcm``, ``apns``), behind one call:
``send(device, message) -> Answer``. A service is off until its settings are given."""

from __future__ import annotations

import time

from django.conf import settings

from push import apns, fcm, webpush
from push.answers import Answer
from push.messages import Message
from push.models import Device

SENDERS = {"webpush": webpush.send, "fcm": fcm.send, "apns": apns.send}


def configured(platform: str) -> bool:
    if platform == "webpush":
        return bool(settings.WEBPUSH_VAPID_PRIVATE_KEY and settings.WEBPUSH_SUBJECT)
    if platform == "fcm":
        return bool(settings.FCM_SERVICE_ACCOUNT_FILE)
    if platform == "apns":
        return bool(settings.APNS_KEY_FILE and settings.APNS_KEY_ID and settings.APNS_TEAM_ID)
    return False


def send(device: Device, message: Message) -> Answer:
    started = time.monotonic()
    if not configured(device.platform):
        return Answer(device.platform, None, "the service is not configured on this server")
    answer = SENDERS[device.platform](device, message)
    return Answer(
        answer.platform,
        answer.status_code,
        answer.error,
        answer.gone,
        answer.retry_after,
        int((time.monotonic() - started) * 1000),
    )

"""OpenAPI pieces of the push API: problem responses and examples."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample

from push import errors
from push.api.serializers import DeviceCreateSerializer, PushSettingsInputSerializer
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    THROTTLED,
    answer,
    page_refusal,
    problem_responses,
    refusal,
)


def _field(name: str, code: str, message: str) -> dict[str, str]:
    return {"field": name, "code": code, "message": message}


_DEVICE_NOT_FOUND = answer("No such device", errors.DeviceNotFound())
_KEYS = {
    "p256dh": (
        "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
    ),
    "auth": "tBHItJI5svbpez7KI4CCXg",
}

_BY_OPERATION: dict[str, list[OpenApiExample]] = {
    "devices_list": [page_refusal("Limit out of range")],
    "devices_register": [
        refusal("Unknown kind", DeviceCreateSerializer, {"kind": "sms", "token": "x"}),
        answer(
            "No token",
            errors.DeviceRefused(
                [{"field": "token", "code": "required", "message": "Required for a fcm device."}]
            ),
        ),
        answer(
            "Not an APNs token",
            errors.DeviceRefused(
                [
                    {
                        "field": "token",
                        "code": "invalid_token",
                        "message": "Not an APNs device token.",
                    }
                ]
            ),
        ),
        answer(
            "Bad browser key",
            errors.DeviceRefused(
                [
                    {
                        "field": "subscription.keys.p256dh",
                        "code": "invalid_key",
                        "message": "Not an uncompressed P-256 point in base64url.",
                    }
                ]
            ),
        ),
        answer(
            "Private address",
            errors.EndpointRefused(
                "The URL points at a private, loopback or reserved address.", "private_address"
            ),
        ),
        answer("Service not configured", errors.PlatformNotConfigured("apns")),
    ],
    "devices_read": [_DEVICE_NOT_FOUND],
    "devices_remove": [_DEVICE_NOT_FOUND],
    "devices_deliveries": [_DEVICE_NOT_FOUND, page_refusal("Limit out of range")],
    "push_settings_read": [],
    "push_settings_update": [
        refusal("Unknown kind", PushSettingsInputSerializer, {"kinds": ["turn"]}),
        answer(
            "Unknown time zone",
            errors.ChoicesRefused(
                [
                    {
                        "field": "time_zone",
                        "code": "invalid_time_zone",
                        "message": "Not an IANA time zone.",
                    }
                ]
            ),
        ),
        answer(
            "Half the quiet hours",
            errors.ChoicesRefused(
                [
                    {
                        "field": "quiet_until",
                        "code": "quiet_hours_incomplete",
                        "message": "Quiet hours take both quiet_from and quiet_until, or null"
                        " for both.",
                    }
                ]
            ),
        ),
    ],
}


def problems(operation_id: str) -> dict[tuple[int, str], Any]:
    """``responses`` entries: the operation's own problems, 401 and 429, an example each."""
    if operation_id == "push_webpush_key":  # public
        return problem_responses(answer("Not configured", errors.WebPushNotConfigured()), THROTTLED)
    return problem_responses(*_BY_OPERATION[operation_id], NOT_AUTHENTICATED, THROTTLED)


REGISTER = (
    "Register one of your devices: a browser's Web Push subscription (exactly what"
    " `PushSubscription.toJSON()` gives), an FCM registration token, or an APNs device token with"
    " the app's bundle id. Registering the same token or endpoint again refreshes it (200, the"
    " same id); a new one is 201. You keep at most `PUSH_MAX_DEVICES` (5 by default): the most"
    " recently registered. A Web Push endpoint at a private or loopback address is refused (422"
    " `endpoint_refused`), as is a device of a service this server is not configured for (422"
    " `platform_not_configured`). What each push carries: the `PushData` schema and docs/push.md."
)

REGISTER_EXAMPLES = [
    OpenApiExample(
        "A browser",
        value={
            "kind": "webpush",
            "subscription": {
                "endpoint": "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABh",
                "expirationTime": None,
                "keys": _KEYS,
            },
            "locale": "ca",
            "label": "Firefox at home",
        },
        request_only=True,
    ),
    OpenApiExample(
        "An Android app (FCM)",
        value={
            "kind": "fcm",
            "token": "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH",
            "locale": "es",
        },
        request_only=True,
    ),
    OpenApiExample(
        "An iPhone app (APNs)",
        value={
            "kind": "apns",
            "token": "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad",
            "topic": "com.example.truc",
            "locale": "en",
        },
        request_only=True,
    ),
]

SETTINGS = (
    "Change any of your choices (the others stay): the kinds of push you receive (all but"
    " `chat` until you choose), your time zone, and quiet hours in it (`HH:MM` to `HH:MM`, which"
    " may cross midnight; null and null for none). During quiet hours nothing is pushed, but"
    " `time_almost_up` when `urgent_in_quiet_hours` is true."
)

SETTINGS_EXAMPLES = [
    OpenApiExample(
        "Quiet nights in Valencia, urgent turns through",
        value={
            "time_zone": "Europe/Madrid",
            "quiet_from": "23:00",
            "quiet_until": "08:00",
            "urgent_in_quiet_hours": True,
        },
        request_only=True,
    ),
    OpenApiExample(
        "Turns and results only",
        value={"kinds": ["your_turn", "time_almost_up", "call_pending", "game_over"]},
        request_only=True,
    ),
]

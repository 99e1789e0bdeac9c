"""The push API's shapes: a device to register, the devices, their delivery log, the choices."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any
from zoneinfo import available_timezones

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from notifications.api.serializers import WebhookUrlField
from push.errors import ChoicesRefused, DeviceRefused
from push.models import Locale, Platform, Push, PushKind
from truc_api.bounds import MAX_ID
from truc_api.components import component
from truc_api.serializers import StrictSerializer

# --- input -------------------------------------------------------------------------------------

#: An FCM registration token: URL-safe characters and colons; an APNs token: hex digits.
FCM_TOKEN = re.compile(r"[A-Za-z0-9_:\-]{20,4096}")
APNS_TOKEN = re.compile(r"[0-9a-fA-F]{64,200}")
BUNDLE_ID = re.compile(r"[A-Za-z0-9\-.]{1,155}")


def _urlsafe_bytes(value: str) -> bytes | None:
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        return None


class WebPushKeysSerializer(StrictSerializer):
    """The browser's keys: RFC 8291's encryption of each push is made for them."""

    p256dh = serializers.CharField(
        max_length=100, help_text="The browser's P-256 public key, base64url (65 bytes)."
    )
    auth = serializers.CharField(
        max_length=40, help_text="The browser's authentication secret, base64url (16 bytes)."
    )


class WebPushSubscriptionSerializer(StrictSerializer):
    """Exactly what the browser's ``PushSubscription.toJSON()`` gives."""

    # A URI as the schema says; whether the server may send to it is a 422 (push/devices.py),
    # as a webhook's URL is.
    endpoint = WebhookUrlField(max_length=2000)
    expirationTime = serializers.IntegerField(  # noqa: N815  (the browser's own name)
        required=False,
        allow_null=True,
        min_value=0,
        max_value=MAX_ID,  # milliseconds since 1970, as the browser gives it
        help_text="The browser's; not used.",
    )
    keys = WebPushKeysSerializer()


class DeviceCreateSerializer(StrictSerializer):
    """One of three bodies, by ``kind``: ``webpush`` with ``subscription``; ``fcm`` with
    ``token``; ``apns`` with ``token`` and ``topic``. Unknown keys are a 400."""

    kind = serializers.ChoiceField(Platform.choices)
    subscription = WebPushSubscriptionSerializer(required=False)
    token = serializers.CharField(
        required=False,
        max_length=4096,
        help_text="FCM's registration token, or APNs' device token (hex).",
    )
    topic = serializers.CharField(
        required=False, max_length=155, help_text="APNs: the app's bundle id."
    )
    locale = serializers.ChoiceField(Locale.choices, required=False, default=Locale.EN)
    # A serializer is a field, whose own ``label`` the stubs type: the API's name wins here.
    label = serializers.CharField(  # type: ignore[assignment]
        required=False, max_length=100, default="", help_text="Yours, to tell devices apart."
    )

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        """What the schema cannot say: which fields go with which kind, and whether a token or
        a browser's keys are what their service issues: a 422 ``device_refused``."""
        errors = _kind_errors(data) or _value_errors(data)
        if errors:
            raise DeviceRefused([{"field": f, "code": c, "message": m} for f, c, m in errors])
        return data


def _kind_errors(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    kind = data["kind"]
    wanted = {
        Platform.WEBPUSH: {"subscription"},
        Platform.FCM: {"token"},
        Platform.APNS: {"token", "topic"},
    }[kind]
    errors: list[tuple[str, str, str]] = []
    for name in ("subscription", "token", "topic"):
        if name in wanted and name not in data:
            errors.append((name, "required", f"Required for a {kind} device."))
        elif name not in wanted and name in data:
            errors.append((name, "unknown_field", f"Not taken for a {kind} device."))
    return errors


def _value_errors(data: dict[str, Any]) -> list[tuple[str, str, str]]:
    kind, token, topic = data["kind"], data.get("token", ""), data.get("topic", "")
    errors: list[tuple[str, str, str]] = []
    if kind == Platform.FCM and not FCM_TOKEN.fullmatch(token):
        errors.append(("token", "invalid_token", "Not an FCM registration token."))
    if kind == Platform.APNS and not APNS_TOKEN.fullmatch(token):
        errors.append(("token", "invalid_token", "Not an APNs device token."))
    if kind == Platform.APNS and not BUNDLE_ID.fullmatch(topic):
        errors.append(("topic", "invalid_topic", "Not a bundle id."))
    if kind == Platform.WEBPUSH:
        keys = data["subscription"]["keys"]
        point, secret = _urlsafe_bytes(keys["p256dh"]), _urlsafe_bytes(keys["auth"])
        if point is None or len(point) != 65 or point[0] != 4:
            message = "Not an uncompressed P-256 point in base64url."
            errors.append(("subscription.keys.p256dh", "invalid_key", message))
        if secret is None or len(secret) != 16:
            errors.append(("subscription.keys.auth", "invalid_key", "Not 16 bytes in base64url."))
    return errors


@extend_schema_field({"type": "string", "pattern": "^([01][0-9]|2[0-3]):[0-5][0-9]$"})
class TimeOfDayField(serializers.TimeField):
    """A time of day as `HH:MM` (the schema's `time` format would want seconds and a zone)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(format="%H:%M", input_formats=["%H:%M"], **kwargs)


class PushSettingsInputSerializer(StrictSerializer):
    """Any of the choices; those left out stay as they are. Quiet hours are both times or
    neither (null, null: none)."""

    kinds = serializers.ListField(
        child=serializers.ChoiceField(PushKind.choices), max_length=len(PushKind), required=False
    )
    time_zone = serializers.CharField(
        max_length=64, required=False, help_text="An IANA time zone: `Europe/Madrid`."
    )
    quiet_from = TimeOfDayField(required=False, allow_null=True, help_text="`HH:MM`, local.")
    quiet_until = TimeOfDayField(required=False, allow_null=True, help_text="`HH:MM`, local.")
    urgent_in_quiet_hours = serializers.BooleanField(required=False)

    def validate(self, data: dict[str, Any]) -> dict[str, Any]:
        """What the schema cannot say: a time zone that exists, quiet hours whole: a 422
        ``choices_refused``."""
        errors: list[tuple[str, str, str]] = []
        if "time_zone" in data and data["time_zone"] not in available_timezones():
            errors.append(("time_zone", "invalid_time_zone", "Not an IANA time zone."))
        if ("quiet_from" in data) != ("quiet_until" in data) or (
            "quiet_from" in data and (data["quiet_from"] is None) != (data["quiet_until"] is None)
        ):
            message = "Quiet hours take both quiet_from and quiet_until, or null for both."
            errors.append(("quiet_until", "quiet_hours_incomplete", message))
        if errors:
            raise ChoicesRefused([{"field": f, "code": c, "message": m} for f, c, m in errors])
        return data


# --- output ------------------------------------------------------------------------------------


class DeviceSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(Platform.choices, source="platform")
    locale = serializers.ChoiceField(Locale.choices)
    label = serializers.CharField()  # type: ignore[assignment]  # as DeviceCreateSerializer's
    topic = serializers.CharField(help_text="APNs: the app's bundle id; empty otherwise.")
    created_at = serializers.DateTimeField()
    refreshed_at = serializers.DateTimeField(help_text="When it was last registered.")


class PushAttemptSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    at = serializers.DateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="None: no answer.")
    error = serializers.CharField(help_text="Empty when the push service accepted it.")
    duration_ms = serializers.IntegerField()


class PushSerializer(serializers.Serializer[Any]):
    """One push to the device, with its attempts: the delivery log."""

    id = serializers.UUIDField(help_text="The `push_id` of its data.")
    kind = serializers.ChoiceField(PushKind.choices)
    game_id = serializers.UUIDField(allow_null=True)
    version = serializers.IntegerField(help_text="The game version that caused it (0: lobby).")
    status = serializers.ChoiceField(Push.Status.choices)
    reason = serializers.CharField(help_text="Why it was skipped or failed; empty otherwise.")
    attempt_count = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    sent_at = serializers.DateTimeField(allow_null=True)
    attempts = PushAttemptSerializer(many=True, source="attempts.all")
    message = component(
        "PushData", nullable=True, help_text="The data last sent; null until an attempt."
    )


class PushSettingsSerializer(serializers.Serializer[Any]):
    kinds = serializers.ListField(child=serializers.ChoiceField(PushKind.choices))
    time_zone = serializers.CharField()
    quiet_from = TimeOfDayField(allow_null=True)
    quiet_until = TimeOfDayField(allow_null=True)
    urgent_in_quiet_hours = serializers.BooleanField()


class WebPushKeySerializer(serializers.Serializer[Any]):
    public_key = serializers.CharField(
        help_text="The VAPID public key, base64url: `applicationServerKey` for `subscribe()`."
    )

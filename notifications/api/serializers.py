"""The notifications API's shapes (the webhooks' bodies: notifications/api/webhooks.py)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from notifications.addresses import AddressRefused, check_url
from notifications.errors import UrlRefused
from notifications.models import Delivery, Kind
from truc_api.components import component
from truc_api.serializers import StrictSerializer

# --- input -------------------------------------------------------------------------------------


@extend_schema_field({"type": "string", "format": "uri"})
class WebhookUrlField(serializers.CharField):
    """A URI, as the schema says; whether the server may send to it (http or https, a host that
    resolves to a public address) ``check_url`` says, with a 422: one validator for it."""


class SubscriptionCreateSerializer(StrictSerializer):
    """A URL to notify, and the kinds of notification it wants. Unknown keys are a 400."""

    url = WebhookUrlField(
        max_length=2000,
        help_text="http or https; never a private or loopback address in production.",
    )
    kinds = serializers.ListField(
        child=serializers.ChoiceField(Kind.choices), min_length=1, max_length=len(Kind)
    )
    description = serializers.CharField(max_length=200, required=False, default="")

    def validate_url(self, url: str) -> str:
        try:
            check_url(url)
        except AddressRefused as refused:
            raise UrlRefused(str(refused), refused.code) from None  # a 422: the schema allows it
        return url


# --- output ------------------------------------------------------------------------------------


class SubscriptionSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    url = serializers.URLField()
    kinds = serializers.ListField(child=serializers.ChoiceField(Kind.choices))
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    consecutive_failures = serializers.IntegerField(
        help_text="Attempts at this URL failed in a row, over all its deliveries (0 after a"
        " success). At WEBHOOK_BREAKER_FAILURES (5 by default) the breaker opens."
    )
    paused_until = serializers.DateTimeField(
        allow_null=True,
        help_text="While the breaker is open, until when no attempt is made: due deliveries wait"
        " (their attempts not counted), then one attempt tries the URL again; a success closes"
        " the breaker, a failure opens it again. Null when closed.",
    )


class SubscriptionCreatedSerializer(SubscriptionSerializer):
    secret = serializers.CharField(
        help_text="`whsec_` + base64: the signing key. Shown only in this answer: keep it."
    )


class AttemptSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    at = serializers.DateTimeField()
    status_code = serializers.IntegerField(allow_null=True, help_text="None: no answer.")
    error = serializers.CharField(
        help_text="Empty when the receiver answered 2xx; otherwise `HTTP <status>` or one of two"
        " fixed texts (the address is refused; the receiver did not answer)."
    )
    duration_ms = serializers.IntegerField(
        source="answered_in_ms",
        allow_null=True,
        help_text="How long the receiver took to answer; null when it did not answer.",
    )


class DeliverySerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField(help_text="The `webhook-id` header: dedupe by it.")
    subscription = serializers.UUIDField(source="subscription_id")
    kind = serializers.ChoiceField(Kind.choices)
    game_id = serializers.UUIDField(allow_null=True, help_text="None: a lobby notice of no game.")
    version = serializers.IntegerField(help_text="The game version that caused it (0: lobby).")
    status = serializers.ChoiceField(Delivery.Status.choices)
    attempt_count = serializers.IntegerField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    delivered_at = serializers.DateTimeField(allow_null=True)
    replay_of = serializers.UUIDField(source="replay_of_id", allow_null=True)
    attempts = AttemptSerializer(source="attempt_log.all", many=True)


class DeliveryDetailSerializer(DeliverySerializer):
    payload = component("Notification", help_text="The body sent, byte for byte as JSON.")

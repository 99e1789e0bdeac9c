"""OpenAPI pieces of the notifications API: problem responses, examples, and the webhook itself.

The request we send is documented as a ``callback`` of the operation that subscribes (it goes to
the URL given there), its body any ``Notification``; each kind's body is in the document's
``webhooks`` (notifications/api/webhooks.py).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiCallback, OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers

from notifications import errors
from notifications.addresses import AddressRefused
from notifications.api import webhooks
from notifications.api.serializers import SubscriptionCreateSerializer
from notifications.models import Kind
from truc_api.components import ref
from truc_api.serializers import (
    NOT_AUTHENTICATED,
    THROTTLED,
    answer,
    page_refusal,
    problem_responses,
    refusal,
)


def _url_refused(name: str, refused: AddressRefused) -> OpenApiExample:
    """The 422 of a URL the server may not send to, as the serializer raises it."""
    return answer(name, errors.UrlRefused(str(refused), refused.code))


_SUBSCRIPTION_NOT_FOUND = answer("No such subscription", errors.SubscriptionNotFound())
_DELIVERY_NOT_FOUND = answer("No such delivery", errors.DeliveryNotFound())
_BAD_FILTER = answer(
    "Unknown status",
    serializers.ValidationError(
        {"status": ["Select a valid choice. lost is not one of the available choices."]}
    ),
)

#: By operation: every problem it answers with but 401 and 429, which every one may.
_BY_OPERATION: dict[str, list[OpenApiExample]] = {
    "webhooks_subscriptions_list": [page_refusal("Limit out of range")],
    "webhooks_subscriptions_create": [
        refusal(
            "Unknown field",
            SubscriptionCreateSerializer,
            {"url": "https://93.184.215.14/hooks", "kinds": ["your_turn"], "colour": "red"},
        ),
        refusal(
            "Unknown kind",
            SubscriptionCreateSerializer,
            {"url": "https://93.184.215.14/hooks", "kinds": ["turn"]},
        ),
        _url_refused(
            "Private address",
            AddressRefused(
                "The URL points at a private, loopback or reserved address.", "private_address"
            ),
        ),
        _url_refused(
            "Not http",
            AddressRefused("Only http and https URLs with a host are accepted.", "invalid_url"),
        ),
    ],
    "webhooks_subscriptions_read": [_SUBSCRIPTION_NOT_FOUND],
    "webhooks_subscriptions_delete": [_SUBSCRIPTION_NOT_FOUND],
    "webhooks_deliveries_list": [_BAD_FILTER, page_refusal("Limit out of range")],
    "webhooks_deliveries_read": [_DELIVERY_NOT_FOUND],
    "webhooks_deliveries_replay": [
        _DELIVERY_NOT_FOUND,
        answer("Delivery pending", errors.DeliveryPending()),
    ],
}


def problems(operation_id: str) -> dict[tuple[int, str], Any]:
    """``responses`` entries: the operation's own problems, 401 and 429, an example each."""
    return problem_responses(*_BY_OPERATION[operation_id], NOT_AUTHENTICATED, THROTTLED)


SUBSCRIBE_EXAMPLES = [
    OpenApiExample(
        "A bot's turns",
        value={"url": "https://bot.example.com/truc/hooks", "kinds": ["your_turn", "call_pending"]},
        request_only=True,
    ),
    OpenApiExample(
        "Everything",
        value={
            "url": "https://app.example.com/hooks/truc",
            "kinds": [kind.value for kind in Kind],
            "description": "push notifications",
        },
        request_only=True,
    ),
]

WEBHOOK_CALLBACK = OpenApiCallback(
    "notification",
    "{$request.body#/url}",
    extend_schema(
        summary="A notification we send to the subscription's URL",
        description=webhooks.DESCRIPTION + "\nEach kind's body: the document's `webhooks`.",
        request={"application/json": ref("Notification")},
        responses={
            200: OpenApiResponse(description="Received: any 2xx status acknowledges it."),
            "4XX": OpenApiResponse(
                description="Refused: retried later, as any answer but a 2xx (see above)."
            ),
        },
        examples=[
            OpenApiExample(kind, value=example) for kind, example in webhooks.EXAMPLES.items()
        ],
    ),
)

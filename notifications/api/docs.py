"""OpenAPI pieces of the notifications API: problem responses, examples, and the webhook itself.

The request we send is documented as a ``callback`` of the operation that subscribes (it goes to
the URL given there).
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiCallback, OpenApiExample, OpenApiResponse, extend_schema
from rest_framework import serializers

from games import engine
from games.api.docs import answer, page_refusal, refusal
from notifications import errors
from notifications.addresses import AddressRefused
from notifications.api.serializers import (
    SubscriptionCreateSerializer,
    WebhookPayloadSerializer,
)
from notifications.models import Kind
from truc_api.serializers import NOT_AUTHENTICATED, THROTTLED, problem_responses


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

_GAME_ID = "0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11"


def _state_after_a_card() -> dict[str, Any]:
    """Seat 1's view once seat 0 has led the 4 of bastos: made by the engine, so it has every
    field the view has (``engine.view_for``, as the payload's)."""
    state = engine.start(engine.start_match(engine.PRESETS["valenciano"]))
    state = engine.evolve(state, engine.deal_hands(state, [["4B", "5O", "6C"], ["1E", "7O", "3C"]]))
    for event in engine.decide(state, 0, engine.play("4B")):
        state = engine.evolve(state, event)
    view = engine.view_for(state, 1)
    for key in ("rules", "version", "seat"):  # the payload's own fields say these
        del view[key]
    return view


_YOUR_TURN = {
    "type": "your_turn",
    "timestamp": "2025-05-01T18:30:02.118000+00:00",
    "data": {
        "game_id": _GAME_ID,
        "version": 3,
        "seat": 1,
        "status": "active",
        "deadline": "2025-05-02T18:30:02.104000+00:00",
        "events": [
            {
                "seq": 3,
                "type": "card_played",
                "at": "2025-05-01T18:30:02.101000+00:00",
                "seat": 0,
                "data": {"seat": 0, "card": "4B"},
            }
        ],
        "state": _state_after_a_card(),
    },
}
WEBHOOK_DESCRIPTION = """\
What we POST to a subscription's URL (`application/json`), one request per notification:

- `your_turn`: the subscriber's seat may act now and could not before;
- `call_pending`: a call (truco, envido, a raise) awaits the answer of the subscriber's side;
- `deadline_near`: the turn times out within the server's reminder lead time;
- `hand_ended`, `match_ended`: at any game the subscriber is seated at.

A call also hands the turn over: a seat that must now answer one gets both `your_turn` and
`call_pending` when it subscribed to both.

The body is the game as the subscriber's seat sees it: its own cards, never another seat's unplayed
card. Signed per Standard Webhooks (https://www.standardwebhooks.com/), with headers:

- `webhook-id`: the delivery's id, the same on every retry: **dedupe by it**. Delivery is at
  least once: a request whose answer was lost (a timeout, a crash) is sent again with this id.
- `webhook-timestamp`: Unix seconds of this attempt; refuse one far from your clock (5 minutes).
- `webhook-signature`: `v1,` + base64 of HMAC-SHA256 over `{webhook-id}.{webhook-timestamp}.{body}`,
  keyed with the base64-decoded part of the secret after `whsec_`; space-separated when several.

Answer 2xx within the timeout (10 s by default) to acknowledge; anything else (redirects included)
is retried after 5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 3 h and 6 h, then the delivery fails.
"""

WEBHOOK_CALLBACK = OpenApiCallback(
    "notification",
    "{$request.body#/url}",
    extend_schema(
        summary="A notification we send to the subscription's URL",
        description=WEBHOOK_DESCRIPTION,
        request=WebhookPayloadSerializer,
        responses={
            200: OpenApiResponse(description="Received: any 2xx status acknowledges it."),
            "4XX": OpenApiResponse(
                description="Refused: retried later, as any answer but a 2xx (see above)."
            ),
        },
        examples=[OpenApiExample("your_turn", value=_YOUR_TURN)],
    ),
)

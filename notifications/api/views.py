"""The notifications API: webhook subscriptions and deliveries, and the live event stream.

Subscriptions belong to the caller's account; an integrating application is a player account for
now, notified about the games it is seated at.
"""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from notifications import selectors, services
from notifications.api import docs
from notifications.api.filters import DeliveryFilter
from notifications.api.serializers import (
    DeliveryDetailSerializer,
    DeliverySerializer,
    SubscriptionCreatedSerializer,
    SubscriptionCreateSerializer,
    SubscriptionSerializer,
)
from notifications.models import Delivery, Subscription
from players.api.requests import player_of
from truc_api.pagination import Page
from truc_api.scopes import WEBHOOKS_MANAGE
from truc_api.serializers import UUID_PATTERN, location, output, validated

_WAIT_RETRY_AFTER = OpenApiParameter(
    "Retry-After",
    int,
    OpenApiParameter.HEADER,
    response=[200],
    description="With every wait taken: seconds before asking again (the answer came at once).",
)
SUBSCRIPTION_ID = OpenApiParameter(
    "subscription_id", str, OpenApiParameter.PATH, description="The subscription's UUID."
)
DELIVERY_ID = OpenApiParameter(
    "delivery_id", str, OpenApiParameter.PATH, description="The delivery's UUID (`webhook-id`)."
)


class SubscriptionListView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """The caller's webhook subscriptions (their secrets are never shown again)."""

    required_scopes = WEBHOOKS_MANAGE

    serializer_class = SubscriptionSerializer
    pagination_class = Page

    @extend_schema(
        operation_id="webhooks_subscriptions_list",
        summary="Your webhook subscriptions",
        tags=["webhooks"],
        responses={
            200: SubscriptionSerializer(many=True),
            **docs.problems("webhooks_subscriptions_list"),
        },
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    @extend_schema(
        operation_id="webhooks_subscriptions_create",
        summary="Subscribe a URL to notifications",
        tags=["webhooks"],
        parameters=[location(f"/api/webhooks/subscriptions/{UUID_PATTERN}", "the subscription")],
        request=SubscriptionCreateSerializer,
        responses={
            201: SubscriptionCreatedSerializer,
            **docs.problems("webhooks_subscriptions_create"),
        },
        examples=docs.SUBSCRIBE_EXAMPLES,
        callbacks=[docs.WEBHOOK_CALLBACK],
        description=(
            "Subscribe a URL to notifications about the games the caller is seated at. The"
            " answer holds the signing `secret`, shown this once. See the `notification`"
            " callback for what is sent, how it is signed, and why receivers dedupe by"
            " `webhook-id`."
        ),
    )
    def post(self, request: Request) -> Response:
        data = validated(SubscriptionCreateSerializer, request.data)
        subscription = services.subscribe(player_of(request), **data)
        return Response(
            output(SubscriptionCreatedSerializer, subscription),
            status=status.HTTP_201_CREATED,
            headers={"Location": f"/api/webhooks/subscriptions/{subscription.pk}"},
        )

    def get_queryset(self) -> QuerySet[Subscription]:
        if getattr(self, "swagger_fake_view", False):  # schema generation has no user
            return Subscription.objects.none()
        return selectors.subscriptions(player_of(self.request))


class SubscriptionView(APIView):
    required_scopes = WEBHOOKS_MANAGE

    @extend_schema(
        operation_id="webhooks_subscriptions_read",
        summary="One webhook subscription",
        tags=["webhooks"],
        parameters=[SUBSCRIPTION_ID],
        responses={200: SubscriptionSerializer, **docs.problems("webhooks_subscriptions_read")},
    )
    def get(self, request: Request, subscription_id: str) -> Response:
        subscription = selectors.subscription(player_of(request), subscription_id)
        return Response(output(SubscriptionSerializer, subscription))

    @extend_schema(
        operation_id="webhooks_subscriptions_delete",
        summary="Unsubscribe",
        tags=["webhooks"],
        parameters=[SUBSCRIPTION_ID],
        responses={204: None, **docs.problems("webhooks_subscriptions_delete")},
        description="Unsubscribe: nothing more is sent, pending deliveries included.",
    )
    def delete(self, request: Request, subscription_id: str) -> Response:
        services.unsubscribe(player_of(request), subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryListView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    """The deliveries to the caller's subscriptions, newest first, with their attempts."""

    required_scopes = WEBHOOKS_MANAGE

    serializer_class = DeliverySerializer
    pagination_class = Page
    filterset_class = DeliveryFilter

    @extend_schema(
        operation_id="webhooks_deliveries_list",
        summary="Deliveries to your subscriptions, with their attempts",
        tags=["webhooks"],
        responses={200: DeliverySerializer(many=True), **docs.problems("webhooks_deliveries_list")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Delivery]:
        if getattr(self, "swagger_fake_view", False):
            return Delivery.objects.none()
        return selectors.deliveries(player_of(self.request))


class DeliveryView(APIView):
    required_scopes = WEBHOOKS_MANAGE

    @extend_schema(
        operation_id="webhooks_deliveries_read",
        summary="One delivery and the body it sends",
        tags=["webhooks"],
        parameters=[DELIVERY_ID],
        responses={200: DeliveryDetailSerializer, **docs.problems("webhooks_deliveries_read")},
        description="One delivery with its attempts and the body it sends.",
    )
    def get(self, request: Request, delivery_id: str) -> Response:
        delivery = selectors.delivery(player_of(request), delivery_id)
        return Response(output(DeliveryDetailSerializer, delivery))


class ReplayView(APIView):
    required_scopes = WEBHOOKS_MANAGE

    @extend_schema(
        operation_id="webhooks_deliveries_replay",
        summary="Send a delivery's body again",
        tags=["webhooks"],
        parameters=[
            DELIVERY_ID,
            location(f"/api/webhooks/deliveries/{UUID_PATTERN}", "the new delivery", 202),
        ],
        request=None,
        responses={202: DeliverySerializer, **docs.problems("webhooks_deliveries_replay")},
        description=(
            "Send a delivered or failed delivery's body again, as a new delivery with a new"
            " `webhook-id` (a receiver that dedupes would drop the old one)."
        ),
    )
    def post(self, request: Request, delivery_id: str) -> Response:
        replayed = services.replay(player_of(request), delivery_id)
        return Response(
            output(DeliverySerializer, selectors.delivery(player_of(request), replayed.pk)),
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": f"/api/webhooks/deliveries/{replayed.pk}"},
        )

"""The push API: a player's devices and their delivery log, his choices, the VAPID key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, status
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from players.api.requests import player_of
from push import devices, webpush
from push.api import docs
from push.api.serializers import (
    DeviceCreateSerializer,
    DeviceSerializer,
    PushSerializer,
    PushSettingsInputSerializer,
    PushSettingsSerializer,
    WebPushKeySerializer,
)
from push.errors import WebPushNotConfigured
from push.models import Device, Push
from truc_api.pagination import Page
from truc_api.scopes import DEVICES_MANAGE
from truc_api.serializers import UUID_PATTERN, location, output, validated

DEVICE_ID = OpenApiParameter(
    "device_id", str, OpenApiParameter.PATH, description="The device's UUID."
)


class DeviceListView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    required_scopes = DEVICES_MANAGE
    serializer_class = DeviceSerializer
    pagination_class = Page

    @extend_schema(
        operation_id="devices_list",
        summary="Your devices for push notifications",
        tags=["push"],
        responses={200: DeviceSerializer(many=True), **docs.problems("devices_list")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    @extend_schema(
        operation_id="devices_register",
        summary="Register a device for push notifications",
        tags=["push"],
        parameters=[location(f"/api/players/me/devices/{UUID_PATTERN}", "the device")],
        request=DeviceCreateSerializer,
        responses={
            200: DeviceSerializer,
            201: DeviceSerializer,
            **docs.problems("devices_register"),
        },
        examples=docs.REGISTER_EXAMPLES,
        description=docs.REGISTER,
    )
    def post(self, request: Request) -> Response:
        data = validated(DeviceCreateSerializer, request.data)
        device, created = devices.register(player_of(request), data)
        return Response(
            output(DeviceSerializer, device),
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
            headers={"Location": f"/api/players/me/devices/{device.pk}"},
        )

    def get_queryset(self) -> QuerySet[Device]:
        if getattr(self, "swagger_fake_view", False):
            return Device.objects.none()
        return Device.objects.filter(player=player_of(self.request)).order_by("-refreshed_at")


class DeviceView(APIView):
    required_scopes = DEVICES_MANAGE

    @extend_schema(
        operation_id="devices_read",
        summary="One of your devices",
        tags=["push"],
        parameters=[DEVICE_ID],
        responses={200: DeviceSerializer, **docs.problems("devices_read")},
    )
    def get(self, request: Request, device_id: str) -> Response:
        return Response(output(DeviceSerializer, devices.device(player_of(request), device_id)))

    @extend_schema(
        operation_id="devices_remove",
        summary="Remove a device: nothing more is pushed to it",
        tags=["push"],
        parameters=[DEVICE_ID],
        responses={204: None, **docs.problems("devices_remove")},
    )
    def delete(self, request: Request, device_id: str) -> Response:
        devices.remove(player_of(request), device_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class DeliveryLogView(generics.ListAPIView):  # type: ignore[type-arg]  # generic in the stubs only
    required_scopes = DEVICES_MANAGE
    """The pushes to one of the caller's devices, newest first, with every attempt."""

    serializer_class = PushSerializer
    pagination_class = Page

    @extend_schema(
        operation_id="devices_deliveries",
        summary="The pushes to one of your devices, with their attempts",
        tags=["push"],
        parameters=[DEVICE_ID],
        responses={200: PushSerializer(many=True), **docs.problems("devices_deliveries")},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.list(request, *args, **kwargs)

    def get_queryset(self) -> QuerySet[Push]:
        if getattr(self, "swagger_fake_view", False):
            return Push.objects.none()
        device = devices.device(player_of(self.request), self.kwargs["device_id"])
        return device.pushes.order_by("-created_at").prefetch_related("attempts")


class PushSettingsView(APIView):
    required_scopes = DEVICES_MANAGE

    @extend_schema(
        operation_id="push_settings_read",
        summary="What you receive as pushes, and your quiet hours",
        tags=["push"],
        responses={200: PushSettingsSerializer, **docs.problems("push_settings_read")},
    )
    def get(self, request: Request) -> Response:
        return Response(output(PushSettingsSerializer, devices.choices(player_of(request))))

    @extend_schema(
        operation_id="push_settings_update",
        summary="Choose what you receive as pushes, and your quiet hours",
        tags=["push"],
        request=PushSettingsInputSerializer,
        responses={200: PushSettingsSerializer, **docs.problems("push_settings_update")},
        examples=docs.SETTINGS_EXAMPLES,
        description=docs.SETTINGS,
    )
    def patch(self, request: Request) -> Response:
        changes = validated(PushSettingsInputSerializer, request.data)
        chosen = devices.choose(player_of(request), changes)
        return Response(output(PushSettingsSerializer, chosen))


class WebPushKeyView(APIView):
    """Public: the key is what every browser subscribes with."""

    authentication_classes = ()
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="push_webpush_key",
        summary="The VAPID public key a browser subscribes with",
        tags=["push"],
        responses={200: WebPushKeySerializer, **docs.problems("push_webpush_key")},
    )
    def get(self, request: Request) -> Response:
        if not (settings.WEBPUSH_VAPID_PRIVATE_KEY and settings.WEBPUSH_SUBJECT):
            raise WebPushNotConfigured()
        return Response(output(WebPushKeySerializer, {"public_key": webpush.public_key()}))

"""Liveness and readiness probes: JSON, no authentication, no throttling."""

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import structlog
from django.conf import settings
from django.db import DatabaseError, connection
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.decorators import (
    api_view,
    authentication_classes,
    permission_classes,
    throttle_classes,
)
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response

from truc_api.serializers import problem_example, problem_responses

logger = structlog.get_logger(__name__)

_Live = inline_serializer("HealthLive", {"status": serializers.CharField()})
_Ready = inline_serializer(
    "HealthReady",
    {
        "status": serializers.ChoiceField(choices=["ok", "unavailable"]),
        "database": inline_serializer(
            "HealthReadyDatabase",
            {
                "ok": serializers.BooleanField(),
                "vendor": serializers.CharField(),
                "ms": serializers.FloatField(),
            },
        ),
        "broker": inline_serializer(
            "HealthReadyBroker",
            {"scheme": serializers.CharField(), "eager": serializers.BooleanField()},
        ),
    },
)


def _probe(view: Callable[[Request], Response]) -> Callable[..., Any]:
    """A GET view that anyone may call as often as a load balancer likes."""
    for decorate in (
        authentication_classes([]),
        permission_classes([AllowAny]),
        throttle_classes([]),
        api_view(["GET"]),
    ):
        view = decorate(view)
    return view


# A probe takes GET only: anything else is a 405 problem, like every other error.
_WRONG_METHOD = problem_responses(
    problem_example("Method not allowed", 405, "method_not_allowed", 'Method "POST" not allowed.')
)


@extend_schema(responses={200: _Live, **_WRONG_METHOD}, tags=["health"])
@_probe
def live(request: Request) -> Response:
    """The process answers."""
    return Response({"status": "ok"})


@extend_schema(responses={200: _Ready, 503: _Ready, **_WRONG_METHOD}, tags=["health"])
@_probe
def ready(request: Request) -> Response:
    """The database answers a query; names the broker's scheme (never its URL or password)."""
    started = time.perf_counter()
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        database_ok = True
    except DatabaseError:
        logger.exception("health.database_unavailable")
        database_ok = False
    body = {
        "status": "ok" if database_ok else "unavailable",
        "database": {
            "ok": database_ok,
            "vendor": connection.vendor,
            "ms": round((time.perf_counter() - started) * 1000, 2),
        },
        "broker": {
            "scheme": urlsplit(settings.CELERY_BROKER_URL).scheme,
            "eager": bool(settings.CELERY_TASK_ALWAYS_EAGER),
        },
    }
    return Response(body, status=200 if database_ok else 503)

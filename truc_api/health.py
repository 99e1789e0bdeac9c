"""Liveness and readiness probes: JSON, no authentication, no throttling."""

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import structlog
from django.conf import settings
from django.db import DatabaseError, connection
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
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

from truc_api.celery import app as celery_app
from truc_api.serializers import problem_example, problem_responses

logger = structlog.get_logger(__name__)

_Live = inline_serializer("HealthLive", {"status": serializers.ChoiceField(choices=["ok"])})
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
            {
                "ok": serializers.BooleanField(),
                "scheme": serializers.CharField(),
                "eager": serializers.BooleanField(),
            },
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


@extend_schema(
    operation_id="health_live",
    responses={200: _Live, **_WRONG_METHOD},
    tags=["health"],
    summary="Liveness: the process answers",
)
@_probe
def live(request: Request) -> Response:
    """The process answers."""
    return Response({"status": "ok"})


@extend_schema(
    operation_id="health_ready",
    responses={200: _Ready, 503: _Ready, **_WRONG_METHOD},
    tags=["health"],
    summary="Readiness: the database and the broker answer",
    examples=[
        OpenApiExample(
            "Broker down",
            value={
                "status": "unavailable",
                "database": {"ok": True, "vendor": "postgresql", "ms": 0.84},
                "broker": {"ok": False, "scheme": "redis", "eager": False},
            },
            response_only=True,
            status_codes=["503"],
        )
    ],
)
@_probe
def ready(request: Request) -> Response:
    """The database answers a query and the broker a connection; names the broker's scheme
    (never its URL or password)."""
    started = time.perf_counter()
    database_ok = _database_ok()
    database_ms = round((time.perf_counter() - started) * 1000, 2)
    broker_ok = _broker_ok()
    body = {
        "status": "ok" if database_ok and broker_ok else "unavailable",
        "database": {"ok": database_ok, "vendor": connection.vendor, "ms": database_ms},
        "broker": {
            "ok": broker_ok,
            "scheme": urlsplit(settings.CELERY_BROKER_URL).scheme,
            "eager": bool(settings.CELERY_TASK_ALWAYS_EAGER),
        },
    }
    return Response(body, status=200 if database_ok and broker_ok else 503)


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return True
    except DatabaseError:
        logger.exception("health.database_unavailable")
        return False


def _broker_ok() -> bool:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return True  # tasks run in the caller: there is no broker to reach
    try:
        with celery_app.connection_for_write(settings.CELERY_BROKER_URL) as broker:
            broker.ensure_connection(max_retries=1, timeout=2)
        return True
    except Exception:  # kombu raises the transport's own errors: any of them means "not ready"
        logger.warning("health.broker_unavailable", exc_info=True)
        return False

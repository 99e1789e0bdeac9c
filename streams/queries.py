"""The streams' query strings and their cursor header, checked like every request body."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from rest_framework import serializers

from truc_api.pagination import MAX_QUERY_INTEGER
from truc_api.serializers import StrictSerializer, validated


class GameStreamQuerySerializer(StrictSerializer):
    from_query = True  # a query string: digits are a whole number
    after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_QUERY_INTEGER,
        default=0,
        help_text="Send the events after this seq (`Last-Event-ID` wins).",
    )


class PlayerStreamQuerySerializer(StrictSerializer):
    from_query = True  # a query string: digits are a whole number
    after = serializers.IntegerField(
        min_value=0,
        max_value=MAX_QUERY_INTEGER,
        default=0,
        help_text="Send the notices after this one (`Last-Event-ID` wins).",
    )


class WaitQuerySerializer(StrictSerializer):
    from_query = True  # a query string: digits are a whole number
    after = serializers.IntegerField(
        min_value=0, max_value=MAX_QUERY_INTEGER, default=0, help_text="Events after this seq."
    )
    timeout = serializers.IntegerField(
        min_value=0, max_value=30, default=25, help_text="Seconds to wait for one, at most 30."
    )
    limit = serializers.IntegerField(min_value=1, max_value=500, default=200)


def stream_query(request: HttpRequest, serializer: type[StrictSerializer]) -> dict[str, Any]:
    """The query, with ``Last-Event-ID`` (what EventSource sends when it reconnects) taking the
    place of ``after``: it is the newer of the two. Both are checked: an ``after`` the schema
    refuses is a 400 even beside the header, and so is a header sent empty (the schema's is an
    integer; EventSource sends none while it has no id)."""
    query = validated(serializer, request.GET.dict())
    resumed = request.headers.get("Last-Event-ID")
    if resumed is not None:
        query["after"] = validated(serializer, {"after": resumed.strip()})["after"]
    return query

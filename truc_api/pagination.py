"""Lists: `limit` and `offset` pages whose bounds the schema states and the server holds to.

DRF's LimitOffsetPagination reads a bad value as the default and a limit above the maximum as the
maximum, so a request the schema calls invalid (`offset=null`, `limit=100000`) was answered 200;
here it is a 400 `invalid_request` naming the parameter, as the schema says. So is a parameter
the list does not declare (a typo in `?stauts=` would otherwise list everything): a list knows its
page's, its filters' (``filterset_class``) and the view's own ``query_parameters``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from rest_framework import serializers
from rest_framework.pagination import LimitOffsetPagination

from truc_api.problems import field_error

_DIGITS = re.compile(r"[0-9]{1,18}")
#: The largest whole number a query parameter takes (offsets, counts): 18 digits, as `_DIGITS`
#: reads them, within PostgreSQL's bigint. The schema states it as their maximum.
MAX_QUERY_INTEGER = 10**18 - 1


def query_integer(request: Any, name: str, default: int, low: int, high: int | None) -> int:
    """A whole number from the query string, in range, or a 400 naming ``name``."""
    given = request.query_params.get(name)
    if given is None:
        return default
    if not _DIGITS.fullmatch(given) or int(given) < low or (high is not None and int(given) > high):
        upper = f" to {high}" if high is not None else " or more"
        raise serializers.ValidationError(
            {name: [field_error(f"A whole number from {low}{upper}.", "invalid")]}
        )
    return int(given)


def refuse_unknown_parameters(request: Any, known: Iterable[str]) -> None:
    """A 400 naming each query parameter not in ``known``."""
    unknown = sorted(set(request.query_params) - set(known))
    if unknown:
        expected = field_error("This parameter is not expected.", "unknown_field")
        raise serializers.ValidationError({name: [expected] for name in unknown})


class Page(LimitOffsetPagination):
    """`limit` from 1 to ``max_limit`` (``default_limit`` when absent), `offset` from 0, and no
    parameter the list does not declare."""

    default_limit = 50
    max_limit = 200

    def paginate_queryset(self, queryset: Any, request: Any, view: Any = None) -> Any:
        filters = getattr(getattr(view, "filterset_class", None), "base_filters", {})
        own = getattr(view, "query_parameters", ())
        refuse_unknown_parameters(
            request, {self.limit_query_param, self.offset_query_param, *filters, *own}
        )
        return super().paginate_queryset(queryset, request, view)

    def get_limit(self, request: Any) -> int:
        return query_integer(request, self.limit_query_param, self.default_limit, 1, self.max_limit)

    def get_offset(self, request: Any) -> int:
        return query_integer(request, self.offset_query_param, 0, 0, MAX_QUERY_INTEGER)

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        limit, offset = super().get_schema_operation_parameters(view)
        limit["schema"] |= {"minimum": 1, "maximum": self.max_limit, "default": self.default_limit}
        limit["description"] = (
            f"Rows per page: 1 to {self.max_limit} ({self.default_limit} by default)."
        )
        offset["schema"] |= {"minimum": 0, "maximum": MAX_QUERY_INTEGER, "default": 0}
        offset["description"] = "Rows to skip."
        return [limit, offset]

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        page = super().get_paginated_response_schema(schema)
        for link in ("next", "previous"):
            # DRF's example is an URL of another API; an example page is the only one.
            page["properties"][link]["example"] = None
            page["properties"][link]["description"] = f"The URL of the {link} page, if any."
        page["properties"]["count"]["example"] = 1
        page["properties"]["count"]["description"] = "Rows in the whole list."
        page["properties"]["count"]["minimum"] = 0
        page["required"] = ["count", "next", "previous", "results"]
        return page

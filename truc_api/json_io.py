"""JSON in and out of the API with orjson.

Rendering and parsing JSON is a measurable part of the CPU an action costs with its reads: DRF's
renderer and parser go through the standard library's encoder and a text stream. Same output:
compact, UTF-8, non-string keys as strings, anything else orjson does not know (lazy translations,
decimals) handed to DRF's encoder.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import orjson
from rest_framework.exceptions import ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import JSONParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.utils.encoders import JSONEncoder

_FALLBACK = JSONEncoder().default


class Renderer(JSONRenderer):
    def render(
        self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None
    ) -> bytes:
        if data is None:
            return b""
        return orjson.dumps(data, default=_FALLBACK, option=orjson.OPT_NON_STR_KEYS)


class Parser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return _whole(orjson.loads(stream.read()))
        except orjson.JSONDecodeError as error:
            raise ParseError(f"JSON parse error - {error}") from None


def _whole(value: Any) -> Any:
    """JSON has one number type and JSON Schema calls `5.0` an integer, as the OpenAPI document
    does: read it as 5. No field of the API takes a fraction, so no other float changes."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole(item) for key, item in value.items()}
    return value


class Negotiation(DefaultContentNegotiation):
    """DRF's content negotiation, with the answer to the requests nearly every client sends
    worked out at once: no ``Accept``, ``*/*`` or ``application/json``, and no format asked in
    the URL. DRF parses and ranks the header for each request, a large part of a request's
    fixed cost. Anything else is DRF's to decide (a 406 included)."""

    # DRF passes the view's list of renderers (APIView.perform_content_negotiation), which its
    # own implementation iterates more than once: the stubs' Iterable is wider than any caller.
    def select_renderer(  # type: ignore[override]
        self, request: Request, renderers: Sequence[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        accept = request.META.get("HTTP_ACCEPT", "*/*")
        if (
            renderers
            and format_suffix is None
            and "format" not in request.META.get("QUERY_STRING", "")
        ):
            first = renderers[0]
            if accept == "*/*" or accept == first.media_type == "application/json":
                return first, first.media_type
        # DRF's stubs leave the result untyped.
        return super().select_renderer(request, renderers, format_suffix)  # type: ignore[no-any-return]

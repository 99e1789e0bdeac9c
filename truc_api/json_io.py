"""JSON in and out of the API with orjson.

Rendering and parsing JSON was about a twentieth of the CPU an action costs with its reads
(bench/README.md): DRF's renderer and parser go through the standard library's encoder and a
text stream. Same output: compact, UTF-8, non-string keys as strings, anything else orjson does not
know (lazy translations, decimals) handed to DRF's encoder.
"""

from __future__ import annotations

from typing import Any

import orjson
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser
from rest_framework.renderers import JSONRenderer
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
            return orjson.loads(stream.read())
        except orjson.JSONDecodeError as error:
            raise ParseError(f"JSON parse error - {error}") from None

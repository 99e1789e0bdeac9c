"""The API's JSON through orjson (truc_api/json_io.py): what DRF's own renderer and parser did."""

import io
import json
from decimal import Decimal

import pytest
from django.utils.translation import gettext_lazy
from rest_framework.exceptions import ParseError

from truc_api.json_io import Parser, Renderer


def test_rendering_is_compact_utf8_with_string_keys():
    rendered = Renderer().render({"name": "Pepa Ñúñez", "points": {1: 3}, "on": None})

    assert rendered == '{"name":"Pepa Ñúñez","points":{"1":3},"on":null}'.encode()


def test_what_orjson_does_not_know_goes_to_drfs_encoder():
    rendered = Renderer().render({"detail": gettext_lazy("Invalid token."), "n": Decimal("1.5")})

    assert json.loads(rendered) == {"detail": "Invalid token.", "n": 1.5}  # as DRF renders it


def test_no_data_is_no_body():
    assert Renderer().render(None) == b""


def test_parsing_reads_json_and_refuses_the_rest():
    assert Parser().parse(io.BytesIO(b'{"type": "truco"}')) == {"type": "truco"}
    for broken in (b'{"type": "truco",', b"NaN", b"\xff"):
        with pytest.raises(ParseError):
            Parser().parse(io.BytesIO(broken))

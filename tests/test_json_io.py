"""The API's JSON through orjson (truc_api/json_io.py): what DRF's own renderer and parser did."""

import io
import json
from decimal import Decimal

import pytest
from django.http import Http404
from django.utils.translation import gettext_lazy
from drf_spectacular.renderers import OpenApiJsonRenderer, OpenApiYamlRenderer
from rest_framework.exceptions import NotAcceptable, ParseError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from truc_api.json_io import Negotiation, Parser, Renderer


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


def _chosen(negotiation, renderers, accept, query=""):
    headers = {} if accept is None else {"HTTP_ACCEPT": accept}
    request = Request(APIRequestFactory().get(f"/api/x{query}", **headers))
    try:
        renderer, media_type = negotiation.select_renderer(request, renderers)
    except NotAcceptable:
        return "406"
    except Http404:  # a format no renderer has
        return "404"
    return type(renderer), media_type


@pytest.mark.parametrize(
    "accept",
    [
        None,
        "",
        "*/*",
        "application/json",
        "application/*",
        "text/html",
        "application/json; q=1",
        "application/yaml",
        "application/vnd.oai.openapi",
        "text/html, */*;q=0.8",
    ],
)
@pytest.mark.parametrize("query", ["", "?format=json", "?format=openapi-json", "?limit=1"])
def test_content_negotiation_answers_as_drfs_own(accept, query):
    for renderers in (
        [Renderer()],
        [OpenApiYamlRenderer(), OpenApiJsonRenderer()],  # the schema's view
    ):
        assert _chosen(Negotiation(), renderers, accept, query) == _chosen(
            DefaultContentNegotiation(), renderers, accept, query
        )


def test_a_whole_float_is_read_as_the_integer_json_schema_says_it_is():
    """`5.0` is an integer to JSON Schema (the OpenAPI document's dialect): no field takes a
    fraction, so a whole float becomes its int and any other stays a float (and is refused)."""
    parsed = Parser().parse(io.BytesIO(b'{"a": 5.0, "b": [1.0, 2.5], "c": {"d": -0.0}, "e": true}'))

    assert parsed == {"a": 5, "b": [1, 2.5], "c": {"d": 0}, "e": True}
    assert type(parsed["a"]) is int and type(parsed["b"][1]) is float and parsed["e"] is True

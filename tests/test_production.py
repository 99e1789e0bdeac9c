"""Production settings: security headers with DEBUG off, CORS only for the listed origins."""

import re
from pathlib import Path

import pytest
import yaml
from django.urls import get_resolver

pytestmark = pytest.mark.django_db


def test_production_security_headers_are_sent(client):
    response = client.get("/api/health/live")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["X-Frame-Options"] == "DENY"
    assert response["Referrer-Policy"] == "same-origin"


def test_cors_allows_only_the_listed_origins(client, settings):
    settings.CORS_ALLOWED_ORIGINS = ["https://app.example.org"]
    preflight = {
        "HTTP_ACCESS_CONTROL_REQUEST_METHOD": "POST",
        "HTTP_ACCESS_CONTROL_REQUEST_HEADERS": "authorization, idempotency-key, content-type",
    }

    listed = client.options("/api/games", HTTP_ORIGIN="https://app.example.org", **preflight)
    other = client.options("/api/games", HTTP_ORIGIN="https://evil.example.com", **preflight)

    assert listed["Access-Control-Allow-Origin"] == "https://app.example.org"
    assert "idempotency-key" in listed["Access-Control-Allow-Headers"]
    assert "Access-Control-Allow-Origin" not in other


def test_cors_allows_no_origin_by_default(client):
    response = client.get("/api/health/live", HTTP_ORIGIN="https://app.example.org")
    assert "Access-Control-Allow-Origin" not in response


def test_the_deployment_sizes_the_rest_server():
    """docker-compose.yml and the image size the WSGI server's processes and threads."""
    root = Path(__file__).resolve().parent.parent
    compose = yaml.safe_load((root / "docker-compose.yml").read_text())
    web = compose["services"]["web"]
    image = dict(
        re.findall(
            r"(GRANIAN_WORKERS|GRANIAN_BLOCKING_THREADS)=(\d+)",
            (root / "Dockerfile").read_text(),
        )
    )

    for sizes in (web["environment"], image):
        assert int(sizes["GRANIAN_BLOCKING_THREADS"]) >= 1
        assert int(sizes["GRANIAN_WORKERS"]) >= 1
    assert "truc_api.wsgi:application" in web["command"]  # Django, as wsgi.py builds it


def _streams_route() -> re.Pattern[str]:
    conf = (Path(__file__).resolve().parent.parent / "deploy" / "nginx.conf").read_text()
    [pattern] = re.findall(r"location ~ (\S+) \{", conf)
    return re.compile(pattern)


def test_the_proxy_sends_the_streams_to_asgi_and_the_rest_to_wsgi():
    """deploy/nginx.conf's routing, held to the URL configuration: every view of streams/ (async,
    for the ASGI server) and none other."""
    route = _streams_route()
    game = "0b5e1a6c-3f3e-4d51-9a57-6a1f0c7d2e11"
    samples = {
        "/api/stream": True,
        f"/api/games/{game}/stream": True,
        f"/api/games/{game}/events/wait": True,
        f"/api/games/{game}": False,
        f"/api/games/{game}/events": False,
        f"/api/games/{game}/actions": False,
        "/api/games/mine": False,
        "/api/docs/": False,
        "/admin/": False,
    }
    for path, to_streams in samples.items():
        view = get_resolver().resolve(path).func
        assert (view.__module__ == "streams.views") == to_streams, path
        assert bool(route.match(path)) == to_streams, path

"""Production settings: security headers with DEBUG off, CORS only for the listed origins."""

import re
from pathlib import Path

import pytest
import yaml

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


def test_the_deployment_keeps_threads_for_requests_other_than_long_polls():
    """docker-compose.yml and the image size the server; a long poll holds a thread while it
    waits, so each process must keep a thread that no wait can take (notifications/stream.py)."""
    root = Path(__file__).resolve().parent.parent
    compose = yaml.safe_load((root / "docker-compose.yml").read_text())
    web = compose["services"]["web"]
    image = dict(
        re.findall(
            r"(GRANIAN_WORKERS|GRANIAN_BLOCKING_THREADS|LONG_POLL_SLOTS)=(\d+)",
            (root / "Dockerfile").read_text(),
        )
    )

    for sizes in (web["environment"], image):
        assert 0 < int(sizes["LONG_POLL_SLOTS"]) < int(sizes["GRANIAN_BLOCKING_THREADS"])
        assert int(sizes["GRANIAN_WORKERS"]) >= 1
    assert "truc_api.wsgi:application" in web["command"]  # Django, as wsgi.py builds it

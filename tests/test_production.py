"""Production settings: security headers with DEBUG off, CORS only for the listed origins."""

import pytest

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

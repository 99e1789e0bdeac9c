"""The health probes answer JSON without credentials, through the real URL conf."""

import pytest
from django.db import OperationalError, connection

pytestmark = pytest.mark.django_db


def test_health_live_answers_ok(client):
    response = client.get("/api/health/live")

    assert response.status_code == 200
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"status": "ok"}


def test_health_ready_checks_the_database_and_the_broker(client):
    response = client.get("/api/health/ready")

    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["database"]["ok"] is True
    assert body["database"]["vendor"] == connection.vendor
    assert body["broker"]["ok"] is True


def test_health_ready_is_503_when_the_broker_is_down_and_names_only_its_scheme(client, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    settings.CELERY_BROKER_URL = "redis://:hunter2@127.0.0.1:1/0"

    response = client.get("/api/health/ready")

    assert response.status_code == 503
    assert response.json()["broker"] == {"ok": False, "scheme": "redis", "eager": False}
    assert b"hunter2" not in response.content


def test_health_ready_is_503_when_the_database_fails(client, monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(connection, "cursor", refuse)

    response = client.get("/api/health/ready")

    assert response.status_code == 503
    assert response.json()["status"] == "unavailable"
    assert response.json()["database"]["ok"] is False


def test_health_request_id_is_returned_and_a_plain_client_id_is_kept(client):
    assert len(client.get("/api/health/live")["X-Request-ID"]) == 32
    kept = client.get("/api/health/live", headers={"X-Request-ID": "abc-123"})
    assert kept["X-Request-ID"] == "abc-123"
    replaced = client.get("/api/health/live", headers={"X-Request-ID": "bad id!"})
    assert replaced["X-Request-ID"] != "bad id!"

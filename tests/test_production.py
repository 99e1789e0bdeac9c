"""Production settings: security headers with DEBUG off, CORS only for the listed origins."""

import re
from pathlib import Path

import pytest
import yaml
from django.urls import get_resolver

from games.management.commands.serve import worker_commands

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


def _compose() -> dict:
    return yaml.safe_load(
        (Path(__file__).resolve().parent.parent / "docker-compose.yml").read_text()
    )


def test_the_deployment_sends_webhooks_to_a_worker_of_their_own():
    """A slow receiver must never hold the worker that applies timeouts and moves bots."""
    services = _compose()["services"]
    queue = services["web"]["environment"]["WEBHOOK_QUEUE"]

    assert queue and queue != "celery"
    assert services["worker"]["command"].split("-Q ")[1].split()[0] == "celery"
    assert services["webhook-worker"]["command"].split("-Q ")[1].split()[0] == queue
    assert {services[name]["environment"]["WEBHOOK_QUEUE"] for name in services if name in
            ("web", "worker", "webhook-worker", "beat")} == {queue}  # fmt: skip


def test_the_deployment_sends_pushes_to_a_worker_of_their_own():
    """A slow push service must delay neither turn clocks nor webhooks."""
    services = _compose()["services"]
    queue = services["web"]["environment"]["PUSH_QUEUE"]

    assert queue and queue not in ("celery", services["web"]["environment"]["WEBHOOK_QUEUE"])
    assert services["push-worker"]["command"].split("-Q ")[1].split()[0] == queue


def test_make_run_starts_a_worker_for_the_webhook_and_push_queues(settings, tmp_path):
    settings.WEBHOOK_QUEUE, settings.PUSH_QUEUE = "webhooks", "push"
    queues = [command[command.index("-Q") + 1] for command in worker_commands(tmp_path)]

    assert queues == ["celery", "webhooks", "push"]


def test_only_the_proxy_is_published_and_granian_writes_no_access_log():
    services = _compose()["services"]

    assert "ports" not in services["web"]
    assert services["proxy"]["ports"] == ["8000:8080"]
    assert "--access-log" not in services["web"]["command"]
    assert "--access-log" not in (Path(__file__).resolve().parent.parent / "Dockerfile").read_text()
    subnet = _compose()["networks"]["default"]["ipam"]["config"][0]["subnet"]
    assert services["web"]["environment"]["TRUSTED_PROXIES"] == subnet


def test_a_chunked_request_body_is_refused_not_read_as_empty(client):
    """Straight to the app server a chunked body reaches Django with no length (truc_api/
    request_bodies.py); behind the proxy it never arrives chunked (tests/test_front_door.py)."""
    response = client.post(
        "/api/auth/login",
        b'{"username": "ana", "password": "truc-valencia-24"}',
        content_type="application/json",
        HTTP_TRANSFER_ENCODING="chunked",
    )

    assert response.status_code == 400
    assert response["Content-Type"] == "application/problem+json"
    assert "Content-Length" in response.json()["detail"]


def test_the_app_runs_as_its_own_role_and_the_migrations_as_the_owner():
    services = _compose()["services"]
    owner = services["db"]["environment"]["POSTGRES_USER"]

    def user(service: str) -> str:
        return services[service]["environment"]["DATABASE_URL"].split("//")[1].split(":")[0]

    assert user("migrate") == owner
    assert "migrate" in services["migrate"]["command"]
    assert "grant_app_role truc_app" in services["migrate"]["command"]
    for service in ("web", "worker", "webhook-worker", "beat"):
        assert user(service) == "truc_app", service
        assert "migrate" not in str(services[service]["command"]), service


def _streams_route() -> re.Pattern[str]:
    root = Path(__file__).resolve().parent.parent
    template = root / "deploy" / "nginx" / "truc-api.conf.template"
    [pattern] = re.findall(r"location ~ (\S+) \{", template.read_text())
    return re.compile(pattern)


def test_the_proxy_sends_the_streams_to_asgi_and_the_rest_to_wsgi():
    """The front door's routing, held to the URL configuration: every view of streams/ (async,
    for the ASGI server) and none other; and the compose file names both upstreams."""
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
    services = _compose()["services"]
    assert services["proxy"]["environment"]["TRUC_STREAMS_UPSTREAM"] == "streams:8000"
    assert "truc_api.asgi:application" in services["streams"]["command"]
    assert "ports" not in services["streams"]

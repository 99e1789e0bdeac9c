"""The devices API: a player registers, refreshes, lists and removes his own devices, with
stable codes for what is refused and the state left unchanged."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from push.models import Device
from tests.push.conftest import DEVICES, register
from tests.push.fakes import Browser

APNS_TOKEN = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"


def webpush_body(endpoint: str = "https://push.example.net/sub/1", **extra) -> dict:
    return {"kind": "webpush", "subscription": Browser(endpoint).subscription(), **extra}


def test_device_register_then_again_refreshes_the_same_row(make_client) -> None:
    client = make_client()
    first = register(client, webpush_body(locale="ca", label="casa"))
    assert first["kind"] == "webpush" and first["locale"] == "ca" and first["label"] == "casa"
    again = register(client, webpush_body(locale="es"), status=200)

    assert again["id"] == first["id"]
    assert again["locale"] == "es" and again["refreshed_at"] > first["refreshed_at"]
    assert [d["id"] for d in client.get(DEVICES).json()["results"]] == [first["id"]]


def test_device_registered_by_another_player_moves_to_him(make_client) -> None:
    ana, bru = make_client(), make_client()
    register(ana, webpush_body())
    register(bru, webpush_body(), status=200)

    assert client_devices(ana) == [] and len(client_devices(bru)) == 1


def client_devices(client) -> list:
    return client.get(DEVICES).json()["results"]


def test_device_register_keeps_only_the_most_recent(make_client, settings) -> None:
    settings.PUSH_MAX_DEVICES = 3
    client = make_client()
    ids = [register(client, webpush_body(f"https://push.example.net/{n}"))["id"] for n in range(5)]

    assert {d["id"] for d in client_devices(client)} == set(ids[2:])
    assert Device.objects.filter(pk__in=ids[:2]).count() == 0


def test_device_register_fcm_and_apns(make_client, settings) -> None:
    settings.FCM_SERVICE_ACCOUNT_FILE = "/nonexistent/but/configured.json"
    settings.APNS_KEY_FILE, settings.APNS_KEY_ID, settings.APNS_TEAM_ID = "/k.p8", "K1", "T1"
    client = make_client()
    fcm = register(client, {"kind": "fcm", "token": "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZ"})
    apns = register(client, {"kind": "apns", "token": APNS_TOKEN, "topic": "com.example.truc"})

    assert fcm["kind"] == "fcm" and apns["kind"] == "apns" and apns["topic"] == "com.example.truc"


@pytest.mark.parametrize(
    ("body", "status", "field", "code"),
    [
        ({"kind": "sms", "token": "abc"}, 400, "kind", "invalid_choice"),
        ({**webpush_body(), "colour": "red"}, 400, "colour", "unknown_field"),
        (
            {"kind": "webpush", "subscription": {"endpoint": "https://x.example/1", "keys": {}}},
            400,
            "subscription.keys.p256dh",
            "required",
        ),
        # Values the schema allows that a rule refuses: 422 device_refused.
        ({"kind": "fcm"}, 422, "token", "required"),
        ({"kind": "fcm", "token": "no spaces allowed here!"}, 422, "token", "invalid_token"),
        ({"kind": "apns", "token": APNS_TOKEN}, 422, "topic", "required"),
        (
            {"kind": "apns", "token": "zz", "topic": "com.example.truc"},
            422,
            "token",
            "invalid_token",
        ),
        ({"kind": "webpush", "token": "abc"}, 422, "subscription", "required"),
    ],
)
def test_device_register_refuses_bad_bodies(
    make_client, settings, body, status, field, code
) -> None:
    settings.FCM_SERVICE_ACCOUNT_FILE = "/configured.json"
    settings.APNS_KEY_FILE, settings.APNS_KEY_ID, settings.APNS_TEAM_ID = "/k.p8", "K1", "T1"
    response = make_client().post(DEVICES, body)

    assert response.status_code == status
    assert response["Content-Type"] == "application/problem+json"
    problem = response.json()
    assert problem["code"] == ("invalid_request" if status == 400 else "device_refused")
    assert (field, code) in {(e["field"], e["code"]) for e in problem["errors"]}, problem
    assert Device.objects.count() == 0


@pytest.mark.parametrize(
    "endpoint", ["http://127.0.0.1:8000/push", "https://10.1.2.3/push", "http://[::1]/p"]
)
def test_device_private_endpoint_refused_in_production(make_client, settings, endpoint) -> None:
    settings.PUSH_ALLOW_PRIVATE_ADDRESSES = False
    response = make_client().post(DEVICES, webpush_body(endpoint))

    assert response.status_code == 422
    problem = response.json()
    assert problem["code"] == "endpoint_refused"
    assert problem["errors"][0]["field"] == "subscription.endpoint"
    assert problem["errors"][0]["code"] == "private_address"
    assert Device.objects.count() == 0


def test_device_of_a_service_not_configured_is_refused(make_client, settings) -> None:
    settings.FCM_SERVICE_ACCOUNT_FILE = ""
    response = make_client().post(DEVICES, {"kind": "fcm", "token": "dQw4w9WgXcQ:APA91bHun4Mx"})

    assert response.status_code == 422
    assert response.json()["code"] == "platform_not_configured"


def test_device_remove_is_the_owners_only(make_client) -> None:
    ana, bru = make_client(), make_client()
    device = register(ana, webpush_body())

    assert bru.get(f"{DEVICES}/{device['id']}").status_code == 404
    assert bru.http.delete(f"{DEVICES}/{device['id']}").status_code == 404
    assert ana.get(f"{DEVICES}/{device['id']}").json()["id"] == device["id"]
    assert ana.http.delete(f"{DEVICES}/{device['id']}").status_code == 204
    gone = ana.http.delete(f"{DEVICES}/{device['id']}")
    assert gone.status_code == 404 and gone.json()["code"] == "not_found"
    assert ana.get(f"{DEVICES}/not-a-uuid").status_code == 404


def test_device_deliveries_empty_then_the_owners_only(make_client) -> None:
    ana, bru = make_client(), make_client()
    device = register(ana, webpush_body())

    assert ana.get(f"{DEVICES}/{device['id']}/deliveries").json()["results"] == []
    assert bru.get(f"{DEVICES}/{device['id']}/deliveries").status_code == 404


def test_webpush_key_is_public_and_absent_when_not_configured(client, settings) -> None:
    answer = client.get("/api/push/webpush-key")
    assert answer.status_code == 200
    key = answer.json()["public_key"]
    assert len(key) == 87 and "=" not in key  # 65 bytes, base64url without padding

    settings.WEBPUSH_VAPID_PRIVATE_KEY = ""
    missing = client.get("/api/push/webpush-key")
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_devices_need_a_token(client) -> None:
    assert client.get(DEVICES).status_code == 401


def test_device_refreshed_long_ago_is_the_first_dropped(make_client, settings) -> None:
    settings.PUSH_MAX_DEVICES = 2
    client = make_client()
    old = register(client, webpush_body("https://push.example.net/old"))
    Device.objects.filter(pk=old["id"]).update(refreshed_at=timezone.now() - timedelta(days=9))
    register(client, webpush_body("https://push.example.net/a"))
    register(client, webpush_body("https://push.example.net/old"), status=200)  # refreshed
    register(client, webpush_body("https://push.example.net/b"))

    kept = {d["id"] for d in client_devices(client)}
    assert old["id"] in kept and len(kept) == 2


def test_device_endpoint_not_http_is_refused(make_client) -> None:
    response = make_client().post(DEVICES, webpush_body("ftp://push.example.net/1"))

    assert response.status_code == 422
    assert response.json()["errors"][0] == {
        "field": "subscription.endpoint",
        "code": "invalid_url",
        "message": "Only http and https URLs with a host are accepted.",
    }

"""The three senders against the push lab's fakes: a real Web Push round trip decrypted as the
browser would, FCM's token and send, APNs over TLS and HTTP/2; and what each answer does to the
push and the device (sent, retried after Retry-After or backoff, the device removed at the first
permanent refusal), every attempt in the delivery log."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import http_ece
import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.utils import timezone

from push import apns, fcm, sending
from push.models import Device, Push, PushAttempt, PushKind
from tests.push.conftest import DEVICES, register
from tests.push.fakes import Browser, FakeAPNs, PushService, fcm_service_account, make_ca, new_pem

APNS_TOKEN = "740f4707bebcf74f9b7c25d48e3358945f6aa01da5ddb387462c7eaf61bb78ad"


@pytest.fixture
def service() -> Iterator[PushService]:
    local = PushService()
    yield local
    local.close()


def a_push(device_id: str, rival_id: int, kind: str = PushKind.CHALLENGE_RECEIVED) -> Push:
    """A push due now, as the outbox writes it for a lobby notice (no game: nothing to go
    stale)."""
    return Push.objects.create(
        device_id=device_id,
        cause=f"{kind}:lab:{device_id}",
        kind=kind,
        data={"game_id": None, "opponent_id": rival_id},
        due_at=timezone.now(),
    )


def b64decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# --- Web Push ------------------------------------------------------------------------------------


def test_webpush_round_trip_decrypts_to_the_payload(make_client, service, settings) -> None:
    me, rival = make_client(), make_client(display_name="Pepa")
    browser = Browser(service.url("/push/abc"))
    device = register(
        me, {"kind": "webpush", "subscription": browser.subscription(), "locale": "ca"}
    )
    push = a_push(device["id"], rival.player.pk)

    assert sending.send(str(push.pk)) == Push.Status.SENT
    [got] = service.pushes()
    assert got.path == "/push/abc"
    assert got.headers["content-encoding"] == "aes128gcm"
    assert got.headers["ttl"] == "86400" and got.headers["urgency"] == "normal"
    assert len(got.headers["topic"]) <= 32
    plain = http_ece.decrypt(
        got.body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
    )
    message = json.loads(plain)
    assert message["title"] == "Nou desafiament"
    assert message["body"] == "Pepa et desafia."
    assert message["data"]["push_id"] == str(push.pk)
    assert message["data"]["kind"] == "challenge_received" and message["data"]["badge"] == "0"


def test_webpush_is_signed_with_the_servers_vapid_key(make_client, service, settings) -> None:
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    sending.send(str(a_push(device["id"], rival.player.pk).pk))

    [got] = service.pushes()
    scheme, _, params = got.headers["authorization"].partition(" ")
    fields = dict(part.strip().split("=", 1) for part in params.split(","))
    assert scheme == "vapid"
    assert fields["k"] == me.get("/api/push/webpush-key").json()["public_key"]
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), b64decode(fields["k"]))
    pem = public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    claims = jwt.decode(fields["t"], pem, algorithms=["ES256"], audience=service.url(""))
    assert claims["sub"] == settings.WEBPUSH_SUBJECT


@pytest.mark.parametrize("status", [404, 410])
def test_webpush_gone_removes_the_device_at_once(make_client, service, status) -> None:
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    service.then(status)

    assert sending.send(str(a_push(device["id"], rival.player.pk).pk)) == Push.Status.FAILED
    assert not Device.objects.filter(pk=device["id"]).exists()
    assert len(service.pushes()) == 1


def test_webpush_429_is_retried_after_its_retry_after(make_client, service) -> None:
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    push = a_push(device["id"], rival.player.pk)
    service.then(429, {"Retry-After": "7"})

    assert sending.send(str(push.pk)) == Push.Status.PENDING
    push.refresh_from_db()
    [attempt] = PushAttempt.objects.filter(push=push)
    assert attempt.status_code == 429 and attempt.error == "HTTP 429"
    assert abs((push.due_at - attempt.at).total_seconds() - 7) < 0.01
    assert sending.send(str(push.pk)) is None  # not due yet: nothing sent
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    assert sending.send(str(push.pk)) == Push.Status.SENT
    log = me.get(f"{DEVICES}/{device['id']}/deliveries").json()["results"]
    assert [a["status_code"] for a in log[0]["attempts"]] == [429, 201]
    assert log[0]["status"] == "sent" and len(service.pushes()) == 2
    assert log[0]["message"]["push_id"] == str(push.pk) and log[0]["message"]["badge"] == "0"


def test_webpush_503_is_retried_with_backoff(make_client, service, settings) -> None:
    settings.PUSH_RETRY_DELAYS = [30.0]
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    push = a_push(device["id"], rival.player.pk)
    service.then(503)
    service.then(503)

    assert sending.send(str(push.pk)) == Push.Status.PENDING
    push.refresh_from_db()
    wait = (push.due_at - push.attempts.get().at).total_seconds()
    assert 30 <= wait <= 33  # the schedule, with up to 10 % jitter
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    assert sending.send(str(push.pk)) == Push.Status.FAILED  # the schedule is spent
    assert Device.objects.filter(pk=device["id"]).exists()  # a failure is not a refusal


def test_push_is_sent_once_however_often_its_task_comes(make_client, service) -> None:
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    push = a_push(device["id"], rival.player.pk)

    results = [sending.send(str(push.pk)) for _ in range(3)]
    assert results == [Push.Status.SENT, None, None]
    assert len(service.pushes()) == 1


def test_push_claimed_by_a_dead_worker_is_sent_once_its_claim_runs_out(
    make_client, service
) -> None:
    me, rival = make_client(), make_client()
    device = register(
        me, {"kind": "webpush", "subscription": Browser(service.url()).subscription()}
    )
    push = a_push(device["id"], rival.player.pk)
    assert sending.claim(str(push.pk)) is not None  # a worker claims it, then dies
    assert sending.send(str(push.pk)) is None  # its claim holds: nobody else sends it

    Push.objects.filter(pk=push.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    assert sending.send(str(push.pk)) == Push.Status.SENT
    assert len(service.pushes()) == 1


# --- FCM ----------------------------------------------------------------------------------------


@pytest.fixture
def fcm_lab(service, settings, tmp_path) -> PushService:
    settings.FCM_SERVICE_ACCOUNT_FILE = str(fcm_service_account(service.url("/token"), tmp_path))
    settings.FCM_BASE_URL = service.url("")
    fcm.credentials.cache_clear()
    fcm.client.cache_clear()
    sent = {"name": "projects/truc-lab/messages/0:1"}
    service.script.default = (200, {"content-type": "application/json"}, json.dumps(sent).encode())
    return service


def test_fcm_sends_with_one_token_for_many_pushes(make_client, fcm_lab) -> None:
    me, rival = make_client(), make_client()
    token = "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZFBaFUH"
    device = register(me, {"kind": "fcm", "token": token, "locale": "es"})
    for kind in (PushKind.CHALLENGE_RECEIVED, PushKind.REMATCH_OFFERED):
        assert sending.send(str(a_push(device["id"], rival.player.pk, kind).pk)) == "sent"

    first, second = fcm_lab.pushes()
    assert first.path == "/v1/projects/truc-lab/messages:send"
    assert first.headers["authorization"] == second.headers["authorization"]
    assert fcm_lab.tokens_issued == 1
    message = json.loads(first.body)["message"]
    assert message["token"] == token
    assert message["notification"]["title"] == "Nuevo desafío"
    assert message["apns"]["payload"]["aps"]["badge"] == 0
    assert all(isinstance(value, str) for value in message["data"].values())
    assert message["android"]["collapse_key"] == message["apns"]["headers"]["apns-collapse-id"]


def test_fcm_unregistered_removes_the_device(make_client, fcm_lab) -> None:
    me, rival = make_client(), make_client()
    device = register(me, {"kind": "fcm", "token": "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZ"})
    error = {
        "error": {
            "code": 404,
            "status": "NOT_FOUND",
            "details": [
                {
                    "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                    "errorCode": "UNREGISTERED",
                }
            ],
        }
    }
    fcm_lab.then(404, {"content-type": "application/json"}, error)

    assert sending.send(str(a_push(device["id"], rival.player.pk).pk)) == "failed"
    assert not Device.objects.filter(pk=device["id"]).exists()


def test_fcm_429_and_503_are_retried(make_client, fcm_lab) -> None:
    me, rival = make_client(), make_client()
    device = register(me, {"kind": "fcm", "token": "dQw4w9WgXcQ:APA91bHun4MxP5egoKMwt2KZ"})
    push = a_push(device["id"], rival.player.pk)
    fcm_lab.then(429, {"Retry-After": "3"})
    fcm_lab.then(503)

    assert sending.send(str(push.pk)) == "pending"
    push.refresh_from_db()
    assert abs((push.due_at - push.attempts.get().at).total_seconds() - 3) < 0.01
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    assert sending.send(str(push.pk)) == "pending"
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    assert sending.send(str(push.pk)) == "sent"
    assert [a.status_code for a in PushAttempt.objects.filter(push=push)] == [429, 503, 200]


# --- APNs ---------------------------------------------------------------------------------------


@pytest.fixture
def apns_lab(settings, tmp_path) -> Iterator[FakeAPNs]:
    ca = make_ca(tmp_path)
    lab = FakeAPNs(ca)
    key = tmp_path / "AuthKey_LAB1.p8"
    key.write_text(new_pem())
    settings.APNS_KEY_FILE, settings.APNS_KEY_ID, settings.APNS_TEAM_ID = str(key), "LAB1", "TEAM9"
    settings.APNS_HOST, settings.APNS_CA_FILE = lab.host, str(ca.ca_file)
    apns.client.cache_clear()
    apns._token.clear()
    yield lab
    apns.client(lab.host, str(ca.ca_file)).close()  # before the server: no connection cut
    apns.client.cache_clear()
    lab.close()


def test_apns_over_http2_with_a_provider_token(make_client, apns_lab, settings) -> None:
    me, rival = make_client(), make_client()
    body = {"kind": "apns", "token": APNS_TOKEN, "topic": "com.example.truc"}
    device = register(me, body)

    assert sending.send(str(a_push(device["id"], rival.player.pk).pk)) == "sent"
    [got] = apns_lab.received
    assert apns_lab.http_versions == ["2"]
    assert got.path == f"/3/device/{APNS_TOKEN}"
    assert got.headers["apns-topic"] == "com.example.truc"
    assert got.headers["apns-push-type"] == "alert"
    token = got.headers["authorization"].removeprefix("bearer ")
    assert jwt.get_unverified_header(token) == {"alg": "ES256", "kid": "LAB1", "typ": "JWT"}
    private = serialization.load_pem_private_key(
        Path(settings.APNS_KEY_FILE).read_bytes(), password=None
    )
    assert isinstance(private, ec.EllipticCurvePrivateKey)
    assert jwt.decode(token, private.public_key(), algorithms=["ES256"])["iss"] == "TEAM9"
    assert json.loads(got.body)["aps"]["alert"]["title"] == "New challenge"


def test_apns_410_removes_the_device_and_503_is_retried(make_client, apns_lab) -> None:
    me, rival = make_client(), make_client()
    first = register(me, {"kind": "apns", "token": APNS_TOKEN, "topic": "com.example.truc"})
    apns_lab.then(503)
    push = a_push(first["id"], rival.player.pk)
    assert sending.send(str(push.pk)) == "pending"

    apns_lab.then(410, {"content-type": "application/json"}, {"reason": "Unregistered"})
    Push.objects.filter(pk=push.pk).update(due_at=timezone.now())
    assert sending.send(str(push.pk)) == "failed"
    assert not Device.objects.filter(pk=first["id"]).exists()
    assert [r.status for r in apns_lab.received] == [503, 410]

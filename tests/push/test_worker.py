"""Pushes through real Celery workers on the real broker: written with the move, sent by the
worker after the deliberate delay; and a push worker killed with SIGKILL mid-send, replaced,
with every push delivered and none written twice."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import http_ece
import pytest
from django.db import connection, transaction
from django.utils import timezone

from push import sending
from push.models import Device, Push, PushKind
from tests.celery_fixtures import eventually
from tests.notifications.conftest import act, mover
from tests.push.conftest import leave_tables, register
from tests.push.fakes import Browser, PushService

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parent.parent.parent


@pytest.fixture
def service() -> Iterator[PushService]:
    local = PushService()
    yield local
    local.close()


def push_ids(service: PushService, browser: Browser) -> list[str]:
    found = []
    for got in service.pushes():
        plain = http_ece.decrypt(
            got.body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm"
        )
        found.append(json.loads(plain)["data"]["push_id"])
    return found


def test_worker_sends_a_turn_after_the_delay(table, service, settings, celery_worker_thread):
    settings.PUSH_DELAY_SECONDS = 0.5
    game_id, clients = table("valenciano")
    seat, action = mover(game_id, clients)
    away = clients[1 - seat]
    browser = Browser(service.url("/push/away"))
    register(away, {"kind": "webpush", "subscription": browser.subscription()})
    leave_tables()

    committed = time.time()
    act(clients[seat], game_id, action)

    assert eventually(lambda: len(service.pushes()) == 1)
    [got] = service.pushes()
    assert got.at - committed >= 0.5
    [push] = Push.objects.all()
    assert eventually(lambda: Push.objects.get(pk=push.pk).status == "sent")
    assert push_ids(service, browser) == [str(push.pk)]
    time.sleep(1)  # nothing more comes
    assert len(service.pushes()) == 1


def _worker(queue: str, settings) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{connection.settings_dict['NAME']}",
        "PUSH_QUEUE": queue,
        "WEBPUSH_VAPID_PRIVATE_KEY": settings.WEBPUSH_VAPID_PRIVATE_KEY,
        "WEBPUSH_SUBJECT": settings.WEBPUSH_SUBJECT,
        "PUSH_ALLOW_PRIVATE_ADDRESSES": "true",
        "PUSH_TIMEOUT_SECONDS": str(settings.PUSH_TIMEOUT_SECONDS),
        "LOG_LEVEL": "WARNING",
    }
    command = [sys.executable, "-m", "celery", "-A", "truc_api", "worker", "-Q", queue,
               "-P", "threads", "-c", "4", "--without-gossip", "--without-mingle",
               "--loglevel", "WARNING", "-n", f"{queue}@%h"]  # fmt: skip
    return subprocess.Popen(
        command, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


def test_push_worker_killed_mid_send_loses_nothing_and_writes_nothing_twice(
    make_client, service, settings, transactional_db
):
    queue = f"push-lab-{uuid.uuid4().hex[:8]}"
    settings.PUSH_QUEUE, settings.PUSH_TIMEOUT_SECONDS = queue, 1.0
    settings.PUSH_SWEEP_GRACE_SECONDS = 0.0
    me, rival = make_client(), make_client()
    browser = Browser(service.url("/push/0"))
    devices = []
    for number in range(4):  # four devices of one player: a push each per cause
        browser.endpoint = service.url(f"/push/{number}")
        devices.append(register(me, {"kind": "webpush", "subscription": browser.subscription()}))
    service.hold_seconds = 3.0  # the push service is slow: the worker is killed while it waits

    first = _worker(queue, settings)
    try:
        with transaction.atomic():
            pushes = [
                Push.objects.create(
                    device_id=device["id"],
                    cause=f"{PushKind.CHALLENGE_RECEIVED}:lab:{n}",
                    kind=PushKind.CHALLENGE_RECEIVED,
                    data={"opponent_id": rival.player.pk},
                    due_at=timezone.now(),
                )
                for n in range(3)
                for device in devices
            ]
            sending.send_after_commit([push.pk for push in pushes])
        assert eventually(lambda: len(service.pushes()) >= 2, timeout=60)
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait()
    in_flight = set(push_ids(service, browser))
    service.hold_seconds = 0.0

    second = _worker(queue, settings)
    try:
        # The beat's sweep: what the dead worker had claimed, once its claim ran out, and what
        # it had taken from the broker without acknowledging.
        def all_sent() -> bool:
            sending.sweep()
            return Push.objects.exclude(status="sent").count() == 0

        assert eventually(all_sent, timeout=90, interval=1.0)
    finally:
        second.terminate()
        second.wait(10)

    received = Counter(push_ids(service, browser))
    assert set(received) == {str(push.pk) for push in pushes}  # every push arrived
    twice = {push_id for push_id, count in received.items() if count > 1}
    # Only a push in flight when its worker died may reach the service again (same push_id and
    # topic: the device replaces it, the app drops it); no other push, and no row, twice.
    assert twice <= in_flight and all(count <= 2 for count in received.values())
    assert Push.objects.count() == 12 and Device.objects.count() == 4

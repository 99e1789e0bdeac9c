"""A failing receiver delays only its own deliveries, under the worker docker-compose.yml ships
for webhooks (its `webhook-worker` command: the thread pool, its concurrency), on the real Redis
broker and PostgreSQL, with a beat-equivalent sending the delivery sweep through the broker.

Two receivers misbehave: one refuses a delivery every time (its retries must wait their schedule
without holding anyone up), one never answers in time while its owner's games keep sending it
notices (its concurrency limit and its breaker must keep it to a few of the worker's threads).
Every delivery to the other receivers must arrive within a second of being written (p95).
"""

from __future__ import annotations

import statistics
import subprocess
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from bench.webhook_burst import start_webhook_worker
from notifications.models import Attempt, Delivery, Kind, Subscription
from notifications.tasks import sweep_deliveries
from tests.games.test_timeout_worker import _wait, beat
from tests.notifications.conftest import act, mover, subscribe
from tests.notifications.receiver import Receiver
from truc_api.celery import app

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),  # the worker reads what the test commits
    pytest.mark.skipif(
        settings.CELERY_BROKER_URL.startswith("memory://"), reason="needs a real broker (Redis)"
    ),
]
ROOT = Path(__file__).resolve().parents[2]
ALL_KINDS: list[str] = [Kind.YOUR_TURN, Kind.CALL_PENDING, Kind.HAND_ENDED, Kind.MATCH_ENDED]
RETRY_DELAYS = (2.0, 2.0, 2.0)
SWEEP_SECONDS = 0.5  # beat's period here (WEBHOOK_SWEEP_SECONDS)


@pytest.fixture
def queue(settings, monkeypatch) -> Iterator[str]:
    """A queue of this test's own, in the test and in the worker process (which reads the
    environment); short retries and timeouts so the schedule fits in a test."""
    name = f"test-fairness-{uuid.uuid4().hex[:8]}"
    settings.WEBHOOK_QUEUE = name
    environment = {
        "WEBHOOK_QUEUE": name,
        "WEBHOOK_ALLOW_PRIVATE_ADDRESSES": "true",
        "WEBHOOK_RETRY_DELAYS": ",".join(str(delay) for delay in RETRY_DELAYS),
        "WEBHOOK_CONNECT_TIMEOUT_SECONDS": "1",
        "WEBHOOK_TIMEOUT_SECONDS": "1",
        "WEBHOOK_BREAKER_FAILURES": "4",
        "WEBHOOK_BREAKER_SECONDS": "30",
    }
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    settings.WEBHOOK_RETRY_DELAYS = list(RETRY_DELAYS)
    yield name
    with app.connection_for_write() as broker:
        broker.default_channel.queue_purge(name)


@contextmanager
def compose_worker(queue: str) -> Iterator[subprocess.Popen[bytes]]:
    """A webhook worker process started with compose's flags, on ``queue`` and the test
    database."""
    db = connection.settings_dict
    process, name = start_webhook_worker(
        queue,
        {
            "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
            "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
            "CELERY_TASK_ALWAYS_EAGER": "false",
        },
    )
    try:
        _wait(lambda: app.control.ping(destination=[name], timeout=0.5), "the worker to answer")
        yield process
    finally:
        process.kill()
        process.wait(10)


def _play(table, receiver: Receiver, tables: int, moves: int) -> list[str]:
    """``tables`` games of two, every seat subscribed at a path of its own; ``moves`` moves in
    turn across them. The paths."""
    games = []
    for number in range(tables):
        game_id, clients = table("valenciano", players=2)
        for seat, client in enumerate(clients):
            subscribe(client, receiver, ALL_KINDS, path=f"/t{number}s{seat}")
        games.append((game_id, clients))
    for move in range(moves):
        game_id, clients = games[move % tables]
        seat, action = mover(game_id, clients)
        act(clients[seat], game_id, action)
    return [f"/t{number}s{seat}" for number in range(tables) for seat in range(2)]


def _latencies(receiver: Receiver, paths: set[str]) -> list[float]:
    """Seconds from each delivery's writing to its first arrival, for deliveries to ``paths``."""
    written = {str(pk): at for pk, at in Delivery.objects.values_list("pk", "created_at")}
    first: dict[str, float] = {}
    for request in receiver.received:
        if request.path in paths:
            first.setdefault(
                request.webhook_id, request.at - written[request.webhook_id].timestamp()
            )
    return sorted(first.values())


def _p95(values: list[float]) -> float:
    return statistics.quantiles(values, n=20, method="inclusive")[-1]


def _owner_of(path: str) -> Subscription:
    return Subscription.objects.get(url__endswith=path)


def test_a_refused_delivery_holds_up_no_other(table, receiver, queue) -> None:
    refusing, refusing_clients = table("valenciano", players=2)
    for seat, client in enumerate(refusing_clients):
        subscribe(client, receiver, [Kind.YOUR_TURN], path=f"/refuses{seat}")
    receiver.refused |= {"/refuses0", "/refuses1"}

    with compose_worker(queue), beat(SWEEP_SECONDS, sweep_deliveries, queue=queue):
        seat, action = mover(refusing, refusing_clients)
        act(refusing_clients[seat], refusing, action)  # one your_turn, refused every time
        [refused] = Delivery.objects.all()
        _wait(lambda: Delivery.objects.filter(attempt_count__gte=1).exists(), "the first try")
        paths = _play(table, receiver, tables=3, moves=36)
        others = Delivery.objects.exclude(pk=refused.pk)
        _wait(lambda: not others.filter(status=Delivery.Status.PENDING).exists(), "the others")
        _wait(lambda: Delivery.objects.get(pk=refused.pk).status == "failed", "the refused one")

    latencies = _latencies(receiver, set(paths))
    assert len(latencies) == others.count() >= 30
    assert _p95(latencies) < 1.0, latencies
    assert set(others.values_list("status", flat=True)) == {"delivered"}
    tries = sorted(r.at for r in receiver.received if r.webhook_id == str(refused.pk))
    assert len(tries) == len(RETRY_DELAYS) + 1
    for delay, before, after in zip(RETRY_DELAYS, tries, tries[1:], strict=False):
        # never early; late by the jitter (up to 10 %), the sweep's period, a loaded machine's lag
        assert delay <= after - before <= delay * 1.1 + SWEEP_SECONDS + 2.0


def test_a_silent_receiver_holds_up_no_other(table, receiver, queue) -> None:
    game_id, clients = table("valenciano", players=2)
    silent = subscribe(clients[0], receiver, ALL_KINDS, path="/silent")
    receiver.silent["/silent"] = 3.0  # the worker waits 1 s (WEBHOOK_TIMEOUT_SECONDS)
    subscribe(clients[1], receiver, ALL_KINDS, path="/opponent")

    with compose_worker(queue), beat(SWEEP_SECONDS, sweep_deliveries, queue=queue):
        for _ in range(60):  # the silent receiver's owner and his opponent, in turn
            seat, action = mover(game_id, clients)
            act(clients[seat], game_id, action)
        paths = _play(table, receiver, tables=2, moves=12)
        others = Delivery.objects.exclude(subscription_id=silent["id"])
        _wait(lambda: not others.filter(status=Delivery.Status.PENDING).exists(), "the others")

    latencies = _latencies(receiver, {*paths, "/opponent"})
    assert len(latencies) == others.count() >= 40
    assert _p95(latencies) < 1.0, latencies
    # The silent one's: its breaker opened after WEBHOOK_BREAKER_FAILURES attempts in a row, so
    # most of its deliveries wait for the breaker instead of holding the worker's threads.
    breaker = _owner_of("/silent")
    assert breaker.paused_until is not None
    silent_tries = [r for r in receiver.received if r.path == "/silent"]
    assert 4 <= len(silent_tries) <= 4 + settings.WEBHOOK_CONCURRENCY_PER_SUBSCRIPTION
    opened = breaker.paused_until - timedelta(seconds=30)  # WEBHOOK_BREAKER_SECONDS
    started = Attempt.objects.filter(delivery__subscription_id=silent["id"]).values_list("at")
    assert max(at for (at,) in started) <= opened  # none since it opened
    waiting = Delivery.objects.filter(subscription_id=silent["id"], status="pending")
    assert waiting.count() >= 20  # they wait for the breaker, unsent and not failed

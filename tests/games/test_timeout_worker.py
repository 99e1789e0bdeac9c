"""Timeouts exactly once, with real parts: a Celery worker process on the real Redis broker and
PostgreSQL, a beat-equivalent that sends the sweep through the broker, and late moves racing."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connection
from django.utils import timezone

from games import engine, services
from games.models import Game, GameEvent, Seat
from games.store.log import load_state
from games.tasks import apply_timeout, sweep_overdue_turns
from tests.factories import PlayerFactory
from truc_api.celery import app
from truc_api.problems import ApplicationError

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        settings.CELERY_BROKER_URL.startswith("memory://"), reason="needs a real broker (Redis)"
    ),
]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def queue() -> Iterator[str]:
    """A queue of this test's own, so no other run's tasks reach its workers."""
    name, original = f"test-timeouts-{uuid.uuid4().hex[:8]}", app.conf.task_default_queue
    app.conf.task_default_queue = name
    yield name
    app.conf.task_default_queue = original


@contextmanager
def worker(queue: str) -> Iterator[subprocess.Popen[bytes]]:
    """A real worker process, on the test database, consuming ``queue``."""
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}",
        "CELERY_BROKER_URL": settings.CELERY_BROKER_URL,
        "CELERY_TASK_ALWAYS_EAGER": "false",
    }
    name = f"{queue}-{uuid.uuid4().hex[:6]}@localhost"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "truc_api", "worker", "-P", "threads", "-c", "4",
         "-Q", queue, "-n", name, "--without-gossip", "--without-mingle", "-l", "WARNING"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,  # the banner; warnings and errors still reach stderr
    )  # fmt: skip
    try:
        _wait(lambda: app.control.ping(destination=[name], timeout=0.5), "the worker to answer")
        process.worker_name = name  # type: ignore[attr-defined]  # the tests' own
        yield process
    finally:
        process.kill()
        process.wait(10)


@contextmanager
def beat(every: float = 0.3, task: Any = sweep_overdue_turns, **options: Any) -> Iterator[None]:
    """The beat-equivalent: sends the sweep (``task``, the turns' by default) through the broker
    every ``every`` seconds, as celery beat would, with ``options`` (a queue, say)."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            task.apply_async(**options)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _wait(condition, what: str, seconds: float = 40.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if condition():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def _games(count: int, turn_seconds: int) -> list[Game]:
    """Started games whose seats have acted (so a timeout is not a no-show) and whose first
    timeout forfeits, so each deadline has exactly one possible outcome to count."""
    games = []
    for _ in range(count):
        people = [PlayerFactory.create(), PlayerFactory.create()]
        game = services.create_game(
            people[0],
            preset="valenciano",
            options={},
            players=2,
            visibility="public",
            turn_seconds=turn_seconds,
            forfeit_after=1,
        )
        services.join_game(people[1], game.pk)
        Seat.objects.filter(game=game).update(has_acted=True)
        games.append(Game.objects.get(pk=game.pk))
    return games


def _all_over(games: list[Game]) -> bool:
    ids = [game.pk for game in games]
    return not Game.objects.filter(pk__in=ids, status=Game.Status.ACTIVE).exists()


def _assert_one_timeout_each(games: list[Game]) -> None:
    for game in games:
        types = list(
            GameEvent.objects.filter(game=game, seq__gt=game.version).values_list("type", flat=True)
        )
        assert types == ["turn_timed_out", "match_ended"], (game.pk, types)
        game.refresh_from_db()
        assert (game.status, game.end_reason) == (Game.Status.FINISHED, "timeouts")


def _late_move(game: Game) -> None:
    """The player to act sends a card just after the deadline; it must lose the race."""
    try:
        _send_late_card(game)
    finally:
        connection.close()  # this thread's own connection, or the test database stays in use


def _send_late_card(game: Game) -> None:
    state = load_state(game)
    seat = engine.turn(state)
    player = Seat.objects.get(game=game, number=seat).player
    card = state.hand.held[seat][0]
    time.sleep(max(0.0, (game.deadline - timezone.now()).total_seconds()) + 0.05)
    body = {"type": "play", "card": card, "expected_version": game.version}
    with pytest.raises(ApplicationError) as refused:
        services.act(player, game.pk, body, f"late-{game.pk}")
    assert refused.value.status == 409


@pytest.mark.django_db(transaction=True)
def test_many_deadlines_at_once_are_applied_exactly_once(queue):
    with worker(queue):
        games = _games(12, turn_seconds=3)
        for game in games:  # a duplicate copy of every scheduled task
            apply_timeout.apply_async((str(game.pk), game.version), eta=game.deadline)
        late = [threading.Thread(target=_late_move, args=(game,)) for game in games[::2]]
        with beat():
            for thread in late:
                thread.start()
            _wait(lambda: _all_over(games), "every timeout")
            for thread in late:
                thread.join()
    _assert_one_timeout_each(games)


@pytest.mark.django_db(transaction=True)
def test_a_worker_killed_while_holding_timeouts_loses_none(queue):
    with worker(queue) as first:
        games = _games(8, turn_seconds=4)
        name = first.worker_name  # type: ignore[attr-defined]  # set by worker()
        inspect = app.control.inspect(destination=[name], timeout=1)
        _wait(
            lambda: sum(len(tasks) for tasks in (inspect.scheduled() or {}).values()) == 8,
            "the first worker to hold every timeout",
        )
        first.kill()  # SIGKILL: its held tasks stay unacknowledged in Redis for an hour
    assert not _all_over(games)
    assert Game.objects.filter(pk=games[0].pk, deadline__gt=timezone.now() - timedelta(1)).exists()
    with worker(queue), beat():
        _wait(lambda: _all_over(games), "every timeout after the restart")
    _assert_one_timeout_each(games)

"""A real Celery worker for tests: a thread of the test process consuming from the real broker.

tests/conftest.py loads this module as a pytest plugin, so any test may ask for the fixture::

    from tests.celery_fixtures import eventually

    def test_timeout_is_applied_by_the_worker(celery_worker_thread):
        game = ...                                    # committed rows: the worker must see them
        apply_timeout.delay(str(game.pk), game.version)
        [task] = celery_worker_thread.wait_for(1)
        assert task.state == "SUCCESS" and task.retval is True
        assert Game.objects.get(pk=game.pk).status == "finished"
        # or, without counting tasks:
        assert eventually(lambda: Game.objects.get(pk=game.pk).status == "finished")

What the fixture gives and why:

- The broker is CELERY_BROKER_URL from settings: run with ``CELERY_BROKER_URL=redis://127.0.0.1:6379/N``
  (your own N). The test is skipped when the broker is ``memory://`` (tasks then run eagerly in the
  caller and no worker could ever see one).
- It requests ``transactional_db``: the worker's tasks run on their own database connections, so
  they see only committed rows, and ``delay_on_commit()`` really sends on commit.
- The worker consumes only the queue tasks are sent to (``task_default_queue`` when the test
  starts), purged before the worker starts (tasks left by an earlier run must not run against this
  test's rows) and again after it stops.
- The pool is ``threads`` with WORKER_CONCURRENCY threads, so tasks really run side by side and
  races between them are real races. Each task closes its database connection when it ends, so no
  thread keeps one open past the test (PostgreSQL could not drop the test database otherwise).
- Tasks' results are not stored (CELERY_TASK_IGNORE_RESULT), so the fixture records every task
  the worker finishes: ``celery_worker_thread.wait_for(3)`` waits until three have finished and
  returns them (name, args, kwargs, retval, state). Or poll the database with ``eventually``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from celery import signals
from celery.contrib.testing.worker import start_worker, test_worker_started
from celery.worker import WorkController
from django.conf import settings
from django.db import connections
from kombu.asynchronous import set_event_loop

from truc_api.celery import app

WORKER_CONCURRENCY = 4
TICK_SECONDS = 0.05


@dataclass(frozen=True)
class FinishedTask:
    name: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    retval: Any
    state: str  # "SUCCESS", "FAILURE", "RETRY", ...


@dataclass
class WorkerThread:
    """The running worker, and every task it finished since it started, in order of finishing."""

    worker: WorkController
    done: list[FinishedTask] = field(default_factory=list)

    def wait_for(self, count: int, timeout: float = 15.0) -> list[FinishedTask]:
        """The finished tasks once there are ``count`` of them, or all there are at ``timeout``."""
        eventually(lambda: len(self.done) >= count, timeout=timeout)
        return list(self.done)


@pytest.fixture
def celery_worker_thread(transactional_db: None) -> Iterator[WorkerThread]:
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        pytest.skip(
            "needs a real broker: set CELERY_BROKER_URL=redis://127.0.0.1:6379/<your db number>"
        )
    done: list[FinishedTask] = []

    def on_task_postrun(
        task: Any, args: Any, kwargs: Any, retval: Any, state: str, **_: Any
    ) -> None:
        # Runs in the thread that ran the task: close its connections, then record the task.
        connections.close_all()
        done.append(FinishedTask(task.name, tuple(args or ()), dict(kwargs or {}), retval, state))

    # The queue that tasks are sent to now; named so that the worker consumes exactly that one,
    # whatever queues earlier tests added to the app (a worker consumes every queue it knows).
    queue = app.conf.task_default_queue
    _purge(queue)
    signals.task_postrun.connect(on_task_postrun, weak=False)
    test_worker_started.connect(_tick_often, weak=False)
    # The event loop is a global that a new worker reuses, stale timers and all: start afresh.
    set_event_loop(None)
    try:
        with start_worker(
            app,
            pool="threads",
            concurrency=WORKER_CONCURRENCY,
            perform_ping_check=False,
            shutdown_timeout=30,
            queues=[queue],
        ) as worker:
            pool = worker.pool
            yield WorkerThread(worker, done)
        # Terminating a worker leaves its thread pool's threads waiting for work: end them.
        pool.executor.shutdown()
    finally:
        set_event_loop(None)
        test_worker_started.disconnect(_tick_often)
        signals.task_postrun.disconnect(on_task_postrun)
        _purge(queue)


def _purge(queue: str) -> None:
    with app.connection_for_write() as connection:
        connection.default_channel.queue_purge(queue)


def _tick_often(worker: WorkController, **_: Any) -> None:
    """Wake the worker's event loop every TICK_SECONDS (runs in the worker's thread).

    The pool threads hand acknowledgements and results back to the event loop, which does not wake
    for them: it sleeps until its next timer, up to 10 s, and with every prefetched task unacked it
    fetches no more. The tests saw 10-second stalls, and a stop took as long. A short no-op timer
    bounds both by TICK_SECONDS.
    """
    worker.hub.call_repeatedly(TICK_SECONDS, _nothing)


def _nothing() -> None:
    pass


def eventually(condition: Callable[[], Any], timeout: float = 15.0, interval: float = 0.05) -> Any:
    """Poll until ``condition()`` is truthy and return it; its last value after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(interval)

"""The live stream of a game's events, by long polling.

A waiting request polls the game row's version, a primary-key read, every ``POLL_SECONDS``. It
holds its server thread (and database connection) while it waits, and a server's threads are all
its concurrency: a process holds at most ``LONG_POLL_SLOTS`` waits (settings), fewer than its
threads (docker-compose.yml), so that waiting clients never starve the others. Beyond that a
wait answers at once, with a ``Retry-After`` for the client's next ask.
"""

from __future__ import annotations

import threading
import time

from django.conf import settings

from games.models import Game
from notifications.errors import CursorAhead

POLL_SECONDS = 0.5
_slots = threading.BoundedSemaphore(settings.LONG_POLL_SLOTS)


class NoSlot(Exception):
    """Every wait this process allows is taken: answer now, and say when to ask again."""

    retry_after = 1  # seconds


def wait_for_events(game: Game, after: int, timeout: float) -> bool:
    """Return once the game has events after ``after`` (True), or after ``timeout`` (False).

    A game that is over has nothing more to say, so it answers at once; a cursor beyond the log
    can only be a client's mistake (seqs come from the log, which never shrinks). With no slot
    free to wait in, it raises ``NoSlot``.
    """
    if after > game.version:
        raise CursorAhead(game.version)
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        return game.version > after
    if game.version > after:
        return True
    if not _slots.acquire(blocking=False):
        raise NoSlot()
    try:
        return _wait(game, after, time.monotonic() + timeout)
    finally:
        _slots.release()


def _wait(game: Game, after: int, deadline: float) -> bool:
    version = game.version
    while version <= after:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(POLL_SECONDS, remaining))
        version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first() or 0
    return True

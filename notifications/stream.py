"""The live stream of a game's events, by long polling.

A waiting request polls the game row's version, a primary-key read, every ``POLL_SECONDS``. It
holds its worker thread (and database connection) while it waits: serve the API with threaded
workers (gunicorn ``--worker-class gthread --threads N``), never sync ones.
"""

from __future__ import annotations

import time

from games.models import Game
from notifications.errors import CursorAhead

POLL_SECONDS = 0.5


def wait_for_events(game: Game, after: int, timeout: float) -> bool:
    """Return once the game has events after ``after`` (True), or after ``timeout`` (False).

    A game that is over has nothing more to say, so it answers at once; a cursor beyond the log
    can only be a client's mistake (seqs come from the log, which never shrinks).
    """
    if after > game.version:
        raise CursorAhead(game.version)
    if game.status in (Game.Status.FINISHED, Game.Status.ABORTED):
        return game.version > after
    deadline = time.monotonic() + timeout
    version = game.version
    while version <= after:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(POLL_SECONDS, remaining))
        version = Game.objects.filter(pk=game.pk).values_list("version", flat=True).first() or 0
    return True

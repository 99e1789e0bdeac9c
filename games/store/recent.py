"""The recent states: the last state of the games this process served lately, kept in memory.

A state is the fold of the log up to its version, and the log below a version never changes: an
entry is never wrong, only old, and an old one is not used. Filled after commit only (a
rolled-back action's state never was).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from django.db import transaction

from games import engine
from games.models import GameId


class RecentStates:
    """The newest state kept of each of at most ``size`` games, the least recently used
    dropped first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.states: OrderedDict[Any, engine.State] = OrderedDict()
        self.lock = threading.Lock()

    def get(self, game_id: GameId, version: int) -> engine.State | None:
        """The game's state at ``version``, if that is the one kept."""
        with self.lock:
            state = self.states.get(game_id)
            if state is None or state.version != version:
                return None
            self.states.move_to_end(game_id)
            return state

    def latest(self, game_id: GameId) -> engine.State | None:
        """The newest state kept of the game, whatever its version."""
        with self.lock:
            return self.states.get(game_id)

    def put(self, game_id: GameId, state: engine.State) -> None:
        with self.lock:
            known = self.states.get(game_id)
            if known is None or known.version < state.version:
                self.states[game_id] = state
            self.states.move_to_end(game_id)
            if len(self.states) > self.size:
                self.states.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.states.clear()


recent = RecentStates(size=4096)


def keep_after_commit(game_id: GameId, state: engine.State) -> None:
    """Kept once what it was read from is committed: within a transaction that wrote events, the
    fold could see some that never will be."""
    transaction.on_commit(lambda: recent.put(game_id, state))


def recent_state(game_id: GameId, version: int) -> engine.State | None:
    return recent.get(game_id, version)


def forget_recent_states() -> None:
    recent.clear()

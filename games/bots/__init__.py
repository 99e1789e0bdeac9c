"""Server-side bot players: pure Python over the engine, seeing only what their seat may see.

    action = choose(level, view, history, rng)

``view`` is ``engine.view_for(state, seat)``; ``history`` is the seat's redacted event history of
the match so far (``engine.redact(event, seat)``, oldest first, as the event feed gives it); ``rng``
is the bot's own ``random.Random``. A bot never receives the ``State`` or another seat's cards, and
always returns one of ``view["legal_actions"]`` as an ``engine.Action``. Levels (``LEVELS``):

- ``random``: any legal action, uniformly (``random_bot``).
- ``basic``: rules of thumb on card strength and envido value, deterministic (``basic``).
- ``strong``: a mixed strategy for the calls learned by Monte Carlo CFR self-play, sampled, its
  answers to a call checked against the chance to win it read from the table's public actions
  (``reading``, ``envido_reading``); its cards chosen by playouts over deals of the unseen cards
  (``card_play``) (``strong``, trained by ``train_strong``).

Whole matches between bots, and the human styles of play the bench sets against them, live in
``bench/bot_matches.py`` and ``bench/bot_styles.py``: the server never plays a match by itself.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from games import engine as E

from . import basic, random_bot, strong

LEVELS = ("random", "basic", "strong")


def choose(
    level: str, view: dict[str, Any], history: Sequence[Mapping[str, Any]], rng: random.Random
) -> E.Action:
    """The action of a ``level`` bot in this seat's ``view``, given its redacted ``history``."""
    if level == "random":
        return random_bot.choose(view, rng)
    if level == "basic":
        return basic.choose(view)
    if level == "strong":
        return strong.choose(view, history, rng)
    raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")

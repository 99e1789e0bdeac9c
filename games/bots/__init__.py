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

``styles`` holds human styles of play (cautious, aggressive, bluffer, accepts) that the bench
plays against; they are not levels.

``play_match`` runs a whole match between bots, as the bench and the tests do.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from games import engine as E
from games.engine.events import TurnTimedOut

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


#: What ``play_match`` asks a seat: (view, history, rng) -> action, or None to let the clock run
#: out (the server then records ``TurnTimedOut`` and applies ``engine.timeout_action``).
Player = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], E.Action | None]


def player(level: str) -> Player:
    if level not in LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(LEVELS)}")
    return lambda view, history, rng: choose(level, view, history, rng)


def play_match(
    rules: E.Rules,
    players: Sequence[Player],
    rng: random.Random,
    watch: Callable[[E.State, int, dict[str, Any], list[dict[str, Any]]], None] | None = None,
) -> tuple[E.State, list[E.Event]]:
    """A whole match, ``players[seat]`` choosing for each seat; deals shuffled with ``rng``.

    Each seat gets only ``view_for(state, seat)`` and its own redacted history; ``watch``, when
    given, sees the full state next to each input a bot gets (the tests check the input with it).
    """
    deck = E.DECKS[rules.deck]
    first = E.start_match(rules)
    state = E.start(first)
    events: list[E.Event] = [first]
    histories: list[list[dict[str, Any]]] = [
        [E.redact(first, seat)] for seat in range(rules.players)
    ]
    timeouts = [0] * rules.players
    while not state.match_over:
        if state.needs_deal:
            new: Sequence[E.Event] = (E.deal(state, rng.sample(deck, len(deck))),)
        else:
            seat = E.turn(state)
            assert seat is not None
            view = E.view_for(state, seat)
            if watch is not None:
                watch(state, seat, view, histories[seat])
            action = players[seat](view, histories[seat], rng)
            if action is None:
                timeouts[seat] += 1
                seat, action = E.timeout_action(state)
                timed_out = TurnTimedOut(seat, timeouts[seat])
                new = (timed_out, *E.decide(E.evolve(state, timed_out), seat, action))
            else:
                timeouts[seat] = 0
                new = E.decide(state, seat, action)
        for event in new:
            state = E.evolve(state, event)
            events.append(event)
            for reader, history in enumerate(histories):
                history.append(E.redact(event, reader))
    return state, events

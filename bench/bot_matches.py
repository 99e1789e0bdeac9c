"""Whole matches between bots, for the benches (bench/bots.py, bench/envido_tally.py) and the
bots' tests: the server plays a bot's turn at a time (games/bot_players.py), never a match."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from games import bots
from games import engine as E
from games.engine.events import TurnTimedOut

#: What ``play_match`` asks a seat: (view, history, rng) -> action, or None to let the clock run
#: out (the server then records ``TurnTimedOut`` and applies ``engine.timeout_action``).
Player = Callable[[dict[str, Any], list[dict[str, Any]], random.Random], E.Action | None]


def player(level: str) -> Player:
    if level not in bots.LEVELS:
        raise ValueError(f"unknown bot level {level!r}; choose one of {', '.join(bots.LEVELS)}")
    return lambda view, history, rng: bots.choose(level, view, history, rng)


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

"""A small table for rule tests: deal known hands, act, and see what the referee says.

    table = Table("argentino_clasico", hands=[["1E", "4C", "5C"], ["7O", "4O", "5O"]])
    table.act(0, "truco"); table.act(1, "quiero"); table.plays("1E", "7O")
    table.rejects(0, "envido", code="envido_closed")

Scores and camas before the hand are set on the state, as the conformance runner does; every action
goes through ``decide`` and every event through ``evolve``, exactly as the server applies them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from games import engine as E
from games.engine.events import HandEnded


def action(name: str, card: str | None = None) -> E.Action:
    """An action by any of its names (aliases included), as a client would send it."""
    return E.Action.from_json({"type": name} if card is None else {"type": name, "card": card})


class Table:
    def __init__(
        self,
        preset: str = "argentino_clasico",
        players: int = 2,
        scores: tuple[int, int] = (0, 0),
        camas: tuple[int, int] = (0, 0),
        hands: Sequence[Sequence[str]] | None = None,
        **options: object,
    ) -> None:
        rules = E.resolve_rules(preset, {"players": players, **options})
        self.events: list[E.Event] = [E.start_match(rules)]
        self.state = replace(E.replay(self.events), scores=scores, camas=camas)
        if hands is not None:
            self.deal(hands)

    @property
    def hand(self) -> E.Hand:
        assert self.state.hand is not None
        return self.state.hand

    @property
    def turn(self) -> int | None:
        return E.turn(self.state)

    def _apply(self, events: Sequence[E.Event]) -> list[E.Event]:
        for event in events:
            self.state = E.evolve(self.state, event)
            self.events.append(event)
        return list(events)

    def deal(self, hands: Sequence[Sequence[str]]) -> list[E.Event]:
        """The next hand, with these cards by seat."""
        return self._apply([E.deal_hands(self.state, hands)])

    def deal_deck(self, deck: Sequence[str]) -> list[E.Event]:
        """The next hand, dealt from a whole shuffled deck."""
        return self._apply([E.deal(self.state, deck)])

    def act(self, seat: int, name: str, card: str | None = None) -> list[E.Event]:
        """Apply an action that must be legal; ``legal_actions`` must list it too (RULES.md §8)."""
        wanted = action(name, card)
        listed = {(legal.type, legal.card) for legal in E.legal_actions(self.state, seat)}
        assert (wanted.type, wanted.card) in listed, f"{name} {card or ''} not listed for {seat}"
        return self._apply(E.decide(self.state, seat, wanted))

    def play(self, seat: int, card: str) -> list[E.Event]:
        return self.act(seat, "play", card)

    def plays(self, *cards: str) -> list[E.Event]:
        """Each card played in turn by whoever must play next."""
        events: list[E.Event] = []
        for card in cards:
            seat = self.turn
            assert seat is not None, f"nobody is to play {card}"
            events += self.play(seat, card)
        return events

    def rejects(self, seat: int, name: str, code: str, card: str | None = None) -> None:
        """The action is refused with ``code``, changes nothing, and is not a legal action."""
        before = self.state
        wanted = action(name, card)
        with pytest.raises(E.IllegalAction) as refusal:
            E.decide(self.state, seat, wanted)
        assert refusal.value.code == code
        assert self.state == before
        assert wanted not in E.legal_actions(self.state, seat)

    def legal(self, seat: int) -> set[str]:
        return {legal.type for legal in E.legal_actions(self.state, seat)}

    def points(self) -> list[tuple[str, int, int]]:
        """(kind, side, points) scored by the last hand that ended."""
        ended = [event for event in self.events if isinstance(event, HandEnded)]
        assert ended, "no hand has ended"
        return list(ended[-1].points)

"""view_for(state, seat): what one seat, or a spectator, may see (RULES.md §8).

Every output of the server goes through here or through ``redact``: a view holds the viewer's own
cards, every card played face up, scores, the pending call and the viewer's legal actions; never
another player's unplayed cards, the deck order, a losing envido or flor value, or whether another
player holds a flor he has not sung yet (only the flor round's next singer shows, as ``turn``).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from . import events as ev
from .actions import TRUCO_CALLS
from .cards import envido_of, flor_of
from .referee import legal_actions, turn
from .rules import Rules
from .state import Hand, State, side_of


def view_for(state: State, seat: int | None) -> dict[str, Any]:
    view: dict[str, Any] = {
        "rules": dict(_rules_json(state.rules)),
        "version": state.version,
        "seat": seat,
        "side": None if seat is None else side_of(seat),
        "scores": list(state.scores),
        "camas": list(state.camas),
        "match_over": state.match_over,
        "match_winner": state.winner,
        "end_reason": state.end_reason,
        "turn": turn(state),
        "hand": None if state.hand is None else _hand_view(state, state.hand, seat),
        "legal_actions": [],
    }
    if seat is not None:
        view["legal_actions"] = [action.to_json() for action in legal_actions(state, seat)]
    return view


@lru_cache(maxsize=64)
def _rules_json(rules: Rules) -> dict[str, Any]:
    """A game's rules never change: serialise them once, not at every view (bots ask often)."""
    return rules.to_json()


def _hand_view(state: State, hand: Hand, seat: int | None) -> dict[str, Any]:
    my_flor = None
    if seat is not None and state.rules.flor:
        my_flor = flor_of(hand.dealt[seat])
    duelists = hand.duelists
    return {
        "number": hand.number,
        "dealer": hand.dealer,
        "mano": hand.mano,
        "over": hand.over,
        "kind": hand.kind,
        "duel": hand.duel,  # RULES.md §9: the duel in progress (the last once the hand is over)
        "duelists": None if duelists is None else list(duelists),
        "earlier_duels": [_plays(plays) for plays in hand.earlier_duels],
        "my_cards": None if seat is None else list(hand.held[seat]),
        "my_envido": None if seat is None else envido_of(hand.dealt[seat]),
        "my_flor": my_flor,  # his own, with flor on; never anyone else's
        "cards_left": [len(cards) for cards in hand.held],
        "bazas": [_plays(plays) for plays in hand.bazas],
        "baza": _plays(hand.baza),
        "baza_results": list(hand.results),
        "folded": sorted(hand.folded),
        "envido_phase": hand.phase_turn is not None,
        "pending_call": _pending(hand, state.players),
        "truco": {"level": hand.truco_level, "holder": hand.truco_holder},
        "envido": {
            "calls": list(hand.envido_calls),
            "winner": hand.envido_winner,
            "value": hand.envido_value,  # the winning value only, as the referee announces it
            "points": _owed("envido", hand.envido_points),
        },
        "flor": {
            "sung": list(hand.flor_sung),
            "round": bool(hand.flor_queue),  # holders are still singing (the turn's is next)
            "calls": list(hand.flor_calls),
            "winner": hand.flor_winner,
            "value": hand.flor_value,  # the winning value only, when the flores were compared
            "points": _owed("flor", hand.flor_points),
        },
    }


def _owed(kind: str, owed: tuple[int, int] | None) -> dict[str, Any] | None:
    """Points owed to a side, scored when the hand ends (RULES.md §7), in the shape a hand's end
    lists them (``events.POINTS_FIELDS``); None while nothing is owed."""
    return None if owed is None else dict(zip(ev.POINTS_FIELDS, (kind, *owed), strict=True))


def _plays(plays: tuple[tuple[int, str], ...]) -> list[dict[str, Any]]:
    return [{"seat": seat, "card": card} for seat, card in plays]


def _pending(hand: Hand, players: int) -> dict[str, Any] | None:
    caller = hand.pending_caller
    if caller is None:
        return None
    if hand.flor_pending:
        call = hand.flor_calls[-1]
    elif hand.envido_pending:
        call = hand.envido_calls[-1]
    else:
        assert hand.truco_call is not None
        call = TRUCO_CALLS[hand.truco_call - 2]
    return {
        "ladder": hand.pending_ladder,
        "call": call,
        "caller": caller,
        "answering_side": 1 - side_of(caller),
    }


def redact(event: ev.Event, seat: int | None) -> dict[str, Any]:
    """An event's JSON as ``seat`` may read it: a deal shows only the reader's own cards."""
    return redact_json(event.to_json(), seat)


def redact_json(data: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """The same for an event already in its JSON form (as the log stores it)."""
    if data.get("type") != ev.HandDealt.TYPE:
        return data
    hands = data["hands"]
    return {**data, "hands": [list(cards) if i == seat else None for i, cards in enumerate(hands)]}

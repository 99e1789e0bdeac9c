"""What the shell asks of the engine around the actions: start, deal, end a match.

The engine never shuffles and never reads the clock: the shell shuffles with ``secrets`` and hands
the deck over; the engine deals it as the rules say (RULES.md §1).
"""

from __future__ import annotations

from collections.abc import Sequence

from . import events as ev
from .actions import Action
from .cards import DECKS, TRUCO_RANK
from .errors import IllegalAction, InvalidAction
from .referee import turn, why_not
from .rules import RULES_VERSION, Rules
from .state import State, side_of


def start_match(rules: Rules) -> ev.MatchStarted:
    return ev.MatchStarted(rules, RULES_VERSION)


def deal(state: State, deck: Sequence[str]) -> ev.HandDealt:
    """Deal a shuffled deck: three cards each, one at a time, starting with the mano (§1)."""
    if sorted(deck) != sorted(DECKS[state.rules.deck]):
        raise InvalidAction(f"a deal needs the whole {state.rules.deck} deck, each card once")
    players = state.players
    mano = (state.next_dealer + 1) % players
    hands: list[list[str]] = [[] for _ in range(players)]
    for place, card in enumerate(deck[: 3 * players]):
        hands[(mano + place) % players].append(card)
    return deal_hands(state, hands)


def next_hand_kind(state: State) -> str:
    """RULES.md §9: with ``pica_pica`` the hand after a redonda is a pica-pica hand while the
    leader lacks more than 5 points; the first hand of a cama and the hand after a pica-pica hand
    are redondas."""
    rules, hand = state.rules, state.hand
    if not rules.pica_pica or hand is None or state.cama_won or hand.kind == "pica_pica":
        return "redonda"
    return "pica_pica" if max(state.scores) < rules.target - 5 else "redonda"


def deal_hands(
    state: State, hands: Sequence[Sequence[str]], kind: str | None = None
) -> ev.HandDealt:
    """The deal of these exact hands, by seat (for replays of known deals and worked cases).

    ``kind`` is the rules' choice (``next_hand_kind``) unless given: a worked case may deal a
    pica-pica hand wherever RULES.md §9 allows one at all (the option on, the leader more than 5
    points short of the target).
    """
    if not state.needs_deal:
        raise IllegalAction("a hand is in progress or the match is over", "hand_in_progress")
    cards = [card for hand in hands for card in hand]
    deck = set(DECKS[state.rules.deck])
    if (
        len(hands) != state.players
        or any(len(hand) != 3 for hand in hands)
        or len(set(cards)) != len(cards)
        or not set(cards) <= deck
    ):
        raise InvalidAction(f"each seat needs 3 distinct cards of the {state.rules.deck} deck")
    if kind is None:
        kind = next_hand_kind(state)
    elif kind not in ev.HAND_KINDS:
        raise InvalidAction(f"a hand is one of {', '.join(ev.HAND_KINDS)}, not {kind!r}")
    elif kind == "pica_pica":
        leader = 0 if state.cama_won else max(state.scores)
        if not state.rules.pica_pica or leader >= state.rules.target - 5:
            raise InvalidAction("a pica-pica hand needs pica_pica and a leader 6 or more short")
    number = state.hand.number + 1 if state.hand is not None else 1
    dealt = tuple(tuple(hand) for hand in hands)
    return ev.HandDealt(number, state.next_dealer, dealt, kind)


def resign(state: State, seat: int) -> ev.MatchEnded:
    """A player gives up the match for his side: the other side wins it."""
    if state.match_over:
        raise IllegalAction("the match is over", "match_over")
    return ev.MatchEnded(1 - side_of(seat), "resigned", seat)


def forfeit(state: State, side: int, reason: str) -> ev.MatchEnded:
    """The shell ends the match against ``side`` (e.g. repeated turn timeouts)."""
    assert reason in ev.MATCH_END_REASONS, reason  # the API's enum of reasons is this table
    if state.match_over:
        raise IllegalAction("the match is over", "match_over")
    return ev.MatchEnded(1 - side, reason)


def abort(state: State, reason: str) -> ev.MatchEnded:
    """The shell ends the match with no winner (e.g. a seat that never acted)."""
    assert reason in ev.MATCH_END_REASONS, reason
    if state.match_over:
        raise IllegalAction("the match is over", "match_over")
    return ev.MatchEnded(None, reason)


def timeout_action(state: State) -> tuple[int, Action]:
    """What a seat whose clock ran out is made to do, a fixed and documented choice:
    a holder who owes his flor sings it (RULES.md §5.3.1); the flor contest is refused
    (``con_flor_me_achico`` to a plain flor, else ``no_quiero``); a pending call is refused
    (``no_quiero``, by the first answerer); in the envido phase the seat passes; otherwise it plays
    its lowest card by truco rank (the first such card in its hand)."""
    seat = turn(state)
    hand = state.hand
    if seat is None or hand is None:
        raise IllegalAction("nobody is to act", "hand_over")
    if why_not(state, seat, Action("flor")) is None:
        return seat, Action("flor")
    if hand.flor_pending:
        return seat, Action("con_flor_me_achico" if hand.flor_calls == ("flor",) else "no_quiero")
    if hand.pending_caller is not None:
        return seat, Action("no_quiero")
    if hand.phase_turn is not None:
        return seat, Action("paso")
    lowest = min(hand.held[seat], key=TRUCO_RANK.__getitem__)
    return seat, Action("play", card=lowest)

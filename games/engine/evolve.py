"""evolve(state, event) -> state: the trusted fold. It checks nothing; the referee checked first."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Any

from . import events as ev
from .cards import flor_of
from .errors import InvalidEvent
from .rules import RULES_VERSION
from .state import Duels, Flor, Hand, State, side_of


def start(event: ev.MatchStarted) -> State:
    """The state right after the first event. The first hand is dealt by the last seat."""
    if event.rules_version > RULES_VERSION:
        raise InvalidEvent(f"rules_version {event.rules_version} is newer than this referee's")
    return State(rules=event.rules, next_dealer=event.rules.players - 1)


def replay(events: Iterable[ev.Event]) -> State:
    """The fold of a whole stream, which must open with ``MatchStarted``."""
    stream = iter(events)
    first = next(stream, None)
    if not isinstance(first, ev.MatchStarted):
        raise InvalidEvent("a game's stream opens with match_started")
    state = start(first)
    for event in stream:
        state = evolve(state, event)
    return state


def evolve(state: State, event: ev.Event) -> State:
    apply = _APPLY.get(type(event))
    if apply is None:
        raise InvalidEvent(f"{event.TYPE or type(event).__name__} cannot follow match_started")
    return apply(state, event)


def next_to_play(hand: Hand, after: int, players: int) -> int:
    """The next seat in play after ``after`` that has not played in the baza in progress."""
    played = {seat for seat, _ in hand.baza}
    for step in range(1, players + 1):
        seat = (after + step) % players
        if seat not in played and seat not in hand.folded and hand.in_play(seat):
            return seat
    return after  # nobody: the baza is complete and the referee ends it


def holds_flor(hand: Hand, seat: int) -> bool:
    """RULES.md §3: three dealt cards of one suit (counted only under ``flor: true``)."""
    return flor_of(hand.dealt[seat]) is not None


def _hand(state: State, hand: Hand, **changes: Any) -> State:
    return replace(state, hand=replace(hand, **changes), version=state.version + 1)


def _dealt(state: State, event: ev.HandDealt) -> State:
    players = state.players
    mano = (event.dealer + 1) % players
    phase = state.rules.envido_window == "before_first_card"
    hand = Hand(
        number=event.number,
        dealer=event.dealer,
        mano=mano,
        dealt=event.hands,
        held=event.hands,
        to_play=mano,
        phase_turn=mano if phase else None,
        duels=Duels() if event.kind == "pica_pica" else None,  # RULES.md §9: duel 0 at once
    )
    scores = (0, 0) if state.cama_won else state.scores
    return replace(
        state,
        hand=hand,
        scores=scores,
        cama_won=False,
        next_dealer=(event.dealer + 1) % players,
        version=state.version + 1,
    )


def _passed(state: State, event: ev.EnvidoPassed) -> State:
    hand = _current(state)
    following = next(
        seat
        for step in range(1, state.players + 1)
        if hand.in_play(seat := (event.seat + step) % state.players)
    )
    # RULES.md §5.2: the phase ends once every player (of the duel, §9) has passed.
    return _hand(state, hand, phase_turn=None if following == hand.current_mano else following)


def _played(state: State, event: ev.CardPlayed) -> State:
    hand = _current(state)
    held = list(hand.held)
    held[event.seat] = tuple(card for card in held[event.seat] if card != event.card)
    hand = replace(hand, held=tuple(held), baza=(*hand.baza, (event.seat, event.card)))
    return _hand(state, hand, to_play=next_to_play(hand, event.seat, state.players))


def _truco_called(state: State, event: ev.TrucoCalled) -> State:
    hand = _current(state)
    if hand.truco_call is not None:
        # A raise while answering implies accepting the level called (RULES.md §5.1).
        hand = replace(hand, truco_level=hand.truco_call, truco_holder=side_of(event.seat))
    return _hand(state, hand, truco_call=event.level, truco_caller=event.seat)


def _truco_accepted(state: State, event: ev.TrucoAccepted) -> State:
    hand = _current(state)
    return _hand(
        state,
        hand,
        truco_level=event.level,
        truco_holder=side_of(event.seat),
        truco_call=None,
        truco_caller=None,
    )


def _truco_refused(state: State, event: ev.TrucoRefused) -> State:
    # Refusing ends the hand at once; the referee's HandEnded follows with the points.
    return _hand(state, _current(state), truco_call=None, truco_caller=None)


def _envido_called(state: State, event: ev.EnvidoCalled) -> State:
    hand = _current(state)
    return _hand(
        state,
        hand,
        envido_calls=(*hand.envido_calls, event.call),
        envido_caller=event.seat,
        envido_pending=True,
    )


def _envido_accepted(state: State, event: ev.EnvidoAccepted) -> State:
    hand = _current(state)
    return _hand(
        state,
        hand,
        envido_pending=False,
        envido_points=(event.winner, event.points),
        envido_winner=event.winner,
        envido_value=event.value,
        phase_turn=None,  # a settled envido ends the envido phase
    )


def _envido_refused(state: State, event: ev.EnvidoRefused) -> State:
    hand = _current(state)
    return _hand(
        state, hand, envido_pending=False, envido_points=(event.side, event.points), phase_turn=None
    )


def _folded(state: State, event: ev.Folded) -> State:
    hand = _current(state)
    out = {event.seat}
    # RULES.md §9: in a pica-pica duel a fold ends the duel; mazo_team does not apply.
    if state.rules.mazo_team == "side_concedes" and hand.duel is None:
        out = {seat for seat in range(state.players) if side_of(seat) == side_of(event.seat)}
    penalty = list(hand.penalty)
    penalty[1 - side_of(event.seat)] += event.penalty
    hand = replace(hand, folded=hand.folded | out, penalty=(penalty[0], penalty[1]))
    return _hand(state, hand, to_play=next_to_play(hand, event.seat, state.players))


def _flor_sung(state: State, event: ev.FlorSung) -> State:
    hand = _current(state)
    if not hand.flor_sung:
        # RULES.md §5.3.3: the first flor cancels the envido (pending or settled) and closes it,
        # so an envido phase is over; §5.3.2: every other holder in play sings next, in order.
        queue = tuple(
            seat
            for step in range(1, state.players)
            if hand.in_play(seat := (event.seat + step) % state.players) and holds_flor(hand, seat)
        )
        hand = replace(
            hand,
            envido_pending=False,
            envido_points=None,
            envido_winner=None,
            envido_value=None,
            phase_turn=None,
        )
    else:
        queue = hand.flor_queue[1:]
    sung = (*hand.flor_sung, event.seat)
    contest = not queue and len({side_of(seat) for seat in sung}) == 2
    # §5.3.4: both sides sang: the first flor stands as its side's call, for the other to answer.
    flor = Flor(
        sung=sung,
        queue=queue,
        calls=("flor",) if contest else (),
        caller=sung[0] if contest else None,
        pending=contest,
    )
    return _hand(state, hand, flor=flor)


def _flor_called(state: State, event: ev.FlorCalled) -> State:
    hand = _current(state)
    flor = replace(hand.flor, calls=(*hand.flor.calls, event.call), caller=event.seat)
    return _hand(state, hand, flor=flor)


def _flor_settled(state: State, event: ev.FlorSettled) -> State:
    hand = _current(state)
    flor = replace(
        hand.flor,
        pending=False,
        points=(event.winner, event.points),
        winner=event.winner,
        value=event.value,
    )
    return _hand(state, hand, flor=flor)


def _duel_ended(state: State, event: ev.DuelEnded) -> State:
    hand = _current(state)
    assert hand.duels is not None
    duels = replace(hand.duels, points=(*hand.duels.points, *event.points))
    hand = replace(hand, duels=duels)
    return replace(state, hand=hand, scores=event.scores, version=state.version + 1)


def _duel_started(state: State, event: ev.DuelStarted) -> State:
    """RULES.md §9: the next duel starts with a fresh truco, envido and flor, led by its mano."""
    hand = _current(state)
    plays = tuple(play for plays in (*hand.bazas, hand.baza) for play in plays)
    mano = event.seats[0]
    fresh = Hand(
        number=hand.number,
        dealer=hand.dealer,
        mano=hand.mano,
        dealt=hand.dealt,
        held=hand.held,
        to_play=mano,
        phase_turn=mano if state.rules.envido_window == "before_first_card" else None,
        duels=Duels(event.duel, (*hand.earlier_duels, plays), hand.duel_points),
    )
    return replace(state, hand=fresh, version=state.version + 1)


def _baza_ended(state: State, event: ev.BazaEnded) -> State:
    hand = _current(state)
    return _hand(
        state,
        hand,
        results=(*hand.results, event.result),
        bazas=(*hand.bazas, hand.baza),
        baza=(),
        to_play=event.leader,
    )


def _hand_ended(state: State, event: ev.HandEnded) -> State:
    hand = _current(state)
    return replace(
        state, hand=replace(hand, over=True), scores=event.scores, version=state.version + 1
    )


def _cama_ended(state: State, event: ev.CamaEnded) -> State:
    return replace(state, camas=event.camas, cama_won=True, version=state.version + 1)


def _match_ended(state: State, event: ev.MatchEnded) -> State:
    hand = state.hand
    if hand is not None and not hand.over:
        hand = replace(hand, over=True)
    return replace(
        state, hand=hand, winner=event.winner, end_reason=event.reason, version=state.version + 1
    )


def _timed_out(state: State, event: ev.TurnTimedOut) -> State:
    return replace(state, version=state.version + 1)


def _current(state: State) -> Hand:
    if state.hand is None:
        raise InvalidEvent("no hand has been dealt")
    return state.hand


_APPLY: dict[type[ev.Event], Callable[[State, Any], State]] = {
    ev.HandDealt: _dealt,
    ev.EnvidoPassed: _passed,
    ev.CardPlayed: _played,
    ev.TrucoCalled: _truco_called,
    ev.TrucoAccepted: _truco_accepted,
    ev.TrucoRefused: _truco_refused,
    ev.EnvidoCalled: _envido_called,
    ev.EnvidoAccepted: _envido_accepted,
    ev.EnvidoRefused: _envido_refused,
    ev.FlorSung: _flor_sung,
    ev.FlorCalled: _flor_called,
    ev.FlorSettled: _flor_settled,
    ev.Folded: _folded,
    ev.TurnTimedOut: _timed_out,
    ev.BazaEnded: _baza_ended,
    ev.DuelEnded: _duel_ended,
    ev.DuelStarted: _duel_started,
    ev.HandEnded: _hand_ended,
    ev.CamaEnded: _cama_ended,
    ev.MatchEnded: _match_ended,
}

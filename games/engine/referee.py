"""The referee: which actions are legal, and which events an action produces (RULES.md §4-§8).

``why_not`` is the one place that says whether an action is allowed; ``legal_actions`` and
``decide`` are both built on it, so they cannot disagree.
"""

from __future__ import annotations

from . import events as ev
from .actions import CANONICAL, FLOR_CALLS, TRUCO_LEVEL, Action
from .errors import IllegalAction
from .evolve import evolve, holds_flor
from .rules import Rules
from .scoring import (
    baza_outcome,
    best_flor,
    envido_accepted_points,
    envido_refused_points,
    envido_step_allowed,
    envido_winner,
    flor_contest_points,
    hand_winner,
    truco_points,
)
from .state import Hand, State, side_of

#: Stable codes, each naming the rule that says no (RULES.md §8), with a sentence for people.
REASONS = {
    "match_over": "the match is over",
    "hand_over": "the hand is over; the next one has not been dealt",
    "no_such_seat": "there is no such seat at this table",
    "player_folded": "a player who went to the mazo takes no part in the rest of the hand",
    "not_your_turn": "it is not this player's turn",
    "call_pending": "a call is pending: it must be answered first",
    "nothing_to_answer": "no call is pending",
    "envido_phase": "the envido phase comes first: call an envido or pass",
    "paso_not_allowed": "passing is only for the envido phase",
    "card_not_in_hand": "that card is not in the player's hand",
    "raise_not_allowed": "that call is not a legal step of its ladder now",
    "envido_closed": "the envido is closed for this player in this hand",
    "not_in_duel": "in a pica-pica duel only its two players act",
    "flor_off": "this game is played without the flor",
    "flor_first": "a player who holds flor must sing it before anything else",
    "flor_pending": "the flor round: the next holder must sing his flor first",
    "no_flor": "only a holder sings flor, once; only those who sang answer the flor contest",
    "no_flor_contest": "no flor contest is pending",
}


def turn(state: State) -> int | None:
    """Who must act now; with a call pending, the first active answerer after the caller (§5)."""
    hand = state.hand
    if state.match_over or hand is None or hand.over:
        return None
    if hand.flor.queue:
        return hand.flor.queue[0]  # RULES.md §5.3.2: the flor round
    caller = hand.pending_caller
    if caller is not None:
        return first_answerer(hand, caller, state.players)
    if hand.phase_turn is not None:
        return hand.phase_turn
    return hand.to_play


def first_answerer(hand: Hand, caller: int, players: int) -> int:
    """The first player of the other side after the caller who may answer: in play, and in the
    flor contest one who sang flor (RULES.md §5, §5.3.4)."""
    for step in range(1, players):
        seat = (caller + step) % players
        answers = side_of(seat) != side_of(caller) and hand.in_play(seat)
        if answers and (not hand.flor_pending or seat in hand.flor_sung):
            return seat
    raise AssertionError("a side with no active player has already lost the hand")


def owes_flor(rules: Rules, hand: Hand, seat: int) -> bool:
    """RULES.md §5.3.1: a holder must sing his flor before any other action of his."""
    return rules.flor and seat not in hand.flor_sung and holds_flor(hand, seat)


def envido_open_for(rules: Rules, hand: Hand, seat: int) -> bool:
    """Whether the hand's first envido call is open to ``seat`` (RULES.md §5.2 envido window).

    At most one envido per hand, never after a truco has been accepted, and never once a flor
    has been sung (§5.3.3).
    """
    if hand.envido_calls or hand.truco_level > 1 or hand.flor.sung:
        return False
    if rules.envido_window == "before_first_card":
        return hand.phase_turn is not None
    if rules.envido_window == "before_own_first_card":
        return len(hand.held[seat]) == 3
    return not hand.results  # first_baza: while baza 1 is not complete


def why_not(state: State, seat: int, action: Action) -> str | None:
    """The code of the rule that forbids ``action`` by ``seat`` now, or None when it is legal."""
    if not 0 <= seat < state.players:
        return "no_such_seat"
    hand = state.hand
    if state.match_over:
        return "match_over"
    if hand is None or hand.over:
        return "hand_over"
    if hand.duels is not None and not hand.in_play(seat) and seat not in hand.folded:
        return "not_in_duel"
    if seat in hand.folded:
        return "player_folded"
    if not state.rules.flor:  # no flor can be sung: the rules of §4-§6 alone
        if action.type in FLOR_CALLS:
            return "flor_off"
        return _why_not_without_flor(state, hand, seat, action)
    kind, flor = action.type, hand.flor
    if flor.queue:  # §5.3.2: the round's next singer, and nothing else, meanwhile
        if seat != flor.queue[0]:
            return "flor_pending"
        return None if kind == "flor" else "flor_first"
    if kind == "flor":
        return _why_not_sing(hand, seat)
    if flor.pending:
        return _why_not_answer_flor(hand, seat, action)
    if action.is_flor_call:
        return "no_flor_contest"
    code = _why_not_without_flor(state, hand, seat, action)
    if code is None and owes_flor(state.rules, hand, seat):
        return "flor_first"  # §5.3.1: an unsung flor restricts its holder alone
    return code


def _why_not_without_flor(state: State, hand: Hand, seat: int, action: Action) -> str | None:
    """The rules of §4-§6 for plays, truco and envido calls, answers, passes and folds."""
    kind = action.type
    caller = hand.pending_caller
    if caller is not None:
        if kind in ("play", "mazo", "paso"):
            return "call_pending"  # §6: he answers no_quiero instead of folding
        if side_of(seat) == side_of(caller):
            return "not_your_turn"
        if hand.envido_pending:
            return _why_not_answer_envido(state, hand, action)
        return _why_not_answer_truco(state, hand, seat, action)
    if kind in ("quiero", "no_quiero"):
        return "nothing_to_answer"
    if hand.phase_turn is not None:
        if seat != hand.phase_turn:
            return "not_your_turn"
        if kind == "paso":
            return None
        if action.is_envido_call:
            return _why_not_open_envido(state.rules, hand, seat, action)
        return "envido_phase"
    if seat != hand.to_play:
        return "not_your_turn"
    if kind == "play":
        return None if action.card in hand.held[seat] else "card_not_in_hand"
    if kind == "paso":
        return "paso_not_allowed"
    if kind == "mazo":
        return None
    if action.is_truco_call:
        return _why_not_call_truco(state.rules, hand, seat, action)
    return _why_not_open_envido(state.rules, hand, seat, action)


def _why_not_sing(hand: Hand, seat: int) -> str | None:
    """§5.3.1: a holder sings once, when he is first able to act (flor_off was checked first)."""
    if seat in hand.flor_sung or not holds_flor(hand, seat):
        return "no_flor"
    return None if _able_to_act(hand, seat) else "not_your_turn"


def _able_to_act(hand: Hand, seat: int) -> bool:
    """Whether the turn is ``seat``'s, or his side's to answer, outside the flor (§5)."""
    caller = hand.pending_caller
    if caller is not None:
        return side_of(seat) != side_of(caller)
    if hand.phase_turn is not None:
        return seat == hand.phase_turn
    return seat == hand.to_play


def _why_not_answer_flor(hand: Hand, seat: int, action: Action) -> str | None:
    """§5.3.4-5: only a singer of the answering side answers; the raises of the table."""
    assert hand.flor_caller is not None
    if side_of(seat) == side_of(hand.flor_caller):
        return "not_your_turn"
    if seat not in hand.flor_sung:
        return "no_flor"
    calls, kind = hand.flor_calls, action.type
    if kind == "quiero":
        return None
    if kind in ("no_quiero", "con_flor_me_achico", "contraflor", "contraflor_al_resto"):
        allowed = {
            "no_quiero": calls != ("flor",),  # a plain flor is not refused: one concedes it
            "con_flor_me_achico": calls == ("flor",),
            "contraflor": calls == ("flor",),
            "contraflor_al_resto": calls[-1] != "contraflor_al_resto",
        }[kind]
        return None if allowed else "raise_not_allowed"
    return "call_pending"


def _why_not_call_truco(rules: Rules, hand: Hand, seat: int, action: Action) -> str | None:
    """§5.1: any player opens with truco; a raise belongs to the side holding the quiero."""
    level = TRUCO_LEVEL[action.type]
    if level != hand.truco_level + 1 or level > rules.truco_top_level:
        return "raise_not_allowed"
    if hand.truco_holder is not None and hand.truco_holder != side_of(seat):
        return "raise_not_allowed"
    return None


def _why_not_answer_truco(state: State, hand: Hand, seat: int, action: Action) -> str | None:
    if action.type in ("quiero", "no_quiero"):
        return None
    if action.is_truco_call:
        assert hand.truco_call is not None
        level = TRUCO_LEVEL[action.type]
        if level != hand.truco_call + 1 or level > state.rules.truco_top_level:
            return "raise_not_allowed"
        return None
    # "El envido está primero": an envido may answer a truco while the window is open (§5).
    return _why_not_open_envido(state.rules, hand, seat, action)


def _why_not_answer_envido(state: State, hand: Hand, action: Action) -> str | None:
    if action.type in ("quiero", "no_quiero"):
        return None
    if not action.is_envido_call:
        return "call_pending"
    if action.said == "torne" and hand.envido_calls != ("envido",):
        return "raise_not_allowed"  # torne is only the raise over an envit
    if not envido_step_allowed(state.rules.envido_raise, hand.envido_calls, action.type):
        return "raise_not_allowed"
    return None


def _why_not_open_envido(rules: Rules, hand: Hand, seat: int, action: Action) -> str | None:
    if not envido_open_for(rules, hand, seat):
        return "envido_closed"
    if action.said == "torne" or not envido_step_allowed(rules.envido_raise, (), action.type):
        return "raise_not_allowed"
    return None


def may_act(state: State, seat: int) -> bool:
    """Whether ``seat`` has any legal action now (a cheap filter before trying each)."""
    hand = state.hand
    if state.match_over or hand is None or hand.over or seat in hand.folded:
        return False
    if hand.duels is not None and not hand.in_play(seat):
        return False
    if hand.flor.queue:
        return seat == hand.flor.queue[0]
    if hand.flor.pending:
        assert hand.flor_caller is not None
        return seat in hand.flor_sung and side_of(seat) != side_of(hand.flor_caller)
    return _able_to_act(hand, seat)


def legal_actions(state: State, seat: int) -> tuple[Action, ...]:
    """Exactly the actions ``decide`` would accept from ``seat`` now, in canonical names."""
    if not 0 <= seat < state.players or not may_act(state, seat):
        return ()
    assert state.hand is not None
    plays = [Action("play", card=card) for card in state.hand.held[seat]]
    # Without the flor option its actions are never legal (flor_off): they are not tried.
    calls = _CALLS if state.rules.flor else _CALLS_WITHOUT_FLOR
    return tuple(action for action in (*plays, *calls) if why_not(state, seat, action) is None)


#: The candidate actions other than cards, built once (an ``Action`` is immutable).
_CALLS = tuple(Action(kind) for kind in CANONICAL if kind != "play")
_CALLS_WITHOUT_FLOR = tuple(action for action in _CALLS if action.type not in FLOR_CALLS)


def decide(state: State, seat: int, action: Action) -> tuple[ev.Event, ...]:
    """The events an action produces, its consequences included; ``IllegalAction`` if forbidden."""
    code = why_not(state, seat, action)
    if code is not None:
        raise IllegalAction(REASONS[code], code)
    assert state.hand is not None
    events = [_primary(state, state.hand, seat, action)]
    state = evolve(state, events[0])
    while (consequence := _aftermath(state, events[-1])) is not None:
        events.append(consequence)
        state = evolve(state, consequence)
    return tuple(events)


def _primary(state: State, hand: Hand, seat: int, action: Action) -> ev.Event:
    kind = action.type
    if kind == "play":
        assert action.card is not None
        return ev.CardPlayed(seat, action.card)
    if kind == "flor":
        return ev.FlorSung(seat)
    if kind in ("contraflor", "contraflor_al_resto"):
        return ev.FlorCalled(seat, kind)
    if hand.flor_pending:
        return _flor_answer(state, hand, seat, kind)
    if kind == "paso":
        return ev.EnvidoPassed(seat)
    if kind == "mazo":
        penalty = (
            state.rules.mazo_envido_penalty
            and _fold_ends_side(state, hand, seat)
            and envido_open_for(state.rules, hand, seat)
        )
        return ev.Folded(seat, int(penalty))
    if action.is_truco_call:
        return ev.TrucoCalled(seat, kind, TRUCO_LEVEL[kind])
    if action.is_envido_call:
        return ev.EnvidoCalled(seat, kind)
    if hand.envido_pending:
        return _envido_answer(state, hand, seat, accepted=kind == "quiero")
    assert hand.truco_call is not None
    if kind == "quiero":
        return ev.TrucoAccepted(seat, hand.truco_call)
    return ev.TrucoRefused(seat, hand.truco_call)


def _fold_ends_side(state: State, hand: Hand, seat: int) -> bool:
    """Whether ``seat``'s fold takes his whole side out of the hand (RULES.md §6).

    Only such a fold can cost the ``mazo_envido_penalty``: with ``partner_continues`` a partner
    still in the hand can yet call the envido, so the earlier folds of his side cost nothing.
    """
    if state.rules.mazo_team == "side_concedes" or hand.duel is not None:
        return True  # in a pica-pica duel every fold ends the duel (§9)
    partners = (s for s in range(state.players) if s != seat and side_of(s) == side_of(seat))
    return all(partner in hand.folded for partner in partners)


def _envido_answer(state: State, hand: Hand, seat: int, accepted: bool) -> ev.Event:
    if not accepted:
        assert hand.envido_caller is not None
        points = envido_refused_points(hand.envido_calls)
        return ev.EnvidoRefused(seat, side_of(hand.envido_caller), points)
    # §5.2: a player who has folded no longer counts for an envido settled after his fold; in a
    # pica-pica duel only the duelists count, and ties go to the duel's mano (§9).
    counted = [seat for seat in range(state.players) if hand.in_play(seat)]
    winner, value = envido_winner(hand.dealt, hand.current_mano, counted)
    points = envido_accepted_points(hand.envido_calls, state.rules, state.scores, winner)
    return ev.EnvidoAccepted(seat, winner, value, points)


def _flor_answer(state: State, hand: Hand, seat: int, kind: str) -> ev.FlorSettled:
    """§5.3.5: the contest's table; a refused bet pays the contest without its last call."""
    sung, calls = hand.flor_sung, hand.flor_calls
    resto = state.rules.target - max(state.scores)
    if kind == "con_flor_me_achico":
        first = side_of(sung[0])
        points = 3 * sum(1 for singer in sung if side_of(singer) == first)
        return ev.FlorSettled(seat, kind, first, None, points)
    if kind == "no_quiero":
        assert hand.flor_caller is not None
        points = flor_contest_points(calls[:-1], len(sung), resto)
        return ev.FlorSettled(seat, kind, side_of(hand.flor_caller), None, points)
    best, value = best_flor(hand.dealt, hand.current_mano, sung)
    points = flor_contest_points(calls, len(sung), resto)
    return ev.FlorSettled(seat, kind, side_of(best), value, points)


def _aftermath(state: State, last: ev.Event) -> ev.Event | None:
    """The next event that follows by itself from the last one, if any."""
    hand = state.hand
    assert hand is not None
    if isinstance(last, ev.CardPlayed | ev.Folded):
        return _after_card_or_fold(state, hand)
    if isinstance(last, ev.FlorSung) and not hand.flor_queue and not hand.flor_pending:
        # §5.3.4: only one side sang: 3 for each of its flores.
        return ev.FlorSettled(None, "unopposed", side_of(last.seat), None, 3 * len(hand.flor_sung))
    if isinstance(last, ev.BazaEnded):
        mano_side = side_of(hand.current_mano)
        winner = hand_winner(hand.results, mano_side, state.rules.first_parda)
        return None if winner is None else _hand_ended(state, hand, winner, "bazas")
    if isinstance(last, ev.TrucoRefused):
        return _hand_ended(state, hand, 1 - side_of(last.seat), "truco_refused", last.level - 1)
    if isinstance(last, ev.EnvidoAccepted | ev.EnvidoRefused):
        assert hand.envido_points is not None
        side, points = hand.envido_points
        # §5.2: if the envido points alone reach the target, the hand ends at once.
        if state.scores[side] + points >= state.rules.target:
            return _hand_ended(state, hand, None, "envido_target")
        return None
    if isinstance(last, ev.FlorSettled):
        # §5.3.6: so do the flor points.
        if state.scores[last.winner] + last.points >= state.rules.target:
            return _hand_ended(state, hand, None, "flor_target")
        return None
    if isinstance(last, ev.DuelEnded):
        return _after_duel(state, hand, last)
    if isinstance(last, ev.HandEnded):
        return _cama_ended(state)
    if isinstance(last, ev.CamaEnded) and state.camas[last.winner] >= state.rules.camas_to_win:
        return ev.MatchEnded(last.winner, "camas")
    return None


def _after_duel(state: State, hand: Hand, last: ev.DuelEnded) -> ev.Event:
    """RULES.md §9: the next duel, or the hand's end after duel 2 or once a side has the target."""
    if last.duel == 2 or max(state.scores) >= state.rules.target:
        return ev.HandEnded(hand.number, None, "duels", (), state.scores)
    mano = (hand.mano + last.duel + 1) % state.players
    return ev.DuelStarted(last.duel + 1, (mano, (mano + 3) % state.players))


def _after_card_or_fold(state: State, hand: Hand) -> ev.Event | None:
    if hand.duels is None:  # a redonda: every seat not folded
        active = [seat for seat in range(state.players) if seat not in hand.folded]
    else:
        active = [seat for seat in range(state.players) if hand.in_play(seat)]
    for side in (0, 1):
        if all(side_of(seat) != side for seat in active):
            return _hand_ended(state, hand, 1 - side, "mazo")  # a whole side has folded
    if hand.baza and len(hand.baza) == len(active):
        result, winner = baza_outcome(hand.baza)
        # §4.2: the baza winner leads; after a parda, whoever led the parda baza leads again.
        leader = hand.baza[0][0] if winner is None else winner
        return ev.BazaEnded(len(hand.results) + 1, result, winner, leader)
    return None


def _hand_ended(
    state: State, hand: Hand, winner: int | None, reason: str, truco_value: int | None = None
) -> ev.HandEnded | ev.DuelEnded:
    """§7: flor or envido points first, then truco points; capped at the target; later points
    ignored. A pica-pica duel is scored the same way when it ends (§9)."""
    assert reason in ev.HAND_END_REASONS, reason  # the API's enum of reasons is this table
    target = state.rules.target
    scores = list(state.scores)
    points: list[tuple[str, int, int]] = []

    def score(kind: str, side: int, amount: int) -> None:
        if amount > 0 and max(scores) < target:
            scores[side] = min(target, scores[side] + amount)
            points.append((kind, side, amount))

    if hand.flor_points is not None:
        score("flor", *hand.flor_points)
    if hand.envido_points is not None:  # never with a flor sung: it voids the envido (§5.3.3)
        score("envido", *hand.envido_points)
    if winner is not None:
        if truco_value is None:
            truco_value = truco_points(hand.truco_level, state.rules, scores[winner])
        score("truco", winner, truco_value)
    for side in (0, 1):
        score("mazo_penalty", side, hand.penalty[side])
    if hand.duel is not None:
        return ev.DuelEnded(hand.duel, winner, reason, tuple(points), (scores[0], scores[1]))
    return ev.HandEnded(hand.number, winner, reason, tuple(points), (scores[0], scores[1]))


def _cama_ended(state: State) -> ev.CamaEnded | None:
    for side in (0, 1):
        if state.scores[side] >= state.rules.target:
            camas = list(state.camas)
            camas[side] += 1
            return ev.CamaEnded(side, (camas[0], camas[1]))
    return None

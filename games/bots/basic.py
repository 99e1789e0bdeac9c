"""The ``basic`` bot: fixed rules of thumb over its own view, deterministic given the view.

It reads only ``view`` (``engine.view_for(state, seat)``): its own cards, the cards played face up,
the scores and the calls. Decisions, in this order:

1. **Envido** (RULES.md §5.2), by its own envido value against per-deck thresholds
   (``ENVIDO_THRESHOLDS``: about the top quarter of hands calls; the 22-card deck has higher
   values, so its thresholds are higher). It opens the envido with a good value (real envido when
   better, falta only when very strong), passes otherwise; answers a call by raising when very
   good, accepting when good (a higher bar against a real envido or a falta; one point lower
   when its side wins ties), refusing otherwise; an envido may answer a truco call ("el envido está
   primero"). It never refuses when the refusal alone would give the other side the cama.
2. **Truco** (§5.1), by ``hand_chance``: an estimate of the chance its side wins the hand, from
   the bazas already decided, the cards on the table and its own cards' strength against the
   unseen cards (``engine.cards.TRUCO_RANK``). It calls or raises when the chance is high
   (``CALL``/``RAISE``), accepts a call when it is fair (``ACCEPT``), refuses otherwise, but never
   refuses when the refusal alone loses the cama.
   **Flor** (§5.3): singing is compulsory, so a flor is sung as soon as it is the only legal
   action; in the contest it raises, accepts or concedes by its own flor value
   (``FLOR_THRESHOLDS``), never conceding when the concession alone loses the cama.
3. **Mazo** (§6) only when hopeless (``FOLD``), with no truco accepted and its envido window shut.
4. **Card**: when the opponents have a card on the table, the lowest card that beats it (none if
   its partner already wins the baza), else a card that ties (a parda), else its lowest card.
   Leading: its highest card when winning this baza wins the hand (its side won a baza, or the
   first was parda), else in baza 1 its middle card.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from typing import Any

from games.engine import DECKS, PARDA, Action
from games.engine.cards import TRUCO_RANK
from games.engine.scoring import envido_refused_points, hand_winner

#: Envido thresholds by deck: ``call`` opens, ``accept`` answers quiero, ``raise`` raises one
#: step, ``falta`` calls or raises to the falta. spanish40: 27 and up is about the top 25 % of
#: hands; valencian22 (no figures) has higher values: 29 and up is about the top 38 %.
ENVIDO_THRESHOLDS: dict[str, dict[str, int]] = {
    "spanish40": {"call": 27, "accept": 27, "raise": 30, "falta": 32},
    "valencian22": {"call": 29, "accept": 29, "raise": 31, "falta": 33},
}

#: Flor contest thresholds on its own flor value (20-38): ``al_resto`` raises to contraflor al
#: resto, ``contra`` to contraflor, ``accept`` answers quiero; below, it concedes.
FLOR_THRESHOLDS = {"al_resto": 35, "contra": 32, "accept": 28}

#: Truco thresholds on ``hand_chance``: call or raise, raise while answering, accept, fold.
CALL = 0.70
RAISE = 0.80
ACCEPT = 0.45
FOLD = 0.03

ENVIDO_LADDER = ("envido", "real_envido", "falta_envido")
TRUCO_LADDER = ("truco", "retruco", "vale_cuatro", "joc_fora")


def choose(view: dict[str, Any]) -> Action:
    """The basic bot's action in ``view``; one of ``view["legal_actions"]``."""
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has no legal action in this view")
    if len(legal) == 1:
        return Action.from_json(legal[0])
    # The view lists canonical names: each kind but "play" is one action with no argument.
    kinds = {data["type"]: Action(data["type"]) for data in legal if data["type"] != "play"}
    hand = view["hand"]
    pending = hand["pending_call"]
    if pending is not None and pending["ladder"] == "flor":
        return _answer_flor(view, kinds)
    if pending is not None and pending["ladder"] == "envido":
        return _answer_envido(view, kinds)
    opening = _open_envido(view, kinds)
    if opening is not None:
        return opening
    if pending is not None:
        return _answer_truco(view, kinds)
    if "paso" in kinds:
        return kinds["paso"]
    if not kinds:
        return Action("play", card=choose_card(view))
    chance = hand_chance(view)
    for call in TRUCO_LADDER:
        if call in kinds and chance >= (CALL if call == "truco" else RAISE):
            return kinds[call]
    if (
        "mazo" in kinds
        and chance < FOLD
        and hand["truco"]["level"] == 1
        and not any(name in kinds for name in ENVIDO_LADDER)
    ):
        return kinds["mazo"]
    return Action("play", card=choose_card(view))


# -- envido -------------------------------------------------------------------------------------


def _thresholds(view: dict[str, Any]) -> dict[str, int]:
    return ENVIDO_THRESHOLDS[view["rules"]["deck"]]


def _open_envido(view: dict[str, Any], kinds: dict[str, Action]) -> Action | None:
    """The first envido call of the hand, when it is open and the value is good enough."""
    value = view["hand"]["my_envido"]
    bar = _thresholds(view)
    if "falta_envido" in kinds and value >= bar["falta"]:
        return kinds["falta_envido"]
    if "real_envido" in kinds and value >= bar["raise"]:
        return kinds["real_envido"]
    for call in ENVIDO_LADDER:
        if call in kinds and value >= bar["call"]:
            return kinds[call]
    return None


def _answer_envido(view: dict[str, Any], kinds: dict[str, Action]) -> Action:
    hand = view["hand"]
    value = hand["my_envido"]
    bar = _thresholds(view)
    calls: list[str] = hand["envido"]["calls"]
    tie_bonus = 1 if wins_envido_ties(view) else 0
    if "falta_envido" in kinds and value + tie_bonus > bar["falta"]:
        return kinds["falta_envido"]
    for call in ("envido", "real_envido"):
        if call in kinds and value + tie_bonus >= bar["raise"] + len(calls):
            return kinds[call]
    needed = bar["accept"]
    if calls[-1] == "real_envido":
        needed += 1
    elif calls[-1] == "falta_envido":
        needed = bar["raise"]
    other = 1 - view["side"]
    refusal_loses = view["scores"][other] + envido_refused_points(calls) >= view["rules"]["target"]
    if value + tie_bonus >= needed or refusal_loses:
        return kinds["quiero"]
    return kinds["no_quiero"]


def _answer_flor(view: dict[str, Any], kinds: dict[str, Action]) -> Action:
    """The flor contest (RULES.md §5.3.5), by this seat's own flor value."""
    value = view["hand"]["my_flor"] or 0
    for call, bar in (("contraflor_al_resto", "al_resto"), ("contraflor", "contra")):
        if call in kinds and value >= FLOR_THRESHOLDS[bar]:
            return kinds[call]
    refusal = kinds.get("con_flor_me_achico") or kinds["no_quiero"]
    # A refusal pays at least 3 to the other side: never when that alone ends the cama.
    refusal_loses = view["scores"][1 - view["side"]] + 3 >= view["rules"]["target"]
    if value >= FLOR_THRESHOLDS["accept"] or refusal_loses:
        return kinds["quiero"]
    return refusal


def in_play(hand: dict[str, Any], seat: int) -> bool:
    """Not folded, and in a pica-pica hand one of the duel's two players (RULES.md §9)."""
    duelists = hand["duelists"]
    return seat not in hand["folded"] and (duelists is None or seat in duelists)


def current_mano(hand: dict[str, Any]) -> int:
    """The hand's mano, or the duel's in a pica-pica hand (RULES.md §9)."""
    duelists = hand["duelists"]
    return int(hand["mano"] if duelists is None else duelists[0])


def wins_envido_ties(view: dict[str, Any]) -> bool:
    """RULES.md §3: ties go to the seat nearest the mano; in 2-player games, the mano."""
    hand = view["hand"]
    players = view["rules"]["players"]
    nearest = min(
        (seat for seat in range(players) if in_play(hand, seat)),
        key=lambda seat: (seat - current_mano(hand)) % players,
    )
    return bool(nearest % 2 == view["side"])


# -- truco --------------------------------------------------------------------------------------


def _answer_truco(view: dict[str, Any], kinds: dict[str, Action]) -> Action:
    chance = hand_chance(view)
    for call in TRUCO_LADDER:
        if call in kinds and chance >= RAISE:
            return kinds[call]
    level = view["hand"]["truco"]["level"]  # what the caller scores on a refusal
    refusal_loses = view["scores"][1 - view["side"]] + level >= view["rules"]["target"]
    if chance >= ACCEPT or refusal_loses:
        return kinds["quiero"]
    return kinds["no_quiero"]


def unseen_ranks(view: dict[str, Any]) -> list[int]:
    """The truco ranks of the cards this seat has not seen, sorted."""
    hand = view["hand"]
    seen = set(hand["my_cards"]) | {play["card"] for play in played(hand)}
    return sorted(TRUCO_RANK[card] for card in DECKS[view["rules"]["deck"]] if card not in seen)


def played(hand: dict[str, Any]) -> list[dict[str, Any]]:
    """Every card played face up in this hand: earlier duels' (pica-pica), the completed bazas',
    then the current one's."""
    earlier = [play for plays in hand["earlier_duels"] for play in plays]
    return earlier + [play for plays in hand["bazas"] for play in plays] + list(hand["baza"])


def beat_chance(rank: int, unseen: Sequence[int]) -> float:
    """The chance a card of ``rank`` beats one unseen card (a tie counts half)."""
    if not unseen:
        return 0.5
    below = bisect_left(unseen, rank)
    equal = bisect_right(unseen, rank) - below
    return (below + 0.5 * equal) / len(unseen)


def hand_chance(view: dict[str, Any]) -> float:
    """An estimate of the chance this seat's side wins the hand's bazas (RULES.md §4).

    The baza in progress: certain when the opponents have all played, else the side's best card
    against each opponent still to play. Each later baza: one of this seat's remaining cards
    (best first) against one unseen card. Bazas are taken as independent, and the outcomes are
    run through the engine's ``hand_winner``.
    """
    hand = view["hand"]
    side, players = view["side"], view["rules"]["players"]
    unseen = unseen_ranks(view)
    mine = sorted((TRUCO_RANK[card] for card in hand["my_cards"]), reverse=True)
    plays = hand["baza"]
    ours = max((TRUCO_RANK[p["card"]] for p in plays if p["seat"] % 2 == side), default=0)
    theirs = max((TRUCO_RANK[p["card"]] for p in plays if p["seat"] % 2 != side), default=0)
    in_baza = {p["seat"] for p in plays}
    to_play = sum(
        1
        for seat in range(players)
        if seat % 2 != side and in_play(hand, seat) and seat not in in_baza
    )
    current: list[tuple[float, float]]  # (win, parda) of the baza in progress
    if view["seat"] not in in_baza and mine:
        if to_play == 0:
            if ours > theirs:
                current = [(1.0, 0.0)]
                mine.pop()  # the lowest card goes
            elif any(rank > theirs for rank in mine):
                current = [(1.0, 0.0)]
                mine.remove(min(rank for rank in mine if rank > theirs))
            elif theirs in mine or ours == theirs:
                current = [(0.0, 1.0)]
                mine.remove(theirs if theirs in mine else mine[-1])
            else:
                current = [(0.0, 0.0)]
                mine.pop()
        else:
            best = max(mine[0], ours)
            mine.pop(0 if mine[0] > ours else -1)
            current = [(beat_chance(best, unseen) ** to_play, 0.0)]
    elif ours > theirs:
        current = [(beat_chance(ours, unseen) ** to_play, 0.0)]
    elif ours == theirs and ours:
        current = [(0.0, 1.0)]
    else:
        current = [(0.0, 0.0)]
    later = [(beat_chance(rank, unseen), 0.0) for rank in mine]
    remaining = 3 - len(hand["baza_results"])
    chances = (current + later + [(0.0, 0.0)] * 3)[:remaining]
    return _win_chance(view, chances)


def _win_chance(view: dict[str, Any], chances: Sequence[tuple[float, float]]) -> float:
    side = view["side"]
    mano_side = current_mano(view["hand"]) % 2
    first_parda = view["rules"]["first_parda"]

    def chance(results: list[int | str], rest: Sequence[tuple[float, float]]) -> float:
        winner = hand_winner(results, mano_side, first_parda)
        if winner is not None:
            return 1.0 if winner == side else 0.0
        if not rest:
            return 0.5
        win, parda = rest[0]
        total = 0.0
        for p, result in ((win, side), (parda, PARDA), (1.0 - win - parda, 1 - side)):
            if p > 0.0:
                total += p * chance([*results, result], rest[1:])
        return total

    return chance(list(view["hand"]["baza_results"]), chances)


# -- cards --------------------------------------------------------------------------------------


def choose_card(view: dict[str, Any]) -> str:
    """The card to play (see the module's docstring)."""
    hand = view["hand"]
    side = view["side"]
    cards: list[str] = sorted(hand["my_cards"], key=lambda card: (TRUCO_RANK[card], card))
    plays = hand["baza"]
    if plays:
        ours = max((TRUCO_RANK[p["card"]] for p in plays if p["seat"] % 2 == side), default=0)
        theirs = max((TRUCO_RANK[p["card"]] for p in plays if p["seat"] % 2 != side), default=0)
        if ours > theirs:
            return cards[0]
        for card in cards:
            if TRUCO_RANK[card] > theirs:
                return card
        for card in cards:
            if TRUCO_RANK[card] == theirs:
                return card
        return cards[0]
    results = hand["baza_results"]
    if side in results or PARDA in results:
        return cards[-1]
    return cards[len(cards) // 2]

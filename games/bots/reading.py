"""Reading a truco call: the chance to win the hand against what the caller's public actions say.

A player who calls or raises the truco says something about his cards, and an answer that ignores
it accepts against the hands people call with as if they were any hands. ``call_chance`` is a
Bayesian estimate of that chance, as card-game programs that sample the hidden hands do
(Ginsberg, "GIB: Imperfect Information in a Computationally Challenging Game", JAIR 2001, for the
sampling of hands consistent with what was seen; Southey et al., "Bayes' Bluff: Opponent Modelling
in Poker", UAI 2005, for weighing each hand by the likelihood of the actions seen):

- the caller's unplayed cards are drawn from the cards this seat has not seen, and kept only if
  they fit what the table has announced: the envido value the referee announced for his side
  (RULES.md §5.2: the winner's value is public; a loser's is below the winner's), and the flor he
  sang or did not sing (§5.3.1: singing is compulsory with a player's first action);
- each drawn deal is weighed by the likelihood that the caller makes the call with it. The
  share of the match's hands in which his side called on that ladder (``call_share``, from a
  prior of a third over a few hands) is what is fit to this opponent, and to no one else; at a
  team table a side calls when any of its members does, so the caller's own share ``f`` is
  the one that gives the side's (``caller_share``). A **truco** caller is read as a value caller
  who also bluffs: he calls with the top ``f'`` of the hands he could hold, and with any other in
  a share ``BLUFF`` of them, ``f' = (f - BLUFF) / (1 - BLUFF)`` so that he calls in ``f`` of his
  hands (the method of moments); a hand's place is that of his own chance to win it
  (``basic.hand_chance`` from his seat, as he can read it from his cards and the table) among
  the drawn deals' (``truco_weights``). A player who calls in most hands is read as calling
  with almost anything, one who seldom calls as calling with his best. The shape is the common
  one of a value caller who bluffs (our ``basic`` and styles are of that shape too), but no bot's
  thresholds are in it: only the share is fit, to each opponent from his own calls (an envido
  call is read the same way by ``envido_reading``, which also fits the bluffs);
- each hand is played out to the end with one card rule for every seat (``pick``), written for
  the playouts from RULES.md §4 and assuming nothing of any player but that he spends no more
  than a baza needs: following, nothing when his side holds the top already, else the lowest
  card that takes it, else one that ties it when a parda does not lose the hand, else the
  lowest; leading, the highest when the baza decides the hand, else in baza 1 the middle card;
  the bazas are decided by the engine's ``hand_winner`` (§4.3). ``strong`` chooses its own
  cards over the same deals (``card_play``).

At a team table every other seat's unplayed cards are drawn (the partner's too: partners may not
show each other their cards, RULES.md §8), the likelihood is the caller's, and the playout goes
round the table. A pica-pica hand (§9) and a hand with a seat at the mazo are not read
(``readable``).
"""

from __future__ import annotations

import random
from bisect import bisect_left, bisect_right
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any

from games.engine import DECKS, PARDA
from games.engine.cards import TRUCO_RANK, envido_of, flor_of
from games.engine.scoring import hand_winner

from . import basic

#: ``call_share``'s prior: a third of the hands with a call, worth this many hands seen; and its
#: bounds, so that a few hands seen never read a call as certain strength or as noise.
PRIOR_SHARE = 1 / 3
PRIOR_HANDS = 4
SHARE_BOUNDS = (0.2, 0.77)
#: The share of his other hands with which a truco caller is read to call anyway (a bluff): a
#: floor, so that no hand is ruled out by a call.
BLUFF = 0.1
#: Hands drawn per reading, and the draws allowed to find them (an announced envido of 33 leaves
#: few hands): enough for a chance within a few hundredths, well inside a decision's time.
SAMPLES = 48
DRAWS = 400


def readable(view: Mapping[str, Any]) -> bool:
    """Whether ``call_chance`` reads this view: a truco call pending, every seat in the hand (an
    envido call is read by ``envido_reading``)."""
    hand = view["hand"]
    pending = hand["pending_call"]
    return bool(
        pending is not None
        and pending["ladder"] == "truco"
        and hand["duelists"] is None
        and not hand["folded"]
    )


def call_share(history: Sequence[Mapping[str, Any]], caller_side: int, ladder: str) -> float:
    """The share of the match's finished hands in which the caller's side called or raised on
    ``ladder``, from the prior (module docstring)."""
    hands = called = 0
    calls_now = False
    for event in history:
        kind = event["type"]
        if kind == f"{ladder}_called" and event["seat"] % 2 == caller_side:
            calls_now = True
        elif kind == "hand_ended":
            hands += 1
            called += calls_now
            calls_now = False
    return (called + PRIOR_SHARE * PRIOR_HANDS) / (hands + PRIOR_HANDS)


def caller_share(side_share: float, players: int, low: float = SHARE_BOUNDS[0]) -> float:
    """The share of his hands in which one player of a side calls, when the side calls in
    ``side_share`` of them: at a team table a side calls when any of its ``players / 2``
    members does, so one member calls in ``1 - (1 - side_share) ** (2 / players)`` (each alike);
    bounded (``SHARE_BOUNDS``, or ``low`` below)."""
    share = 1.0 - float((1.0 - side_share) ** (2 / players))
    return min(SHARE_BOUNDS[1], max(low, share))


def call_chance(
    view: Mapping[str, Any], history: Sequence[Mapping[str, Any]], rng: random.Random
) -> float | None:
    """The chance this seat's side wins the hand if it accepts the pending truco call, against the
    hidden hands weighed by the caller's likelihood (module docstring); None when no drawn deal
    fits."""
    caller = view["hand"]["pending_call"]["caller"]
    fits = announced(view, caller)
    share = caller_share(call_share(history, caller % 2, "truco"), view["rules"]["players"])
    strengths: list[float] = []  # per deal kept, the caller's reading of it
    wins: list[float] = []
    for held, _ in deals(view, rng, fits):
        strengths.append(caller_chance(view, caller, held[caller]))
        wins.append(playout(view, held))
    if not wins:
        return None
    weights = truco_weights(strengths, share)
    return sum(w * win for w, win in zip(weights, wins, strict=True)) / sum(weights)


def deals(
    view: Mapping[str, Any],
    rng: random.Random,
    fits: Callable[[Sequence[Sequence[str]]], bool],
    samples: int = SAMPLES,
) -> Iterator[tuple[dict[int, list[str]], list[list[str]]]]:
    """Up to ``samples`` deals of the cards this seat has not seen that ``fits`` (``announced``)
    keeps, in ``DRAWS`` tries (or 8 a deal asked for, if more): per deal, every seat's unplayed
    cards (this seat's own) and every seat's dealt cards."""
    hand = view["hand"]
    seat, players = view["seat"], view["rules"]["players"]
    others = [other for other in range(players) if other != seat]
    shown: dict[int, list[str]] = {other: [] for other in range(players)}
    for play in basic.played(hand):
        shown[play["seat"]].append(play["card"])
    seen = set(hand["my_cards"]) | {card for cards in shown.values() for card in cards}
    unseen = [card for card in DECKS[view["rules"]["deck"]] if card not in seen]
    counts = [hand["cards_left"][other] for other in others]
    kept = 0
    for _ in range(max(DRAWS, 8 * samples)):  # about 8 tries a deal, as 400 for 48
        drawn = iter(rng.sample(unseen, sum(counts)))
        held = {
            other: [next(drawn) for _ in range(count)]
            for other, count in zip(others, counts, strict=True)
        }
        held[seat] = list(hand["my_cards"])
        dealt = [shown[other] + held[other] for other in range(players)]
        if fits(dealt):
            yield held, dealt
            kept += 1
            if kept == samples:
                return


def truco_weights(strengths: Sequence[float], share: float) -> list[float]:
    """The likelihood of a truco call with each drawn hand (module docstring): 1 for the top
    ``f'`` of them by the caller's chance (ties share a place), ``BLUFF`` for the others."""
    top = max(0.0, (share - BLUFF) / (1.0 - BLUFF))
    ordered = sorted(strengths)
    weights = []
    for strength in strengths:
        place = (bisect_left(ordered, strength) + bisect_right(ordered, strength)) / 2
        weights.append(1.0 if place / len(ordered) >= 1.0 - top else BLUFF)
    return weights


def announced(view: Mapping[str, Any], caller: int | None) -> Any:
    """A test of a deal (every seat's dealt cards) against what the table announced of it: the
    envido's winning value (the winning side's best, the other side's at most that, §5.2), and
    the flores (§5.3.1: singing is compulsory with a player's first action, so the caller, who
    has acted, and any seat that has played holds a flor if and only if he sang one)."""
    hand = view["hand"]
    envido = hand["envido"]
    winner, value = envido["winner"], envido["value"]
    sung = set(hand["flor"]["sung"])
    acted: set[int] = {play["seat"] for play in basic.played(hand)}
    if caller is not None:
        acted.add(caller)
    flor_checked = sorted(acted) if view["rules"]["flor"] else []

    def fits(dealt: Sequence[Sequence[str]]) -> bool:
        if any((flor_of(dealt[seat]) is not None) != (seat in sung) for seat in flor_checked):
            return False
        if value is None or winner is None:
            return True
        best = [0, 0]
        for seat, cards in enumerate(dealt):
            best[seat % 2] = max(best[seat % 2], envido_of(cards))
        return bool(best[winner] == value and best[1 - winner] <= value)

    return fits


def caller_chance(view: Mapping[str, Any], caller: int, cards: list[str]) -> float:
    """The caller's chance to win the hand as he reads it, holding ``cards``."""
    hand = dict(view["hand"], my_cards=cards)
    seen_by_caller = dict(view, seat=caller, side=caller % 2, hand=hand)
    return basic.hand_chance(seen_by_caller)


@cache
def envido_share(deck: str) -> dict[int, float]:
    """Per envido value, the share of the deck's 3-card hands whose envido is at most it (a tie
    counts half)."""
    counts = Counter(envido_of(cards) for cards in combinations(DECKS[deck], 3))
    total = sum(counts.values())
    share, below = {}, 0
    for value in range(39):
        share[value] = (below + counts[value] / 2) / total
        below += counts[value]
    return share


def playout(
    view: Mapping[str, Any], held: Mapping[int, list[str]], first: int | None = None
) -> float:
    """1.0 if this seat's side wins the hand when every seat plays ``pick``'s card rule from the
    unplayed cards ``held`` (by seat), else 0.0; ``first``, when given, is the rank this seat,
    whose turn it is, plays now."""
    hand = view["hand"]
    players = view["rules"]["players"]
    mano_side = hand["mano"] % 2
    first_parda = view["rules"]["first_parda"]
    cards = {seat: sorted(TRUCO_RANK[card] for card in held[seat]) for seat in range(players)}
    results: list[int | str] = list(hand["baza_results"])
    table = [(p["seat"], TRUCO_RANK[p["card"]]) for p in hand["baza"]]
    if first is not None:
        cards[view["seat"]].remove(first)
        table.append((view["seat"], first))
    leader = leader_of(hand, players)
    while (winner := hand_winner(results, mano_side, first_parda)) is None:
        for step in range(len(table), players):
            seat = (leader + step) % players
            table.append(
                (seat, pick(cards[seat], table, results, seat % 2, view["rules"], mano_side))
            )
        result, leader = outcome(table)
        results.append(result)
        table = []
    return float(winner == view["side"])


def outcome(table: Sequence[tuple[int, int]]) -> tuple[int | str, int]:
    """A whole baza's result and the next leader (RULES.md §4.1-4.2): the top rank wins, both
    sides holding it is a parda, after which the parda's leader leads again."""
    top = max(rank for _, rank in table)
    sides = {seat % 2 for seat, rank in table if rank == top}
    if len(sides) == 2:
        return PARDA, table[0][0]
    first = next(seat for seat, rank in table if rank == top)
    return first % 2, first


def leader_of(hand: Mapping[str, Any], players: int) -> int:
    """The seat that leads the baza in progress (RULES.md §4.2)."""
    if hand["baza"]:
        return int(hand["baza"][0]["seat"])
    if not hand["bazas"]:
        return int(hand["mano"])
    last = [(p["seat"], TRUCO_RANK[p["card"]]) for p in hand["bazas"][-1]]
    return outcome(last)[1]


def pick(
    own: list[int],
    table: Sequence[tuple[int, int]],
    results: Sequence[int | str],
    side: int,
    rules: Mapping[str, Any],
    mano_side: int,
) -> int:
    """The playouts' card rule, the same for every seat (module docstring), over ranks (``own``
    sorted, low first): the rank played, removed from ``own``.

    It spends no more than the baza needs (RULES.md §4.1, the top rank wins it): following, no
    card when the side already holds the top, else the lowest that takes the top, else one that
    ties it when a parda does not lose the hand (§4.3), else the lowest; leading, the highest
    when the baza decides the hand for whoever wins it (a baza won or a parda before), else the
    middle one of three (the highest is kept for the bazas that decide, the lowest would give
    this one away), else the lowest."""
    if table:
        ours = max((rank for seat, rank in table if seat % 2 == side), default=0)
        theirs = max((rank for seat, rank in table if seat % 2 != side), default=0)
        index = 0
        if ours <= theirs:
            beating = [i for i, rank in enumerate(own) if rank > theirs]
            tying = [i for i, rank in enumerate(own) if rank == theirs]
            parda = hand_winner([*results, PARDA], mano_side, rules["first_parda"])
            if beating:
                index = beating[0]
            elif tying and ours < theirs and parda != 1 - side:
                index = tying[0]
    elif results:
        index = len(own) - 1
    else:
        index = len(own) // 2 if len(own) == 3 else 0
    return own.pop(index)


def rule_card(view: Mapping[str, Any]) -> str:
    """The card ``pick``'s rule plays in this view (the lowest-named card of its rank)."""
    hand = view["hand"]
    own = sorted(TRUCO_RANK[card] for card in hand["my_cards"])
    table = [(p["seat"], TRUCO_RANK[p["card"]]) for p in hand["baza"]]
    rank = pick(own, table, hand["baza_results"], view["side"], view["rules"], hand["mano"] % 2)
    return str(min(card for card in hand["my_cards"] if TRUCO_RANK[card] == rank))

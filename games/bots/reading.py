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
- each drawn hand is weighed by ``likelihood``: a player calls with probability ``h ** k``, ``h``
  his own chance to win the hand as he can read it from his cards and the table
  (``basic.hand_chance`` from his seat) — stronger hands call more often, weak ones sometimes.
  The one parameter is fit to this opponent alone, from the match so far (``call_power``): with
  ``h`` spread evenly a player calls in ``1 / (k + 1)`` of his hands, so one seen calling in a
  share ``f`` of them gets ``k = 1 / f - 1`` (the method of moments), ``f`` starting from a prior
  of a third over a few hands. A player who calls in most hands is read as calling with almost
  anything, one who seldom calls as calling with his best. No parameter is fit to any bot;
- each hand is played out to the end with the card rule both sides are assumed to use
  (``basic.choose_card``'s: the lowest card that wins, else a parda, else the lowest; lead the
  highest when that baza wins the hand, else in baza 1 the middle card), and the bazas decided
  by the engine's ``hand_winner`` (§4.3).

Only the 2-player hand is read (``readable``): in a team game the caller's partner and this seat's
own partner hold unseen cards too, and the playout would have to guess three hands.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from functools import cache
from itertools import combinations
from typing import Any

from games.engine import DECKS, PARDA
from games.engine.cards import TRUCO_RANK, envido_of, flor_of
from games.engine.scoring import hand_winner

from . import basic

#: ``call_power``'s prior: a third of the hands with a truco call (a power of 2: a hand with
#: chance 0.9 calls 9 times as often as one with 0.3), worth this many hands seen; and the
#: bounds of the power, so that a few hands seen never read a call as certain strength or as noise.
PRIOR_SHARE = 1 / 3
PRIOR_HANDS = 4
POWER_BOUNDS = (0.3, 4.0)
#: Hands drawn per reading, and the draws allowed to find them (an announced envido of 33 leaves
#: few hands): enough for a chance within a few hundredths, well inside a decision's time.
SAMPLES = 48
DRAWS = 400


def readable(view: Mapping[str, Any]) -> bool:
    """Whether ``call_chance`` reads this view: a 2-player hand, a truco or envido call pending
    (not the falta: ``strong.big_bet_rule`` answers it)."""
    hand = view["hand"]
    pending = hand["pending_call"]
    return bool(
        view["rules"]["players"] == 2
        and hand["duelists"] is None
        and pending is not None
        and pending["ladder"] in ("truco", "envido")
        and "falta_envido" not in hand["envido"]["calls"]
    )


def call_power(history: Sequence[Mapping[str, Any]], caller_side: int, ladder: str) -> float:
    """The power ``k`` of the caller's likelihood, from the share of the match's finished hands in
    which his side called or raised on ``ladder`` (module docstring)."""
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
    share = (called + PRIOR_SHARE * PRIOR_HANDS) / (hands + PRIOR_HANDS)
    low, high = POWER_BOUNDS
    return min(high, max(low, 1.0 / share - 1.0))


def call_chance(
    view: Mapping[str, Any], history: Sequence[Mapping[str, Any]], rng: random.Random
) -> float | None:
    """The chance this seat wins what the pending call puts at stake (the hand, or the envido) if
    it accepts, against the caller's hands weighed by their likelihood (module docstring); None
    when no drawn hand fits."""
    hand = view["hand"]
    caller = hand["pending_call"]["caller"]
    ladder = hand["pending_call"]["ladder"]
    shown = [p["card"] for p in basic.played(hand) if p["seat"] == caller]
    seen = set(hand["my_cards"]) | {p["card"] for p in basic.played(hand)}
    unseen = [card for card in DECKS[view["rules"]["deck"]] if card not in seen]
    held = hand["cards_left"][caller]
    fits = announced(view, caller)
    power = call_power(history, caller % 2, ladder)
    weigh, wins = (likelihood, playout) if ladder == "truco" else (envido_likelihood, envido_won)
    total = won = 0.0
    found = 0
    for _ in range(DRAWS):
        cards = rng.sample(unseen, held)
        dealt = [*shown, *cards]
        if not fits(dealt):
            continue
        weight = weigh(view, caller, dealt if ladder == "envido" else cards, power)
        total += weight
        won += weight * wins(view, dealt if ladder == "envido" else cards)
        found += 1
        if found == SAMPLES:
            break
    return won / total if total > 0.0 else None


def announced(view: Mapping[str, Any], caller: int) -> Any:
    """A test of the caller's dealt cards against what the table announced of them."""
    hand = view["hand"]
    envido = hand["envido"]
    winner, value = envido["winner"], envido["value"]
    flor_on = view["rules"]["flor"]
    sang = caller in hand["flor"]["sung"]

    def fits(dealt: Sequence[str]) -> bool:
        if flor_on and (flor_of(dealt) is not None) != sang:
            return False  # §5.3.1: he has acted, so a flor he held is sung
        if value is None or winner is None:
            return True
        mine = envido_of(dealt)
        return mine == value if winner == caller % 2 else mine <= value

    return fits


def likelihood(view: Mapping[str, Any], caller: int, cards: list[str], power: float) -> float:
    """How likely a player holding ``cards`` is to have made the call (module docstring)."""
    hand = dict(view["hand"], my_cards=cards)
    seen_by_caller = dict(view, seat=caller, side=caller % 2, hand=hand)
    return float(basic.hand_chance(seen_by_caller) ** power)


def envido_likelihood(
    view: Mapping[str, Any], caller: int, dealt: list[str], power: float
) -> float:
    """How likely a player dealt ``dealt`` is to have called the envido: his envido's share of the
    deck's hands it beats, to ``power`` (module docstring)."""
    return float(envido_share(view["rules"]["deck"])[envido_of(dealt)] ** power)


def envido_won(view: Mapping[str, Any], dealt: list[str]) -> float:
    """1.0 if this seat's envido beats ``dealt``'s (ties to the mano, RULES.md §3), else 0.0."""
    mine, theirs = view["hand"]["my_envido"], envido_of(dealt)
    return float(mine > theirs or (mine == theirs and basic.wins_envido_ties(dict(view))))


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


def playout(view: Mapping[str, Any], theirs: list[str]) -> float:
    """1.0 if this seat wins the hand when both sides play ``basic``'s card rule, else 0.0."""
    hand = view["hand"]
    side = view["side"]
    mano_side = hand["mano"] % 2
    first_parda = view["rules"]["first_parda"]
    cards = {side: sorted(TRUCO_RANK[c] for c in hand["my_cards"])}
    cards[1 - side] = sorted(TRUCO_RANK[c] for c in theirs)
    results: list[int | str] = list(hand["baza_results"])
    table = {p["seat"] % 2: TRUCO_RANK[p["card"]] for p in hand["baza"]}
    leader = leader_of(hand)
    while (winner := hand_winner(results, mano_side, first_parda)) is None:
        for who in (leader, 1 - leader):
            if who not in table:
                table[who] = pick(cards[who], table.get(1 - who), results, who)
        ours, other = table[side], table[1 - side]
        result: int | str = PARDA if ours == other else side if ours > other else 1 - side
        results.append(result)
        leader = leader if result == PARDA else int(result)  # §4.2
        table = {}
    return float(winner == side)


def leader_of(hand: Mapping[str, Any]) -> int:
    """The side that leads the baza in progress (RULES.md §4.2)."""
    if hand["baza"]:
        return int(hand["baza"][0]["seat"] % 2)
    if not hand["bazas"]:
        return int(hand["mano"] % 2)
    last = hand["baza_results"][-1]
    return int(hand["bazas"][-1][0]["seat"] % 2 if last == PARDA else last)


def pick(own: list[int], other: int | None, results: Sequence[int | str], who: int) -> int:
    """``basic.choose_card``'s rule over ranks (sorted, low first): the rank played, removed."""
    if other is not None:
        index = next((i for i, rank in enumerate(own) if rank > other), None)
        if index is None:
            index = next((i for i, rank in enumerate(own) if rank == other), 0)
    elif who in results or PARDA in results:
        index = len(own) - 1
    else:
        index = len(own) // 2
    return own.pop(index)

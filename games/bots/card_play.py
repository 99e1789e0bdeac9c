"""``strong``'s card play: the card whose playouts over the drawn deals win the hand most often.

A fixed card rule plays a hand the same way whatever the others may hold. Card programs that
sample the hidden hands choose instead the card that does best over deals consistent with what
they have seen (Ginsberg, "GIB: Imperfect Information in a Computationally Challenging Game",
JAIR 2001: perfect-information Monte Carlo, "PIMC"; Long, Sturtevant, Buro and Furtak,
"Understanding the Success of Perfect Information Monte Carlo Sampling in Game Tree Search",
AAAI 2010, on why it plays trick-taking games well): here ``reading.deals`` draws the other
seats' unplayed cards to fit what the table announced (the envido's winning value, the flores),
and each card this seat could play (one per truco rank: cards of one rank play alike, RULES.md
§4.1) is played out on every deal, the same deals for each, with ``reading.pick``'s rule for
every later card of every seat. The card with the most hands won is played; a tie goes to the
rule's own card, else to the lowest rank (the cheaper card keeps the higher for later).

The playouts assume nothing of the other seats but that rule (no bot of ours is the model), and
every seat's unplayed cards are drawn, the partner's too (partners may not show each other their
cards, RULES.md §8). A pica-pica duel (§9) or a hand with a seat at the mazo is played by the rule.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from games.engine.cards import TRUCO_RANK

from . import reading

#: Deals drawn per card decision: the cards compared are played out on the same deals, so fewer
#: deals than a reading's tell them apart, and a card decision is the most frequent one.
SAMPLES = 24


def choose_card(view: Mapping[str, Any], rng: random.Random) -> str:
    """The card to play (module docstring): one of ``view["hand"]["my_cards"]``."""
    hand = view["hand"]
    by_rank: dict[int, str] = {}
    for card in sorted(hand["my_cards"]):
        by_rank.setdefault(TRUCO_RANK[card], card)
    rule = reading.rule_card(view)
    if len(by_rank) == 1 or hand["duelists"] is not None or hand["folded"]:
        return rule
    ranks = sorted(by_rank)
    wins = dict.fromkeys(ranks, 0.0)
    for held, _ in reading.deals(view, rng, reading.announced(view, None), SAMPLES):
        for rank in ranks:
            wins[rank] += reading.playout(view, held, first=rank)
    best = max(wins.values())
    if wins[TRUCO_RANK[rule]] == best:
        return rule
    return by_rank[next(rank for rank in ranks if wins[rank] == best)]

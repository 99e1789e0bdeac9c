"""Reading an envido call: the chance that this seat's side has the better envido, from the table.

At a team table a side's envido is the best of its members' (RULES.md §3, §5.2), and the seat that
answers a call knows one of its side's values, its own: the caller's, the caller's partner's and its
own partner's are hidden. What the table shows of them is what each of those seats did with the
envido in this hand: who opened, who raised over a call, who let the envido pass (a ``paso`` in
the envido phase, or a first card played with no envido called, §5.2's windows). ``envido_read``
weighs each deal of the unseen cards (``reading.deals``, fit to what the table announced) by the
likelihood of those actions, seat by seat, as ``reading`` does for a truco caller (Southey et al.,
"Bayes' Bluff", UAI 2005; the deals as in Ginsberg's GIB, JAIR 2001), and returns the weighted share
of the deals whose envido this side wins (the engine's ``envido_winner``, ties to the mano).

The likelihood of a call by a seat whose envido has share ``q`` of the deck's hands at or below it
(``reading.envido_share``) is that of a value caller who also bluffs: 1 when ``q`` is in the top
``t`` of the deck's hands, ``b`` below, so that he calls in ``f = b + (1 - b) t`` of his
decisions (the method of moments); a pass is the rest, ``1 - that`` (floored at ``FLOOR``: a slow
play). Two figures are fit to each side of the table from the match's finished hands, and to no
one else, per kind of decision (opening or passing; raising a call of the other side or answering
it):

- ``f``, the share of the decisions with a call at the level made or higher (envido, real envido,
  falta: a falta from a side that mostly calls envido says more than its envido): for an
  opening, the share of the hands the side could open (the other side had not opened first), one
  member's share at a team table (``reading.caller_share``: a side opens when any member does);
  for a raise, the share of the other side's calls that the side answered so (one member
  answers, RULES.md §5);
- ``b``, its bluffing frequency: of the decisions of its seats whose three cards were all shown
  by the hand's end (their envido is then known), those with an envido in the bottom half of the
  deck's, the share that called; spread over the levels as its calls are.

Both from priors worth a few decisions (``f`` a third, halved at each level up; ``b``
``BLUFF``). A side that calls on anything shows it in the hands played out, and its calls are
read as holding anything; one that calls only on its best is read so; the partner's own actions
are read the same way, by his side's. ``envido_read`` also reads what a raise would meet, for
``strong.envido_answer``: how often the other side refused a raise over its own call, and the
chance to win against the hands of the seat that would answer it if he goes on (the same shape,
fit to that side's answers).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from games.engine.cards import envido_of
from games.engine.scoring import envido_winner

from . import reading

#: The least likelihood of one action with any hand: a pass is never read as certain weakness.
FLOOR = 0.1
#: The priors: a third of the decisions with a call, and ``BLUFF`` of the bottom half's, each
#: worth this many decisions seen; and ``b``'s bounds.
PRIOR_SHARE = 1 / 3
BLUFF = 0.1
PRIOR_COUNT = 4
BLUFF_BOUNDS = (0.05, 0.6)
#: Deals drawn per reading: an envido is cheap to compare (no playout), and a likelihood that
#: puts its weight on a few of the deck's hands needs many deals to find them.
SAMPLES = 240
#: The envido ladder's levels (RULES.md §5.2; a second envido is an envido's level again), and
#: the kinds of decision with, per kind, its action with a call and its action without one.
LEVELS = ("envido", "real_envido", "falta_envido")
KINDS = {"open": ("open", "pass"), "raise": ("raise", "accept", "refuse")}


@dataclass
class Counts:
    """Per side of the table, the decisions of one kind and those with a call."""

    calls: list[int] = field(default_factory=lambda: [0, 0])
    decisions: list[int] = field(default_factory=lambda: [0, 0])

    def add(self, side: int, called: bool) -> None:
        self.decisions[side] += 1
        self.calls[side] += called

    def share(self, side: int, prior: float) -> float:
        return (self.calls[side] + prior * PRIOR_COUNT) / (self.decisions[side] + PRIOR_COUNT)


@dataclass
class Shares:
    """What ``f`` and ``b`` are fit from (module docstring): per kind and level, the side's
    decisions and those with a call at that level or higher; per kind, the bottom-half decisions
    of its seats whose envido was shown."""

    made: dict[tuple[str, int], Counts] = field(
        default_factory=lambda: {(k, level): Counts() for k in KINDS for level in range(3)}
    )
    shown: dict[str, Counts] = field(default_factory=lambda: {kind: Counts() for kind in KINDS})
    #: Answers to a raise over the side's own call, those with a refusal; of the shown
    #: bottom-half answers, those that went on (accepted or raised).
    refused: Counts = field(default_factory=Counts)
    shown_going_on: Counts = field(default_factory=Counts)

    def calling(self, kind: str, level: int, side: int, players: int) -> float:
        """``f``: the share of a seat's decisions of ``kind`` with a call of ``level`` or higher
        (a prior halved at each level up)."""
        share = self.made[kind, level].share(side, PRIOR_SHARE * 0.5**level)
        low, high = reading.SHARE_BOUNDS[0] * 0.5**level, reading.SHARE_BOUNDS[1]
        if kind == "open":
            return reading.caller_share(share, players, low)
        return min(high, max(low, share))

    def bluffing(self, kind: str, side: int) -> float:
        """``b``: the share of a seat's bottom-half decisions of ``kind`` with a call."""
        low, high = BLUFF_BOUNDS
        return min(high, max(low, self.shown[kind].share(side, BLUFF)))


def readable(view: Mapping[str, Any]) -> bool:
    """Whether ``envido_read`` reads this view: an envido call pending, not in a pica-pica duel
    (RULES.md §9, a 2-player hand inside a team game's)."""
    hand = view["hand"]
    pending = hand["pending_call"]
    return bool(pending is not None and pending["ladder"] == "envido" and hand["duelists"] is None)


@dataclass(frozen=True)
class Reading:
    """What ``envido_read`` reads: the chance that this side wins the envido if it accepts now,
    the chance if it raises and the other side goes on (accepts or raises again), and the share
    of this side's calls that the other side refuses."""

    chance: float
    chance_raised: float
    refusal: float


def envido_read(
    view: Mapping[str, Any], history: Sequence[Mapping[str, Any]], rng: random.Random
) -> Reading | None:
    """The chance that this seat's side wins the envido if it is accepted now (module
    docstring) and, over the same deals, what a raise would meet (``Reading``): the
    seat that would answer it goes on with the likelihood of a value caller who also bluffs, fit
    to his side's answers (the share of the raises over its own calls that it did not refuse;
    the share of its shown bottom-half answers that went on); None when no drawn deal fits."""
    hand = view["hand"]
    players, side = view["rules"]["players"], view["side"]
    share = reading.envido_share(view["rules"]["deck"])
    shares, actions = read_history(history, share)
    read = [
        (seat, caller_model(shares, action, level, seat % 2, players), action in ("open", "raise"))
        for seat, action, level in actions
        if seat != view["seat"]  # his own envido he knows
    ]
    counted = [seat for seat in range(players) if seat not in hand["folded"]]
    answerer = next(
        seat
        for step in range(1, players)
        if (seat := (view["seat"] + step) % players) % 2 != side and seat in counted
    )
    refusal = shares.refused.share(1 - side, PRIOR_SHARE)
    going_on = shares.shown_going_on.share(1 - side, BLUFF)
    going_on = min(going_on, 1.0 - refusal)
    top = max(0.0, (1.0 - refusal - going_on) / (1.0 - going_on))
    fits = reading.announced(view, hand["pending_call"]["caller"])
    weights: list[float] = []
    raised: list[float] = []
    wins: list[float] = []
    for _, dealt in reading.deals(view, rng, fits, SAMPLES):
        weight = 1.0
        for seat, (bluff, calls_top), called in read:
            calls = 1.0 if share[envido_of(dealt[seat])] >= 1.0 - calls_top else bluff
            weight *= calls if called else max(FLOOR, 1.0 - calls)
        weights.append(weight)
        goes_on = share[envido_of(dealt[answerer])] >= 1.0 - top
        raised.append(weight * (1.0 if goes_on else going_on))
        wins.append(float(envido_winner(dealt, hand["mano"], counted)[0] == side))
    if not weights:
        return None
    return Reading(chance=_mean(weights, wins), chance_raised=_mean(raised, wins), refusal=refusal)


def _mean(weights: Sequence[float], values: Sequence[float]) -> float:
    return sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights)


def caller_model(
    shares: Shares, action: str, level: int, side: int, players: int
) -> tuple[float, float]:
    """``(b, t)`` for a seat of ``side`` making ``action`` at ``level`` (a pass: an opening's
    first level): he calls so with the top ``t`` of the deck's hands and, as a bluff, with ``b``
    of the others, his side's bluffs spread over the levels as its calls are (module docstring)."""
    kind = "raise" if action in KINDS["raise"] else "open"
    level = max(level, 0)
    f = shares.calling(kind, level, side, players)
    bluff = shares.bluffing(kind, side) * min(1.0, f / shares.calling(kind, 0, side, players))
    return bluff, max(0.0, (f - bluff) / (1.0 - bluff))


Action = tuple[int, str, int]  # (seat, "open" | "pass" | "raise" | "accept" | "refuse", level)


def read_history(
    history: Sequence[Mapping[str, Any]], share: Mapping[int, float]
) -> tuple[Shares, list[Action]]:
    """The shares' counts over the match's finished hands (``share``: the deck's envido shares),
    and this hand's envido actions so far: (seat, action, the level called or answered)."""
    shares = Shares()
    actions: list[Action] = []
    cards: dict[int, list[str]] = {}
    for event in history:
        kind = event["type"]
        if kind == "hand_ended":
            _count_hand(shares, actions, cards, share)
            actions, cards = [], {}
        elif kind == "envido_called":
            called = "raise" if _opened(actions) else "open"
            actions.append((event["seat"], called, LEVELS.index(event["call"])))
        elif kind in ("envido_accepted", "envido_refused"):
            answer = "accept" if kind == "envido_accepted" else "refuse"
            actions.append((event["seat"], answer, actions[-1][2] if actions else -1))
        elif _passes(kind, actions) and all(seat != event["seat"] for seat, _, _ in actions):
            actions.append((event["seat"], "pass", -1))  # his paso, or his first card unopened
        if kind == "card_played":
            cards.setdefault(event["seat"], []).append(event["card"])
    return shares, actions


def _called_before(actions: Sequence[Action], side: int) -> bool:
    """Whether ``side`` opened or raised in ``actions`` (its answer is then to a raise)."""
    return any(seat % 2 == side and action in ("open", "raise") for seat, action, _ in actions)


def _passes(kind: str, actions: Sequence[Action]) -> bool:
    return kind == "envido_passed" or (kind == "card_played" and not _opened(actions))


def _opened(actions: Sequence[Action]) -> bool:
    return any(action == "open" for _, action, _ in actions)


def _count_hand(
    shares: Shares,
    actions: Sequence[Action],
    cards: Mapping[int, Sequence[str]],
    share: Mapping[int, float],
) -> None:
    opening = next(((seat % 2, level) for seat, action, level in actions if action == "open"), None)
    for side in (0, 1):
        if opening is None or opening[0] == side:  # the other side had not opened first
            for level in range(3):
                shares.made["open", level].add(side, opening is not None and opening[1] >= level)
    calls = [(seat, level) for seat, action, level in actions if action in ("open", "raise")]
    for index, (caller, faced) in enumerate(calls):
        raised = calls[index + 1][1] if index + 1 < len(calls) else -1
        if faced < 2:  # a falta has no raise
            for level in range(3):
                shares.made["raise", level].add(1 - caller % 2, raised >= level)
    for index, (seat, action, _) in enumerate(actions):
        kind = "raise" if action in KINDS["raise"] else "open"
        if kind == "raise" and _called_before(actions[:index], seat % 2):
            shares.refused.add(seat % 2, action == "refuse")
        shown = cards.get(seat, ())
        if len(shown) == 3 and share[envido_of(shown)] < 0.5:
            shares.shown[kind].add(seat % 2, action == KINDS[kind][0])
            if kind == "raise":
                shares.shown_going_on.add(seat % 2, action != "refuse")

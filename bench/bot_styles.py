"""Human styles of play, as benchmark opponents (bench/bots.py): not levels of the API.

Each style is a handful of thresholds over the same readings ``basic`` makes of its own view (the
envido value, ``basic.hand_chance``) and plays its cards with ``basic.choose_card``; they differ
in how they call and answer, as people at a table do (RULES.md §5):

- ``cautious``: calls and raises only with very good hands, refuses anything doubtful;
- ``aggressive``: calls and raises on anything decent, accepts almost everything;
- ``bluffer``: ``basic``'s thresholds, but a third of its weak spots it calls or raises anyway;
- ``accepts``: never calls or raises, says quiero to every call.

A decision a style has no rule for (a flor, on a table that plays it) is ``basic``'s.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from games.bots import basic
from games.engine import Action

TRUCO_CALLS = ("truco", "retruco", "vale_cuatro", "joc_fora")
ENVIDO_CALLS = ("envido", "real_envido", "falta_envido")
KNOWN = {"play", "paso", "quiero", "no_quiero", "mazo", *TRUCO_CALLS, *ENVIDO_CALLS}
#: The 22-card deck has no figures: its envido values run higher (basic.ENVIDO_THRESHOLDS).
DECK_SHIFT = {"spanish40": 0, "valencian22": 2}


@dataclass(frozen=True)
class Style:
    envido_open: int  # envido value (spanish40 scale) to open the envido
    envido_raise: int  # to raise one an envido call
    envido_accept: int  # to answer quiero
    truco_call: float  # basic.hand_chance to call the truco
    truco_raise: float  # to raise it
    truco_accept: float  # to answer quiero
    bluff: float = 0.0  # the share of weak spots where it calls or raises anyway
    accepts_all: bool = False  # never calls, always answers quiero


STYLES: dict[str, Style] = {
    "cautious": Style(30, 32, 29, 0.85, 0.92, 0.60),
    "aggressive": Style(23, 27, 24, 0.35, 0.50, 0.25),
    "bluffer": Style(27, 30, 27, 0.70, 0.80, 0.45, bluff=0.33),
    "accepts": Style(99, 99, 0, 2.0, 2.0, 0.0, accepts_all=True),
}


def choose(name: str, view: dict[str, Any], rng: random.Random) -> Action:
    """The action of style ``name`` in ``view``; one of ``view["legal_actions"]``."""
    style = STYLES[name]
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has no legal action in this view")
    kinds = {data["type"]: Action(data["type"]) for data in legal if data["type"] != "play"}
    if len(legal) == 1 or not set(kinds) <= KNOWN:
        return basic.choose(view)
    hand = view["hand"]
    shift = DECK_SHIFT[view["rules"]["deck"]]
    value = hand["my_envido"] - shift
    pending = hand["pending_call"]
    if pending is not None and pending["ladder"] == "envido":
        return _answer(
            style, kinds, ENVIDO_CALLS, value, style.envido_raise, style.envido_accept, rng
        )
    envido = [kinds[call] for call in ENVIDO_CALLS if call in kinds]
    if envido and not style.accepts_all and _bold(style, value >= style.envido_open, rng):
        return envido[-1] if value >= style.envido_raise + 3 else envido[0]
    chance = basic.hand_chance(view)
    if pending is not None:
        return _answer(
            style, kinds, TRUCO_CALLS, chance, style.truco_raise, style.truco_accept, rng
        )
    if "paso" in kinds:
        return kinds["paso"]
    truco = [kinds[call] for call in TRUCO_CALLS if call in kinds]
    if truco and not style.accepts_all and _bold(style, chance >= style.truco_call, rng):
        return truco[0]
    return Action("play", card=basic.choose_card(view))


def _answer(
    style: Style,
    kinds: dict[str, Action],
    ladder: tuple[str, ...],
    strength: float,
    raise_at: float,
    accept_at: float,
    rng: random.Random,
) -> Action:
    if style.accepts_all:
        return kinds["quiero"]
    raises = [kinds[call] for call in ladder if call in kinds]
    if raises and _bold(style, strength >= raise_at, rng):
        return raises[0]
    return kinds["quiero"] if strength >= accept_at else kinds["no_quiero"]


def _bold(style: Style, strong_enough: bool, rng: random.Random) -> bool:
    """Whether to call or raise: with the hand for it, or as a bluff."""
    return strong_enough or (style.bluff > 0 and rng.random() < style.bluff)

"""The Spanish cards: decks, truco ranks and envido values (RULES.md §3).

A card is its notation string, ``<rank><suit>`` (``"7O"``, ``"12B"``): plain JSON, cheap to hash and
compare, and the tables below turn it into numbers once, at import time.
"""

from __future__ import annotations

from collections.abc import Iterable

SUITS = ("E", "B", "O", "C")
RANKS = (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)

#: RULES.md §1: each suit's name in Spanish and in Valencian, and the figures' names.
SUIT_NAMES = {
    "E": ("espadas", "espases"),
    "B": ("bastos", "bastos"),
    "O": ("oros", "ors"),
    "C": ("copas", "copes"),
}
FIGURE_NAMES = {10: ("sota", "sota"), 11: ("caballo", "cavall"), 12: ("rey", "rei")}

#: RULES.md §3 "Decks".
DECKS: dict[str, tuple[str, ...]] = {
    "spanish40": tuple(f"{rank}{suit}" for suit in SUITS for rank in RANKS),
    # "truc en blanques": the two black aces and the 3s to 7s; no 2s, no figures.
    "valencian22": ("1E", "1B", *(f"{rank}{suit}" for suit in SUITS for rank in (3, 4, 5, 6, 7))),
}

# RULES.md §3 "Truco rank, high to low"; cards on one line tie.
_TRUCO_ORDER: tuple[tuple[str, ...], ...] = (
    ("1E",),
    ("1B",),
    ("7E",),
    ("7O",),
    tuple(f"3{suit}" for suit in SUITS),
    tuple(f"2{suit}" for suit in SUITS),
    ("1O", "1C"),
    tuple(f"12{suit}" for suit in SUITS),
    tuple(f"11{suit}" for suit in SUITS),
    tuple(f"10{suit}" for suit in SUITS),
    ("7C", "7B"),
    tuple(f"6{suit}" for suit in SUITS),
    tuple(f"5{suit}" for suit in SUITS),
    tuple(f"4{suit}" for suit in SUITS),
)

#: Truco strength of each card: higher wins the baza, equal numbers tie.
TRUCO_RANK: dict[str, int] = {
    card: len(_TRUCO_ORDER) - place for place, line in enumerate(_TRUCO_ORDER) for card in line
}

#: Envido value of each card: its face value for 1-7, 0 for the figures (RULES.md §3).
ENVIDO_VALUE: dict[str, int] = {
    card: rank if rank <= 7 else 0
    for card, rank in ((card, int(card[:-1])) for card in DECKS["spanish40"])
}


def suit_of(card: str) -> str:
    return card[-1]


def is_card(card: object) -> bool:
    return isinstance(card, str) and card in TRUCO_RANK


def envido_of(cards: Iterable[str]) -> int:
    """RULES.md §3: 20 + the two highest of a suit held twice or more, else the best single."""
    by_suit: dict[str, list[int]] = {}
    for card in cards:
        by_suit.setdefault(suit_of(card), []).append(ENVIDO_VALUE[card])
    best = 0
    for values in by_suit.values():
        values.sort(reverse=True)
        best = max(best, 20 + values[0] + values[1] if len(values) >= 2 else values[0])
    return best


def flor_of(cards: Iterable[str]) -> int | None:
    """RULES.md §3 "Flor": three cards of one suit are worth 20 + their values; otherwise None."""
    hand = tuple(cards)
    if len(hand) != 3 or len({suit_of(card) for card in hand}) != 1:
        return None
    return 20 + sum(ENVIDO_VALUE[card] for card in hand)

"""Who can sit with whom: the pure part of pairing (no Django, no clock, no database).

A *unit* is one seek: a single player or two partners queueing together. Units of one pool (the
same preset, options, table size, turn clock and rated flag) are compatible when each one's rating
window holds every other's rating and nobody among them blocks anybody. A window is the seeker's
own range if he gave one, else his rating plus or minus a width that grows with the time waited.
``find_tables`` groups the units of a pool into tables, oldest seek first: the service locks the
rows, calls it, and creates the games.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True, slots=True)
class Widening:
    """The default window: ``base`` points either side, ``per_second`` more for each second
    waited, never more than ``most``."""

    base: int = 100
    per_second: float = 2.0
    most: int = 500

    def width(self, waited_seconds: float) -> int:
        return int(min(self.most, self.base + self.per_second * max(0.0, waited_seconds)))


@dataclass(frozen=True, slots=True)
class Unit:
    id: str
    players: tuple[int, ...]  # one seeker, or two partners (the same side of a table of 4)
    rating: int
    since: datetime
    rating_min: int | None = None
    rating_max: int | None = None

    def window(self, now: datetime, widening: Widening) -> tuple[int, int]:
        if self.rating_min is not None or self.rating_max is not None:
            low = self.rating_min if self.rating_min is not None else -(10**9)
            high = self.rating_max if self.rating_max is not None else 10**9
            return low, high
        width = widening.width((now - self.since).total_seconds())
        return self.rating - width, self.rating + width

    def accepts(self, other: Unit, now: datetime, widening: Widening) -> bool:
        low, high = self.window(now, widening)
        return low <= other.rating <= high


def compatible(
    units: Sequence[Unit], now: datetime, widening: Widening, blocks: frozenset[tuple[int, int]]
) -> bool:
    """Every unit accepts every other's rating, and no seeker blocks another (either way)."""
    for unit in units:
        for other in units:
            if unit is other:
                continue
            if not unit.accepts(other, now, widening):
                return False
            if any((a, b) in blocks for a in unit.players for b in other.players):
                return False
    return True


@dataclass(frozen=True, slots=True)
class Table:
    """Units that fill one table, and the seat of each player (sides: seat % 2, RULES.md §1)."""

    units: tuple[Unit, ...]
    seats: tuple[int, ...]  # player ids by seat number


def find_tables(
    units: Iterable[Unit],
    table_size: int,
    now: datetime,
    widening: Widening,
    blocks: frozenset[tuple[int, int]] = frozenset(),
    seeds: frozenset[str] | None = None,
) -> list[Table]:
    """Disjoint tables from ``units``, the longest waiting served first; with ``seeds``, only
    tables around those units (a newcomer: the others already found no table among themselves).

    Each unit, oldest first, looks for company among the units whose rating its window holds
    (found by bisection on ratings), nearest rating first; a unit joins a table only if the table
    stays compatible with it. Partners stay together on one side (RULES.md §1: seats s and s+2).
    """
    by_age = sorted(units, key=lambda unit: (unit.since, unit.id))
    by_rating = sorted(by_age, key=lambda unit: unit.rating)
    ratings = [unit.rating for unit in by_rating]
    taken: set[str] = set()
    tables: list[Table] = []
    for unit in by_age:
        if seeds is not None and unit.id not in seeds:
            continue
        if unit.id in taken or len(unit.players) * 2 > table_size:
            continue  # partners queue for a table of 4 only
        group = _fill(unit, by_rating, ratings, taken, table_size, now, widening, blocks)
        if group is not None:
            taken.update(member.id for member in group)
            tables.append(Table(tuple(group), seating(group, table_size)))
    return tables


def _fill(
    first: Unit,
    by_rating: list[Unit],
    ratings: list[int],
    taken: set[str],
    table_size: int,
    now: datetime,
    widening: Widening,
    blocks: frozenset[tuple[int, int]],
) -> list[Unit] | None:
    group = [first]
    seated = len(first.players)
    pairs = 1 if len(first.players) == 2 else 0
    for candidate in _nearest(first, by_rating, ratings, now, widening):
        if candidate.id in taken or candidate is first:
            continue
        size = len(candidate.players)
        # A table of 4 holds at most two pairs, one a side; a table of 2 holds single seekers.
        if seated + size > table_size or (size == 2 and (table_size == 2 or pairs == 2)):
            continue
        if not compatible([*group, candidate], now, widening, blocks):
            continue
        group.append(candidate)
        seated += size
        pairs += size == 2
        if seated == table_size:
            return group
    return None


def _nearest(
    first: Unit, by_rating: list[Unit], ratings: list[int], now: datetime, widening: Widening
) -> Iterable[Unit]:
    """The units whose rating ``first``'s window holds, nearest rating first (outward from it)."""
    low, high = first.window(now, widening)
    left = bisect.bisect_left(ratings, first.rating) - 1
    right = left + 1
    while True:
        can_left = left >= 0 and ratings[left] >= low
        can_right = right < len(ratings) and ratings[right] <= high
        if not (can_left or can_right):
            return
        if can_right and (
            not can_left or ratings[right] - first.rating <= first.rating - ratings[left]
        ):
            yield by_rating[right]
            right += 1
        else:
            yield by_rating[left]
            left -= 1


def seating(units: Sequence[Unit], table_size: int) -> tuple[int, ...]:
    """Player ids by seat: a pair takes one side's two seats (s and s + 2), singles fill the rest
    in the order given (the service shuffles them first)."""
    sides: list[list[int]] = [[], []]
    for unit in sorted(units, key=lambda unit: -len(unit.players)):
        if len(unit.players) == 2:
            side = 0 if not sides[0] else 1
            sides[side].extend(unit.players)
        else:
            side = 0 if len(sides[0]) <= len(sides[1]) else 1
            sides[side].append(unit.players[0])
    if table_size == 2:
        return (sides[0][0], sides[1][0])
    return (sides[0][0], sides[1][0], sides[0][1], sides[1][1])

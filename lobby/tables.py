"""A table the lobby filled: one game created, seated and started through games' own services.

Seeks, challenges and rematches all end here, inside the transaction that closes them, so a
game exists exactly when its seek, challenge or rematch says it does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games import services as games
from games.models import Game


def start_table(
    seating: Sequence[Any],
    *,
    preset: str,
    options: Mapping[str, Any],
    turn_seconds: int,
    rated: bool,
    visibility: str = Game.Visibility.PUBLIC,
    forfeit_after: int = 3,
    bots: Mapping[int, str] | None = None,
) -> Game:
    """``seating``: the player at each seat (None where ``bots`` seats a bot of that level). The
    first person seated creates the game with everyone else seated: the full table starts at
    once and never waits open (so no open-table cap applies, games/open_tables.py)."""
    bots = dict(bots or {})
    people = [(number, player) for number, player in enumerate(seating) if player is not None]
    creator_seat, creator = people[0]
    game = games.create_game(
        creator,
        preset=preset,
        options=dict(options),
        players=len(seating),
        visibility=visibility,
        turn_seconds=turn_seconds,
        forfeit_after=forfeit_after,
        bots=[{"seat": number, "level": level} for number, level in sorted(bots.items())],
        rated=rated,
        seat=creator_seat,
        joined=dict(people[1:]),
    )
    return game

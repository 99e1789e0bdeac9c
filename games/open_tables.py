"""Open tables: how many a player may wait at, and how long a table waits for its players.

An open game costs the server a row in every list of open games and a place in the sweeps, and
nothing stops an account from opening them by the hundred (one opened 663 in 6 s): a player
holds seats at ``OPEN_GAMES_PER_PLAYER`` open games at most, created or joined, and an open game
that has not filled within ``OPEN_GAME_TTL_HOURS`` of its creation is aborted by a beat task
(``end_reason`` ``expired``). Bots are seated by the game's creator, so they count for nobody.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.utils import timezone

from games import contract
from games.errors import TooManyOpenGames
from games.models import Game, Seat
from players.models import Player


def check_room(player: Player) -> None:
    """Raise ``TooManyOpenGames`` when ``player`` already waits at as many open games as allowed.

    Inside the caller's transaction, the player's row is locked first, so that two requests of
    one player cannot both take the last place (and the seat they add commits with the lock).
    """
    get_user_model().objects.select_for_update().filter(pk=player.pk).values_list("pk").first()
    waiting = Seat.objects.filter(player=player, game__status=Game.Status.OPEN).count()
    if waiting >= settings.OPEN_GAMES_PER_PLAYER:
        raise TooManyOpenGames(settings.OPEN_GAMES_PER_PLAYER)


def expire(now: datetime | None = None) -> int:
    """Abort the open games older than OPEN_GAME_TTL_HOURS; how many. An open game has no events
    yet (its first is written when the table fills), so only the row changes; a join that holds
    the row's lock and fills the table first wins (the UPDATE checks the status again after the
    lock). ``updated_at`` moves, and with it the game's ETag."""
    now = now or timezone.now()
    cutoff = now - timedelta(hours=settings.OPEN_GAME_TTL_HOURS)
    return Game.objects.filter(status=Game.Status.OPEN, created_at__lt=cutoff).update(
        status=Game.Status.ABORTED, end_reason=contract.EXPIRED, finished_at=now, updated_at=now
    )

"""Table chat: the players' room and the spectators' room of a game.

The players' room is for the seated players; the spectators' room for everyone else, and the
players do not see it while the match is on (a spectator who sees the cards played could relay
what he guesses: STYLE.md, hidden information). Once the match is over both rooms are readable by
whoever may see the game, and closed to new lines. Lines are append-only (a database trigger);
a staff member hides one by adding a moderation row. A line from a player the reader blocks is
not delivered to him.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import structlog
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import Exists, OuterRef, Q, QuerySet, Subquery
from django.utils import timezone

from games.errors import GameOver, NotSeated
from games.models import Game, GameId, Seat
from games.selectors import visible_game
from lobby.errors import LineNotFound, RoomClosed, TooManyMessages
from lobby.models import ChatLine, ChatModeration
from players import selectors as players
from players.models import Player
from push import outbox as push

logger = structlog.get_logger(__name__)
Room = ChatLine.Room
_ON = (Game.Status.OPEN, Game.Status.ACTIVE)


def say(player: Player, game_id: GameId, room: str, text: str) -> ChatLine:
    game, seat = visible_game(game_id, player)
    if game.status not in _ON:
        raise GameOver("The table's chat closes when the match is over.")
    if room == Room.PLAYERS and seat is None:
        raise NotSeated("Only the seated players talk in the players' room.")
    if room == Room.SPECTATORS and seat is not None:
        raise RoomClosed()
    with transaction.atomic():
        # The player's row, locked: his lines at this table are counted one request at a time.
        get_user_model().objects.select_for_update().filter(pk=player.pk).first()
        now = timezone.now()
        window = timedelta(seconds=settings.CHAT_RATE_SECONDS)
        recent = list(
            ChatLine.objects.filter(game=game, author=player, created_at__gt=now - window)
            .order_by("-created_at")
            .values_list("created_at", flat=True)[: settings.CHAT_RATE_LINES]
        )
        if len(recent) >= settings.CHAT_RATE_LINES:
            wait = (recent[-1] + window - now).total_seconds()
            raise TooManyMessages(max(wait, 0.001))
        line = ChatLine.objects.create(
            game=game, room=room, author=player, text=text, created_at=now
        )
        if room == Room.PLAYERS:  # a push to the other seats that chose chat (never its text)
            push.chat(game, player.pk, line.pk)
    # The room and the line's id only: what is said is the players' own business.
    logger.info("lobby.chat_line", game_id=str(game.pk), room=room, line_id=line.pk)
    return line


def lines(player: Player, game_id: GameId, room: str, after: int = 0) -> list[ChatLine]:
    """The room's lines after id ``after`` that ``player`` may read, oldest first."""
    game, seat = visible_game(game_id, player)
    if not may_read(game, seat, room):
        raise RoomClosed()
    shown = delivered_to(player, ChatLine.objects.filter(game=game, room=room, id__gt=after))
    return list(shown.select_related("author").order_by("id")[:500])


def line(player: Player, game_id: GameId, line_id: int) -> ChatLine:
    """One line of the game's chat, if ``player`` may read it as ``lines`` would give it."""
    game, seat = visible_game(game_id, player)
    found = delivered_to(player, ChatLine.objects.filter(game=game, pk=line_id))
    said = found.select_related("author").first()
    if said is None or not may_read(game, seat, said.room):
        raise LineNotFound()
    return said


def may_read(game: Game, seat: int | None, room: str) -> bool:
    if game.status not in _ON:
        return True
    return (seat is not None) == (room == Room.PLAYERS)


def delivered_to(player: Player, found: QuerySet[ChatLine]) -> QuerySet[ChatLine]:
    """The lines not hidden by staff and not said by a player ``player`` blocks."""
    latest = ChatModeration.objects.filter(line=OuterRef("pk")).order_by("-at", "-id")
    visible = found.annotate(hidden=Subquery(latest.values("hidden")[:1])).filter(
        Q(hidden__isnull=True) | Q(hidden=False)
    )
    blocked = players.blocked_by(player)
    return visible.exclude(author_id__in=blocked) if blocked else visible


def hide(staff: Any, line: ChatLine, *, hidden: bool = True, reason: str = "") -> ChatModeration:
    """A staff member hides a line (or shows it again): a row of the log, never an edit."""
    moderation = ChatModeration.objects.create(line=line, hidden=hidden, staff=staff, reason=reason)
    logger.info("lobby.chat_moderated", line_id=line.pk, hidden=hidden, staff_id=staff.pk)
    return moderation


def is_hidden(line: ChatLine) -> bool:
    latest = line.moderations.order_by("-at", "-id").first()
    return bool(latest and latest.hidden)


def readable_lines(player: Player) -> QuerySet[ChatLine]:
    """The lines of his data export: his own, and those of the tables he sat at that he may read
    now (the players' room; the spectators' room once the match is over)."""
    seated = Exists(Seat.objects.filter(player=player, game_id=OuterRef("game_id")))
    on = Exists(Game.objects.filter(pk=OuterRef("game_id"), status__in=_ON))
    found = ChatLine.objects.annotate(seated=seated, on=on).filter(
        Q(author=player) | Q(seated=True, room=Room.PLAYERS) | Q(seated=True, on=False)
    )
    return delivered_to(player, found)

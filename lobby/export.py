"""A player's data export: everything of his the server keeps that he may see, and nothing else.

Each game is his seat's view (``games.selectors``: no other seat's unplayed card, no deck); chat
lines are those he may read now (``chat.readable_lines``); blocks are his own (never who blocks
him); a webhook subscription without its secret. The serializer shapes the parts: the schema
the document publishes is the one the answer is made with.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils import timezone

from games.models import GameId
from games.selectors import game_view, pool_stats, redacted_feed
from games.store.log import get_game
from lobby import chat
from lobby.models import Challenge, Seek
from notifications.models import Subscription
from players import selectors as players
from players.models import Block, Player


def export_for(player: Player) -> dict[str, Any]:
    """The export's parts, as ``lobby.api.serializers.DataExportSerializer`` shapes them."""
    return {
        "exported_at": timezone.now(),
        "profile": player,
        "ratings": players.current_ratings(player),
        "rating_history": players.rating_history(player),
        "stats": pool_stats(player),
        "games": [_game(seat.game_id, seat.number) for seat in player.seats.order_by("joined_at")],
        "chat": chat.readable_lines(player).order_by("id"),
        "seeks": Seek.objects.filter(Q(player=player) | Q(partner=player)),
        "challenges": Challenge.objects.filter(seats__player=player).prefetch_related("seats"),
        "blocks": Block.objects.filter(blocker=player),
        "webhook_subscriptions": Subscription.objects.filter(player=player),
    }


def _game(game_id: GameId, seat: int) -> dict[str, Any]:
    game = get_game(game_id)
    return {"seat": seat, "game": game_view(game, seat), "events": redacted_feed(game, seat)}

"""A player's data export: everything of his the server keeps that he may see, and nothing else.

Each game is his seat's view (``games.selectors``: no other seat's unplayed card, no deck); chat
lines are those he may read now (``chat.readable_lines``); blocks are his own (never who blocks
him); a webhook subscription without its secret.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Q
from django.utils import timezone

from games.selectors import game_view, redacted_feed
from games.store import get_game
from lobby import chat
from lobby.models import Challenge, Seek
from notifications.models import Subscription
from players import selectors as players
from players.models import Block, Player


def export_for(player: Player) -> dict[str, Any]:
    return {
        "exported_at": timezone.now().isoformat(),
        "profile": {
            "id": player.pk,
            "username": player.username,
            "display_name": player.display_name,
            "email": player.email,
            "date_joined": player.date_joined.isoformat(),
            "challenges_from": player.challenges_from,
        },
        "ratings": players.current_ratings(player),
        "rating_history": [
            {
                "game_id": str(change.game_id),
                "family": change.family,
                "size": change.size,
                "before": change.before,
                "after": change.after,
                "delta": change.delta,
                "at": change.created_at.isoformat(),
            }
            for change in players.rating_history(player)
        ],
        "stats": players.pool_stats(player),
        "games": [_game(seat.game_id, seat.number) for seat in player.seats.order_by("joined_at")],
        "chat": [
            {
                "id": line.pk,
                "game_id": str(line.game_id),
                "room": line.room,
                "author_id": line.author_id,
                "text": line.text,
                "at": line.created_at.isoformat(),
            }
            for line in chat.readable_lines(player).order_by("id")
        ],
        "seeks": [
            _seek(seek) for seek in Seek.objects.filter(Q(player=player) | Q(partner=player))
        ],
        "challenges": [_challenge(c) for c in Challenge.objects.filter(seats__player=player)],
        "blocks": [
            {"player_id": block.blocked_id, "at": block.created_at.isoformat()}
            for block in Block.objects.filter(blocker=player)
        ],
        "webhook_subscriptions": [
            {
                "id": str(sub.pk),
                "url": sub.url,
                "kinds": sub.kinds,
                "at": sub.created_at.isoformat(),
            }
            for sub in Subscription.objects.filter(player=player)
        ],
    }


def _game(game_id: Any, seat: int) -> dict[str, Any]:
    game = get_game(game_id)
    return {"seat": seat, "game": game_view(game, seat), "events": redacted_feed(game, seat)}


def _seek(seek: Seek) -> dict[str, Any]:
    return {
        "id": str(seek.pk),
        "preset": seek.preset,
        "players": seek.players,
        "rated": seek.rated,
        "status": seek.status,
        "created_at": seek.created_at.isoformat(),
        "game_id": str(seek.game_id) if seek.game_id else None,
    }


def _challenge(challenge: Challenge) -> dict[str, Any]:
    return {
        "id": str(challenge.pk),
        "challenger_id": challenge.challenger_id,
        "preset": challenge.preset,
        "players": challenge.players,
        "status": challenge.status,
        "decline_reason": challenge.decline_reason or None,
        "created_at": challenge.created_at.isoformat(),
        "game_id": str(challenge.game_id) if challenge.game_id else None,
    }

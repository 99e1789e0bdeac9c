"""What the streams follow: the game log (``events_recorded``) and knox's tokens (deleted on
logout). Both publish after commit (``bus.publish_on_commit``): never for a rolled-back write,
and a stream woken reads only what is committed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db.models.signals import post_delete
from knox.models import AuthToken

from games import engine, signals
from games.models import Game, GameEvent
from games.store import seats_of
from streams import bus


def follow() -> None:
    signals.events_recorded.connect(on_events_recorded, sender=Game, dispatch_uid="streams")
    post_delete.connect(on_token_deleted, sender=AuthToken, dispatch_uid="streams.tokens")


def on_events_recorded(
    sender: Any, game: Game, rows: Sequence[GameEvent], state: engine.State, **_: Any
) -> None:
    """Wake the game's streams and its players' (their turns may have moved)."""
    players = [seat.player_id for seat in seats_of(game)]
    bus.publish_on_commit([bus.game_topic(game.pk), *map(bus.player_topic, players)])


def on_token_deleted(sender: Any, instance: AuthToken, **_: Any) -> None:
    bus.publish_on_commit([bus.token_topic(instance.user_id)])

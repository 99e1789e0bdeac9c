"""What the streams hear, through signals (no app calls the streams): the game log
(``events_recorded`` for the notices written with the events, ``events_committed`` to wake the
streams), seats taken and left, ratings written, deadlines near, and tokens deleted (knox's on
logout, OAuth's and personal ones on revocation). Each writes the players' notices in the
sender's transaction and publishes after commit (``bus.publish_on_commit``): never for a
rolled-back write, and a stream woken reads only what is committed."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import structlog
from django.db.models.signals import post_delete, post_save
from knox.models import AuthToken
from oauth2_provider.models import AccessToken

from games import engine
from games import signals as game_signals
from games.models import Game, GameEvent, Seat
from games.store.log import seats_of
from notifications import signals as notification_signals
from players import signals as player_signals
from players.models import Player, RatingChange
from players.selectors import rating_change_item
from streams import bus, game_stream, notices
from streams.models import PlayerFeed, PlayerNotice
from truc_api import after_response

logger = structlog.get_logger(__name__)


def connect() -> None:
    game_signals.events_recorded.connect(on_events_recorded, sender=Game, dispatch_uid="streams")
    # The wake changes nothing in the answer: it is sent once the answer is.
    game_signals.events_committed.connect(
        after_response.deferred(on_events_committed),
        sender=Game,
        dispatch_uid="streams.wake",
        weak=False,
    )
    post_save.connect(on_seat_taken, sender=Seat, dispatch_uid="streams.seat_taken")
    post_delete.connect(on_seat_left, sender=Seat, dispatch_uid="streams.seat_left")
    game_signals.game_rated.connect(on_game_rated, sender=Game, dispatch_uid="streams.rated")
    notification_signals.deadline_near.connect(on_deadline_near, dispatch_uid="streams.deadline")
    post_delete.connect(on_token_deleted, sender=AuthToken, dispatch_uid="streams.tokens")
    post_delete.connect(on_token_deleted, sender=AccessToken, dispatch_uid="streams.oauth_tokens")
    player_signals.account_deleting.connect(on_account_deleting, dispatch_uid="streams.account")


def _people(game: Game) -> list[Seat]:
    """The seats of people: a bot has no stream to tell."""
    return [seat for seat in seats_of(game) if not seat.bot_level]


def on_events_recorded(
    sender: Any, game: Game, rows: Sequence[GameEvent], state: engine.State, **_: Any
) -> None:
    """A start or an end is a notice to every seated player, written with the events."""
    types = {row.type for row in rows}
    told: list[notices.Notice] = []
    if "match_started" in types:
        told += [
            (seat.player_id, notices.GAME_STARTED, _started(game, seat.number))
            for seat in _people(game)
        ]
    if "match_ended" in types:
        told += [
            (seat.player_id, notices.GAME_ENDED, _ended(game, seat.number))
            for seat in _people(game)
        ]
    notices.notify_players(told)


def on_events_committed(
    sender: Any,
    game: Game,
    rows: Sequence[GameEvent],
    state: engine.State,
    saved: int = 1,
    **_: Any,
) -> None:
    """Wake the game's streams and its players' (their turns may have moved): publish the game's
    topic and its players'. The game's carries what its streams would read
    (``game_stream.offer``: made here, once, from what this process has in hand) only when a
    streams process follows the game (``bus.followed``): nobody else would read it. A sweep's
    games (``saved`` > 1: the turn clock's timeouts) go without: their streams read, and the
    sweep does not pay every game's projections."""
    players = (bus.player_topic(seat.player_id) for seat in seats_of(game))
    topic = bus.game_topic(game.pk)
    offer = _offer(game, rows, state) if rows and saved == 1 and bus.followed(topic) else None
    bus.publish([topic, *players], {topic: offer} if offer else None)


def _offer(game: Game, rows: Sequence[GameEvent], state: engine.State) -> bytes | None:
    """The move's offer, or None if making it failed: the move is committed, and the receivers
    after this one (the turn clock) must still run; its streams read instead."""
    try:
        return game_stream.offer(game, rows, state)
    except Exception:
        logger.exception("streams.offer_failed", game_id=str(game.pk))
        return None


def _started(game: Game, seat: int) -> dict[str, Any]:
    return {"game_id": str(game.pk), "preset": game.preset, "players": game.players, "seat": seat}


def _ended(game: Game, seat: int) -> dict[str, Any]:
    return {
        "game_id": str(game.pk),
        "seat": seat,
        "status": game.status,
        "winner_side": game.winner_side,
        "won": game.winner_side == seat % 2 if game.winner_side is not None else None,
        "reason": game.end_reason or None,
        "rated": game.rated,  # a rated game's change follows as rating_changed
    }


def on_seat_taken(sender: Any, instance: Seat, created: bool, **_: Any) -> None:
    if not created:
        return
    game = instance.game
    if game.status == Game.Status.OPEN and not instance.bot_level:
        # Ids only: a notice outlives an account's name (the game's view names the seats).
        joined = {"game_id": str(game.pk), "seat": instance.number, "player_id": instance.player_id}
        others = Seat.objects.filter(game=game, bot_level="").exclude(pk=instance.pk)
        notices.notify_players(
            (player_id, notices.PLAYER_JOINED, joined)
            for player_id in others.values_list("player_id", flat=True)
        )
    bus.publish_on_commit([bus.game_topic(game.pk)])  # the lobby's view changed


def on_seat_left(sender: Any, instance: Seat, **_: Any) -> None:
    bus.publish_on_commit([bus.game_topic(instance.game_id)])


def on_game_rated(sender: Any, game: Game, changes: Sequence[RatingChange], **_: Any) -> None:
    notices.notify_players(
        (
            change.player_id,
            notices.RATING_CHANGED,
            {"game_id": str(game.pk), **rating_change_item(change)},
        )
        for change in changes
    )


def on_deadline_near(sender: Any, game: Game, version: int, seats: list[int], **_: Any) -> None:
    near = {
        "game_id": str(game.pk),
        "version": version,
        "deadline": game.deadline.isoformat() if game.deadline else None,
    }
    notices.notify_players(
        (seat.player_id, notices.DEADLINE_NEAR, {**near, "seat": seat.number})
        for seat in _people(game)
        if seat.number in seats
    )


def on_token_deleted(sender: Any, instance: AuthToken | AccessToken, **_: Any) -> None:
    bus.publish_on_commit([bus.token_topic(instance.user_id)])


def on_account_deleting(sender: Any, player: Player, **_: Any) -> None:
    """His notices are his data: they go with his account."""
    PlayerNotice.objects.filter(player=player).delete()
    PlayerFeed.objects.filter(player=player).delete()

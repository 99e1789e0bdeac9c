"""Rematch: after a match, the same table again with the same settings, the first dealer moved on.

Any seated person offers; each other seated person accepts (bots always do); the last acceptance
creates and starts the new game, and the ``Rematch`` row links the two games both ways. The
engine deals first from the last seat (``next_dealer = players - 1``), so the first dealer moves
one seat on (RULES.md §1: "the old mano deals") by seating everyone one seat back: the player
who was at seat s sits at seat s - 1, and so the old mano deals first. Partners stay partners:
seats s and s + 2 move together.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from games.errors import GameNotOver, NotSeated
from games.models import Game, GameId, Seat
from games.selectors import visible_game
from lobby import notices, tables
from lobby.errors import NoRematch, NoRematchOffer, RematchClosed
from lobby.models import Rematch
from notifications.models import Kind
from players.models import Player

#: The rules' fields a game's creation takes as options: all but what create_game sets itself.
_NOT_OPTIONS = ("preset", "players")


def rematch_of(game_id: GameId, player: Player) -> dict[str, Any]:
    """The rematch state of a game, as its viewer may see it: the offer and both links."""
    game, _ = visible_game(game_id, player)
    offer = Rematch.objects.filter(game=game).first()
    previous = Rematch.objects.filter(new_game=game).values_list("game_id", flat=True).first()
    return {
        "game_id": game.pk,
        "status": offer.status if offer else None,
        "offered_by": offer.offered_by_id if offer else None,
        "accepted_by": list(offer.accepted_by) if offer else [],
        "next_game_id": offer.new_game_id if offer else None,
        "previous_game_id": previous,
    }


def want_rematch(player: Player, game_id: GameId) -> dict[str, Any]:
    """Offer a rematch, or accept the one offered; everyone's acceptance starts the new game."""
    with transaction.atomic():
        game, seats = _locked_finished(player, game_id)
        offer = Rematch.objects.select_for_update().filter(game=game).first()
        if offer is None:
            offer = Rematch.objects.create(game=game, offered_by=player, accepted_by=[player.pk])
            notices.tell(
                _people(seats, but=player.pk), Kind.REMATCH_OFFERED, game_id=game.pk, by=player.pk
            )
        elif offer.status != Rematch.Status.OFFERED:
            raise RematchClosed(extra={"rematch_status": offer.status})
        elif player.pk not in offer.accepted_by:
            offer.accepted_by = [*offer.accepted_by, player.pk]
        if set(_people(seats)) <= set(offer.accepted_by):
            offer.new_game = _start(game, seats)
            offer.status = Rematch.Status.STARTED
            notices.tell(_people(seats), Kind.REMATCH_STARTED, game_id=offer.new_game.pk)
        offer.updated_at = timezone.now()
        offer.save()
    return rematch_of(game_id, player)


def decline_rematch(player: Player, game_id: GameId) -> dict[str, Any]:
    with transaction.atomic():
        game, seats = _locked_finished(player, game_id)
        offer = Rematch.objects.select_for_update().filter(game=game).first()
        if offer is None:
            raise NoRematchOffer()
        if offer.status != Rematch.Status.OFFERED:
            raise RematchClosed(extra={"rematch_status": offer.status})
        offer.status = Rematch.Status.DECLINED
        offer.updated_at = timezone.now()
        offer.save(update_fields=["status", "updated_at"])
        notices.tell(_people(seats, but=player.pk), Kind.REMATCH_DECLINED, game_id=game.pk)
    return rematch_of(game_id, player)


def _locked_finished(player: Player, game_id: GameId) -> tuple[Game, list[Seat]]:
    game, seat = visible_game(game_id, player)
    if seat is None:
        raise NotSeated()
    game = Game.objects.select_for_update().get(pk=game.pk)  # one rematch decision at a time
    if game.status == Game.Status.ABORTED:
        raise NoRematch()
    if game.status != Game.Status.FINISHED:
        raise GameNotOver("A rematch is offered once the match is over.")
    return game, list(Seat.objects.filter(game=game).select_related("player").order_by("number"))


def _people(seats: list[Seat], but: int | None = None) -> list[int]:
    return [seat.player_id for seat in seats if not seat.bot_level and seat.player_id != but]


def _start(game: Game, seats: list[Seat]) -> Game:
    players = game.players
    seating: list[Any] = [None] * players
    bots: dict[int, str] = {}
    for seat in seats:
        moved = (seat.number - 1) % players  # the old mano becomes the first dealer (§1)
        if seat.bot_level:
            bots[moved] = seat.bot_level
        else:
            seating[moved] = seat.player
    options = {key: value for key, value in game.rules.items() if key not in _NOT_OPTIONS}
    return tables.start_table(
        seating,
        preset=game.preset,
        options=options,
        turn_seconds=game.turn_seconds,
        rated=game.rated and not game.has_bots,
        visibility=game.visibility,
        forfeit_after=game.forfeit_after,
        bots=bots,
    )

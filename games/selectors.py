"""Reads: what a viewer may see of games. Every output passes through the viewer's projection."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from games import contract, engine
from games.errors import CursorAhead, GameNotFound, GameNotOver
from games.models import CamaRecord, Game, GameEvent, GameId, HandRecord, Seat
from games.rated_results import rating_changes_for
from games.store.log import (
    etag_parts,
    get_game,
    load_events,
    load_state,
    one_moment,
    seat_names,
    seats_of,
)
from players.models import (
    PRESET_FAMILIES,
    TABLE_SIZES,
    Player,
    RatingFamily,
    RatingSize,
    public_name,
    rating_pool,
)


def viewer_seat(game: Game, player: Player) -> int | None:
    if player is None or not player.is_authenticated:
        return None
    return next((seat.number for seat in seats_of(game) if seat.player_id == player.pk), None)


def visible_game(game_id: GameId, player: Player) -> tuple[Game, int | None]:
    """The game (its seats and players loaded with it) and the viewer's seat (None for a
    spectator); private games exist only for their players."""
    game = get_game(game_id)
    seat = viewer_seat(game, player)
    if hidden_from(seat, game.visibility):
        raise GameNotFound()
    return game, seat


def hidden_from(seat: int | None, visibility: str) -> bool:
    """A private game exists only for its players: to anyone else it is not there."""
    return seat is None and visibility == Game.Visibility.PRIVATE


def polled_etag(game_id: GameId, player: Player) -> str | None:
    """The player's ETag of a game, in one statement (the game row's parts of it with the
    player's seat): a poll of an unchanged game reads nothing else. None when the game is not
    there for this player (the same visibility rule as ``visible_game``, which then answers
    why)."""
    parts = etag_parts(game_id, player)
    if parts is None:
        return None
    version, status, updated_at, visibility, seat = parts
    if hidden_from(seat, visibility):
        return None
    return etag_of(game_id, version, status, updated_at, seat)


def etag(game: Game, seat: int | None) -> str:
    return etag_of(game.pk, game.version, game.status, game.updated_at, seat)


def etag_of(
    game_id: GameId, version: int, status: str, updated_at: datetime, seat: int | None
) -> str:
    """Every event is a public fact (its private parts are redacted, not hidden), so the log's
    version, the lobby's last change and the viewer's seat determine the whole view."""
    viewer = "spectator" if seat is None else f"seat{seat}"
    changed = int(updated_at.timestamp() * 1_000_000)
    game = game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
    return f'W/"{game}-{version}-{status}-{changed}-{viewer}"'


def rating_changes_of(game: Game) -> list[dict[str, Any]]:
    """What the game did to its players' ratings: read for a finished game only."""
    return rating_changes_for(game) if game.status == Game.Status.FINISHED else []


def game_payload(
    game: Game,
    state: engine.State | None,
    seat: int | None,
    rating_changes: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The game as ``seat`` sees it (None: a spectator). ``rating_changes``: ``rating_changes_of``
    the game, when the caller has read them already (one read for every viewer's payload)."""
    if rating_changes is None:
        rating_changes = rating_changes_of(game)
    seats = {
        # ``seats_of`` reads each seat with its player's names (games/store/log.py).
        seat.number: {"id": seat.player_id, "name": public_name(*seat_names(seat))}
        for seat in seats_of(game)
    }
    payload: dict[str, Any] = {
        "id": str(game.pk),
        "preset": game.preset,
        "players": game.players,
        "visibility": game.visibility,
        "status": game.status,
        "version": game.version,
        "created_at": game.created_at.isoformat(),
        "seats": [
            {"seat": number, "side": engine.side_of(number), "player": seats.get(number)}
            for number in range(game.players)
        ],
        "my_seat": seat,
        "join_code": game.join_code if seat is not None else None,
        "winner_side": game.winner_side,
        "end_reason": game.end_reason or None,
        "rated": game.rated,
        "rating_changes": rating_changes,
        "clock": {"turn_seconds": game.turn_seconds, "forfeit_after": game.forfeit_after},
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "rules": game.rules,
        "state": None,
    }
    if state is not None:
        # The log may have moved on since the row was read: the view and its version go together.
        payload["version"] = state.version
        view = engine.view_for(state, seat)
        for key in ("rules", "version", "seat"):
            view.pop(key)
        payload["state"] = view
    return payload


def action_view(
    game: Game, state: engine.State, rows: list[GameEvent], seat: int
) -> dict[str, Any]:
    """An action's answer: the events it wrote and the game after it, as the acting seat sees
    them. It holds no rating change: a match is rated after the commit of the action that ends
    it (games/rating.py), so a retry's answer, read back later, is the first one."""
    return {
        "version": state.version,
        "events": [feed_item(row, seat) for row in rows],
        "game": game_payload(game, state, seat, rating_changes=[]),
    }


def current_view(game_id: GameId, player: Player) -> tuple[dict[str, Any], str]:
    """The viewer's view of a game and its ETag, read at one moment (``one_moment``): the
    row gives the ETag and the deadline, the log the state, the ratings table the changes, and an
    action committing between those reads would give a body newer than its ETag and deadline."""
    with one_moment():
        game, seat = visible_game(game_id, player)
        return game_view(game, seat), etag(game, seat)


def game_view(game: Game, seat: int | None) -> dict[str, Any]:
    state = load_state(game) if game.version else None
    return game_payload(game, state, seat)


def redacted_feed(
    game: Game, seat: int | None, after: int = 0, limit: int | None = None
) -> list[dict[str, Any]]:
    return [feed_item(row, seat) for row in load_events(game, after, limit)]


def feed_page(game: Game, seat: int | None, after: int, limit: int) -> dict[str, Any]:
    """A page of the feed and its cursor: ask again with ``after``; ``more`` says whether the
    log already holds events beyond this page. A cursor beyond the log is a 422, as for the
    long poll and the streams: no page can answer it."""
    if after > game.version:
        raise CursorAhead(game.version)
    events = redacted_feed(game, seat, after, limit)
    last = events[-1]["seq"] if events else after
    version = max(game.version, last)  # the row may have been read before the last append
    return {"events": events, "after": last, "more": last < version, "version": version}


def feed_item(row: GameEvent, seat: int | None) -> dict[str, Any]:
    """An event as ``seat`` may read it, in the contract's ``FeedItem`` shape."""
    data = engine.redact_json(row.payload, seat)
    return contract.present(row.seq, row.type, row.created_at.isoformat(), row.seat, data)


def hand_history(game: Game) -> dict[str, Any]:
    return {
        "camas": [
            {
                "number": cama.number,
                "winner": cama.winner_side,
                "scores": cama.scores,
                **_period(cama),
            }
            for cama in CamaRecord.objects.filter(game=game)
        ],
        "hands": [
            {
                "number": hand.number,
                "cama": hand.cama,
                "dealer": hand.dealer,
                "mano": hand.mano,
                "winner": hand.winner_side,
                "reason": hand.reason or None,
                "points": [
                    {"kind": kind, "side": side, "points": points}
                    for kind, side, points in hand.points
                ],
                "scores": hand.scores,
                "first_seq": hand.first_seq,
                "last_seq": hand.last_seq,
                **_period(hand),
            }
            for hand in HandRecord.objects.filter(game=game)
        ],
    }


def _period(record: CamaRecord | HandRecord) -> dict[str, str | None]:
    """When a cama or a hand started, and ended (None while it is played)."""
    return {
        "started_at": record.started_at.isoformat(),
        "ended_at": record.ended_at.isoformat() if record.ended_at else None,
    }


def export(game: Game, seat: int | None) -> dict[str, Any]:
    """The whole record of a finished match, as this viewer may see it: still no unplayed card."""
    if game.status not in (Game.Status.FINISHED, Game.Status.ABORTED):
        raise GameNotOver("A game is exported once it is over.")
    return {
        "game": game_view(game, seat),
        "history": hand_history(game),
        "events": redacted_feed(game, seat),
    }


def open_games() -> QuerySet[Game]:
    return (
        Game.objects.filter(status=Game.Status.OPEN, visibility=Game.Visibility.PUBLIC)
        .prefetch_related("seats__player")
        .order_by("-created_at")
    )


def live_games() -> QuerySet[Game]:
    """Public games being played, to watch: the most recently moved first."""
    return (
        Game.objects.filter(status=Game.Status.ACTIVE, visibility=Game.Visibility.PUBLIC)
        .prefetch_related("seats__player")
        .order_by("-updated_at")
    )


def my_games(player: Player) -> QuerySet[Seat]:
    """My seats, the games waiting for me first, then the most recently moved."""
    return (
        Seat.objects.filter(player=player)
        .select_related("game")
        .prefetch_related("game__seats__player")
        .order_by("-awaiting", "-game__updated_at")
    )


def game_summary(game: Game, my_seat: int | None, awaiting: bool = False) -> dict[str, Any]:
    """A list row: no hand, no cards; seats come from a ``prefetch_related("seats__player")``."""
    seats = {seat.number: seat.player for seat in game.seats.all()}
    return {
        "id": str(game.pk),
        "preset": game.preset,
        "players": game.players,
        "visibility": game.visibility,
        "status": game.status,
        "version": game.version,
        "seats": [
            {
                "seat": number,
                "side": engine.side_of(number),
                "player": _player_ref(seats.get(number)),
            }
            for number in range(game.players)
        ],
        "scores": game.scores,
        "camas": game.camas,
        "turn": game.turn,
        "deadline": game.deadline.isoformat() if game.deadline else None,
        "created_at": game.created_at.isoformat(),
        "updated_at": game.updated_at.isoformat(),
        "my_seat": my_seat,
        "awaiting": awaiting,
    }


def _player_ref(player: Player | None) -> dict[str, Any] | None:
    if player is None:
        return None
    return {"id": player.pk, "name": player.public_name}


# --- a player's games, for his profile and the lobby ---------------------------------------------


def have_shared_a_table(player_id: int, other_id: int) -> bool:
    """Whether the two ever sat at one game (started or over): "known" to each other."""
    theirs = Seat.objects.filter(player_id=other_id).values("game_id")
    return Seat.objects.filter(
        player_id=player_id, game_id__in=theirs, game__started_at__isnull=False
    ).exists()


def pool_stats(player: Player) -> list[dict[str, Any]]:
    """Games, wins and losses in every pool, counting each finished match with a winner (rated or
    not; an aborted game is no result)."""
    counts: dict[tuple[str, str], list[int]] = {
        (family.value, size.value): [0, 0] for family in RatingFamily for size in RatingSize
    }
    finished = Seat.objects.filter(
        player=player, game__status=Game.Status.FINISHED, game__winner_side__isnull=False
    ).values_list("number", "game__preset", "game__players", "game__winner_side")
    for number, preset, players, winner_side in finished:
        if players not in TABLE_SIZES or preset not in PRESET_FAMILIES:
            continue  # a table with no rating pool
        family, size = rating_pool(preset, players)
        counts[(family.value, size.value)][number % 2 != winner_side] += 1
    return [
        {"family": family, "size": size, "games": wins + losses, "wins": wins, "losses": losses}
        for (family, size), (wins, losses) in counts.items()
    ]

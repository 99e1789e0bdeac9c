"""The streams' batch read: many games, their seats and each one's next events at once, and
their states brought up to date from what the process keeps (``states_after``).

A streams process reads every game a notification woke together (streams/game_stream.py). On
PostgreSQL that is one pipeline of three statements (``sql.games_and_events``); elsewhere
(SQLite) the ORM's ``get_games`` and ``load_event_ranges``.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from functools import reduce

from django.db.models import Q

from games import engine
from games.models import Game, GameEvent, GameId, Seat
from games.store import sql
from games.store.log import game_key, json_of, load_states, read_seats
from games.store.recent import keep_after_commit, recent


def read_games_and_events(
    keys: Sequence[tuple[GameId, int]], most: int
) -> tuple[list[Game], dict[uuid.UUID, list[GameEvent]]]:
    """The games of ``keys`` (game id, the last seq a reader has) that exist, each with its
    seats, and each key's next events, at most ``most`` (the caller keeps those up to the game
    row's version: the events' statement may see a later commit than the games' one; the log
    only grows, so nothing before that version is missed)."""
    wanted = list(dict.fromkeys((game_key(game_id), after) for game_id, after in keys))
    if not sql.postgresql():
        ranges = [(pk, after, after + most) for pk, after in wanted]
        return get_games([pk for pk, _ in wanted]), load_event_ranges(ranges)
    games, seats, events = sql.games_and_events(wanted, most)
    seats_by_game: dict[uuid.UUID, list[Seat]] = {game.pk: [] for game in games}
    for seat in seats:  # in (game, number) order
        seats_by_game[seat.game_id].append(seat)
    for game in games:
        game.seats_read = seats_by_game[game.pk]
    found: dict[uuid.UUID, list[GameEvent]] = {game.pk: [] for game in games}
    for row in events:  # in (game, seq) order; two keys of one game may both read a row
        same_game = found[row.game_id]
        if not same_game or same_game[-1].seq != row.seq:
            same_game.append(row)
    return games, found


def get_games(game_ids: Sequence[GameId]) -> list[Game]:
    """The games of these (well-formed) ids that exist, each with its seats: two statements
    for all of them."""
    keys = [game_key(pk) for pk in dict.fromkeys(game_ids)]
    games = list(Game.objects.defer("snapshot").filter(pk__in=keys).order_by())
    read_seats(games)
    return games


def load_event_ranges(
    ranges: Sequence[tuple[GameId, int, int]],
) -> dict[uuid.UUID, list[GameEvent]]:
    """The events of many games, each its own range: (game id, after, up to and with) ->
    {game id: its events in seq order}, in one statement."""
    found: dict[uuid.UUID, list[GameEvent]] = {game_key(pk): [] for pk, _, _ in ranges}
    wanted = [(game_key(pk), after, upto) for pk, after, upto in ranges if upto > after]
    if wanted:
        within = Q()
        for pk, after, upto in wanted:
            within |= Q(game_id=pk, seq__gt=after, seq__lte=upto)
        for row in GameEvent.objects.filter(within).order_by("game", "seq"):
            found[row.game_id].append(row)
    return found


def states_after(
    games: Sequence[Game], events: dict[uuid.UUID, list[GameEvent]]
) -> list[engine.State]:
    """``load_states``, except that a game whose events just read (``events``, in seq order, up
    to its version) follow on a state this process keeps is brought up to date by folding them
    onto it: no statement and no fold of the hand from its snapshot. A stream's process reads
    every move's events anyway, and a state is the fold of its log (the event store's one rule),
    wherever the fold starts."""
    states: dict[uuid.UUID, engine.State] = {}
    for game in games:
        known = recent.latest(game.pk)
        rows = events.get(game.pk, [])
        if known is None or not rows or rows[-1].seq != game.version:
            continue
        newer = [row for row in rows if row.seq > known.version]
        if len(newer) == game.version - known.version:  # gapless from the kept state on
            payloads = (engine.event_from_json(json_of(row.payload)) for row in newer)
            states[game.pk] = folded = reduce(engine.evolve, payloads, known)
            keep_after_commit(game.pk, folded)
    rest = [game for game in games if game.pk not in states]
    states.update(zip([game.pk for game in rest], load_states(rest), strict=True))
    return [states[game.pk] for game in games]

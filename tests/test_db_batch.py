"""``db.batch``: the writes inside go as one statement at the end, and nothing can miss them."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from games.models import CamaRecord, Game, Seat
from tests.factories import PlayerFactory
from truc_api import db

pytestmark = pytest.mark.django_db


@pytest.fixture
def game() -> Game:
    player = PlayerFactory()
    game = Game.objects.create(
        preset="valenciano", rules={}, players=2, visibility="public", created_by=player
    )
    Seat.objects.create(game=game, number=0, player=player)
    return game


def _cama(game: Game, number: int) -> dict[str, object]:
    return {"game_id": game.pk, "number": number, "scores": [], "started_at": timezone.now()}


def _writes(game: Game, version: int) -> None:
    db.update_where(Game, {"version": version}, pk=game.pk)
    db.insert(CamaRecord, [_cama(game, version)])
    db.execute(
        "UPDATE games_seat SET awaiting = %s WHERE game_id = %s",
        [True, db.key(Game, game.pk)],
        writes="games_seat",
    )


def _writing(captured: CaptureQueriesContext) -> list[str]:
    """The statements sent to the game tables (not the test's savepoints)."""
    return [query["sql"] for query in captured.captured_queries if "games_" in query["sql"]]


def _applied(game: Game, version: int) -> bool:
    return (
        Game.objects.get(pk=game.pk).version == version
        and CamaRecord.objects.filter(game=game, number=version).exists()
        and Seat.objects.get(game=game).awaiting
    )


def test_the_writes_go_at_the_end_as_one_statement(game):
    with CaptureQueriesContext(connection) as sent, transaction.atomic(), db.batch():
        _writes(game, 7)
        assert not _writing(sent)  # held
    statements = _writing(sent)

    if connection.vendor == "postgresql":
        assert len(statements) == 1 and statements[0].startswith("WITH ")
    else:
        assert len(statements) == 3  # one by one, in order
    assert _applied(game, 7)


def test_a_read_within_a_batch_sees_the_writes_held_before_it(game):
    with transaction.atomic(), db.batch():
        _writes(game, 8)
        assert db.rows("SELECT version FROM games_game WHERE id = %s", [db.key(Game, game.pk)]) == [
            (8,)
        ]
        assert Seat.objects.get(game=game).awaiting  # the ORM's statements too
        db.update_where(Game, {"turn": 1}, pk=game.pk)

    assert _applied(game, 8)
    assert Game.objects.get(pk=game.pk).turn == 1


def test_a_second_write_to_a_table_sends_the_first_before_it(game):
    with CaptureQueriesContext(connection) as sent, transaction.atomic(), db.batch():
        db.update_where(Game, {"version": 3}, pk=game.pk)
        db.update_where(Game, {"turn": 1}, pk=game.pk)  # the same row: both must count

    found = Game.objects.get(pk=game.pk)
    assert (found.version, found.turn) == (3, 1)
    assert len(_writing(sent)) == 2


def test_a_held_write_that_fails_fails_the_batch_and_writes_nothing(game):
    db.insert(CamaRecord, [_cama(game, 1)])

    with pytest.raises(IntegrityError), transaction.atomic(), db.batch():
        db.update_where(Game, {"version": 9}, pk=game.pk)
        db.insert(CamaRecord, [_cama(game, 1)])  # taken

    assert Game.objects.get(pk=game.pk).version == 0


def test_an_error_within_the_batch_sends_nothing(game):
    with (
        CaptureQueriesContext(connection) as sent,
        pytest.raises(RuntimeError),
        transaction.atomic(),
        db.batch(),
    ):
        _writes(game, 5)
        raise RuntimeError("the action failed")

    assert _writing(sent) == []
    assert not _applied(game, 5)

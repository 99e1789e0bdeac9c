"""Turn timeouts: what a passed deadline does (games/timeouts.py), on PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games import engine, services, timeouts
from games.errors import StaleVersion
from games.models import Game, GameEvent, Seat
from games.store.log import load_state
from tests.factories import PlayerFactory


def _started(preset: str = "valenciano", players: int = 2, **clock) -> Game:
    people = [PlayerFactory.create() for _ in range(players)]
    game = services.create_game(
        people[0], preset=preset, options={}, players=players, visibility="public", **clock
    )
    for person in people[1:]:
        services.join_game(person, game.pk)
    return Game.objects.get(pk=game.pk)


def _overdue(game: Game, *, acted: bool = True) -> Game:
    Seat.objects.filter(game=game).update(has_acted=acted)
    Game.objects.filter(pk=game.pk).update(deadline=timezone.now() - timedelta(seconds=1))
    return Game.objects.get(pk=game.pk)


def _types_after(game: Game, seq: int) -> list[str]:
    return list(GameEvent.objects.filter(game=game, seq__gt=seq).values_list("type", flat=True))


@pytest.mark.django_db
def test_deadline_is_set_with_the_event_that_hands_the_turn_over():
    before = timezone.now()
    game = _started(turn_seconds=600)
    assert game.deadline is not None
    assert (
        before + timedelta(seconds=600) <= game.deadline <= timezone.now() + timedelta(seconds=600)
    )


@pytest.mark.django_db
def test_timeout_plays_the_lowest_card_for_the_player():
    game = _overdue(_started("valenciano"))
    state = load_state(game)
    seat = engine.turn(state)
    held = state.hand.held[seat]
    lowest = min(held, key=engine.cards.TRUCO_RANK.__getitem__)

    assert timeouts.apply_timeout(game.pk, game.version) is True

    types = _types_after(game, game.version)
    assert types[:2] == ["turn_timed_out", "card_played"]
    played = GameEvent.objects.get(game=game, type="card_played")
    assert played.payload["card"] == lowest and played.payload["seat"] == seat
    assert Seat.objects.get(game=game, number=seat).timeouts == 1


@pytest.mark.django_db
def test_timeout_refuses_a_pending_call():
    game = _started("valenciano")
    services.act(
        game.created_by,
        game.pk,
        {"type": "truc", "expected_version": game.version},
        "k",
    )
    game = _overdue(Game.objects.get(pk=game.pk))

    assert timeouts.apply_timeout(game.pk, game.version) is True

    assert _types_after(game, game.version)[:2] == ["turn_timed_out", "truco_refused"]


@pytest.mark.django_db
def test_timeout_passes_in_the_envido_phase():
    game = _overdue(_started("argentino"))
    assert timeouts.apply_timeout(game.pk, game.version) is True
    assert _types_after(game, game.version) == ["turn_timed_out", "envido_passed"]


@pytest.mark.django_db
def test_consecutive_timeouts_forfeit_the_match_for_that_side():
    game = _started("valenciano", forfeit_after=2)
    seat = engine.turn(load_state(game))
    Seat.objects.filter(game=game, number=seat).update(timeouts=1)
    game = _overdue(game)

    assert timeouts.apply_timeout(game.pk, game.version) is True

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    assert game.winner_side == 1 - seat % 2
    assert game.end_reason == "timeouts"
    assert game.rated is True
    assert _types_after(game, game.version - 2) == ["turn_timed_out", "match_ended"]


@pytest.mark.django_db
def test_a_seat_that_never_acted_aborts_the_game_unrated(way: str) -> None:
    game = _overdue(_started("valenciano"), acted=False)

    assert timeouts.apply_timeout(game.pk, game.version) is True

    game.refresh_from_db()
    assert game.status == Game.Status.ABORTED
    assert game.rated is False
    assert game.winner_side is None
    assert game.deadline is None


@pytest.mark.django_db
def test_acting_in_time_resets_the_count_of_timeouts():
    game = _started("valenciano")
    Seat.objects.filter(game=game, number=0).update(timeouts=2)
    state = load_state(game)
    card = state.hand.held[0][0]
    body = {"type": "play", "card": card, "expected_version": game.version}
    services.act(game.created_by, game.pk, body, "k")
    seat = Seat.objects.get(game=game, number=0)
    assert seat.timeouts == 0 and seat.has_acted


@pytest.mark.django_db
def test_timeout_is_a_no_op_when_stale_or_not_due():
    game = _started("valenciano")
    assert timeouts.apply_timeout(game.pk, game.version) is False  # the deadline is a day away
    game = _overdue(game)
    assert timeouts.apply_timeout(game.pk, game.version - 1) is False  # a stale task
    assert timeouts.apply_timeout(game.pk, game.version) is True
    assert timeouts.apply_timeout(game.pk, game.version) is False  # a redelivered copy
    assert _types_after(game, game.version).count("turn_timed_out") == 1


@pytest.mark.django_db
def test_a_late_move_meets_the_timeout_first():
    game = _overdue(_started("valenciano"))
    state = load_state(game)
    seat = engine.turn(state)
    player = Seat.objects.get(game=game, number=seat).player
    body = {"type": "play", "card": state.hand.held[seat][0], "expected_version": game.version}

    with pytest.raises(StaleVersion):
        services.act(player, game.pk, body, "late")

    assert _types_after(game, game.version)[0] == "turn_timed_out"


@pytest.mark.django_db
def test_sweep_applies_every_overdue_game_once(way: str) -> None:
    games = [_overdue(_started("valenciano")) for _ in range(3)]
    fresh = _started("valenciano")

    assert timeouts.sweep() == 3
    assert timeouts.sweep() == 0

    for game in games:
        assert _types_after(game, game.version).count("turn_timed_out") == 1
    assert not GameEvent.objects.filter(game=fresh, type="turn_timed_out").exists()

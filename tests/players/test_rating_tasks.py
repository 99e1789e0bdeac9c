"""Rating finished games: the service, the Celery tasks on a real worker, and the ratings API.

The service is games/'s (``games.rated_results``: who sat where, who won) over players/' Elo writes
(``players.services.rate_match``). The worker tests run `games.tasks`' rating tasks in a real
Celery worker thread on the Redis broker (tests/celery_fixtures.py); the others call the service
or the API in one test transaction.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone
from rest_framework.test import APIClient

from games import services as game_services
from games import tasks
from games.models import Game, Seat
from games.rated_results import rate_game, rating_changes_for, unrated_games
from players import services as player_services
from players.models import Rating, RatingChange
from players.ratings import START_RATING, Standing, rate_teams, rating_delta
from tests.celery_fixtures import eventually
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def finished_game(
    players: int = 2,
    *,
    preset: str = "valenciano",
    winner_side: int | None = 0,
    status: str = Game.Status.FINISHED,
    rated: bool = True,
    ago: timedelta = timedelta(minutes=2),
    people: list[Any] | None = None,
) -> Game:
    """A game over, written straight to its rows: seats 0 and 2 are side 0, 1 and 3 side 1."""
    people = people or [PlayerFactory.create() for _ in range(players)]
    game = Game.objects.create(
        preset=preset,
        rules={},
        players=players,
        visibility=Game.Visibility.PUBLIC,
        status=status,
        rated=rated,
        winner_side=winner_side,
        end_reason="match_won" if winner_side is not None else "abandoned",
        created_by=people[0],
        finished_at=timezone.now() - ago,
    )
    Seat.objects.bulk_create(
        Seat(game=game, number=number, player=person) for number, person in enumerate(people)
    )
    return game


def deltas(game: Game) -> dict[int, int]:
    return dict(RatingChange.objects.filter(game=game).values_list("player_id", "delta"))


def rating(player: Any, family: str = "valenciano", size: str = "1v1") -> Rating:
    return Rating.objects.get(player=player, family=family, size=size)


# --- the service ---------------------------------------------------------------------------------


def test_rate_game_moves_winner_up_and_loser_down_by_the_same_points():
    game = finished_game(winner_side=1)
    seat0, seat1 = (seat.player for seat in game.seats.order_by("number"))

    changes = rate_game(game.pk)

    assert len(changes) == 2
    assert deltas(game) == {seat0.pk: -20, seat1.pk: 20}
    assert (rating(seat0).value, rating(seat0).games) == (START_RATING - 20, 1)
    assert (rating(seat1).value, rating(seat1).games) == (START_RATING + 20, 1)


def test_rate_game_twice_is_a_no_op():
    game = finished_game()
    rate_game(game.pk)

    assert rate_game(game.pk) == []
    assert RatingChange.objects.filter(game=game).count() == 2
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_rate_game_2v2_rates_each_player_against_the_opposing_pairs_average():
    people = [PlayerFactory.create() for _ in range(4)]
    start = [(1500, 3), (1700, 25), (1600, 40), (1600, 2)]
    for person, (value, games) in zip(people, start, strict=True):
        Rating.objects.create(
            player=person, family="argentino", size="2v2", value=value, games=games
        )
    game = finished_game(4, preset="argentino", winner_side=0, people=people)

    rate_game(game.pk)

    s = [Standing(value, games) for value, games in start]
    (d0, d2), (d1, d3) = rate_teams((s[0], s[2]), (s[1], s[3]), 1.0)
    assert deltas(game) == {
        people[0].pk: d0,
        people[1].pk: d1,
        people[2].pk: d2,
        people[3].pk: d3,
    }
    # Seat 0 (1500, K 40) and seat 2 (1600, K 20) both beat a pair averaging 1650.
    assert (d0, d2) == (round(40 * (1 - 1 / (1 + 10 ** (150 / 400)))), 11)


def test_rate_game_3v3_rates_each_player_in_the_3v3_pool_against_the_other_sides_average():
    people = [PlayerFactory.create() for _ in range(6)]
    game = finished_game(6, preset="argentino", winner_side=1, people=people)

    rate_game(game.pk)

    # Everyone enters the argentino/3v3 pool at 1500, provisional: K 40 against an average 1500.
    expected = {person.pk: 20 if seat % 2 else -20 for seat, person in enumerate(people)}
    assert deltas(game) == expected
    pools = set(Rating.objects.values_list("family", "size", "games"))
    assert pools == {("argentino", "3v3", 1)}


def test_rate_teams_averages_three_partners():
    side_a = (Standing(1500, 3), Standing(1700, 25), Standing(1600, 40))
    side_b = (Standing(1400, 30), Standing(1600, 30), Standing(1500, 30))
    changes_a, changes_b = rate_teams(side_a, side_b, 0.0)
    # Side A (average 1600) loses to side B (average 1500); each against the other's average.
    assert changes_a == tuple(rating_delta(s.rating, 1500, 0.0, s.k) for s in side_a)
    assert changes_b == tuple(rating_delta(s.rating, 1600, 1.0, s.k) for s in side_b)
    assert all(change < 0 for change in changes_a) and all(change > 0 for change in changes_b)


def test_rate_game_puts_both_argentino_presets_in_one_pool():
    person = PlayerFactory.create()
    finished_game(preset="argentino", people=[person, PlayerFactory.create()])
    finished_game(preset="argentino_clasico", people=[person, PlayerFactory.create()])

    for game in Game.objects.all():
        rate_game(game.pk)

    assert list(Rating.objects.filter(player=person).values_list("family", "size", "games")) == [
        ("argentino", "1v1", 2)
    ]


def test_rate_game_uses_the_established_k_after_twenty_games():
    veteran, newcomer = PlayerFactory.create(), PlayerFactory.create()
    Rating.objects.create(player=veteran, family="valenciano", size="1v1", games=20)
    game = finished_game(people=[newcomer, veteran], winner_side=0)

    rate_game(game.pk)

    assert deltas(game) == {newcomer.pk: 20, veteran.pk: -10}


@pytest.mark.parametrize(
    "fields",
    [
        {"status": Game.Status.ABORTED, "winner_side": None},
        {"status": Game.Status.ABORTED, "winner_side": 0},
        {"rated": False},
        {"winner_side": None},
        {"status": Game.Status.ACTIVE},
    ],
    ids=["aborted", "aborted-with-winner", "unrated", "no-winner", "still-playing"],
)
def test_rate_game_ignores_games_that_do_not_count(fields):
    game = finished_game(**fields)

    assert rate_game(game.pk) == []
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


@pytest.mark.parametrize("game_id", ["3f1c2a9e-5b7d-4e2f-9a61-0c8d4b2e7f10", "not-a-uuid", None])
def test_rate_game_of_no_such_game_is_a_no_op(game_id):
    assert rate_game(game_id) == []


def test_rate_game_unique_constraint_turns_a_duplicate_into_a_no_op(monkeypatch):
    game = finished_game()
    rate_game(game.pk)
    # A writer whose check under the lock missed the changes: the database refuses the duplicate.
    checks = iter([False])
    monkeypatch.setattr(player_services, "_rated_before", lambda game: next(checks, True))

    assert rate_game(game.pk) == []
    assert RatingChange.objects.filter(game=game).count() == 2
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_rating_changes_for_lists_the_game_in_seat_order():
    people = [PlayerFactory.create(display_name=""), PlayerFactory.create(display_name="Pep")]
    game = finished_game(people=people, winner_side=0)
    assert rating_changes_for(game) == []

    rate_game(game.pk)

    assert rating_changes_for(game) == [
        {
            "player_id": people[0].pk,
            "name": people[0].username,
            "seat": 0,
            "family": "valenciano",
            "size": "1v1",
            "before": 1500,
            "after": 1520,
            "delta": 20,
        },
        {
            "player_id": people[1].pk,
            "name": "Pep",
            "seat": 1,
            "family": "valenciano",
            "size": "1v1",
            "before": 1500,
            "after": 1480,
            "delta": -20,
        },
    ]


def test_unrated_games_skips_recent_rated_and_uncounted_games():
    lost = finished_game(ago=timedelta(minutes=10))
    recent = finished_game(ago=timedelta(seconds=5))
    rated = finished_game()
    rate_game(rated.pk)
    finished_game(rated=False)
    finished_game(status=Game.Status.ABORTED, winner_side=None)
    cutoff = timezone.now() - timedelta(minutes=1)

    assert unrated_games(finished_before=cutoff) == [lost.pk]
    assert unrated_games() == [lost.pk, recent.pk]
    assert unrated_games(limit=1) == [lost.pk]


# --- the tasks, on a real worker -----------------------------------------------------------------


def test_rate_game_task_rates_a_game_won_by_resignation(celery_worker_thread):
    winner, loser = PlayerFactory.create(), PlayerFactory.create()
    game = game_services.create_game(
        winner, preset="argentino", options={}, players=2, visibility="public"
    )
    game_services.join_game(loser, game.pk)
    with transaction.atomic():
        game_services.resign(loser, game.pk)
        # What the game server sends when a match ends: nothing goes out before the commit.
        tasks.rate_game.delay_on_commit(game.pk)

    assert eventually(lambda: RatingChange.objects.filter(game=game).count() == 2)
    assert deltas(game) == {winner.pk: 20, loser.pk: -20}
    assert rating(winner, "argentino").value == 1520


def test_rate_game_sent_five_times_with_the_reconciler_rates_each_player_once(
    celery_worker_thread,
):
    game = finished_game(4, winner_side=1)

    for _ in range(5):
        tasks.rate_game.delay(game.pk)
    tasks.reconcile_ratings.delay()

    done = celery_worker_thread.wait_for(6)
    assert len(done) == 6, done
    assert all(task.state == "SUCCESS" for task in done), done
    # Exactly one of the six did the work: 4 changes from a rate_game, or 1 game reconciled.
    assert sorted(task.retval for task in done) in ([0, 0, 0, 0, 0, 1], [0, 0, 0, 0, 0, 4])
    assert RatingChange.objects.filter(game=game).count() == 4
    assert sorted(deltas(game).values()) == [-20, -20, 20, 20]
    assert set(Rating.objects.values_list("games", flat=True)) == {1}


def test_tasks_never_rate_aborted_or_unrated_games(celery_worker_thread):
    games = [
        finished_game(status=Game.Status.ABORTED, winner_side=None),
        finished_game(status=Game.Status.ABORTED, winner_side=0),
        finished_game(rated=False),
    ]

    for game in games:
        tasks.rate_game.delay(game.pk)
    tasks.reconcile_ratings.delay(grace_seconds=0)

    done = celery_worker_thread.wait_for(4)
    assert [task.retval for task in done] == [0, 0, 0, 0], done
    assert not RatingChange.objects.exists()
    assert not Rating.objects.exists()


def test_reconciler_rates_a_game_whose_task_was_lost(celery_worker_thread):
    lost = finished_game(ago=timedelta(minutes=7))
    just_over = finished_game(ago=timedelta(seconds=1))  # its own task is still on its way

    tasks.reconcile_ratings.delay()

    done = celery_worker_thread.wait_for(1)
    assert [task.retval for task in done] == [1]
    assert RatingChange.objects.filter(game=lost).count() == 2
    assert not RatingChange.objects.filter(game=just_over).exists()


# --- the API -------------------------------------------------------------------------------------


@pytest.fixture
def viewer(api_client: APIClient) -> APIClient:
    api_client.force_authenticate(PlayerFactory.create())
    return api_client


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code
    return body


def test_player_ratings_lists_every_pool_even_unplayed(viewer):
    person = PlayerFactory.create()

    body = viewer.get(f"/api/players/{person.pk}/ratings").json()

    assert body["player"]["id"] == person.pk
    assert [(r["family"], r["size"], r["value"], r["games"]) for r in body["ratings"]] == [
        ("valenciano", "1v1", 1500, 0),
        ("valenciano", "2v2", 1500, 0),
        ("valenciano", "3v3", 1500, 0),
        ("argentino", "1v1", 1500, 0),
        ("argentino", "2v2", 1500, 0),
        ("argentino", "3v3", 1500, 0),
    ]
    assert all(r["provisional"] and r["updated_at"] is None for r in body["ratings"])
    assert body["history"] == {"count": 0, "next": None, "previous": None, "results": []}


def test_player_ratings_history_is_newest_first_paginated_and_filtered(viewer):
    person = PlayerFactory.create()
    games = [
        finished_game(people=[person, PlayerFactory.create()], winner_side=0),
        finished_game(people=[PlayerFactory.create(), person], winner_side=0),
        finished_game(4, preset="argentino", people=[person, *PlayerFactory.create_batch(3)]),
    ]
    for game in games:
        rate_game(game.pk)
    url = f"/api/players/{person.pk}/ratings"

    body = viewer.get(url).json()
    assert [c["game"] for c in body["history"]["results"]] == [str(g.pk) for g in reversed(games)]
    assert [c["delta"] for c in body["history"]["results"]] == [20, -21, 20]
    first = body["history"]["results"][-1]
    assert (first["before"], first["after"], first["family"], first["size"]) == (
        1500,
        1520,
        "valenciano",
        "1v1",
    )
    assert body["ratings"][0]["value"] == 1499
    assert body["ratings"][4]["value"] == 1520  # argentino 2v2

    page = viewer.get(url, {"limit": 1, "offset": 1}).json()["history"]
    assert page["count"] == 3
    assert [c["game"] for c in page["results"]] == [str(games[1].pk)]
    assert "offset=2" in page["next"] and page["previous"]

    valenciano = viewer.get(url, {"family": "valenciano"}).json()["history"]
    assert valenciano["count"] == 2
    pairs = viewer.get(url, {"size": "2v2"}).json()["history"]
    assert [c["game"] for c in pairs["results"]] == [str(games[2].pk)]


def test_player_ratings_refuses_unknown_filters_and_players(viewer):
    person = PlayerFactory.create()

    body = assert_problem(
        viewer.get(f"/api/players/{person.pk}/ratings", {"family": "bisca"}), 400, "invalid_request"
    )
    assert [(error["field"], error["code"]) for error in body["errors"]] == [
        ("family", "invalid_choice")
    ]
    assert_problem(viewer.get("/api/players/999999/ratings"), 404, "not_found")
    assert_problem(APIClient().get(f"/api/players/{person.pk}/ratings"), 401, "not_authenticated")


def make_board(family: str = "valenciano", size: str = "1v1") -> list[Rating]:
    """Four ratings in one pool, and one elsewhere; best first as the board must order them."""
    rows = [(1700, 5), (1600, 30), (1600, 10), (1500, 50)]
    board = [
        Rating.objects.create(
            player=PlayerFactory.create(), family=family, size=size, value=v, games=g
        )
        for v, g in [rows[2], rows[0], rows[3], rows[1]]
    ]
    Rating.objects.create(player=PlayerFactory.create(), family="argentino", size=size, value=2000)
    return sorted(board, key=lambda r: (-r.value, -r.games))


def test_leaderboard_orders_by_rating_then_games(viewer):
    board = make_board()

    body = viewer.get("/api/leaderboards/valenciano/1v1").json()

    assert body["count"] == 4
    assert [row["player"]["id"] for row in body["results"]] == [r.player_id for r in board]
    assert [row["rank"] for row in body["results"]] == [1, 2, 3, 4]
    assert [(row["value"], row["games"]) for row in body["results"]] == [
        (1700, 5),
        (1600, 30),
        (1600, 10),
        (1500, 50),
    ]
    assert [row["provisional"] for row in body["results"]] == [True, False, True, False]


def test_leaderboard_pages_keep_the_rank(viewer):
    board = make_board()

    body = viewer.get("/api/leaderboards/valenciano/1v1", {"limit": 2, "offset": 2}).json()

    assert body["count"] == 4
    assert body["next"] is None and "limit=2" in body["previous"]
    assert [(row["rank"], row["player"]["id"]) for row in body["results"]] == [
        (3, board[2].player_id),
        (4, board[3].player_id),
    ]


def test_leaderboard_filters_by_min_games(viewer):
    make_board()

    body = viewer.get("/api/leaderboards/valenciano/1v1", {"min_games": 30}).json()

    assert [(row["rank"], row["games"]) for row in body["results"]] == [(1, 30), (2, 50)]
    assert_problem(
        viewer.get("/api/leaderboards/valenciano/1v1", {"min_games": "many"}),
        400,
        "invalid_request",
    )


@pytest.mark.parametrize("pool", ["bisca/1v1", "valenciano/4v4", "argentino_clasico/2v2"])
def test_leaderboard_of_an_unknown_pool_is_not_found(viewer, pool):
    assert_problem(viewer.get(f"/api/leaderboards/{pool}"), 404, "not_found")


@pytest.mark.parametrize("pool", ["argentino/2v2", "valenciano/3v3"])
def test_leaderboard_of_an_empty_pool_is_empty(viewer, pool):
    body = viewer.get(f"/api/leaderboards/{pool}").json()
    assert body == {"count": 0, "next": None, "previous": None, "results": []}

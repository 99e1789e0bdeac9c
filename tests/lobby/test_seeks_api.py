"""Seeks through HTTP: paired on arrival, cancelled, expired, filled with bots, and refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import Game, Seat
from lobby import seeks
from lobby.models import QueueEntry, Seek
from players.models import Rating
from streams.models import PlayerNotice

SEEK = {"preset": "valenciano", "players": 2, "turn_seconds": 60, "rated": True}


def test_seek_waits_alone_then_pairs_with_the_next_compatible_seeker(make_client):
    ana, pep = make_client(), make_client()
    first = ana.post("/api/seeks", SEEK)
    assert first.status_code == 201, first.json()
    assert first.json()["status"] == "open" and first.json()["game_id"] is None
    where = first.headers["Location"]
    assert where == f"/api/seeks/{first.json()['id']}" and ana.get(where).json() == first.json()

    second = pep.post("/api/seeks", SEEK)
    assert second.status_code == 201
    body = second.json()
    assert body["status"] == "matched"
    game = Game.objects.get(pk=body["game_id"])
    assert game.status == Game.Status.ACTIVE and game.rated and game.turn_seconds == 60
    assert set(Seat.objects.filter(game=game).values_list("player_id", flat=True)) == {
        ana.player.pk,
        pep.player.pk,
    }
    assert ana.get(f"/api/seeks/{first.json()['id']}").json()["game_id"] == body["game_id"]
    assert not QueueEntry.objects.exists()


def test_seekers_of_other_pools_are_not_paired(make_client):
    ana, pep, rosa = make_client(), make_client(), make_client()
    ana.post("/api/seeks", SEEK)
    assert pep.post("/api/seeks", {**SEEK, "rated": False}).json()["status"] == "open"
    assert rosa.post("/api/seeks", {**SEEK, "turn_seconds": 120}).json()["status"] == "open"
    other_rules = {**SEEK, "options": {"target": 12, "buenas_from": 7}}
    assert make_client().post("/api/seeks", other_rules).json()["status"] == "open"
    assert not Game.objects.exists()


def test_a_rating_window_keeps_far_ratings_apart_until_it_widens(make_client):
    ana, pep = make_client(), make_client()
    Rating.objects.create(player=pep.player, family="valenciano", size="1v1", value=1800)
    ana.post("/api/seeks", SEEK)
    assert pep.post("/api/seeks", SEEK).json()["status"] == "open"  # 300 apart: 100 either side
    # 150 s later both windows are 100 + 2 * 150 = 400 wide: the sweep pairs them.
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=150))["games"] == 1
    assert Seek.objects.filter(status="matched").count() == 2


def test_an_explicit_range_is_respected(make_client):
    ana, pep = make_client(), make_client()
    Rating.objects.create(player=pep.player, family="valenciano", size="1v1", value=1560)
    ana.post("/api/seeks", {**SEEK, "rating_min": 1400, "rating_max": 1550})
    assert pep.post("/api/seeks", SEEK).json()["status"] == "open"
    assert seeks.sweep(now=timezone.now() + timedelta(hours=1))["games"] == 0


def test_cancel_then_cancel_again_is_refused(make_client):
    ana = make_client()
    seek = ana.post("/api/seeks", SEEK).json()
    cancelled = ana.http.delete(f"/api/seeks/{seek['id']}")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    again = ana.http.delete(f"/api/seeks/{seek['id']}")
    assert again.status_code == 409 and again.json()["code"] == "seek_closed"
    assert again["Content-Type"] == "application/problem+json"


def test_a_seek_is_private_to_its_seekers(make_client):
    ana, pep = make_client(), make_client()
    seek = ana.post("/api/seeks", SEEK).json()
    assert pep.get(f"/api/seeks/{seek['id']}").json()["code"] == "not_found"
    assert pep.http.delete(f"/api/seeks/{seek['id']}").status_code == 404
    assert pep.get("/api/seeks/not-a-uuid").status_code == 404
    assert Seek.objects.get(pk=seek["id"]).status == "open"


def test_one_seek_at_a_time(make_client):
    ana = make_client()
    ana.post("/api/seeks", SEEK)
    again = ana.post("/api/seeks", {**SEEK, "preset": "argentino"})
    assert again.status_code == 409 and again.json()["code"] == "already_seeking"
    assert Seek.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "field", "code", "status"),
    [
        # Each field as the schema allows, together refused: a 422 (games/contract.py's rule).
        ({**SEEK, "bot_after": 10}, "bot_after", "rated_seek", 422),
        ({**SEEK, "partner_id": 1}, "partner_id", "no_partner_at_2", 422),
        ({**SEEK, "rating_min": 1600, "rating_max": 1500}, "rating_min", "empty_range", 422),
        ({**SEEK, "preset": "bisca"}, "preset", "invalid_choice", 400),
        ({**SEEK, "colour": "red"}, "colour", "unknown_field", 400),
        ({**SEEK, "players": 3}, "players", "invalid_choice", 400),
    ],
)
def test_bad_seeks_are_refused(make_client, body, field, code, status):
    response = make_client().post("/api/seeks", body)
    assert response.status_code == status
    assert response.json()["code"] == ("invalid_request" if status == 400 else "fields_refused")
    assert [(e["field"], e["code"]) for e in response.json()["errors"]] == [(field, code)]
    assert not Seek.objects.exists()


def test_a_seek_expires(make_client):
    ana = make_client()
    seek = ana.post("/api/seeks", {**SEEK, "expires_in": 60}).json()
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=30))["expired"] == 0
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=61))["expired"] == 1
    assert ana.get(f"/api/seeks/{seek['id']}").json()["status"] == "expired"
    assert not QueueEntry.objects.exists()
    assert ana.post("/api/seeks", SEEK).status_code == 201  # free to seek again


def test_an_expired_seek_is_never_paired(make_client):
    ana, pep = make_client(), make_client()
    ana.post("/api/seeks", {**SEEK, "expires_in": 5})
    pep.post("/api/seeks", {**SEEK, "rated": False})
    later = timezone.now() + timedelta(seconds=10)
    Seek.objects.filter(player=pep.player).update(rated=True, pool=Seek.objects.first().pool)
    assert seeks.pair_pool(Seek.objects.first().pool, now=later) == 0


def test_bots_fill_an_unrated_seek_after_its_wait(make_client):
    ana = make_client()
    seek = ana.post("/api/seeks", {**SEEK, "rated": False, "bot_after": 20}).json()
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=5))["bot_games"] == 0
    assert seeks.sweep(now=timezone.now() + timedelta(seconds=21))["bot_games"] == 1
    game = Game.objects.get(pk=ana.get(f"/api/seeks/{seek['id']}").json()["game_id"])
    assert game.status == Game.Status.ACTIVE and game.has_bots and not game.rated
    assert Seat.objects.get(game=game, number=1).bot_level == "basic"


def test_partners_queue_together_and_sit_on_one_side(make_client):
    ana, pep, rosa, joan = (make_client() for _ in range(4))
    four = {**SEEK, "players": 4}
    pair = ana.post("/api/seeks", {**four, "partner_id": pep.player.pk}).json()
    assert pair["status"] == "waiting_partner"
    assert rosa.post("/api/seeks", four).json()["status"] == "open"
    # Not paired while the partner has not confirmed.
    assert joan.post("/api/seeks", four).json()["status"] == "open"
    assert rosa.post(f"/api/seeks/{pair['id']}/join").status_code == 404  # not the partner
    own = ana.post(f"/api/seeks/{pair['id']}/join")  # hers, but the partner confirms it
    assert (own.status_code, own.json()["code"]) == (403, "not_the_partner")
    joined = pep.post(f"/api/seeks/{pair['id']}/join")
    assert joined.status_code == 200 and joined.json()["status"] == "matched", joined.json()
    seats = dict(
        Seat.objects.filter(game_id=joined.json()["game_id"]).values_list("player_id", "number")
    )
    assert seats[ana.player.pk] % 2 == seats[pep.player.pk] % 2
    assert seats[rosa.player.pk] % 2 == seats[joan.player.pk] % 2 != seats[ana.player.pk] % 2


def test_blocked_players_are_never_paired(make_client):
    ana, pep = make_client(), make_client()
    assert ana.post("/api/players/me/blocks", {"blocked_id": pep.player.pk}).status_code == 201
    ana.post("/api/seeks", SEEK)
    assert pep.post("/api/seeks", SEEK).json()["status"] == "open"
    assert seeks.sweep(now=timezone.now() + timedelta(minutes=5))["games"] == 0


def test_a_player_at_his_open_games_cap_is_still_paired(make_client, settings):
    settings.OPEN_GAMES_PER_PLAYER = 1
    ana, pep = make_client(), make_client()
    assert ana.post("/api/games", {"preset": "valenciano"}).status_code == 201  # his one open game
    ana.post("/api/seeks", SEEK)
    # A paired table starts full at once: it never waits open, so the cap is not his concern.
    assert pep.post("/api/seeks", SEEK).json()["status"] == "matched"


def test_a_match_found_is_told_on_both_players_streams(make_client):
    ana, pep = make_client(), make_client()
    ana.post("/api/seeks", SEEK)
    game_id = pep.post("/api/seeks", SEEK).json()["game_id"]
    for client in (ana, pep):
        [notice] = PlayerNotice.objects.filter(player=client.player, kind="match_found")
        assert notice.data["game_id"] == game_id
        assert sorted(notice.data["seats"]) == sorted([ana.player.pk, pep.player.pk])


def test_a_cancelled_seek_stays_readable_and_its_join_says_why_not(make_client):
    """DELETE cancels: the seek is still read (status `cancelled`), listed, and its join answers
    the partner that it is closed and its creator that only the partner joins, never a 404."""
    ana, pep = make_client(), make_client()
    pair = ana.post("/api/seeks", {**SEEK, "players": 4, "partner_id": pep.player.pk}).json()
    cancelled = ana.http.delete(f"/api/seeks/{pair['id']}")
    assert (cancelled.status_code, cancelled.json()["status"]) == (200, "cancelled")
    read = ana.get(f"/api/seeks/{pair['id']}")
    assert (read.status_code, read.json()["status"]) == (200, "cancelled")
    assert [seek["id"] for seek in ana.get("/api/seeks").json()] == [pair["id"]]
    own = ana.post(f"/api/seeks/{pair['id']}/join")
    assert (own.status_code, own.json()["code"]) == (403, "not_the_partner")
    late = pep.post(f"/api/seeks/{pair['id']}/join")
    assert (late.status_code, late.json()["code"]) == (409, "seek_closed")
    again = ana.http.delete(f"/api/seeks/{pair['id']}")
    assert (again.status_code, again.json()["code"]) == (409, "seek_closed")

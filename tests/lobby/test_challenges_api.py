"""Challenges through HTTP: named and by link, at tables of 2 and 4, and every refusal."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone

from games.models import Game, GameId, Seat
from lobby import challenges
from lobby.models import Challenge
from notifications.models import Delivery
from notifications.services import subscribe

CHALLENGE = {"preset": "argentino", "rated": False, "turn_seconds": 3600}


def _seats(game_id: GameId) -> dict[int, int]:
    return dict(Seat.objects.filter(game_id=game_id).values_list("player_id", "number"))


def test_a_named_player_accepts_and_the_game_starts(make_client):
    ana, pep = make_client(), make_client()
    subscribe(pep.player, url="https://example.com/hook", kinds=["challenge_received"])
    sent = ana.post("/api/challenges", {**CHALLENGE, "opponents": [pep.player.pk]})
    assert sent.status_code == 201, sent.json()
    challenge = sent.json()
    assert challenge["status"] == "pending" and challenge["link_token"] is None
    assert sent.headers["Location"] == f"/api/challenges/{challenge['id']}"
    notice = Delivery.objects.get(kind="challenge_received")
    assert notice.payload["data"] == {"challenge_id": challenge["id"]}  # ids only, no name

    assert [c["id"] for c in pep.get("/api/challenges").json()] == [challenge["id"]]
    accepted = pep.post(f"/api/challenges/{challenge['id']}/accept")
    assert accepted.status_code == 200 and accepted.json()["status"] == "accepted"
    game = Game.objects.get(pk=accepted.json()["game_id"])
    assert game.status == Game.Status.ACTIVE and not game.rated and game.preset == "argentino"
    assert _seats(game.pk) == {ana.player.pk: 0, pep.player.pk: 1}

    again = pep.post(f"/api/challenges/{challenge['id']}/accept")
    assert again.status_code == 409 and again.json()["code"] == "challenge_closed"


def test_a_private_link_seats_whoever_opens_it(make_client):
    ana, stranger = make_client(), make_client()
    challenge = ana.post("/api/challenges", {**CHALLENGE, "visibility": "private"}).json()
    token = challenge["link_token"]
    assert token
    # The challenge is not there for someone without the link.
    assert stranger.get(f"/api/challenges/{challenge['id']}").status_code == 404
    assert stranger.post(f"/api/challenges/{challenge['id']}/accept").status_code == 404
    seen = stranger.get(f"/api/challenges/link/{token}")
    assert seen.status_code == 200 and seen.json()["link_token"] is None  # the challenger's only
    taken = stranger.post(f"/api/challenges/link/{token}/accept")
    assert taken.status_code == 200 and taken.json()["status"] == "accepted"
    game = Game.objects.get(pk=taken.json()["game_id"])
    assert game.visibility == "private" and _seats(game.pk)[stranger.player.pk] == 1
    assert make_client().post(f"/api/challenges/link/{token}/accept").status_code == 409
    assert make_client().post("/api/challenges/link/nonsense/accept").status_code == 404


def test_four_players_a_partner_an_opponent_and_an_open_seat(make_client):
    ana, partner, opponent, walk_in = (make_client() for _ in range(4))
    body = {
        **CHALLENGE,
        "players": 4,
        "partner_id": partner.player.pk,
        "opponents": [opponent.player.pk],
    }
    challenge = ana.post("/api/challenges", body).json()
    assert [(s["number"], s["player_id"]) for s in challenge["seats"]] == [
        (0, ana.player.pk),
        (1, opponent.player.pk),
        (2, partner.player.pk),
        (3, None),
    ]
    assert partner.post(f"/api/challenges/{challenge['id']}/accept").json()["status"] == "pending"
    assert opponent.post(f"/api/challenges/{challenge['id']}/accept").json()["status"] == "pending"
    done = walk_in.post(f"/api/challenges/link/{challenge['link_token']}/accept").json()
    assert done["status"] == "accepted"
    assert _seats(done["game_id"]) == {
        ana.player.pk: 0,
        opponent.player.pk: 1,
        partner.player.pk: 2,
        walk_in.player.pk: 3,
    }


def test_decline_with_a_reason_and_cancel(make_client):
    ana, pep = make_client(), make_client()
    first = ana.post("/api/challenges", {**CHALLENGE, "opponents": [pep.player.pk]}).json()
    assert first["decline_reason"] is None  # no reason while nobody declined: null, not ""
    declined = pep.post(f"/api/challenges/{first['id']}/decline", {"reason": "too_slow"})
    assert declined.json()["status"] == "declined"
    assert declined.json()["decline_reason"] == "too_slow"
    bad = pep.post(f"/api/challenges/{first['id']}/decline", {"reason": "smelly"})
    assert bad.status_code == 400 and bad.json()["errors"][0]["field"] == "reason"

    second = ana.post("/api/challenges", {**CHALLENGE, "opponents": [pep.player.pk]}).json()
    assert pep.post(f"/api/challenges/{second['id']}/cancel").json()["code"] == "not_challenged"
    assert ana.post(f"/api/challenges/{second['id']}/decline").json()["code"] == "not_challenged"
    assert ana.post(f"/api/challenges/{second['id']}/accept").json()["code"] == "not_challenged"
    assert ana.post(f"/api/challenges/{second['id']}/cancel").json()["status"] == "cancelled"
    late = pep.post(f"/api/challenges/{second['id']}/accept")
    assert late.status_code == 409 and late.json()["code"] == "challenge_closed"
    assert not Game.objects.exists()


def test_an_expired_challenge_cannot_be_accepted_and_the_sweep_closes_it(make_client):
    ana, pep = make_client(), make_client()
    body = {**CHALLENGE, "opponents": [pep.player.pk], "expires_in": 60}
    challenge = ana.post("/api/challenges", body).json()
    Challenge.objects.filter(pk=challenge["id"]).update(
        expires_at=timezone.now() - timedelta(seconds=1)
    )
    refused = pep.post(f"/api/challenges/{challenge['id']}/accept")
    assert refused.status_code == 409 and refused.json()["code"] == "challenge_expired"
    assert challenges.expire_due() == 1
    assert Challenge.objects.get(pk=challenge["id"]).status == "expired"
    assert not Game.objects.exists()


def test_blocks_and_strangers_refuse_challenges(make_client):
    ana, pep, rosa = make_client(), make_client(), make_client()
    pep.post("/api/players/me/blocks", {"blocked_id": ana.player.pk})
    refused = ana.post("/api/challenges", {**CHALLENGE, "opponents": [pep.player.pk]})
    assert refused.status_code == 403 and refused.json()["code"] == "challenge_refused"
    # The one who blocks is told he does.
    mine = pep.post("/api/challenges", {**CHALLENGE, "opponents": [ana.player.pk]})
    assert mine.status_code == 422 and mine.json()["code"] == "player_blocked"
    # rosa takes challenges only from players she has sat with.
    known = rosa.http.patch("/api/players/me", {"challenges_from": "known"}, format="json")
    assert known.status_code == 200 and known.json()["challenges_from"] == "known"
    stranger = ana.post("/api/challenges", {**CHALLENGE, "opponents": [rosa.player.pk]})
    assert stranger.status_code == 403 and stranger.json()["code"] == "challenge_refused"
    assert not Challenge.objects.exists()


def test_a_known_player_may_challenge_one_who_refuses_strangers(make_client, table):
    game_id, (ana, pep) = table("valenciano")
    pep.http.patch("/api/players/me", {"challenges_from": "known"}, format="json")
    sent = ana.post("/api/challenges", {**CHALLENGE, "opponents": [pep.player.pk]})
    assert sent.status_code == 201, sent.json()


def test_a_blocked_player_cannot_take_a_seat_by_the_link(make_client):
    ana, pep = make_client(), make_client()
    ana.post("/api/players/me/blocks", {"blocked_id": pep.player.pk})
    challenge = ana.post("/api/challenges", CHALLENGE).json()
    refused = pep.post(f"/api/challenges/link/{challenge['link_token']}/accept")
    assert refused.status_code == 403 and refused.json()["code"] == "challenge_refused"


def test_bad_challenges_are_refused(make_client):
    ana, pep = make_client(), make_client()
    cases = [
        # Each field as the schema allows it, refused by what they name: a 422.
        ({**CHALLENGE, "opponents": [999999]}, "opponents", "no_such_player", 422),
        ({**CHALLENGE, "opponents": [ana.player.pk]}, "opponents", "repeated", 422),
        ({**CHALLENGE, "opponents": [pep.player.pk, 999]}, "opponents", "too_many", 422),
        ({**CHALLENGE, "partner_id": pep.player.pk}, "partner_id", "no_partner_at_2", 422),
        ({**CHALLENGE, "preset": "bisca"}, "preset", "invalid_choice", 400),
    ]
    for body, field, code, status in cases:
        response = ana.post("/api/challenges", body)
        assert response.status_code == status, (body, response.json())
        assert (response.json()["errors"][0]["field"], response.json()["errors"][0]["code"]) == (
            field,
            code,
        )
    assert not Challenge.objects.exists()

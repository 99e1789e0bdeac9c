"""Rematch through HTTP: every seated player accepts, the new game starts, the games link, the
first dealer moves on; and every refusal."""

from __future__ import annotations

from games.models import Game, Seat


def _finished(table, players=2, **create):
    game_id, clients = table("valenciano", players=players, **create)
    assert clients[0].post(f"/api/games/{game_id}/resign").status_code == 200
    assert Game.objects.get(pk=game_id).status == Game.Status.FINISHED
    return game_id, clients


def test_everyone_accepts_and_the_new_game_starts_linked_with_the_dealer_moved_on(table):
    game_id, (ana, pep) = _finished(table)
    offered = ana.post(f"/api/games/{game_id}/rematch")
    assert offered.status_code == 200, offered.json()
    assert offered.json()["status"] == "offered" and offered.json()["accepted_by"] == [
        ana.player.pk
    ]
    started = pep.post(f"/api/games/{game_id}/rematch").json()
    assert started["status"] == "started"
    new_id = started["next_game_id"]
    new = Game.objects.get(pk=new_id)
    old = Game.objects.get(pk=game_id)
    assert new.status == Game.Status.ACTIVE and new.rules == old.rules
    assert (new.turn_seconds, new.rated, new.visibility) == (old.turn_seconds, old.rated, "public")
    # Both games link to each other.
    assert ana.get(f"/api/games/{new_id}/rematch").json()["previous_game_id"] == game_id
    assert pep.get(f"/api/games/{game_id}/rematch").json()["next_game_id"] == new_id
    # The first dealer moved on: the old mano (seat 0) deals first now (RULES.md §1).
    old_mano = Seat.objects.get(game=old, number=0).player_id
    first_hand = ana.get(f"/api/games/{new_id}").json()["state"]["hand"]
    dealer_seat = first_hand["dealer"]
    assert Seat.objects.get(game=new, number=dealer_seat).player_id == old_mano
    assert dealer_seat != 1 or old_mano != Seat.objects.get(game=old, number=1).player_id


def test_four_players_keep_their_partners_in_the_rematch(table):
    game_id, clients = _finished(table, players=4)
    for client in clients:
        body = client.post(f"/api/games/{game_id}/rematch").json()
    assert body["status"] == "started"
    old = dict(Seat.objects.filter(game_id=game_id).values_list("player_id", "number"))
    new = dict(Seat.objects.filter(game_id=body["next_game_id"]).values_list("player_id", "number"))
    for player, seat in old.items():
        assert new[player] == (seat - 1) % 4
    partners = [p for p in old if old[p] % 2 == 0]
    assert new[partners[0]] % 2 == new[partners[1]] % 2


def test_a_game_with_a_bot_has_its_rematch_with_the_bot(make_client):
    ana = make_client()
    created = ana.post(
        "/api/games", {"preset": "valenciano", "bots": [{"seat": 1, "level": "random"}]}
    )
    game_id = created.json()["id"]
    ana.post(f"/api/games/{game_id}/resign")
    body = ana.post(f"/api/games/{game_id}/rematch").json()
    assert body["status"] == "started"  # the bot always accepts
    new = Game.objects.get(pk=body["next_game_id"])
    assert new.has_bots and not new.rated
    assert Seat.objects.get(game=new, number=0).bot_level == "random"
    assert Seat.objects.get(game=new, number=1).player_id == ana.player.pk


def test_rematch_refusals(table, make_client):
    game_id, (ana, pep) = table("valenciano")
    # The game is not over.
    on = ana.post(f"/api/games/{game_id}/rematch")
    assert on.status_code == 409 and on.json()["code"] == "game_not_over"
    ana.post(f"/api/games/{game_id}/resign")
    # Not seated.
    outsider = make_client().post(f"/api/games/{game_id}/rematch")
    assert outsider.status_code == 403 and outsider.json()["code"] == "not_seated"
    # Nothing offered yet.
    none = pep.post(f"/api/games/{game_id}/rematch/decline")
    assert none.status_code == 409 and none.json()["code"] == "no_rematch_offer"
    ana.post(f"/api/games/{game_id}/rematch")
    declined = pep.post(f"/api/games/{game_id}/rematch/decline")
    assert declined.status_code == 200 and declined.json()["status"] == "declined"
    closed = ana.post(f"/api/games/{game_id}/rematch")
    assert closed.status_code == 409 and closed.json()["code"] == "rematch_closed"
    assert Game.objects.count() == 1
    assert make_client().get("/api/games/not-a-game/rematch").status_code == 404


def test_an_aborted_game_has_no_rematch(table):
    game_id, (ana, _) = table("valenciano")
    # As a table where a seat never acted ends (games/timeouts.py): aborted, no result.
    Game.objects.filter(pk=game_id).update(status=Game.Status.ABORTED, end_reason="no_show")
    refused = ana.post(f"/api/games/{game_id}/rematch")
    assert refused.status_code == 409 and refused.json()["code"] == "no_rematch"

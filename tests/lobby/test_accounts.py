"""Accounts: the password change revokes other tokens, deletion leaves no personal data in any
table or log line and keeps finished games readable, the export holds what the player may see and
nothing else, the profile counts results per pool."""

from __future__ import annotations

import json

from django.apps import apps
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from knox.models import AuthToken
from rest_framework.test import APIClient

from games.models import Game, Seat
from games.store.log import get_game, load_state
from lobby.models import ChatLine
from notifications.services import subscribe
from players.models import Player
from tests.factories import PASSWORD
from tests.games.conftest import Client

NEW_PASSWORD = "an0ther-Pass!"


def test_changing_the_password_revokes_every_other_token(make_client):
    ana = make_client()
    _, other_device = AuthToken.objects.create(ana.player)
    changed = ana.post(
        "/api/auth/password", {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    )
    assert changed.status_code == 204
    assert ana.get("/api/players/me").status_code == 200  # this device's token still works
    other = APIClient()
    other.credentials(HTTP_AUTHORIZATION=f"Token {other_device}")
    assert other.get("/api/players/me").status_code == 401
    login = APIClient().post(
        "/api/auth/login", {"username": ana.player.username, "password": NEW_PASSWORD}
    )
    assert login.status_code == 200


def test_a_password_change_needs_the_current_password_and_a_strong_new_one(make_client):
    ana = make_client()
    wrong = ana.post("/api/auth/password", {"current_password": "nope", "new_password": "x"})
    assert wrong.status_code == 422  # each field as the schema allows: refused, not malformed
    assert wrong.json()["errors"] == [
        {
            "field": "current_password",
            "code": "wrong_password",
            "message": "This is not your current password.",
        }
    ]
    weak = ana.post("/api/auth/password", {"current_password": PASSWORD, "new_password": "abc"})
    assert (weak.status_code, weak.json()["code"]) == (422, "weak_password")
    assert {error["field"] for error in weak.json()["errors"]} == {"new_password"}
    ana.player.refresh_from_db()
    assert ana.player.check_password(PASSWORD)


def test_the_profile_counts_results_per_pool(table):
    game_id, (ana, pep) = table("valenciano")
    pep.post(f"/api/games/{game_id}/resign")
    stats = {(s["family"], s["size"]): s for s in ana.get("/api/players/me").json()["stats"]}
    assert stats[("valenciano", "1v1")] == {
        "family": "valenciano",
        "size": "1v1",
        "games": 1,
        "wins": 1,
        "losses": 0,
    }
    theirs = ana.get(f"/api/players/{pep.player.pk}").json()["stats"]
    assert {(s["family"], s["size"]): s["losses"] for s in theirs}[("valenciano", "1v1")] == 1
    assert sum(s["games"] for s in theirs) == 1


# --- deletion ------------------------------------------------------------------------------------

USERNAME, DISPLAY_NAME, EMAIL = "quintanilla", "Rosa Quintanilla", "rosa.q@example.org"
PERSONAL = (USERNAME, DISPLAY_NAME, EMAIL, "Quintanilla")


def _register() -> Client:
    http = APIClient()
    body = {"username": USERNAME, "password": PASSWORD, "display_name": DISPLAY_NAME}
    session = http.post("/api/auth/register", body).json()
    player = Player.objects.get(pk=session["player"]["id"])
    player.email = EMAIL
    player.save(update_fields=["email"])
    client = Client.__new__(Client)
    client.player, client.http, client.token = player, http, session["token"]
    http.credentials(HTTP_AUTHORIZATION=f"Token {client.token}")
    return client


def _every_row_as_text() -> str:
    """Every row of every table Django knows, as text."""
    rows = []
    for model in apps.get_models(include_auto_created=True):
        rows += [
            json.dumps(list(values), default=str) for values in model._default_manager.values_list()
        ]
    return "\n".join(rows)


def test_deleting_an_account_leaves_no_personal_data_and_keeps_finished_games(make_client, capsys):
    rosa, pep = _register(), make_client()
    finished = rosa.post("/api/games", {"preset": "valenciano"}).json()["id"]
    pep.post(f"/api/games/{finished}/join")
    rosa.post(f"/api/games/{finished}/chat", {"text": "bona sort"})
    pep.post(f"/api/games/{finished}/chat", {"text": f"good luck {DISPLAY_NAME}"[:10]})
    pep.post(f"/api/games/{finished}/resign")
    active = pep.post("/api/games", {"preset": "argentino"}).json()["id"]
    rosa.post(f"/api/games/{active}/join")
    # Actions store their answers (every seat's name in them) for retries.
    view = rosa.get(f"/api/games/{active}").json()
    legal = (
        view["state"]["legal_actions"]
        or pep.get(f"/api/games/{active}").json()["state"]["legal_actions"]
    )
    mover = rosa if view["state"]["legal_actions"] else pep
    assert mover.act(active, legal[0], view["version"]).status_code == 201
    waiting = rosa.post("/api/games", {"preset": "valenciano", "players": 4}).json()["id"]
    rosa.post("/api/seeks", {"preset": "valenciano", "rated": False})
    rosa.post("/api/challenges", {"preset": "argentino", "opponents": [pep.player.pk]})
    pep.post("/api/challenges", {"preset": "argentino", "opponents": [rosa.player.pk]})
    rosa.post("/api/players/me/blocks", {"blocked_id": pep.player.pk})
    pep.post("/api/players/me/blocks", {"blocked_id": rosa.player.pk})
    subscribe(rosa.player, url="https://example.com/rosa", kinds=["your_turn"])
    LogEntry.objects.create(
        user_id=pep.player.pk,
        content_type=ContentType.objects.get_for_model(Player),
        object_id=str(rosa.player.pk),
        object_repr=str(rosa.player),
        action_flag=CHANGE,
    )
    assert USERNAME in _every_row_as_text()  # the scan below can see a name

    deleted = rosa.post("/api/players/me/delete", {"password": PASSWORD})
    assert deleted.status_code == 204

    text = _every_row_as_text().lower()
    for personal in PERSONAL:
        assert personal.lower() not in text, f"{personal!r} is still stored"
    logged = capsys.readouterr()
    for personal in PERSONAL:
        assert personal.lower() not in (logged.out + logged.err).lower(), f"{personal!r} logged"
    # The account is dead: its token, its password.
    assert rosa.get("/api/players/me").status_code == 401
    login = APIClient().post("/api/auth/login", {"username": USERNAME, "password": PASSWORD})
    assert login.status_code == 401
    # The active game was resigned, the open one left; the finished one still reads whole.
    assert Game.objects.get(pk=active).end_reason == "resigned"
    assert not Seat.objects.filter(game_id=waiting).exists()
    record = pep.get(f"/api/games/{finished}/export")
    assert record.status_code == 200
    names = [seat["player"]["name"] for seat in record.json()["game"]["seats"]]
    assert names[0].startswith("deleted-") and names[1] == pep.player.display_name
    assert len(pep.get(f"/api/games/{finished}/chat").json()) == 2  # his history stays whole


def test_deleting_needs_the_password(make_client):
    ana = make_client()
    refused = ana.post("/api/players/me/delete", {"password": "guess"})
    assert refused.status_code == 422 and refused.json()["errors"][0]["code"] == "wrong_password"
    assert Player.objects.get(pk=ana.player.pk).is_active


# --- export --------------------------------------------------------------------------------------


def test_the_export_holds_what_the_player_may_see_and_nothing_else(table, make_client):
    game_id, (ana, pep) = table("valenciano")
    watcher, pest = make_client(), make_client()
    ana.post(f"/api/games/{game_id}/chat", {"text": "mine"})
    pep.post(f"/api/games/{game_id}/chat", {"text": "his, to the table"})
    watcher.post(f"/api/games/{game_id}/chat", {"room": "spectators", "text": "pep has 3 bastos"})
    over_id, (other, _) = table("argentino")
    watcher.post(f"/api/games/{over_id}/chat", {"room": "spectators", "text": "after the game"})
    other.post(f"/api/games/{over_id}/resign")
    subscription = subscribe(ana.player, url="https://example.com/ana", kinds=["your_turn"])
    ana.post("/api/players/me/blocks", {"blocked_id": pest.player.pk})
    ana.post("/api/seeks", {"preset": "argentino", "rated": False})

    body = ana.get("/api/players/me/export")
    assert body.status_code == 200
    export = body.json()
    assert export["profile"]["username"] == ana.player.username
    texts = [line["text"] for line in export["chat"]]
    assert texts == ["mine", "his, to the table"]  # no spectators' line while the match is on
    assert [b["player_id"] for b in export["blocks"]] == [pest.player.pk]
    assert [s["status"] for s in export["seeks"]] == ["open"]
    assert subscription.secret not in json.dumps(export)
    [game] = export["games"]
    assert game["seat"] == 0
    state = load_state(get_game(game_id))
    mine = set(state.hand.held[0])
    theirs = set(state.hand.held[1])
    game_text = json.dumps(game)
    assert all(f'"{card}"' in game_text for card in mine)
    assert not any(f'"{card}"' in game_text for card in theirs), "another seat's card"
    assert ChatLine.objects.count() == 4


def test_the_export_holds_a_finished_games_spectators_room(table, make_client):
    game_id, (ana, pep) = table("valenciano")
    watcher = make_client()
    watcher.post(f"/api/games/{game_id}/chat", {"room": "spectators", "text": "nice envit"})
    pep.post(f"/api/games/{game_id}/resign")
    export = ana.get("/api/players/me/export").json()
    assert [line["text"] for line in export["chat"]] == ["nice envit"]
    assert export["games"][0]["game"]["status"] == "finished"

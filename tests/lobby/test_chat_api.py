"""Table chat through HTTP: the two rooms, what players and spectators see, blocks, staff
hiding a line, the limits, and that lines are append-only."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, transaction

from games.models import Game
from lobby import chat
from lobby.models import ChatLine
from tests.factories import PlayerFactory


def _say(client, game_id, text, room="players"):
    return client.post(f"/api/games/{game_id}/chat", {"room": room, "text": text})


def _read(client, game_id, room="players"):
    return client.get(f"/api/games/{game_id}/chat?room={room}")


def test_players_talk_in_their_room_and_spectators_in_theirs(table, make_client):
    game_id, (ana, pep) = table("valenciano")
    watcher = make_client()
    said = _say(ana, game_id, "Bona sort!")
    assert said.status_code == 201, said.json()
    assert said.json()["author"]["id"] == ana.player.pk and said.json()["text"] == "Bona sort!"
    assert _say(watcher, game_id, "Pep has the 7 of oros, surely", "spectators").status_code == 201

    assert [line["text"] for line in _read(pep, game_id).json()] == ["Bona sort!"]
    # While the match is on, players do not see the spectators' room, nor spectators theirs.
    hidden = _read(pep, game_id, "spectators")
    assert hidden.status_code == 403 and hidden.json()["code"] == "room_closed"
    assert _read(watcher, game_id).json()["code"] == "room_closed"
    assert len(_read(watcher, game_id, "spectators").json()) == 1
    # ...and each may speak only in his own.
    assert _say(pep, game_id, "hi", "spectators").json()["code"] == "room_closed"
    refused = _say(watcher, game_id, "hi")
    assert refused.status_code == 403 and refused.json()["code"] == "not_seated"

    ana.post(f"/api/games/{game_id}/resign")
    # Once it is over, both rooms are open to whoever may see the game, and closed to new lines.
    assert len(_read(pep, game_id, "spectators").json()) == 1
    assert len(_read(watcher, game_id).json()) == 1
    over = _say(ana, game_id, "gg")
    assert over.status_code == 409 and over.json()["code"] == "game_over"


def test_a_private_games_chat_is_not_there_for_others(table, make_client):
    game_id, (ana, _) = table("valenciano", visibility="private")
    _say(ana, game_id, "psst")
    outsider = make_client()
    assert _read(outsider, game_id, "spectators").status_code == 404
    assert _say(outsider, game_id, "hello", "spectators").status_code == 404


def test_a_blocked_players_lines_are_not_delivered_to_the_one_who_blocks(table):
    game_id, (ana, pep) = table("valenciano")
    ana.post("/api/players/me/blocks", {"blocked_id": pep.player.pk})
    _say(pep, game_id, "you play like a seagull")
    _say(ana, game_id, "...")
    assert [line["text"] for line in _read(ana, game_id).json()] == ["..."]
    assert [line["text"] for line in _read(pep, game_id).json()] == [
        "you play like a seagull",
        "...",
    ]
    ana.http.delete(f"/api/players/me/blocks/{pep.player.pk}")
    assert len(_read(ana, game_id).json()) == 2


def test_a_line_too_long_is_refused(table, settings):
    game_id, (ana, _) = table("valenciano")
    too_long = _say(ana, game_id, "x" * 281)
    assert too_long.status_code == 400
    assert too_long.json()["errors"][0]["field"] == "text"
    assert too_long.json()["errors"][0]["code"] == "max_length"
    assert _say(ana, game_id, "").json()["errors"][0]["code"] == "blank"
    assert not ChatLine.objects.exists()


def test_too_many_lines_are_refused_with_retry_after(table):
    game_id, (ana, pep) = table("valenciano")
    for number in range(5):
        assert _say(ana, game_id, f"line {number}").status_code == 201
    refused = _say(ana, game_id, "one more")
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_messages"
    assert refused["Content-Type"] == "application/problem+json"
    assert 1 <= int(refused["Retry-After"]) <= 10
    assert _say(pep, game_id, "my turn to talk").status_code == 201  # counted per player
    assert ChatLine.objects.filter(author=ana.player).count() == 5


def test_staff_hide_a_line_and_the_log_keeps_it(table):
    game_id, (ana, pep) = table("valenciano")
    line_id = _say(ana, game_id, "something rude").json()["id"]
    staff = PlayerFactory.create(is_staff=True)
    line = ChatLine.objects.get(pk=line_id)
    chat.hide(staff, line, reason="rude")
    assert _read(pep, game_id).json() == []
    assert chat.is_hidden(line)
    assert list(line.moderations.values_list("hidden", "staff_id", "reason")) == [
        (True, staff.pk, "rude")
    ]
    assert ChatLine.objects.get(pk=line_id).text == "something rude"  # kept, only hidden


@pytest.mark.parametrize("change", ["update", "delete"])
def test_chat_lines_are_append_only(table, change):
    game_id, (ana, _) = table("valenciano")
    _say(ana, game_id, "forever")
    with pytest.raises(DatabaseError), transaction.atomic():
        rows = ChatLine.objects.all()
        rows.update(text="rewritten") if change == "update" else rows.delete()
    assert ChatLine.objects.get().text == "forever"


def test_chat_of_no_game_is_a_404(make_client):
    assert (
        make_client().get("/api/games/00000000-0000-0000-0000-000000000000/chat").status_code == 404
    )
    assert not Game.objects.exists()

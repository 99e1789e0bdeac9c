"""The lobby in the admin: seeks, challenges, blocks, chat lines; staff hide a chat line and the
log keeps that it was hidden."""

from __future__ import annotations

import pytest

from lobby.models import ChatLine, ChatModeration
from tests.factories import PlayerFactory


@pytest.fixture
def staff(db):
    return PlayerFactory.create(is_staff=True, is_superuser=True)


@pytest.fixture
def staff_client(client, staff):
    client.force_login(staff)
    return client


def test_the_lobby_is_listed_in_the_admin(staff_client, make_client):
    ana, pep = make_client(), make_client()
    ana.post("/api/seeks", {"preset": "valenciano"})
    ana.post("/api/challenges", {"preset": "valenciano", "opponents": [pep.player.pk]})
    ana.post("/api/players/me/blocks", {"blocked_id": pep.player.pk})
    for page in ("lobby/seek", "lobby/challenge", "lobby/chatline", "players/block"):
        assert staff_client.get(f"/admin/{page}/").status_code == 200, page


def test_staff_hide_a_line_from_the_admin_and_the_log_keeps_it(staff_client, staff, table):
    game_id, (ana, pep) = table("valenciano")
    line_id = ana.post(f"/api/games/{game_id}/chat", {"text": "rude words"}).json()["id"]
    response = staff_client.post(
        "/admin/lobby/chatline/", {"action": "hide_lines", "_selected_action": [line_id]}
    )
    assert response.status_code == 302
    assert pep.get(f"/api/games/{game_id}/chat").json() == []
    [moderation] = ChatModeration.objects.all()
    assert (moderation.line_id, moderation.hidden, moderation.staff_id) == (line_id, True, staff.pk)
    staff_client.post(
        "/admin/lobby/chatline/", {"action": "show_lines", "_selected_action": [line_id]}
    )
    assert [line["id"] for line in pep.get(f"/api/games/{game_id}/chat").json()] == [line_id]
    assert ChatModeration.objects.count() == 2  # both decisions stay in the log
    detail = staff_client.get(f"/admin/lobby/chatline/{line_id}/change/")
    assert detail.status_code == 200 and b'name="_save"' not in detail.content
    assert ChatLine.objects.get(pk=line_id).text == "rude words"

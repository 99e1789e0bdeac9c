"""The admin shows games and their event log read-only."""

from __future__ import annotations

import pytest

from games.models import GameEvent
from tests.factories import PlayerFactory


@pytest.fixture
def staff_client(client, db):
    client.force_login(PlayerFactory.create(is_staff=True, is_superuser=True))
    return client


def test_admin_lists_events_and_games_read_only(staff_client, table):
    game_id, _ = table("valenciano", players=2)
    event = GameEvent.objects.filter(game_id=game_id).first()

    assert staff_client.get("/admin/games/gameevent/").status_code == 200
    assert staff_client.get("/admin/games/game/").status_code == 200
    detail = staff_client.get(f"/admin/games/gameevent/{event.pk}/change/")
    assert detail.status_code == 200
    assert b'name="_save"' not in detail.content  # no form to change it
    assert staff_client.get("/admin/games/gameevent/add/").status_code == 403
    assert staff_client.post(f"/admin/games/gameevent/{event.pk}/delete/").status_code == 403
    assert GameEvent.objects.filter(pk=event.pk).exists()

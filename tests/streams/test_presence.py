"""A player whose stream of a game is open is at its table: each move wakes the stream, whose
step marks him there (streams/presence.py), so no push tells him of a move he is watching
(tests/push/test_outbox.py: a player at the table is not pushed)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from django.conf import settings

from streams import bus, presence
from tests.streams.sse_client import open_stream
from tests.streams.test_following import eventually
from tests.streams.test_offers import to_play


def forget_tables() -> None:
    client = bus.redis_client()
    for key in client.scan_iter(f"{settings.STREAMS_CHANNEL_PREFIX}.at:*"):
        client.delete(key)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_presence_an_open_stream_marks_its_player_at_the_table_at_each_move(
    servers_pair: Any, table: Any, settings: Any
) -> None:
    settings.AT_TABLE_SECONDS = 3.0
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    mover = to_play(clients, game_id)
    watcher = clients[1 - clients.index(mover)]
    reader = open_stream(f"{other.url}/api/games/{game_id}/stream", watcher.token)
    try:
        reader.until(lambda m: m.event == "view")
        view = mover.get(f"/api/games/{game_id}").json()
        forget_tables()  # the reads above count too: only the stream may mark him now
        assert not presence.at_table(watcher.player.pk, game_id)

        answer = mover.act(game_id, view["state"]["legal_actions"][0], view["version"])
        assert answer.status_code == 201, answer.json()
        assert eventually(lambda: presence.at_table(watcher.player.pk, game_id))
    finally:
        reader.close()
    forget_tables()
    time.sleep(0.5)
    assert not presence.at_table(watcher.player.pk, game_id)  # closed: nothing marks him

"""RULES.md §8 on the streams: every message to every reader (each seat, and a spectator) of
random 2- and 4-player matches, read live from a real server process while the match is played
through the API, holds no card the reader may not see and no losing envido value.

The checks are the REST tests' own (tests/games/test_hidden_information.py): the hidden cards
come from the database's unredacted log, not from the projection under test. Two matches run
by default; ``TRUC_STREAM_PROFILE=thorough`` plays every preset at both table sizes."""

from __future__ import annotations

import os
import random

import pytest

from tests.games.test_hidden_information import (
    SHORT,
    TWO_CAMAS,
    Ledger,
    check_feed,
    check_view,
    unthrottled,
)
from tests.streams.sse_client import Reader, open_stream

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]
__all__ = ["unthrottled"]  # a fixture

MATCHES = [("valenciano", 2, TWO_CAMAS), ("argentino", 4, SHORT)]
if os.environ.get("TRUC_STREAM_PROFILE") == "thorough":
    MATCHES = [
        (preset, players, TWO_CAMAS if preset == "valenciano" else SHORT)
        for preset in ("valenciano", "argentino", "argentino_clasico")
        for players in (2, 4)
    ]


@pytest.mark.parametrize(("preset", "players", "options"), MATCHES)
def test_no_stream_message_shows_a_reader_a_card_he_may_not_see(
    servers_pair, table, make_client, unthrottled, preset, players, options
) -> None:
    _, other = servers_pair
    game_id, clients = table(preset, players=players, options=options)
    tokens = {seat: client.token for seat, client in enumerate(clients)}
    tokens[None] = make_client().token  # a spectator of the public game
    readers = {
        viewer: Reader(open_stream(f"{other.url}/api/games/{game_id}/stream", token, timeout=60))
        for viewer, token in tokens.items()
    }
    for reader in readers.values():
        assert reader.stream.status == 200
        reader.start()

    rng = random.Random(f"stream-{preset}-{players}")
    for _ in range(3000):
        views = [client.get(f"/api/games/{game_id}").json() for client in clients]
        if views[0]["status"] != "active":
            break
        seat = rng.choice([s for s, view in enumerate(views) if view["state"]["legal_actions"]])
        action = rng.choice(_walk(views[seat]["state"]["legal_actions"]))
        assert clients[seat].act(game_id, action, views[seat]["version"]).status_code == 201
    else:
        raise AssertionError("the match did not end")

    ledger = Ledger(game_id)
    assert len(ledger.deals) >= 2, "the match spans several hands"
    for viewer, reader in readers.items():
        reader.join(60)
        assert not reader.is_alive() and reader.error is None, reader.error
        messages = reader.stream.messages
        events = [m for m in messages if m.id is not None]
        assert [m.id for m in events] == list(range(1, ledger.seq + 1))  # all, once, in order
        check_feed(ledger, [m.data for m in events], viewer)
        views = [m.data for m in messages if m.event == "view"]
        assert views and views[-1]["status"] in ("finished", "aborted")
        for view in views:
            check_view(ledger, view, viewer)
        assert messages[-1].event == "end"


def _walk(legal: list[dict[str, object]]) -> list[dict[str, object]]:
    """The actions the random walk picks from: never the falta envido while anything else is
    legal. Accepted in malas it can win the whole match in its first hand (RULES.md §5.2, the
    falta), and the check needs hands that follow a deal; the REST tests' walk, on the same
    projection, calls it."""
    return [action for action in legal if action["type"] != "falta_envido"] or legal

"""No offer is made for a game nobody follows (``bus.followed``), yet a stream loses nothing:
every move is still told (without its offer), and a stream that starts following reads the log,
then takes the offers once its process is known to follow the game (``Hub._announce``)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.test import AsyncClient

from games.models import Game, GameEvent, GameId
from streams import bus, game_stream
from tests.streams.conftest import PREFIX
from tests.streams.sse_client import Message, open_stream
from tests.streams.test_offers import closed, messages_until_view, play_one, to_play


@pytest.fixture
def offers_made(monkeypatch: Any) -> list[GameId]:
    """The games each offer made in this process was for, in order."""
    made: list[GameId] = []
    offer = game_stream.offer

    def counted(game: Game, rows: list[GameEvent], state: Any) -> bytes:
        made.append(game.pk)
        return offer(game, rows, state)

    monkeypatch.setattr(game_stream, "offer", counted)
    return made


@pytest.fixture
def told(monkeypatch: Any) -> list[tuple[list[str], bool]]:
    """Every publish of this process: its topics, and whether it carried an offer."""
    found: list[tuple[list[str], bool]] = []
    publish = bus.publish

    def noted(topics: list[str], offers: dict[str, bytes] | None = None) -> None:
        found.append((list(topics), bool(offers)))
        publish(topics, offers)

    monkeypatch.setattr(bus, "publish", noted)
    return found


@pytest.mark.django_db(transaction=True)
def test_following_no_offer_for_a_game_nobody_follows_and_offers_while_a_stream_does(
    table: Any, settings: Any, offers_made: list[GameId], told: list[tuple[list[str], bool]]
) -> None:
    """In process (the in-process channel): moves before a stream follows, while it does, and
    after it left; each is told, and only those made while it followed carry an offer."""
    settings.STREAMS_REDIS_URL = ""
    game_id, clients = table("valenciano", players=2)
    topic = bus.game_topic(game_id)
    told.clear()  # the seats taken and the deal: the moves' notifications follow

    def move() -> None:
        play_one(to_play(clients, game_id), game_id)

    move()
    assert offers_made == []

    async def follow() -> list[list[Message]]:
        token = {"Authorization": f"Token {clients[1].token}"}
        response: Any = await AsyncClient().get(
            f"/api/games/{game_id}/stream?after=0", headers=token
        )
        chunks = aiter(response.streaming_content)
        steps = [await messages_until_view(chunks)]  # followed from here on
        for _ in range(3):
            await sync_to_async(move)()
            steps.append(await messages_until_view(chunks))
        await closed(response)
        return steps

    steps = asyncio.run(follow())
    assert [str(pk) for pk in offers_made] == [game_id] * 3
    seqs = [m.id for step in steps for m in step if m.id is not None]
    assert seqs == list(range(1, seqs[-1] + 1))  # every event, once

    move()  # nobody follows it any more
    assert len(offers_made) == 3
    offered = [offered for topics, offered in told if topics[0] == topic]
    assert offered == [False, True, True, True, False]


def eventually(check: Callable[[], bool], seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_following_a_process_follows_a_game_through_redis_while_a_stream_is_open(
    servers_pair: Any, table: Any
) -> None:
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    topic = bus.game_topic(game_id)
    assert bus.following_channel(topic).startswith(f"{PREFIX}.following:")
    assert not bus.followed(topic)

    reader = open_stream(f"{other.url}/api/games/{game_id}/stream", clients[0].token)
    reader.until(lambda m: m.event == "view")
    assert eventually(lambda: bus.followed(topic))
    reader.close()
    assert eventually(lambda: not bus.followed(topic))


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_following_a_stream_that_starts_following_gets_every_event(
    servers_pair: Any, table: Any, offers_made: list[GameId]
) -> None:
    """Moves made here (published through Redis) from the moment a stream opens on another
    process, before its process is known to follow the game and after: the stream gets every
    event once, in order, then the view at the last version; the moves made once the process
    follows carry offers."""
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    topic = bus.game_topic(game_id)
    rng = random.Random(7)
    reader = open_stream(f"{other.url}/api/games/{game_id}/stream", clients[1].token)
    for _ in range(12):
        mover = to_play(clients, game_id)
        view = mover.get(f"/api/games/{game_id}").json()
        answer = mover.act(game_id, rng.choice(view["state"]["legal_actions"]), view["version"])
        assert answer.status_code == 201, answer.json()
    assert eventually(lambda: bus.followed(topic))
    version = play_one(to_play(clients, game_id), game_id)  # surely followed: with its offer

    last = reader.until(lambda m: m.event == "view" and m.data["version"] == version)
    reader.close()
    seqs = [m.id for m in reader.messages if m.id is not None]
    assert seqs == list(range(1, version + 1))  # every event once, in order
    assert last.data["version"] == version
    assert offers_made and str(offers_made[-1]) == game_id

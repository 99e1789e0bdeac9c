"""A move's notification carries what its game's streams would read (``game_stream.offer``): the
hub keeps the offers of the topics it follows (streams/hub.py), and a stream takes them only
while they continue exactly from its cursor, reading the log otherwise (a notification without
an offer, a gap, its first step). In process, on the in-process channel: a real hub, the real
views through Django's ASGI request, the reads counted."""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from django.db import connections
from django.test import AsyncClient

from streams import bus, game_stream, hub
from streams.hub import OFFERS_KEPT, Hub, Watch, register_offer
from tests.streams.sse_client import Message
from tests.streams.test_stream_requests import messages


def decode(data: bytes) -> tuple[int, str]:
    after, _, text = data.partition(b" ")
    return int(after), text.decode()


register_offer("t", decode)


def test_offers_are_kept_for_followed_topics_only_the_last_few(settings) -> None:
    settings.STREAMS_REDIS_URL = ""

    async def run() -> tuple[dict[str, Any], bool, bool]:
        hub = Hub()
        watch = Watch(["t:1"])
        hub.add(watch)
        for after in range(OFFERS_KEPT + 2):
            hub.poke_many(["t:1", "t:2"], {"t:1": b"%d m" % after, "t:2": b"0 x"})
        kept = dict(hub.offers)
        offered = not (await watch.wait(1) and watch.plain)
        hub.poke_many(["t:1"])  # no offer: the reader must read
        plain = bool(await watch.wait(1)) and watch.plain
        hub.remove(watch)
        assert "t:1" not in hub.offers  # nobody follows it any more
        return kept, offered, plain

    kept, offered, plain = asyncio.run(run())
    assert list(kept) == ["t:1"]  # t:2 has no follower here: not even decoded
    assert list(kept["t:1"]) == list(range(2, OFFERS_KEPT + 2))  # the newest
    assert offered and plain


def test_an_unreadable_offer_is_a_plain_notification(settings) -> None:
    settings.STREAMS_REDIS_URL = ""

    async def run() -> bool:
        hub = Hub()
        watch = Watch(["t:1"])
        hub.add(watch)
        await watch.wait(0)  # past the first read
        hub.poke_many(["t:1"], {"t:1": b"not-a-number"})
        return bool(await watch.wait(1)) and watch.plain

    assert asyncio.run(run())


# --- a live stream, in process ------------------------------------------------------------------


async def messages_until_view(chunks: AsyncIterator[bytes]) -> list[Message]:
    """The stream's messages up to its next view (the end of a step)."""
    found: list[Message] = []
    while not found or found[-1].event != "view":
        found += messages(await asyncio.wait_for(anext(chunks), 10))
    return found


async def closed(response: Any) -> None:
    """The stream closed, and the connections its threads opened (the hub's readers, Django's
    one sync thread): the test database is dropped at the end of the run."""
    await response.streaming_content.aclose()
    readers = hub.hub()._readers
    count = len(readers._threads)
    together = threading.Barrier(count)

    def close() -> None:
        connections.close_all()
        together.wait(10)  # each reader thread takes one: none is left open

    await asyncio.gather(*(asyncio.wrap_future(readers.submit(close)) for _ in range(count)))
    await sync_to_async(connections.close_all)()


@pytest.fixture
def reads(monkeypatch) -> list[list[Any]]:
    """Every key the streams read from the log, read by read."""
    found: list[list[Any]] = []
    read_many = game_stream.read_many

    def counted(keys: list[Any]) -> Any:
        found.append(list(keys))
        return read_many(keys)

    monkeypatch.setattr(game_stream, "read_many", counted)
    return found


def play_one(client: Any, game_id: str) -> int:
    """The seat to play plays its first legal action; the game's version after it."""
    view = client.get(f"/api/games/{game_id}").json()
    action = view["state"]["legal_actions"][0]
    answer = client.act(game_id, action, view["version"])
    assert answer.status_code == 201, answer.json()
    return int(answer.json()["version"])


def to_play(clients: list[Any], game_id: str) -> Any:
    views = [client.get(f"/api/games/{game_id}").json() for client in clients]
    return next(c for c, v in zip(clients, views, strict=True) if v["state"]["legal_actions"])


@pytest.mark.django_db(transaction=True)
def test_moves_reach_the_stream_from_their_offers_with_no_read(table, reads, settings) -> None:
    settings.STREAMS_REDIS_URL = ""
    game_id, clients = table("valenciano", players=2)

    async def follow() -> list[list[Message]]:
        token = {"Authorization": f"Token {clients[1].token}"}
        url = f"/api/games/{game_id}/stream?after=0"
        response: Any = await AsyncClient().get(url, headers=token)
        chunks = aiter(response.streaming_content)
        steps = [await messages_until_view(chunks)]  # the first step reads the log
        for _ in range(3):
            await sync_to_async(play_one)(await sync_to_async(to_play)(clients, game_id), game_id)
            steps.append(await messages_until_view(chunks))
        await closed(response)
        return steps

    steps = asyncio.run(follow())
    assert len(reads) == 1  # the catch-up only: each move came with its offer
    seqs = [m.id for step in steps for m in step if m.id is not None]
    assert seqs == list(range(1, seqs[-1] + 1))  # gapless, none repeated
    assert all(step[-1].event == "view" for step in steps)


@pytest.mark.django_db(transaction=True)
def test_without_its_offer_or_after_a_gap_the_stream_reads_and_loses_nothing(
    table, reads, settings, monkeypatch
) -> None:
    settings.STREAMS_REDIS_URL = ""
    game_id, clients = table("valenciano", players=2)
    publish = bus.publish
    published: list[str] = []

    def publish_some(topics: list[str], offers: dict[str, bytes] | None = None) -> None:
        # The first move's notification carries no offer; the second is lost altogether.
        published.append("told")
        if len(published) == 1:
            publish(topics)
        elif len(published) == 3:
            publish(topics, offers)

    monkeypatch.setattr(bus, "publish", publish_some)

    async def follow() -> list[list[Message]]:
        token = {"Authorization": f"Token {clients[0].token}"}
        url = f"/api/games/{game_id}/stream?after=0"
        response: Any = await AsyncClient().get(url, headers=token)
        chunks = aiter(response.streaming_content)
        steps = [await messages_until_view(chunks)]
        for _ in range(3):
            await sync_to_async(play_one)(await sync_to_async(to_play)(clients, game_id), game_id)
            if len(published) != 2:  # the lost one tells the stream nothing: no step to wait for
                steps.append(await messages_until_view(chunks))
        await closed(response)
        return steps

    steps = asyncio.run(follow())
    # The catch-up; the move with no offer; the move after the lost one, whose offer does not
    # continue from the stream's cursor: read, and it brings both moves.
    assert len(reads) == 3
    seqs = [m.id for step in steps for m in step if m.id is not None]
    assert seqs == list(range(1, seqs[-1] + 1))


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("players", [2, 4])
def test_an_offer_is_what_a_read_of_the_log_gives(table, settings, monkeypatch, players) -> None:
    """The same messages for every viewer kind whichever way a stream gets a move."""
    settings.STREAMS_REDIS_URL = ""
    game_id, clients = table("valenciano", players=players)
    offers: list[bytes] = []

    def publish(topics: list[str], offered: dict[str, bytes] | None = None) -> None:
        offers.extend((offered or {}).values())

    monkeypatch.setattr(bus, "publish", publish)
    monkeypatch.setattr(bus, "followed", lambda topic: True)  # as if a stream followed the game
    for moves in range(1, 5):
        play_one(to_play(clients, game_id), game_id)
        assert len(offers) == moves
        after, game_read = game_stream.offered(offers[-1])
        key = (uuid.UUID(str(game_read.game_id)), after)
        read = game_stream.read_many([key])[key]
        assert (read.last_seq, read.mark, read.over, read.seats) == (
            game_read.last_seq, game_read.mark, game_read.over, game_read.seats
        )  # fmt: skip
        assert {seat: parsed(made) for seat, made in read.projections.items()} == {
            seat: parsed(made) for seat, made in game_read.projections.items()
        }


def parsed(projection: game_stream.Projection) -> tuple[Any, ...]:
    """A projection's messages with their data parsed: the log's JSON comes back from
    PostgreSQL with its keys in jsonb's order, an offer's in the order they were made."""
    messages = [*projection.events, projection.view or b""]
    return projection.tag, [
        [line if not line.startswith("data: ") else json.loads(line[6:]) for line in m.split("\n")]
        for m in (message.decode() for message in messages)
    ]

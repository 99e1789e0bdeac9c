"""The caps on open streams, on the hub's own event loop: per player (in Redis, shared by every
process, and in-process with no Redis) and per process; claims of a stream that never started
expire; and a revoked token is found by the hub's check even when no notification told it."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from django.utils import timezone
from knox.models import AuthToken

from streams import hub as hubs
from streams.errors import TooManyStreams
from streams.limits import Limits
from tests.streams.conftest import PREFIX, REDIS_URL, thorough
from tests.streams.sse_client import open_stream


def run(coroutine) -> None:
    asyncio.run(coroutine)


@pytest.mark.parametrize("redis_url", ["", REDIS_URL], ids=["in-process", "redis"])
def test_a_player_holds_at_most_his_cap_across_limiters(settings, redis_url) -> None:
    settings.STREAMS_REDIS_URL = redis_url
    settings.STREAMS_CHANNEL_PREFIX = f"{PREFIX}-limits"
    settings.STREAMS_PER_PLAYER = 2
    player = int(time.time() * 1000) % 1_000_000_000  # a fresh key every run

    async def scenario() -> None:
        one, two = hubs.Hub(), hubs.Hub()
        # Two processes share Redis; in-process counts are per limiter, as per process.
        first = Limits(one)
        second = Limits(two) if redis_url else first
        held = [await first.claim(player), await second.claim(player)]
        with pytest.raises(TooManyStreams) as refused:
            await first.claim(player)
        assert refused.value.headers == {"Retry-After": str(settings.STREAM_RETRY_AFTER_SECONDS)}
        await second.release(held[1])
        held.append(await first.claim(player))
        for claim in held:
            await first.release(claim)
        for hub in (one, two):
            if hub.redis is not None:
                await hub.redis.aclose()

    run(scenario())


def test_a_process_holds_at_most_its_cap(settings) -> None:
    settings.STREAMS_REDIS_URL = ""
    settings.STREAMS_PER_PROCESS = 3

    async def scenario() -> None:
        limits = Limits(hubs.Hub())
        for player in range(3):
            await limits.claim(player)
        with pytest.raises(TooManyStreams, match="This server holds"):
            await limits.claim(99)

    run(scenario())


def test_a_claim_whose_stream_never_started_expires(settings) -> None:
    settings.STREAMS_REDIS_URL = ""
    settings.STREAMS_PER_PLAYER = 1
    settings.STREAM_CHECK_SECONDS = 0.01

    async def scenario() -> None:
        limits = Limits(hubs.Hub())
        await limits.claim(7)  # the client went away before its response started
        with pytest.raises(TooManyStreams):
            await limits.claim(7)
        settings.STREAM_CHECK_SECONDS = -10  # as if its time to live had passed
        await limits.renew()
        settings.STREAM_CHECK_SECONDS = 0.01
        await limits.claim(7)

    run(scenario())


@thorough
@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_an_expired_token_is_found_by_the_check_with_no_notification(servers_pair, table) -> None:
    _, other = servers_pair
    game_id, clients = table("valenciano", players=2)
    reader = open_stream(f"{other.url}/api/games/{game_id}/stream", clients[0].token)
    reader.until(lambda m: m.event == "view")
    # An update sends no signal, so nothing is published: only the check can see it.
    AuthToken.objects.filter(user=clients[0].player).update(
        expiry=timezone.now() - timedelta(seconds=1)
    )
    assert reader.until(lambda m: m.event == "end").data == {"reason": "token_revoked"}
    assert reader.next() is None

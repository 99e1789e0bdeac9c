"""The publishing side of the notification channel: "topic X moved", sent after commit.

A notification says its topic (``game:<id>``, ``player:<id>``, ``token:<player id>``) and may
carry an offer (its only content): for a move, what the game's streams
would read, as the process that made the move had it in hand (``game_stream.offer``). The event
log and the player's notices stay the only source of truth: a stream takes an offer only when it
continues exactly where the stream is, and otherwise re-reads the log. So a lost notification
(Redis down, a process that was not subscribed yet) only delays a message until the stream's next
check (``hub.Hub``), never loses it, and a duplicate or a late one costs at most one read.

Two transports, chosen by ``STREAMS_REDIS_URL``: Redis pub/sub (every server process of every
machine subscribes to ``<STREAMS_CHANNEL_PREFIX>:*``), or, with no URL (``make run`` on the
embedded defaults), the hubs of this process only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from functools import cache
from typing import Any

import redis
import structlog
from django.conf import settings

from games.models import GameId
from truc_api import after_response

logger = structlog.get_logger(__name__)


def game_topic(game_id: GameId) -> str:
    return f"game:{game_id}"


def player_topic(player_id: int) -> str:
    return f"player:{player_id}"


def token_topic(player_id: int) -> str:
    """A token of this player was revoked: his streams check theirs."""
    return f"token:{player_id}"


def publish_on_commit(topics: Iterable[str]) -> None:
    """Publish once the current transaction commits (at once outside one), after the answer in
    a request (``after_response``); never on rollback."""
    wanted = list(topics)
    after_response.on_commit(lambda: publish(wanted))


def following_channel(topic: str) -> str:
    """The channel a streams process subscribes to while it follows ``topic`` (``Hub``), on
    which nothing is ever published: ``PUBSUB NUMSUB`` of it counts the processes following the
    topic. Outside ``<prefix>:*``, so the processes' pattern never matches it."""
    return f"{settings.STREAMS_CHANNEL_PREFIX}.following:{topic}"


def followed(topic: str) -> bool:
    """Whether a streams process follows ``topic`` now, so that its offer may be read. Only an
    offer depends on it, never a notification: a stream that starts following after this
    answered no still hears the move (without its offer) and reads it from the log, as it does
    at its first step anyway; a stale yes costs an offer nobody reads."""
    if not settings.STREAMS_REDIS_URL:
        return any(
            hub.follows(topic) for loop, hub in list(_local_hubs.items()) if not loop.is_closed()
        )
    try:
        counts: list[tuple[bytes, int]] = _redis(settings.STREAMS_REDIS_URL).pubsub_numsub(
            following_channel(topic)
        )  # type: ignore[assignment]  # redis-py types its sync and async clients as one
    except redis.RedisError as error:  # its publish fails too; its streams find the move
        logger.warning("streams.followed_failed", error=str(error))
        return False
    return bool(counts) and int(counts[0][1]) > 0


def publish(topics: list[str], offers: dict[str, bytes] | None = None) -> None:
    """Tell ``topics``; ``offers`` holds, for some of them, what their readers would read."""
    if not topics:
        return
    if not settings.STREAMS_REDIS_URL:
        _publish_here(topics, offers)
        return
    prefix = settings.STREAMS_CHANNEL_PREFIX
    offers = offers or {}
    try:
        with _redis(settings.STREAMS_REDIS_URL).pipeline(transaction=False) as pipe:
            for topic in topics:
                pipe.publish(f"{prefix}:{topic}", offers.get(topic, b""))
            pipe.execute()
    except redis.RedisError as error:
        # The action is committed; its streams find it at their next check (hub.Hub.check).
        logger.warning("streams.publish_failed", error=str(error), topics=len(topics))


@cache
def _redis(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)


def redis_client() -> redis.Redis:
    """This process's connection to ``STREAMS_REDIS_URL`` (set: the caller checks)."""
    return _redis(settings.STREAMS_REDIS_URL)


#: The hubs of this process, by event loop (the server runs one; tests may run several).
_local_hubs: dict[asyncio.AbstractEventLoop, Any] = {}


def register_local(loop: asyncio.AbstractEventLoop, hub: Any) -> None:
    _local_hubs[loop] = hub


def _publish_here(topics: list[str], offers: dict[str, bytes] | None) -> None:
    """The in-process channel: wake this process's streams. A write made by another process
    (the Celery worker ``make run`` starts beside the server) is found by the next check,
    which the settings then make frequent (``STREAM_CHECK_SECONDS``)."""
    for loop, hub in list(_local_hubs.items()):
        if not loop.is_closed():
            loop.call_soon_threadsafe(hub.poke_many, topics, offers)

"""Who is at a game's table: a player who read the game in the last ``AT_TABLE_SECONDS``.

A read is a step of his stream of the game (each move wakes it, so an open stream reads every
move within moments of its commit) or a read of the game through the API
(``push.presence.SeenMiddleware``). Each read sets a Redis key that expires, so a stream closed or
a process lost is forgotten on its own. The push worker asks (``at_table``) before it sends: a
player who watches the game is not buzzed about it. With no Redis (``make run`` on its embedded
defaults) nobody is known to be at a table: pushes are sent.
"""

from __future__ import annotations

import redis
import structlog
from django.conf import settings
from redis import asyncio as aioredis

from games.models import GameId
from streams import bus

logger = structlog.get_logger(__name__)


def _key(player_id: int, game_id: GameId) -> str:
    return f"{settings.STREAMS_CHANNEL_PREFIX}.at:{game_id}:{player_id}"


def _ttl() -> int:
    return max(1, round(float(settings.AT_TABLE_SECONDS) * 1000))


def mark(player_id: int, game_id: GameId) -> None:
    """The player has just read the game."""
    if not settings.STREAMS_REDIS_URL:
        return
    try:
        bus.redis_client().set(_key(player_id, game_id), b"1", px=_ttl())
    except redis.RedisError as error:  # a push the player did not need, at worst
        logger.warning("streams.presence_failed", error=str(error))


async def amark(client: aioredis.Redis | None, player_id: int, game_id: GameId) -> None:
    """``mark`` from a stream, on its hub's own connection (None: no Redis)."""
    if client is None:
        return
    try:
        await client.set(_key(player_id, game_id), b"1", px=_ttl())
    except (redis.RedisError, OSError) as error:
        logger.warning("streams.presence_failed", error=str(error))


def at_table(player_id: int, game_id: GameId) -> bool:
    """Whether the player read the game in the last ``AT_TABLE_SECONDS``."""
    if not settings.STREAMS_REDIS_URL:
        return False
    try:
        return bool(bus.redis_client().exists(_key(player_id, game_id)))
    except redis.RedisError as error:
        logger.warning("streams.presence_failed", error=str(error))
        return False

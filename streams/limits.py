"""Caps on open streams: per player (across every server process) and per process.

A player's open streams are counted as claims that expire unless renewed: in Redis (a sorted
set a player, scored by expiry, so that every process of every machine counts the same ones) or,
with no Redis, in this process. A live stream renews its claim at each of the hub's checks; a
process that dies takes its claims with it after ``claim_ttl()`` seconds, never for ever.
"""

from __future__ import annotations

import time
import uuid
from collections import defaultdict
from dataclasses import dataclass

import structlog
from django.conf import settings
from redis.exceptions import RedisError

from streams.errors import TooManyStreams
from streams.hub import Hub, Watch

logger = structlog.get_logger(__name__)

# One round trip: forget expired claims, count the rest, add this one if under the cap.
_CLAIM = """
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1] + ARGV[2], ARGV[4])
redis.call('EXPIRE', KEYS[1], math.ceil(ARGV[2]))
return 1
"""


#: Claims renewed in one pipeline (``Limits.renew``).
RENEW_AT_ONCE = 250


def claim_ttl() -> float:
    return 3 * settings.STREAM_CHECK_SECONDS + 5


@dataclass(frozen=True)
class Claim:
    player_id: int
    id: str
    made: float  # time.time() when claimed


class Limits:
    """The claims of one hub's process; ``claim`` raises ``TooManyStreams`` past a cap."""

    def __init__(self, hub: Hub) -> None:
        self.hub = hub
        #: Each claim and the watch of the stream that holds it (None until the stream starts:
        #: a response that never starts streaming, its client gone, lets its claim expire).
        self.held: dict[Claim, Watch | None] = {}
        self._local: dict[int, dict[str, float]] = defaultdict(dict)
        hub.on_tick(self.renew)

    async def claim(self, player_id: int) -> Claim:
        retry = settings.STREAM_RETRY_AFTER_SECONDS
        if len(self.held) >= settings.STREAMS_PER_PROCESS:
            raise TooManyStreams("This server holds as many streams as it may.", retry)
        now, ttl, cap = time.time(), claim_ttl(), settings.STREAMS_PER_PLAYER
        claim = Claim(player_id, uuid.uuid4().hex, now)
        if self.hub.redis is not None:
            # The numbers as redis-py would encode them (repr), as its hints ask for str. Its hints
            # give the sync and the async client one result type, a value or an awaitable.
            granted = await self.hub.redis.eval(  # type: ignore[misc]
                _CLAIM, 1, self._key(player_id), repr(now), repr(ttl), cap, claim.id
            )
        else:
            mine = self._local[player_id]
            for other, expiry in list(mine.items()):
                if expiry <= now:
                    del mine[other]
            granted = len(mine) < cap
            if granted:
                mine[claim.id] = now + ttl
        if not granted:
            raise TooManyStreams(f"You have {cap} streams open already: close one.", retry)
        self.held[claim] = None
        return claim

    def attach(self, claim: Claim, watch: Watch) -> None:
        self.held[claim] = watch

    async def release(self, claim: Claim) -> None:
        self.held.pop(claim, None)
        if self.hub.redis is not None:
            try:
                await self.hub.redis.zrem(self._key(claim.player_id), claim.id)
            except RedisError as error:  # the claim expires by itself (claim_ttl)
                logger.warning("streams.release_failed", error=str(error))
        else:
            self._local[claim.player_id].pop(claim.id, None)

    async def renew(self) -> None:
        now = time.time()
        expiry = now + claim_ttl()
        for claim, watch in list(self.held.items()):
            if (watch is None and claim.made < now - claim_ttl()) or (
                watch is not None and watch not in self.hub.watches
            ):
                await self.release(claim)
        if self.hub.redis is None:
            for claim in self.held:
                self._local[claim.player_id][claim.id] = expiry
            return
        by_player: dict[int, list[str]] = defaultdict(list)
        for claim in self.held:
            by_player[claim.player_id].append(claim.id)
        players = list(by_player.items())
        for start in range(0, len(players), RENEW_AT_ONCE):
            # A player's claims in one command, and a few hundred players at a time: the loop
            # sends other streams' messages between them, where one pipeline of two commands a
            # claim, for every stream of the process, held it for as long as redis-py took to
            # pack them.
            async with self.hub.redis.pipeline(transaction=False) as pipe:
                for player_id, ids in players[start : start + RENEW_AT_ONCE]:
                    pipe.zadd(self._key(player_id), dict.fromkeys(ids, expiry), xx=True)
                    pipe.expire(self._key(player_id), int(claim_ttl()) + 1)
                await pipe.execute()

    def _key(self, player_id: int) -> str:
        return f"{settings.STREAMS_CHANNEL_PREFIX}:open-streams:{player_id}"


_limits: dict[Hub, Limits] = {}


def limits(hub: Hub) -> Limits:
    found = _limits.get(hub)
    if found is None:
        found = _limits[hub] = Limits(hub)
    return found

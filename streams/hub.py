"""The receiving side of the notification channel: one hub a server process, on its event loop.

An open stream holds a ``Watch``: the topics it follows, and what it last saw of each thing it
reads (a game's version, a player's notices, its token). The hub wakes a watch when one of its
topics is published (Redis pub/sub, or this process's own publishers with no Redis), and every
``STREAM_CHECK_SECONDS`` it asks the database, in one query per kind for all of this process's
watches, whether anything moved that no notification told: that check is what makes a lost
notification a delay instead of a loss. No thread waits: a watch is an ``asyncio.Event``.

A notification may carry an offer (``bus.publish``): what its topic's readers would read, made
by the publisher, which had it in hand. The hub decodes it once (``register_offer``) and keeps
the last few of each topic it follows (``Hub.offers``); a watch notes whether every poke since
its last wait carried one (``Watch.plain``), so its reader knows when the offers alone bring it
up to date and when it must read (a poke with no offer, a gap between the offers).
"""

from __future__ import annotations

import asyncio
import itertools
import math
import threading
import time
from collections import defaultdict
from collections.abc import Awaitable, Callable, Hashable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar, cast

import redis.asyncio as aioredis
import structlog
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import InterfaceError, OperationalError, close_old_connections
from redis.exceptions import RedisError

from streams import bus

logger = structlog.get_logger(__name__)

#: A probe reads, for many keys at once, the value a watch compares with what it saw.
Probe = Callable[[list[Hashable]], dict[Hashable, Any]]
#: Reads, for many keys at once, what each key's readers are sent (``Hub.read``).
ReadMany = Callable[[list[Any]], dict[Any, Any]]
#: Decodes an offer: the key its readers look it up by in ``Hub.offers``, and the value.
DecodeOffer = Callable[[bytes], tuple[Hashable, Any]]
#: The offers kept a topic, the newest: a reader a move or three behind (a bot's answer came on
#: the heels of the move) still finds his; an older one reads. Each is a few KiB (every viewer
#: kind's view), kept for every game a process follows.
OFFERS_KEPT = 4
#: Watches (or keys) the check goes through before it lets the loop run others (``Hub.check``).
CHECK_AT_ONCE = 500
#: The readers waiting for one key's read, each on a future of his own (``Hub.read``).
Waiters = list["asyncio.Future[Any]"]
_probes: dict[str, Probe] = {}
_offer_decoders: dict[str, DecodeOffer] = {}
_pokes = itertools.count(1)

#: The kind of key one probe reads by (a player's id, a game's id, a token's digest).
Key = TypeVar("Key", bound=Hashable)


def register_probe(name: str, probe: Callable[[list[Key]], dict[Key, Any]]) -> None:
    # A probe is asked only the keys its own watches put in ``Watch.seen`` under its name, so
    # they are of its kind: the registry holds probes of every kind under one type.
    _probes[name] = cast(Probe, probe)


def register_offer(kind: str, decode: DecodeOffer) -> None:
    """How the offers of the topics ``<kind>:...`` are decoded (``Hub.poke_many``)."""
    _offer_decoders[kind] = decode


class Watch:
    """One open stream's (or long poll's) interest in some topics."""

    def __init__(self, topics: Iterable[str]) -> None:
        self.topics = frozenset(topics)
        #: probe name -> (key, value last seen): what the hub's check compares.
        self.seen: dict[str, tuple[Hashable, Any]] = {}
        self._reasons: set[str] = set()
        self._woken = asyncio.Event()
        #: The count of pokes (of any watch) at this watch's last poke, or at its making: a read
        #: started since then sees what caused it.
        self.woken_at = next(_pokes)
        #: Whether a poke since the last ``wait`` carried no offer (and before the first wait:
        #: a stream's first read catches up from the log).
        self._plain = False
        self.plain = True

    def poke(self, reason: str, offered: bool = False) -> None:
        self._reasons.add(reason)
        self._plain |= not offered
        self._woken.set()
        self.woken_at = next(_pokes)

    async def wait(self, timeout: float) -> set[str]:
        """Until poked or ``timeout`` passes; the reasons (topics, probe names), empty on time."""
        if not self._woken.is_set():
            # A timer that sets the event: with thousands of streams open heartbeats fall due
            # all the time, and ``asyncio.timeout`` ends each by cancelling the task and
            # catching the error, which costs far more than a timer.
            timer = asyncio.get_running_loop().call_later(timeout, self._woken.set)
            try:
                await self._woken.wait()
            finally:
                timer.cancel()
        self._woken.clear()
        reasons, self._reasons = self._reasons, set()
        self.plain, self._plain = self._plain, False
        return reasons


class Hub:
    def __init__(self) -> None:
        self.watches: set[Watch] = set()
        self._by_topic: dict[str, set[Watch]] = defaultdict(set)
        self._tasks: list[asyncio.Task[None]] = []
        self._tick_hooks: list[Callable[[], Awaitable[None]]] = []
        #: topic -> {key: decoded offer}, the last ``OFFERS_KEPT``, for the topics followed here
        self.offers: dict[str, dict[Hashable, Any]] = {}
        #: (read_many, key) -> (the pokes' count when its read started, or inf: not yet; the
        #: readers waiting for it)
        self._reads: dict[tuple[ReadMany, Hashable], tuple[float, Waiters]] = {}
        self._gathering: dict[ReadMany, dict[Hashable, Waiters]] = {}
        self._reading = 0  # reads in flight
        self._batches: set[asyncio.Task[None]] = set()
        self._readers = ThreadPoolExecutor(
            max_workers=settings.STREAM_READ_THREADS, thread_name_prefix="stream-read"
        )
        #: Set when the topics followed here that take offers change (``_announce``).
        self._following_changed = asyncio.Event()
        self.redis: aioredis.Redis | None = None
        if settings.STREAMS_REDIS_URL:
            # A bounded pool: a thousand streams closing at once share a few connections
            # instead of opening one each (Redis and the connect timeouts would not keep up).
            pool = aioredis.BlockingConnectionPool.from_url(
                settings.STREAMS_REDIS_URL, max_connections=16, timeout=10, socket_connect_timeout=2
            )
            self.redis = aioredis.Redis(connection_pool=pool)

    def add(self, watch: Watch) -> None:
        self._start()
        self.watches.add(watch)
        for topic in watch.topics:
            followers = self._by_topic[topic]
            if not followers and _takes_offers(topic):
                self._following_changed.set()
            followers.add(watch)

    def remove(self, watch: Watch) -> None:
        self.watches.discard(watch)
        for topic in watch.topics:
            followers = self._by_topic.get(topic)
            if followers is not None:
                followers.discard(watch)
                if not followers:
                    del self._by_topic[topic]
                    self.offers.pop(topic, None)
                    if _takes_offers(topic):
                        self._following_changed.set()

    def follows(self, topic: str) -> bool:
        """Whether a watch here follows ``topic`` (``bus.followed``, on the in-process channel)."""
        return topic in self._by_topic

    async def read(self, read_many: ReadMany, key: Hashable, watch: Watch) -> Any:
        """``read_many(keys)[key]`` (None when it leaves the key out), read on a database
        thread together with every other key asked of ``read_many`` meanwhile: while
        ``STREAM_READ_THREADS`` reads are in flight, the keys asked wait and go in the next
        one, so a move followed by a thousand readers, or a hundred moves at once, cost a few
        statements, not one read each. A read serves a watch only if it started after the
        watch's last poke (it then sees the commit that caused it); otherwise the key goes in
        the next read."""
        found = self._reads.get((read_many, key))
        if found is None or found[0] < watch.woken_at:
            found = self._gather(read_many, key)
        # A future of this reader's own: a reader cancelled (its client gone) cancels only his
        # wait, never the read the others share. Cheaper than ``asyncio.shield`` of one shared
        # future (two closures and two callbacks a reader).
        waiter: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        found[1].append(waiter)
        return await waiter

    def _gather(self, read_many: ReadMany, key: Hashable) -> tuple[float, Waiters]:
        gathering = self._gathering.setdefault(read_many, {})
        waiters = gathering.setdefault(key, [])
        # Not started yet: it will see every commit poked so far.
        self._reads[(read_many, key)] = (math.inf, waiters)
        self._start_reads(read_many)
        return self._reads[(read_many, key)]

    def _start_reads(self, read_many: ReadMany) -> None:
        """Reads of the keys gathered, oldest first, ``STREAM_READ_BATCH`` at most each, while
        a thread is free: a read answers its readers only once it has read all its keys, so
        after a stall (hundreds of games woken at once) one read of every game would keep the
        first woken waiting for the last one's projections; each read's keys still cost its
        few statements."""
        gathering = self._gathering.get(read_many)
        while gathering and self._reading < settings.STREAM_READ_THREADS:
            keys = list(itertools.islice(gathering, settings.STREAM_READ_BATCH))
            batch = {key: gathering.pop(key) for key in keys}
            started = next(_pokes)
            for key, waiters in batch.items():
                self._reads[(read_many, key)] = (started, waiters)
            self._reading += 1
            task = asyncio.create_task(self._read_batch(read_many, batch))
            self._batches.add(task)  # held: the loop keeps only a weak reference to a task
            task.add_done_callback(self._batches.discard)
        if not gathering:
            self._gathering.pop(read_many, None)

    async def _read_batch(self, read_many: ReadMany, batch: dict[Hashable, Waiters]) -> None:
        try:
            found = await self._in_pool(read_many, list(batch))
        except Exception as error:  # each reader's step sees it (a database outage)
            for waiters in batch.values():
                for waiter in waiters:
                    if not waiter.done():  # a reader gone meanwhile
                        waiter.set_exception(error)
        else:
            for key, waiters in batch.items():
                result = found.get(key)
                for waiter in waiters:
                    if not waiter.done():
                        waiter.set_result(result)
        finally:
            for key, waiters in batch.items():
                if self._reads.get((read_many, key), (0, None))[1] is waiters:
                    del self._reads[(read_many, key)]
            self._reading -= 1
            for waiting in list(self._gathering):
                self._start_reads(waiting)

    async def _in_pool(self, read: Callable[..., Any], *args: Any) -> Any:
        """On one of the readers' threads: a read spends most of its time waiting for
        PostgreSQL, and on the one sync thread every stream's read would wait for the one before
        it. Each thread keeps its own connection (``CONN_MAX_AGE``), see ``_checked``."""
        return await asyncio.get_running_loop().run_in_executor(
            self._readers, _checked, read, *args
        )

    def on_tick(self, hook: Callable[[], Awaitable[None]]) -> None:
        self._tick_hooks.append(hook)

    def poke_many(self, topics: Iterable[str], offers: dict[str, bytes] | None = None) -> None:
        for topic in topics:
            followers = self._by_topic.get(topic)
            if not followers:  # nobody here follows it: its offer is not even decoded
                continue
            offer = offers.get(topic) if offers else None
            offered = offer is not None and self._keep(topic, offer)
            for watch in followers:
                watch.poke(topic, offered)

    def _keep(self, topic: str, offer: bytes) -> bool:
        decode = _offer_decoders.get(topic.partition(":")[0])
        if decode is None:
            return False
        try:
            key, value = decode(offer)
        except ValueError as error:  # a publisher of another version: its readers read
            logger.warning("streams.offer_unreadable", topic=topic, error=str(error))
            return False
        kept = self.offers.setdefault(topic, {})
        kept[key] = value
        if len(kept) > OFFERS_KEPT:
            del kept[next(iter(kept))]  # the oldest: dicts keep their order of insertion
        return True

    def poke_all(self, reason: str) -> None:
        for watch in self.watches:
            watch.poke(reason)

    async def check(self, only: str | None = None) -> None:
        """Wake every watch whose things moved since it last read them: one query per probe
        (``only`` that probe's)."""
        keyed: dict[str, dict[Hashable, list[tuple[Watch, Any]]]] = defaultdict(dict)
        for count, watch in enumerate(list(self.watches), 1):
            for probe, (key, seen) in watch.seen.items():
                if only is not None and probe != only:
                    continue
                keyed[probe].setdefault(key, []).append((watch, seen))
            if count % CHECK_AT_ONCE == 0:
                await asyncio.sleep(0)  # the loop sends other streams' messages meanwhile
        for probe, entries in keyed.items():
            current = await sync_to_async(_probes[probe])(list(entries))
            for count, (key, watchers) in enumerate(entries.items(), 1):
                now = current.get(key)
                for watch, seen in watchers:
                    if now != seen:
                        watch.poke(probe)
                if count % CHECK_AT_ONCE == 0:
                    await asyncio.sleep(0)

    def _start(self) -> None:
        if self._tasks:
            return
        self._tasks.append(asyncio.create_task(self._tick()))
        self._tasks.append(asyncio.create_task(self._check_tokens()))
        if self.redis is not None:
            self._tasks.append(asyncio.create_task(self._listen()))
            self._tasks.append(asyncio.create_task(self._announce()))
        else:
            bus.register_local(asyncio.get_running_loop(), self)

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(settings.STREAM_CHECK_SECONDS)
            try:
                await self.check()
                for hook in self._tick_hooks:
                    await hook()
            except Exception:  # a database or Redis outage: the next tick tries again
                logger.exception("streams.check_failed")

    async def _check_tokens(self) -> None:
        """The tokens' probe, more often than the rest (``STREAM_TOKEN_CHECK_SECONDS``): a
        token revoked or expired with no notification (its row changed by hand, its expiry
        passed, Redis down) still closes its streams within that time. One indexed query a
        check for all of this process's streams."""
        while True:
            await asyncio.sleep(settings.STREAM_TOKEN_CHECK_SECONDS)
            try:
                await self.check(only="token")
            except Exception:  # a database outage: the next check tries again
                logger.exception("streams.token_check_failed")

    async def _listen(self) -> None:
        """Follow ``<prefix>:*`` on Redis, resubscribing after any failure; on each
        (re)subscription every watch re-reads, for what was published while nobody listened."""
        assert self.redis is not None
        prefix = f"{settings.STREAMS_CHANNEL_PREFIX}:"
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.psubscribe(prefix + "*")
                    self.poke_all("resubscribed")
                    async for message in pubsub.listen():
                        if message["type"] == "pmessage":
                            topic = message["channel"].decode()[len(prefix) :]
                            offer = message["data"]  # empty: no offer (``bus.publish``)
                            self.poke_many([topic], {topic: offer} if offer else None)
            except (RedisError, OSError) as error:
                logger.warning("streams.listen_failed", error=str(error))
                await asyncio.sleep(1)

    async def _announce(self) -> None:
        """Keep this process subscribed to ``bus.following_channel`` of each topic followed here
        that takes offers, and to no other, so that a publisher asks Redis (``bus.followed``)
        whether to make an offer for a move: none is made for a game nobody follows. After a
        failure it subscribes again from nothing; meanwhile publishers may see no follower,
        which costs the streams a read each, never a move (``bus.followed``)."""
        assert self.redis is not None
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    subscribed: set[str] = set()
                    while True:
                        self._following_changed.clear()
                        wanted = {bus.following_channel(topic) for topic in self._by_topic
                                  if _takes_offers(topic)}  # fmt: skip
                        if wanted - subscribed:
                            await pubsub.subscribe(*(wanted - subscribed))
                        if subscribed - wanted:
                            await pubsub.unsubscribe(*(subscribed - wanted))
                        subscribed = wanted
                        # Redis's confirmations, read so they never pile up unread.
                        while pubsub.connection and await pubsub.get_message(timeout=0.0):
                            pass
                        await self._following_changed.wait()
            except (RedisError, OSError) as error:
                logger.warning("streams.announce_failed", error=str(error))
                await asyncio.sleep(1)


def _takes_offers(topic: str) -> bool:
    return topic.partition(":")[0] in _offer_decoders


#: How often a reader's thread checks its connection (``_checked``).
CONNECTION_CHECK_SECONDS = 1.0
_checked_at = threading.local()


def _checked(read: Callable[..., Any], *args: Any) -> Any:
    """``read(*args)`` on this thread's connection, checked (``close_old_connections``: its age,
    and with ``CONN_HEALTH_CHECKS`` a round trip to PostgreSQL) at most once a
    ``CONNECTION_CHECK_SECONDS``, not before every read: a read is a few round trips, and the
    check would add one to each. A connection that died since its last check (a restarted
    database) fails the read once: it is checked, and the read made again."""
    now = time.monotonic()
    if now - getattr(_checked_at, "last", -math.inf) >= CONNECTION_CHECK_SECONDS:
        close_old_connections()
        _checked_at.last = now
    try:
        return read(*args)
    except (OperationalError, InterfaceError):
        close_old_connections()  # closes it: an error occurred on it
        _checked_at.last = time.monotonic()
        return read(*args)


_hubs: dict[asyncio.AbstractEventLoop, Hub] = {}


def hub() -> Hub:
    """This event loop's hub (a server process runs one loop)."""
    loop = asyncio.get_running_loop()
    found = _hubs.get(loop)
    if found is None:
        found = _hubs[loop] = Hub()
    return found

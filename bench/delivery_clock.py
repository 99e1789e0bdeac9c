"""The server's part of a stream delivery's latency, for bench/streams.py: clocked from outside.

The bench serves the application through this module's factories instead of truc_api's entry
points (granian ``--factory bench.delivery_clock:asgi`` for the streams, ``:wsgi`` for the REST
API), which wrap a few of its seams before the first request; the application itself carries no
clock. ``STREAM_DELIVERY_LOG`` names the file the streams process appends its lines to:

    <published> <poked> <woke> <read> <sent> <game or player topic> <last id sent or ->

(seconds since the epoch): published (``bus.publish``, run after the commit: every notification
of a clocked process carries its publisher's time before its offer), poked (the hub received it),
woke (the stream's wait ended), read (the step's read ready), sent (the stream resumed after its
``yield``: Django's ASGI handler has awaited granian's ``send``). A stream keeps the earliest
publish it has not served yet. What the bench's clients add after ``sent`` (the loopback socket,
their own event loop) is theirs, not the server's. The process's garbage collections go in the
same file, one line each, written with the next delivery's:

    gc <generation> <started> <ended> <CPU seconds of the collecting thread>
"""

from __future__ import annotations

import gc
import os
import re
import time
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import IO, Any, cast

#: How often the lines kept in the file's buffer are flushed (the bench reads the file a few
#: seconds after its last move).
FLUSH_SECONDS = 0.5
#: What starts a clocked notification: its publisher's time follows, then a space and the offer
#: (an offer starts with a number: the mark keeps a stamp from being read in one).
MARK = b"clock:"
_LAST_ID = re.compile(rb"^id: (\d+)$", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class Stamp:
    """When the earliest notification a step serves was published, and when the hub got it."""

    published: float
    poked: float


# The application's modules are imported in the factories, once the entry point has set Django
# up: the streams' modules need their models.


def wsgi() -> Any:
    """The REST API (granian ``--interface wsgi --factory``), its notifications stamped."""
    from truc_api.wsgi import application

    _stamp_publishes()
    return application


def asgi() -> Any:
    """The streams' server (granian ``--interface asgi --factory``): its notifications stamped
    (a move posted to it publishes too), its streams' steps and garbage collections written."""
    from truc_api.asgi import application

    _stamp_publishes()
    _clock_streams()
    gc.callbacks.append(_collected)
    return application


# --- the publisher: its time before every notification's offer ---------------------------------


def _stamp_publishes() -> None:
    from streams import bus

    publish = bus.publish

    def stamped(topics: list[str], offers: dict[str, bytes] | None = None) -> None:
        sent = repr(time.time()).encode()
        kept = offers or {}
        publish(topics, {topic: MARK + sent + b" " + kept.get(topic, b"") for topic in topics})

    bus.publish = stamped  # ``publish_on_commit`` and the receivers look it up at each call


# --- the streams: the stamps through the hub to each stream's step -----------------------------

#: The stamps of the notifications being poked now, by topic (``Hub.poke_many`` → ``Watch.poke``).
_poking: dict[str, Stamp] = {}
#: Each watch's earliest stamp not yet taken by a wait, and the one its last wait took (when the
#: wait ended).
_pending: weakref.WeakKeyDictionary[Any, Stamp] = weakref.WeakKeyDictionary()
_taken: weakref.WeakKeyDictionary[Any, tuple[Stamp, float]] = weakref.WeakKeyDictionary()


def _clock_streams() -> None:
    from streams import game_stream, hub, player_stream

    poke_many, poke, wait = hub.Hub.poke_many, hub.Watch.poke, hub.Watch.wait

    def unstamped(
        self: hub.Hub, topics: Iterable[str], offers: dict[str, bytes] | None = None
    ) -> None:
        now, plain = time.time(), {}
        for topic, data in (offers or {}).items():
            if not data.startswith(MARK):  # a publisher not clocked (a test's own process)
                plain[topic] = data
                continue
            stamp, _, offer = data[len(MARK) :].partition(b" ")
            _poking[topic] = Stamp(float(stamp), now)
            if offer:
                plain[topic] = offer
        try:
            poke_many(self, topics, plain or None)
        finally:
            _poking.clear()

    def noted(self: hub.Watch, reason: str, offered: bool = False) -> None:
        stamp = _poking.get(reason)
        if stamp is not None and self not in _pending:
            _pending[self] = stamp
        poke(self, reason, offered)

    async def taken(self: hub.Watch, timeout: float) -> set[str]:
        reasons = await wait(self, timeout)
        stamp = _pending.pop(self, None)
        if stamp is not None:
            _taken[self] = (stamp, time.time())
        return reasons

    hub.Hub.poke_many = unstamped  # type: ignore[method-assign]
    hub.Watch.poke = noted  # type: ignore[method-assign]
    hub.Watch.wait = taken  # type: ignore[method-assign]
    # Each stream module calls the ``follow`` it imported from streams.live.
    game_stream.follow = _clocked(game_stream.follow)  # type: ignore[attr-defined]
    player_stream.follow = _clocked(player_stream.follow)  # type: ignore[attr-defined]


Follow = Callable[..., AsyncIterator[bytes]]


def _clocked(follow: Follow) -> Follow:
    def clocked(topics: list[str], *args: Any) -> AsyncIterator[bytes]:
        *rest, read = args
        return _steps(follow, topics, rest, read)

    return clocked


async def _steps(
    follow: Follow, topics: list[str], rest: list[Any], read: Any
) -> AsyncIterator[bytes]:
    """``follow``'s chunks, each step a notification caused written once its bytes are sent."""
    due: list[tuple[Stamp, float, float]] = []

    async def timed(watch: Any) -> Any:
        step = await read(watch)
        taken = _taken.pop(watch, None)
        if step.chunks and taken is not None:
            due.append((*taken, time.time()))
        return step

    inner = cast(AsyncGenerator[bytes], follow(topics, *rest, timed))  # streams.live.follow
    try:
        async for chunk in inner:
            yield chunk
            if due:  # the first chunk after a step's read is that step's
                (stamp, woke, read_at), ids = due.pop(), _LAST_ID.findall(chunk)
                last = ids[-1].decode() if ids else "-"
                _write(
                    f"{stamp.published:.6f} {stamp.poked:.6f} {woke:.6f} {read_at:.6f}"
                    f" {time.time():.6f} {topics[0]} {last}\n"
                )
    finally:
        await inner.aclose()  # the stream's own clean-up (its watch, its claim) runs now


# --- the file ----------------------------------------------------------------------------------


def _write(line: str) -> None:
    log = _log(os.environ["STREAM_DELIVERY_LOG"])
    while _collections:  # written here, not in the callback: a collection may start in a write
        log.write(_collections.pop(0))
    log.write(line)
    now = time.monotonic()
    if now - _flushed[0] > FLUSH_SECONDS:
        log.flush()
        _flushed[0] = now


_flushed = [0.0]
_collection: list[float] = [0.0, 0.0]  # wall time and thread CPU time at the last start
_collections: list[str] = []  # the lines of the collections not yet written


def _collected(phase: str, info: dict[str, Any]) -> None:
    """Each of this process's garbage collections (``gc.callbacks``): a collection holds every
    thread of the process, the event loop and the reads alike."""
    if phase == "start":
        _collection[:] = [time.time(), time.thread_time()]
        return
    cpu = time.thread_time() - _collection[1]
    _collections.append(
        f"gc {info['generation']} {_collection[0]:.6f} {time.time():.6f} {cpu:.6f}\n"
    )


@cache
def _log(path: str) -> IO[str]:
    return open(path, "a", encoding="ascii")  # noqa: SIM115 (open for the process's life)

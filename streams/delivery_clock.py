"""The server's part of a delivery's latency, written down for ``bench/streams.py`` only.

Every notification carries the wall-clock time its publisher sent it (``bus.publish``, run after
the commit). A stream woken by one keeps the earliest such time not yet served (``hub.Watch``),
and once the step it caused has handed its bytes to the server (the generator resumes after its
``yield``: Django's ASGI handler has awaited granian's ``send``), this module appends one line to
``STREAM_DELIVERY_LOG``:

    <published> <poked> <woke> <read> <sent> <game or player topic> <last seq sent or ->

(seconds since the epoch): published by the REST process, poked here (the hub received it), woke
(the stream's task ran again), read (the step's snapshot ready: the gathered read it waited
for), sent. What the bench's clients add after ``sent`` (the loopback socket, their own event
loop) is theirs, not the server's. The garbage collector's pauses go in the same file
(``watch_collector``), one line each, written with the next delivery's:

    gc <generation> <started> <ended> <CPU seconds of the collecting thread>

With no file named (production) the publisher's time rides along unread and nothing is kept.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass
from functools import cache
from typing import IO, Any

from django.conf import settings

#: How often the lines kept in the file's buffer are flushed (the bench reads the file a few
#: seconds after its last move).
FLUSH_SECONDS = 0.5


@dataclass(frozen=True, slots=True)
class Stamp:
    """When the earliest notification a step serves was published, and when the hub got it."""

    published: float
    poked: float


def enabled() -> bool:
    return bool(settings.STREAM_DELIVERY_LOG)


def record(stamp: Stamp, woke: float, read: float, topic: str, last_seq: int | None) -> None:
    _write(
        f"{stamp.published:.6f} {stamp.poked:.6f} {woke:.6f} {read:.6f} {time.time():.6f}"
        f" {topic} {'-' if last_seq is None else last_seq}\n"
    )


def _write(line: str) -> None:
    log = _log(settings.STREAM_DELIVERY_LOG)
    while _collections:  # written here, not in the callback: a collection may start in a write
        log.write(_collections.pop(0))
    log.write(line)
    now = time.monotonic()
    if now - _flushed[0] > FLUSH_SECONDS:
        log.flush()
        _flushed[0] = now


_flushed = [0.0]


def watch_collector() -> None:
    """Write each of this process's garbage collections (``gc.callbacks``): a collection holds
    every thread of the process, the event loop and the reads alike."""
    if enabled() and _collected not in gc.callbacks:
        gc.callbacks.append(_collected)


_collection: list[float] = [0.0, 0.0]  # wall time and thread CPU time at the last start
_collections: list[str] = []  # the lines of the collections not yet written


def _collected(phase: str, info: dict[str, Any]) -> None:
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

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
loop) is theirs, not the server's. With no file named (production) the publisher's time rides
along unread and no stamp is kept.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache
from typing import IO

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
    log = _log(settings.STREAM_DELIVERY_LOG)
    log.write(
        f"{stamp.published:.6f} {stamp.poked:.6f} {woke:.6f} {read:.6f} {time.time():.6f}"
        f" {topic} {'-' if last_seq is None else last_seq}\n"
    )
    now = time.monotonic()
    if now - _flushed[0] > FLUSH_SECONDS:
        log.flush()
        _flushed[0] = now


_flushed = [0.0]


@cache
def _log(path: str) -> IO[str]:
    return open(path, "a", encoding="ascii")  # noqa: SIM115 (open for the process's life)

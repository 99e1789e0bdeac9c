"""Following, shared by both streams: read, send, then wait for the hub, with heartbeats between,
until the stream's reader says it is over, the token is revoked, or the client goes away."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from asgiref.sync import sync_to_async
from django.conf import settings

from streams import bus, hub, sse, tokens
from streams.limits import Claim, limits


@dataclass(frozen=True)
class Step:
    """What one read gives: the messages to send, and why the stream ends now, if it does."""

    chunks: list[bytes]
    end: str | None = None
    again: bool = False  # more to read at once (a long backlog, read in batches)


#: Reads everything new and records in the watch what it saw (``watch.seen``) for the checks.
Read = Callable[[hub.Watch], Awaitable[Step]]


async def follow(
    topics: list[str], player_id: int, digest: str, claim: Claim, read: Read
) -> AsyncIterator[bytes]:
    here = hub.hub()
    revoked = bus.token_topic(player_id)
    watch = hub.Watch([*topics, revoked])
    here.add(watch)  # before the first read: nothing committed after it goes unnoticed
    limits(here).attach(claim, watch)
    watch.seen["token"] = (digest, True)
    try:
        yield sse.retry(settings.STREAM_RETRY_MILLISECONDS)
        while True:
            step = await read(watch)
            if step.chunks:  # one write for the whole step: one send, one wake of the client
                yield b"".join(step.chunks)
            if step.end is not None:
                yield sse.message({"reason": step.end}, event="end")
                return
            if step.again:
                continue
            while not (reasons := await watch.wait(settings.STREAM_HEARTBEAT_SECONDS)):
                yield sse.HEARTBEAT
            if reasons & {"token", revoked} and not await sync_to_async(tokens.still_valid)(digest):
                yield sse.message({"reason": "token_revoked"}, event="end")
                return
    finally:
        here.remove(watch)
        await limits(here).release(claim)

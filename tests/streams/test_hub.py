"""The hub's gathered reads (streams/hub.py, ``Hub.read``) on a real hub, its own read threads
and event loop: the readers' keys asked while the threads are busy go in the next reads, oldest
first, at most ``STREAM_READ_BATCH`` a read, and a reader who goes away cancels only his wait."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from streams.hub import Hub, Watch


def reads(batches: list[list[int]], release: threading.Event) -> Any:
    def read_many(keys: list[int]) -> dict[int, str]:
        batches.append(list(keys))
        release.wait(10)  # the first read holds the only thread while the others gather
        return {key: f"read {key}" for key in keys}

    return read_many


def test_keys_gathered_meanwhile_are_read_a_batch_at_a_time_oldest_first(settings) -> None:
    settings.STREAMS_REDIS_URL = ""
    settings.STREAM_READ_THREADS, settings.STREAM_READ_BATCH = 1, 3
    batches: list[list[int]] = []
    release = threading.Event()
    read_many = reads(batches, release)

    async def readers() -> list[Any]:
        hub = Hub()
        asked = [asyncio.create_task(hub.read(read_many, n, Watch([f"t{n}"]))) for n in range(8)]
        await asyncio.sleep(0.2)  # the first read started alone; the seven others wait
        release.set()
        return await asyncio.gather(*asked)

    assert asyncio.run(readers()) == [f"read {n}" for n in range(8)]
    assert batches == [[0], [1, 2, 3], [4, 5, 6], [7]]


def test_a_reader_gone_cancels_only_his_own_wait(settings) -> None:
    settings.STREAMS_REDIS_URL = ""
    batches: list[list[int]] = []
    release = threading.Event()
    read_many = reads(batches, release)

    async def readers() -> tuple[bool, Any]:
        hub = Hub()
        gone, staying = (asyncio.create_task(hub.read(read_many, 1, Watch(["t"]))) for _ in "ab")
        await asyncio.sleep(0.2)
        gone.cancel()
        await asyncio.sleep(0)
        release.set()
        return gone.cancelled(), await staying

    assert asyncio.run(readers()) == (True, "read 1")
    assert batches == [[1]]  # one read for both

"""Server-Sent Events framing (the HTML standard's ``text/event-stream``)."""

from __future__ import annotations

from typing import Any

import orjson

CONTENT_TYPE = "text/event-stream"
#: A comment line: keeps proxies and clients from timing the connection out, and lets the
#: server notice a client that went away (its write fails).
HEARTBEAT = b": heartbeat\n\n"
#: Headers every stream answers with: never cached, never buffered by a proxy (nginx honours
#: X-Accel-Buffering).
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def message(data: Any, *, event: str, id: int | None = None) -> bytes:
    """One message; ``data`` is JSON on one line (orjson never writes a newline in it)."""
    head = f"id: {id}\nevent: {event}\n" if id is not None else f"event: {event}\n"
    return head.encode() + b"data: " + orjson.dumps(data) + b"\n\n"


def retry(milliseconds: int) -> bytes:
    """How long a client (EventSource) waits before it reconnects after a drop."""
    return f"retry: {milliseconds}\n\n".encode()

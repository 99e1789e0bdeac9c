"""A plain Server-Sent Events reader over http.client, for the tests (no EventSource here)."""

from __future__ import annotations

import http.client
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit


@dataclass
class Message:
    event: str
    data: Any
    id: int | None = None


@dataclass
class Stream:
    """One open stream: ``status``, ``headers``; ``next()`` reads one message (comments are
    counted in ``heartbeats``); ``messages`` keeps everything read."""

    response: http.client.HTTPResponse
    connection: http.client.HTTPConnection
    messages: list[Message] = field(default_factory=list)
    heartbeats: int = 0
    retry: int | None = None

    @property
    def status(self) -> int:
        return self.response.status

    def next(self) -> Message | None:
        """The next message; None when the server closed the stream."""
        fields: dict[str, str] = {}
        while True:
            line = self.response.readline()
            if not line:
                return None
            text = line.decode().rstrip("\n")
            if text == "":
                if "data" in fields:
                    sent = fields.get("id")
                    message = Message(
                        fields.get("event", "message"),
                        json.loads(fields["data"]),
                        int(sent) if sent is not None else None,
                    )
                    self.messages.append(message)
                    return message
                fields = {}
                continue
            if text.startswith(":"):
                self.heartbeats += 1
                continue
            name, _, value = text.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "retry":
                self.retry = int(value)
            else:
                fields[name] = value

    def until(self, predicate: Any) -> Message:
        while True:
            message = self.next()
            if message is None:
                raise AssertionError(f"the stream closed; read {self.messages}")
            if predicate(message):
                return message

    def read_to_end(self) -> list[Message]:
        while self.next() is not None:
            pass
        return self.messages

    def close(self) -> None:
        self.connection.close()


def open_stream(
    url: str,
    token: str | None = None,
    timeout: float = 20,
    headers: Mapping[str, str] | None = None,
) -> Stream:
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    sent = {"Accept": "text/event-stream", **(headers or {})}
    if token:
        sent["Authorization"] = f"Token {token}"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    connection.request("GET", path, headers=sent)
    return Stream(connection.getresponse(), connection)


class Reader(threading.Thread):
    """Reads a stream to its end in the background (one per reader of a match)."""

    def __init__(self, stream: Stream) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.stream.read_to_end()
        except BaseException as error:  # a timeout: the test says so
            self.error = error

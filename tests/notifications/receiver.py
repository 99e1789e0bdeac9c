"""A local webhook receiver for the tests: an ``http.server`` on 127.0.0.1 in a thread.

It checks each request as an integrator would (Standard Webhooks signature with its secret, a
recent timestamp), can fail the first requests on purpose to force retries, refuse some paths or
deliveries for ever, or answer some paths too late, and records all it got, with when. It does not
dedupe: the tests count what it accepted by ``webhook-id``.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from notifications import signing

TOLERANCE_SECONDS = 300


def verify(secret: str, received: dict[str, str], body: bytes) -> bool:
    """What a receiver checks (notifications/signing.py): one of the space-separated signatures
    matches (keys rotate)."""
    try:
        expected = signing.signature(
            secret, received["webhook-id"], int(received["webhook-timestamp"]), body
        )
    except (KeyError, ValueError):
        return False
    offered = received.get("webhook-signature", "").split()
    return any(hmac.compare_digest(expected, candidate) for candidate in offered)


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    answered: int
    at: float = 0.0  # time.time() when it arrived

    @property
    def webhook_id(self) -> str:
        return self.headers["webhook-id"]

    @property
    def payload(self) -> dict[str, Any]:
        return json.loads(self.body)


class Receiver:
    def __init__(self) -> None:
        self.secrets: dict[str, str] = {}  # by path: what this receiver was told to expect
        self.fail_first = 0  # fail this many requests, whatever they are
        self.fail_first_of_each = 0  # fail the first this many requests of each webhook-id
        self.refused: set[str] = set()  # paths and webhook-ids answered 500, every time
        self.silent: dict[str, float] = {}  # by path: seconds to wait before answering
        self.received: list[Received] = []
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join()

    def accepted(self, path: str | None = None) -> list[Received]:
        with self._lock:
            return [r for r in self.received if r.answered == 200 and path in (None, r.path)]

    def accepted_ids(self) -> Counter[str]:
        return Counter(request.webhook_id for request in self.accepted())

    def answer(self, path: str, headers: dict[str, str], body: bytes) -> int:
        arrived = time.time()
        secret = self.secrets.get(path)
        timestamp = int(headers.get("webhook-timestamp", "0") or 0)
        with self._lock:
            if secret is None or not verify(secret, headers, body):
                status = 401
            elif abs(time.time() - timestamp) > TOLERANCE_SECONDS:
                status = 400
            elif {path, headers["webhook-id"]} & self.refused:
                status = 500
            elif self.fail_first > 0:
                self.fail_first -= 1
                status = 500
            elif self._seen(headers["webhook-id"]) < self.fail_first_of_each:
                status = 500
            else:
                status = 200
            # A silent path's answer comes after the sender gave up: it saw none (0).
            seen = 0 if path in self.silent else status
            self.received.append(Received(path, headers, body, seen, arrived))
        return status

    def _seen(self, webhook_id: str) -> int:
        return sum(request.webhook_id == webhook_id for request in self.received)


def _handler(receiver: Receiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            headers = {key.lower(): value for key, value in self.headers.items()}
            status = receiver.answer(self.path, headers, body)
            time.sleep(receiver.silent.get(self.path, 0))  # past the sender's timeout: no answer
            with contextlib.suppress(OSError):  # the sender may have hung up (silent paths)
                self.send_response(status)
                self.send_header("content-length", "0")
                self.end_headers()

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet

    return Handler

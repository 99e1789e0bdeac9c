"""Django's PostgreSQL backend, but for two costs it pays on every request.

- With CONN_HEALTH_CHECKS Django asks ``is_usable`` before each request's first query, and its
  answer is a ``SELECT 1``: a round trip and a statement on every request (bench/README.md). A
  kept connection is idle between requests, and an idle connection has nothing to read: when the
  server ends it (a restart, an administrator, an idle timeout) its farewell or the socket's end
  arrive and wait there. A look at the socket tells the same without the round trip.
- JSON values (every event, every game row's scores, the idempotency records' answers) are
  written with orjson rather than the standard library's encoder: the same JSON values, stored
  as jsonb either way, in a fraction of the time.
"""

from __future__ import annotations

import select
from typing import Any

import orjson
from django.db.backends.postgresql import base, operations
from psycopg import pq
from psycopg.types.json import Jsonb


def _dumps(value: Any) -> bytes:
    # As json.dumps would: dictionaries' non-string keys written as strings.
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS)


class DatabaseOperations(operations.DatabaseOperations):
    def adapt_json_value(self, value: Any, encoder: Any) -> Any:
        if encoder is not None:  # a field's own encoder: Django's way
            return super().adapt_json_value(value, encoder)
        return Jsonb(value, dumps=_dumps)


class DatabaseWrapper(base.DatabaseWrapper):
    ops_class = DatabaseOperations

    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())  # within a transaction: Django's own check
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
        return not poller.poll(0)  # something to read, or the end: the server has gone

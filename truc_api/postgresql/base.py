"""Django's PostgreSQL backend, with a health check that costs no round trip.

With CONN_HEALTH_CHECKS Django asks ``is_usable`` before each request's first query, and its answer
is a ``SELECT 1``: a round trip and a statement on every request. A kept connection is idle between
requests, and an idle connection has nothing to read: when the server ends it (a restart, an
administrator, an idle timeout) its farewell or the socket's end arrive and wait there. A look at
the socket tells the same without the round trip. This is the one part of the backend kept:
everything else is Django's.
"""

from __future__ import annotations

import select

from django.db.backends.postgresql import base
from psycopg import pq


class DatabaseWrapper(base.DatabaseWrapper):
    def is_usable(self) -> bool:
        connection = self.connection
        if connection is None or connection.closed or connection.broken:
            return False
        if connection.info.transaction_status != pq.TransactionStatus.IDLE:
            return bool(super().is_usable())  # within a transaction: Django's own check
        poller = select.poll()
        poller.register(connection.fileno(), select.POLLIN | select.POLLPRI)
        return not poller.poll(0)  # something to read, or the end: the server has gone

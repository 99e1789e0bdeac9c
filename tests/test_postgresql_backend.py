"""The PostgreSQL backend's health check (truc_api/postgresql/base.py): no round trip for a
healthy kept connection, and a connection the server ended is replaced before a request uses it."""

import select
import time

import pytest
from django.db import DatabaseError, connection, transaction

pytestmark = [
    pytest.mark.skipif(connection.vendor != "postgresql", reason="a PostgreSQL backend"),
    pytest.mark.django_db(transaction=True),  # a kept connection outside any transaction
]


def _last_statement_of(pid: int) -> str:
    """What the backend ``pid`` ran last, as PostgreSQL reports it to another connection."""
    other = connection.copy()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT query FROM pg_stat_activity WHERE pid = %s", [pid])
            return str(cursor.fetchone()[0])
    finally:
        other.close()


def _terminate(pid: int) -> None:
    """End the backend ``pid`` as an administrator or a restart would, and wait until its
    farewell has reached our socket."""
    other = connection.copy()
    try:
        with other.cursor() as cursor:
            cursor.execute("SELECT pg_terminate_backend(%s)", [pid])
    finally:
        other.close()
    poller = select.poll()
    poller.register(connection.connection.fileno(), select.POLLIN)
    deadline = time.monotonic() + 5
    while not poller.poll(50) and time.monotonic() < deadline:
        pass


def test_a_healthy_kept_connection_is_usable_without_a_statement():
    connection.ensure_connection()
    connection.connection.execute("SELECT 'the last statement'")

    assert connection.is_usable()
    assert _last_statement_of(connection.connection.info.backend_pid) == (
        "SELECT 'the last statement'"  # Django's own check would have sent SELECT 1
    )


def test_a_connection_the_server_ended_is_replaced_before_the_next_request_uses_it(client):
    connection.ensure_connection()
    ended = connection.connection.info.backend_pid
    _terminate(ended)

    assert not connection.is_usable()
    # A new request, as Django's request_started sets it (the attribute is set in Django's
    # BaseDatabaseWrapper.__init__; django-stubs leave it out).
    connection.health_check_done = False  # type: ignore[attr-defined]
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        assert cursor.fetchone()[0] != ended
    connection.health_check_done = False  # type: ignore[attr-defined]  # as above
    connection.connection.close()  # a second time, through Django's cursors: still no error
    assert client.get("/api/health/ready").status_code == 200


def test_within_a_failed_transaction_the_connection_is_not_usable():
    with transaction.atomic():
        with pytest.raises(DatabaseError), connection.cursor() as cursor:
            cursor.execute("SELECT 1 / 0")
        assert not connection.is_usable()  # Django's own check, which sees the failure

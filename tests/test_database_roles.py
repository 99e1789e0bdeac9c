"""The app's database role (manage.py grant_app_role), on the real PostgreSQL: it reads and
writes rows, and cannot TRUNCATE, ALTER a table, disable the event log's trigger, or switch
triggers off for its session (session_replication_role)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.core.management import call_command
from django.db import connection

from games.models import GameEvent

pytestmark = pytest.mark.django_db(transaction=True)  # the role must exist for a new connection

EVENTS = GameEvent._meta.db_table


@pytest.fixture
def app_role() -> Iterator[psycopg.Connection]:
    """A connection as a role just made by the command (roles are the cluster's: a unique name,
    dropped after)."""
    role = f"truc_app_test_{uuid.uuid4().hex[:8]}"
    call_command("grant_app_role", role)
    db = connection.settings_dict
    app = psycopg.connect(
        host=db["HOST"], port=db["PORT"], dbname=db["NAME"], user=role, autocommit=True
    )
    try:
        yield app
    finally:
        app.close()
        with connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


#: What a compromised app might try, to rewrite or drop the history of games.
FORBIDDEN = (
    f"TRUNCATE {EVENTS}",
    "TRUNCATE games_game CASCADE",
    f"ALTER TABLE {EVENTS} DISABLE TRIGGER ALL",
    f"ALTER TABLE {EVENTS} DISABLE TRIGGER games_gameevent_append_only",
    f"DROP TRIGGER games_gameevent_append_only ON {EVENTS}",
    "DROP FUNCTION games_gameevent_append_only()",
    "SET session_replication_role = replica",
    f"UPDATE {EVENTS} SET seq = seq",
    f"DELETE FROM {EVENTS}",
    f"DROP TABLE {EVENTS}",
    "CREATE TABLE intruder (id int)",
    "DELETE FROM django_migrations",
    "UPDATE lobby_chatline SET id = id",
)


def test_the_app_role_cannot_rewrite_history(app_role) -> None:
    allowed = []
    for statement in FORBIDDEN:  # one connection, one role: each statement on its own
        try:
            app_role.execute(statement)
        except psycopg.errors.InsufficientPrivilege:
            continue
        allowed.append(statement)

    assert allowed == []


def test_the_app_role_reads_and_writes_rows_and_appends_events(app_role) -> None:
    tables = connection.introspection.table_names()
    privileges = {
        table: app_role.execute(
            "SELECT has_table_privilege(current_user, %s, 'SELECT'),"
            " has_table_privilege(current_user, %s, 'INSERT'),"
            " has_table_privilege(current_user, %s, 'UPDATE'),"
            " has_table_privilege(current_user, %s, 'DELETE'),"
            " has_table_privilege(current_user, %s, 'TRUNCATE')",
            [table] * 5,
        ).fetchone()
        for table in tables
    }

    for table in (EVENTS, "lobby_chatline", "lobby_chatmoderation"):  # the append-only ones
        assert privileges.pop(table) == (True, True, False, False, False), table
    assert privileges.pop("django_migrations") == (True, False, False, False, False)
    assert set(privileges.values()) == {(True, True, True, True, False)}
    # A row written and taken back, with its sequence: what every request does.
    app_role.execute(
        "INSERT INTO django_session (session_key, session_data, expire_date)"
        " VALUES ('role-check', '', now())"
    )
    updated = app_role.execute(
        "UPDATE django_session SET session_data = 'x' WHERE session_key = 'role-check'"
    )
    deleted = app_role.execute("DELETE FROM django_session WHERE session_key = 'role-check'")
    assert (updated.rowcount, deleted.rowcount) == (1, 1)

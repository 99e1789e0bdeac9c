"""``manage.py grant_app_role ROLE``: the database role the app runs as, with only what it needs.

Run as the database's owner, after ``migrate`` (docker-compose.yml's ``migrate`` service does
both). The role it creates or updates owns nothing and is no superuser, so it cannot ``ALTER`` a
table, disable a trigger, ``TRUNCATE`` (never granted), or set ``session_replication_role``
(a superuser's setting): the append-only tables stay append-only (STYLE.md principle 6) even
for a compromised app. It may read and write the rows of every table, but only read and append
to the append-only ones (the games' event log, the lobby's chat: each table with a trigger named
``<table>_append_only``), and only read the migrations' record. Run it again after every
``migrate``: it grants on the tables as they are (and the owner's future tables get the same by
default privileges, for the moment between the two).
"""

from __future__ import annotations

import os
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connection
from psycopg import sql

#: Tables the app only reads.
READ_ONLY = ("django_migrations",)
#: The tables whose trigger refuses UPDATE and DELETE (games/migrations/0003_...,
#: lobby/migrations/0002_...): the app only reads them and appends to them.
_APPEND_ONLY_TABLES = """
SELECT c.relname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
WHERE NOT t.tgisinternal AND t.tgname = c.relname || '_append_only' ORDER BY c.relname
"""


class Command(BaseCommand):
    help = "Create or update the app's database role, with only the privileges it needs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("role", help="The role's name, e.g. truc_app.")
        parser.add_argument(
            "--password-from-env",
            metavar="VARIABLE",
            help="Set the role's password from this environment variable.",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if connection.vendor != "postgresql":
            raise CommandError("Database roles are a PostgreSQL deployment's: nothing to do here.")
        password = None
        if options["password_from_env"]:
            password = os.environ.get(options["password_from_env"])
            if not password:
                raise CommandError(f"{options['password_from_env']} is not set.")
        with connection.cursor() as cursor:
            cursor.execute(_APPEND_ONLY_TABLES)
            append_only = tuple(row[0] for row in cursor.fetchall())
            for statement in statements(
                options["role"], password, connection.settings_dict, append_only
            ):
                cursor.execute(statement.as_string(cursor.connection))
        self.stdout.write(f"Role {options['role']} has the app's privileges, and no more.")


def statements(
    role: str, password: str | None, database: dict[str, Any], append_only: tuple[str, ...]
) -> list[sql.Composed]:
    """The statements, in order: the role (created once), then its privileges from nothing."""
    name = sql.Identifier(role)
    tables = connection.introspection.table_names()
    writable = [sql.Identifier(t) for t in tables if t not in append_only + READ_ONLY]
    own = [
        sql.SQL(
            "DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {}) THEN"
            " CREATE ROLE {} LOGIN; END IF; END $$"
        ).format(sql.Literal(role), name),
        sql.SQL(
            "ALTER ROLE {} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
            " NOINHERIT"
        ).format(name),
    ]
    if password is not None:
        own.append(sql.SQL("ALTER ROLE {} PASSWORD {}").format(name, sql.Literal(password)))
    grants = [
        sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
            sql.Identifier(database["NAME"]), name
        ),
        sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(name),
        sql.SQL("REVOKE CREATE ON SCHEMA public FROM PUBLIC, {}").format(name),
        sql.SQL("REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {}").format(name),
        sql.SQL("GRANT SELECT ON ALL TABLES IN SCHEMA public TO {}").format(name),
        *(
            sql.SQL("GRANT INSERT ON {} TO {}").format(sql.Identifier(table), name)
            for table in append_only
        ),
        sql.SQL("GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {}").format(name),
        # The owner's later tables (a migration run before this command runs again): rows only.
        sql.SQL(
            "ALTER DEFAULT PRIVILEGES IN SCHEMA public"
            " GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO {}"
        ).format(name),
        sql.SQL(
            "ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO {}"
        ).format(name),
    ]
    if writable:
        grants.append(
            sql.SQL("GRANT INSERT, UPDATE, DELETE ON {} TO {}").format(
                sql.SQL(", ").join(writable), name
            )
        )
    return own + grants

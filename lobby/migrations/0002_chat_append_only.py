"""Chat lines and their moderations are append-only, enforced by the database itself (STYLE.md
principle 6): UPDATE and DELETE are refused by a trigger, as for the games' event log."""

from django.db import migrations

TABLES = ("lobby_chatline", "lobby_chatmoderation")


def _postgres_up(table: str) -> str:
    return f"""
CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION '{table} is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER {table}_append_only
    BEFORE UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION {table}_append_only();
"""


def _postgres_down(table: str) -> str:
    return f"""
DROP TRIGGER IF EXISTS {table}_append_only ON {table};
DROP FUNCTION IF EXISTS {table}_append_only();
"""


def _sqlite_up(table: str) -> list[str]:
    return [
        f"""CREATE TRIGGER {table}_no_{operation.lower()} BEFORE {operation} ON {table}
            BEGIN SELECT RAISE(ABORT, '{table} is append-only: {operation} refused'); END;"""
        for operation in ("UPDATE", "DELETE")
    ]


def _sqlite_down(table: str) -> list[str]:
    return [f"DROP TRIGGER IF EXISTS {table}_no_{operation};" for operation in ("update", "delete")]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("lobby", "0001_initial")]

    operations = [
        migrations.RunPython(
            _run(
                {
                    "postgresql": [_postgres_up(table) for table in TABLES],
                    "sqlite": [line for table in TABLES for line in _sqlite_up(table)],
                }
            ),
            _run(
                {
                    "postgresql": [_postgres_down(table) for table in TABLES],
                    "sqlite": [line for table in TABLES for line in _sqlite_down(table)],
                }
            ),
        ),
    ]

"""The event log is append-only, enforced by the database itself (STYLE.md principle 6).

UPDATE and DELETE are refused by a trigger. TRUNCATE is left to privileges in production: Django's
test teardown truncates tables (shared/NOTES.md).
"""

from django.db import migrations

POSTGRES_UP = """
CREATE OR REPLACE FUNCTION games_gameevent_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'games_gameevent is append-only: % refused', TG_OP
        USING ERRCODE = 'restrict_violation';
END;
$$ LANGUAGE plpgsql;
CREATE TRIGGER games_gameevent_append_only
    BEFORE UPDATE OR DELETE ON games_gameevent
    FOR EACH ROW EXECUTE FUNCTION games_gameevent_append_only();
"""
POSTGRES_DOWN = """
DROP TRIGGER IF EXISTS games_gameevent_append_only ON games_gameevent;
DROP FUNCTION IF EXISTS games_gameevent_append_only();
"""
SQLITE_UP = [
    f"""CREATE TRIGGER games_gameevent_no_{operation.lower()}
        BEFORE {operation} ON games_gameevent
        BEGIN SELECT RAISE(ABORT, 'games_gameevent is append-only: {operation} refused'); END;"""
    for operation in ("UPDATE", "DELETE")
]
SQLITE_DOWN = [
    f"DROP TRIGGER IF EXISTS games_gameevent_no_{operation};" for operation in ("update", "delete")
]


def _run(statements_by_vendor):
    def run(apps, schema_editor):
        for statement in statements_by_vendor.get(schema_editor.connection.vendor, []):
            schema_editor.execute(statement, params=None)

    return run


class Migration(migrations.Migration):
    dependencies = [("games", "0002_initial")]

    operations = [
        migrations.RunPython(
            _run({"postgresql": [POSTGRES_UP], "sqlite": SQLITE_UP}),
            _run({"postgresql": [POSTGRES_DOWN], "sqlite": SQLITE_DOWN}),
        ),
    ]

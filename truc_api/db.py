"""Hand-written SQL for the requests every client makes all the time: a token, a game read, an
action.

Building a query with the ORM costs more here than running it: 0.6 ms for ``get(pk=...)`` and 1.8
ms with its seats prefetched, against 0.1 ms for the same SELECT through a cursor (bench/README.md,
"Where the time goes"). The SQL stays plain enough for PostgreSQL and the embedded SQLite alike;
values pass through the model fields, which know each backend's types. What can be worked out
once (a query's column plan, an INSERT's text) is kept on the connection.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections, models
from django.db.backends.base.base import BaseDatabaseWrapper
from django.utils.dateparse import parse_datetime

M = TypeVar("M", bound=models.Model)
N = TypeVar("N", bound=models.Model)
Params = Sequence[Any]


def rows(sql: str, params: Params = (), *, binary: bool = False) -> list[tuple[Any, ...]]:
    """The rows of ``sql``; ``binary`` asks PostgreSQL for them in its binary format, which
    psycopg reads faster (timestamps a fourth of the time), for queries with no JSON column
    (Django reads those as text)."""
    with _cursor() as cursor:
        _execute(cursor, sql, params, binary)
        return list(cursor.fetchall())


def execute(sql: str, params: Params = (), *, writes: str | None = None) -> None:
    """Run a statement (inside ``pipeline``, without waiting for its answer). A write that names
    the table whose rows it ``writes`` is held in a ``batch``, if one is open."""
    held = _held(connections[DEFAULT_DB_ALIAS])
    if held is not None and writes is not None:
        held.add(writes, sql, params)
        return
    with _cursor() as cursor:
        cursor.execute(sql, params)


@contextlib.contextmanager
def batch() -> Iterator[None]:
    """Send the writes inside (``insert``, ``update_where``, ``execute(writes=...)``) as one
    statement, at the end: on PostgreSQL each becomes a data-modifying WITH clause of it. A
    statement's own cost (the driver's work for it, a round trip, the server's) is then paid
    once, not four or five times per action (bench/README.md).

    The clauses of one statement all see the rows as they were before it, so the writes are
    sent before anything that could miss them: before any other statement (a read, the ORM's)
    and before a second write to a table (``_Held.add``). An error surfaces where they are
    sent, as Django's. Elsewhere than PostgreSQL they are sent one by one."""
    db = connections[DEFAULT_DB_ALIAS]
    if _held(db) is not None:
        yield  # within another batch: it sends them
        return
    held = db.__dict__[_BATCH] = _Held(db)

    def first_the_writes(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        held.send()
        return execute(sql, params, many, context)

    try:
        with db.execute_wrapper(first_the_writes):
            yield
            held.send()
    finally:
        del db.__dict__[_BATCH]


_BATCH = "_truc_batch"


def _held(db: BaseDatabaseWrapper) -> _Held | None:
    held: _Held | None = db.__dict__.get(_BATCH)
    return held


class _Held:
    """The writes a ``batch`` holds, in order, and the tables they write."""

    def __init__(self, db: BaseDatabaseWrapper) -> None:
        self.db = db
        self.statements: list[tuple[str, Params]] = []
        self.tables: dict[str, bool] = {}  # table -> only INSERTs so far

    def add(self, table: str, sql: str, params: Params) -> None:
        inserting = sql.startswith("INSERT")
        # A WITH clause does not see the rows its siblings write: an UPDATE after any write to
        # its table, or any write after an UPDATE of it, waits for them to be sent.
        if table in self.tables and not (inserting and self.tables[table]):
            self.send()
        self.statements.append((sql, params))
        self.tables[table] = self.tables.get(table, True) and inserting

    def send(self) -> None:
        statements, self.statements, self.tables = self.statements, [], {}
        if len(statements) > 1 and self.db.vendor == "postgresql":
            *clauses, (last, _) = statements
            written = ", ".join(f"w{i} AS ({sql})" for i, (sql, _) in enumerate(clauses))
            statements = [(f"WITH {written} {last}", [p for _, ps in statements for p in ps])]
        for sql, params in statements:
            execute(sql, params)  # named no table: sent now


@contextlib.contextmanager
def _cursor() -> Iterator[Any]:
    """A cursor of the connection, opened as Django opens one (the request's health check, a
    connection if there is none, Django's exceptions for the driver's); psycopg's own while
    nobody watches Django's (its query log, execute wrappers: tests count queries with them).
    Django's wrapper costs about 50 µs a statement (bench/README.md)."""
    db = connections[DEFAULT_DB_ALIAS]
    if db.queries_logged or db.execute_wrappers or db.vendor != "postgresql":
        with db.cursor() as cursor:
            yield cursor
        return
    db.close_if_health_check_failed()
    db.ensure_connection()
    db.validate_no_broken_transaction()
    with db.wrap_database_errors, db.connection.cursor() as cursor:
        yield cursor


def instances(model: type[M], sql: str, params: Params = (), *, binary: bool = False) -> list[M]:
    """The rows of ``sql`` as ``model`` instances, like ``model.objects.raw`` but with its column
    plan worked out once per query: a column of the model's table becomes its field (read through
    the field's converters), any other column an attribute of that name. ``binary``: as in
    ``rows``."""
    db = connections[DEFAULT_DB_ALIAS]
    with _cursor() as cursor:
        _execute(cursor, sql, params, binary)
        return _build(db, model, sql, cursor.fetchall(), cursor)


def _execute(cursor: Any, sql: str, params: Params, binary: bool) -> None:
    if binary and isinstance(cursor, psycopg.Cursor):  # not Django's: it knows no formats
        cursor.execute(sql, params, binary=True)
    else:
        cursor.execute(sql, params)


def several(*queries: tuple[type[M], str, Params]) -> list[list[M]]:
    """The answers of several ``instances`` queries in one round trip: in a pipeline, each is
    sent before the first answer is awaited (PostgreSQL runs them in order). One query goes
    alone: a pipeline costs more CPU than one round trip does (bench/README.md)."""
    if len(queries) == 1:
        [(model, sql, params)] = queries
        return [instances(model, sql, params)]
    db = connections[DEFAULT_DB_ALIAS]
    with contextlib.ExitStack() as cursors, pipeline():
        sent = []
        for model, sql, params in queries:
            cursor = cursors.enter_context(_cursor())
            cursor.execute(sql, params)
            sent.append((model, sql, cursor))
        # The answer first: in a pipeline it comes now, with the columns' description.
        return [_build(db, model, sql, cursor.fetchall(), cursor) for model, sql, cursor in sent]


def parent_and_children(
    parent: type[M], child: type[N], sql: str, params: Params, split: int
) -> tuple[M | None, list[N]]:
    """The rows of a one-to-many LEFT JOIN in one statement: the first ``split`` columns are the
    parent's (the same in every row), the others a child's (all NULL when there is none)."""
    db = connections[DEFAULT_DB_ALIAS]
    with _cursor() as cursor:
        cursor.execute(sql, params)
        found = cursor.fetchall()
        if not found:
            return None, []
        [one] = _build(db, parent, sql, [found[0][:split]], cursor, slice(None, split))
        rows = [row[split:] for row in found if any(value is not None for value in row[split:])]
        return one, _build(db, child, sql, rows, cursor, slice(split, None))


def _build(
    db: BaseDatabaseWrapper,
    model: type[M],
    sql: str,
    found: Any,
    cursor: Any,
    part: slice = slice(None),
) -> list[M]:
    """Instances of ``model`` from rows of ``sql``: its columns are the ``part`` of the query's."""
    plan = _cache(db).get((model, sql))
    if plan is None:
        columns = tuple(column[0] for column in cursor.description)[part]
        plan = _cache(db)[model, sql] = _Plan.make(db, model, columns)
    made = []
    for row in found:
        values = list(row)
        for index, field, functions in plan.converted:
            for convert in functions:
                values[index] = convert(values[index], field, db)
        instance = model.from_db(db.alias, plan.names, [values[i] for i in plan.fields])
        for index, name in plan.extra:
            setattr(instance, name, values[index])
        made.append(instance)
    return made


@dataclass(frozen=True)
class _Plan:
    names: list[str]  # the attnames of the model's concrete fields the query has, in order
    fields: list[int]  # for each of them: its column's index
    converted: list[tuple[int, Any, list[Any]]]  # (index, field, converters) where there are any
    extra: list[tuple[int, str]]  # (index, name) of the columns that are no field

    @classmethod
    def make(cls, db: BaseDatabaseWrapper, model: type[M], columns: tuple[str, ...]) -> _Plan:
        """A field the query leaves out is deferred: Django loads it if it is ever read."""
        index: dict[str | None, int] = {name: i for i, name in enumerate(columns)}
        table = model._meta.db_table
        fields = [field for field in model._meta.concrete_fields if field.column in index]
        # The backend's converters, then the field's (``from_db_value``), as the ORM applies them.
        converted = [
            (index[field.column], field, _converters(db, field, table)) for field in fields
        ]
        known = {field.column for field in fields}
        return cls(
            names=[field.attname for field in fields],
            fields=[index[field.column] for field in fields],
            converted=[entry for entry in converted if entry[2]],
            extra=[(i, name) for name, i in index.items() if name and name not in known],
        )


def _converters(db: BaseDatabaseWrapper, field: Any, table: str) -> list[Any]:
    return [*db.ops.get_db_converters(field.get_col(table)), *field.get_db_converters(db)]


def insert(
    model: type[models.Model], records: list[dict[str, Any]], unless: tuple[str, ...] = ()
) -> None:
    """One multi-row INSERT of ``records`` (the same field names or attnames in each), every value
    prepared by its field as ``bulk_create`` would, without its compiler; ``unless`` names the
    columns of a unique constraint whose clash skips the row instead of failing."""
    if not records:
        return
    db = connections[DEFAULT_DB_ALIAS]
    names = tuple(records[0])
    cached = _cache(db).get((model, names, len(records), unless))
    if cached is None:
        fields = [_field(model, name) for name in names]
        columns = ", ".join(_quote(db, field.column) for field in fields)
        row = "(" + ", ".join(["%s"] * len(fields)) + ")"
        values = ", ".join([row] * len(records))
        sql = f"INSERT INTO {_quote(db, model._meta.db_table)} ({columns}) VALUES {values}"
        if unless:  # the same words in PostgreSQL and SQLite
            sql += f" ON CONFLICT ({', '.join(map(db.ops.quote_name, unless))}) DO NOTHING"
        cached = _cache(db)[model, names, len(records), unless] = (sql, fields)
    sql, fields = cached
    params = [
        field.get_db_prep_save(record[name], db)
        for record in records
        for name, field in zip(names, fields, strict=True)
    ]
    execute(sql, params, writes=model._meta.db_table)


def update_where(model: type[models.Model], values: dict[str, Any], **where: Any) -> None:
    """``model.objects.filter(**where).update(**values)`` for plain equalities (``pk`` included),
    without its compiler."""
    db = connections[DEFAULT_DB_ALIAS]
    names, keys = tuple(values), tuple(where)
    cached = _cache(db).get((model, names, keys))
    if cached is None:
        fields = [_field(model, name) for name in names]
        conditions = [_field(model, name) for name in keys]
        assignments = ", ".join(f"{_quote(db, field.column)} = %s" for field in fields)
        matching = " AND ".join(f"{_quote(db, field.column)} = %s" for field in conditions)
        table = _quote(db, model._meta.db_table)
        sql = f"UPDATE {table} SET {assignments} WHERE {matching}"
        cached = _cache(db)[model, names, keys] = (sql, fields, conditions)
    sql, fields, conditions = cached
    params = [
        field.get_db_prep_save(values[name], db) for name, field in zip(names, fields, strict=True)
    ]
    params += [
        field.get_db_prep_value(where[name], db)
        for name, field in zip(keys, conditions, strict=True)
    ]
    execute(sql, params, writes=model._meta.db_table)


def update(instance: models.Model, names: list[str]) -> None:
    """``instance.save(update_fields=names)`` in one UPDATE, without its compiler."""
    values = {name: getattr(instance, _field(type(instance), name).attname) for name in names}
    update_where(type(instance), values, pk=instance.pk)


@contextlib.contextmanager
def pipeline() -> Iterator[None]:
    """Send statements without waiting for each one's answer (psycopg's pipeline mode; PostgreSQL
    only): the writes of an action travel with the next read that needs an answer, or together at
    the end of the block, instead of a round trip each. An error surfaces there, as Django's."""
    if connection.vendor != "postgresql":
        yield
        return
    connection.ensure_connection()
    with connection.wrap_database_errors, connection.connection.pipeline():
        yield


def for_update() -> str:
    """The row-locking clause, where the backend has one (SQLite locks the whole database at
    BEGIN IMMEDIATE instead: truc_api/settings.py)."""
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def key(model: type[models.Model], value: Any) -> Any:
    """A primary key as the backend stores it (SQLite keeps a UUID as 32 hex digits).

    Raises ValueError for a value that is no key at all (a malformed UUID in a URL, say)."""
    field = _field(model, "pk")
    if isinstance(field, models.UUIDField) and not isinstance(value, uuid.UUID):
        value = uuid.UUID(str(value))
    return field.get_db_prep_value(value, connections[DEFAULT_DB_ALIAS])


def moment(value: Any) -> datetime | None:
    """A datetime column as read: PostgreSQL gives aware datetimes, SQLite naive UTC text."""
    if value is None or isinstance(value, datetime) and value.tzinfo is not None:
        return value
    parsed = parse_datetime(value) if isinstance(value, str) else value
    assert parsed is not None
    return parsed.replace(tzinfo=UTC)


def _cache(db: BaseDatabaseWrapper) -> dict[Any, Any]:
    """What was worked out for this connection's backend (one wrapper per thread)."""
    cache: dict[Any, Any] = db.__dict__.setdefault("_truc_sql_cache", {})
    return cache


def _field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field


def _quote(db: BaseDatabaseWrapper, name: str | None) -> str:
    assert name is not None
    return str(db.ops.quote_name(name))

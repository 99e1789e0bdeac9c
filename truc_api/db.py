"""Hand-written SQL for the requests every client makes all the time: a token, a game read, an
action.

Building a query with the ORM costs more here than running it: 0.6 ms for ``get(pk=...)`` and 1.8
ms with its seats prefetched, against 0.1 ms for the same SELECT through a cursor (bench/README.md,
"Where the time goes"). The SQL stays plain enough for PostgreSQL and the embedded SQLite alike;
values pass through the model fields, which know each backend's types.
"""

from __future__ import annotations

import functools
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from django.db import connection, models
from django.utils.dateparse import parse_datetime


def rows(sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return list(cursor.fetchall())


def instances(model: type[M], sql: str, params: list[Any] | tuple[Any, ...] = ()) -> list[M]:
    """The rows of ``sql`` as ``model`` instances, like ``model.objects.raw`` but with its column
    plan worked out once per query shape: a column of the model's table becomes its field (read
    through the field's converters), any other column an attribute of that name."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        columns = tuple(column[0] for column in cursor.description)
        found = cursor.fetchall()
    plan = _plan(model, columns)
    converters = [(index, field, _converters(field, col)) for index, field, col in plan.converted]
    made = []
    for row in found:
        values = list(row)
        for index, field, functions in converters:
            for convert in functions:
                values[index] = convert(values[index], field, connection)
        instance = model.from_db(connection.alias, None, [values[i] for i in plan.fields])
        for index, name in plan.extra:
            setattr(instance, name, values[index])
        made.append(instance)
    return made


M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class _Plan:
    fields: list[int]  # for each concrete field of the model, in order: its column's index
    converted: list[tuple[int, Any, Any]]  # (index, field, its Col) of the fields with converters
    extra: list[tuple[int, str]]  # (index, name) of the columns that are no field


@functools.cache
def _plan(model: type[models.Model], columns: tuple[str, ...]) -> _Plan:
    index = {name: i for i, name in enumerate(columns)}
    table = model._meta.db_table
    fields = model._meta.concrete_fields
    missing = [field.column for field in fields if field.column not in index]
    assert not missing, f"{table}: the query leaves out {missing}"
    converted = [(index[f.column], f, f.get_col(table)) for f in fields]
    known = {field.column for field in fields}
    return _Plan(
        fields=[index[field.column] for field in fields],
        converted=[entry for entry in converted if _converters(entry[1], entry[2])],
        extra=[(i, name) for name, i in index.items() if name not in known],
    )


def _converters(field: Any, col: Any) -> list[Any]:
    """The backend's converters, then the field's (``from_db_value``), as the ORM applies them."""
    return [*connection.ops.get_db_converters(col), *field.get_db_converters(connection)]


def execute(sql: str, params: list[Any] | tuple[Any, ...] = ()) -> int:
    """Run a write; the number of rows it changed."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return int(cursor.rowcount)


def for_update() -> str:
    """The row-locking clause, where the backend has one (SQLite locks the whole database at
    BEGIN IMMEDIATE instead: truc_api/settings.py)."""
    return " FOR UPDATE" if connection.features.has_select_for_update else ""


def key(model: type[models.Model], value: Any) -> Any:
    """A primary key as the backend stores it (SQLite keeps a UUID as 32 hex digits).

    Raises ValueError for a value that is no key at all (a malformed UUID in a URL, say)."""
    field = model._meta.pk
    assert field is not None
    if isinstance(field, models.UUIDField) and not isinstance(value, uuid.UUID):
        value = uuid.UUID(str(value))
    return field.get_db_prep_value(value, connection)


def moment(value: Any) -> datetime | None:
    """A datetime column as read: PostgreSQL gives aware datetimes, SQLite naive UTC text."""
    if value is None or isinstance(value, datetime) and value.tzinfo is not None:
        return value
    parsed = parse_datetime(value) if isinstance(value, str) else value
    assert parsed is not None
    return parsed.replace(tzinfo=UTC)


def stamp(value: datetime | None) -> Any:
    """A datetime as the backend stores it."""
    return connection.ops.adapt_datetimefield_value(value)


def insert(model: type[models.Model], records: list[dict[str, Any]]) -> None:
    """One multi-row INSERT of ``records`` (the same field names or attnames in each), every value
    prepared by its field as ``bulk_create`` would, without its compiler."""
    if not records:
        return
    names = list(records[0])
    fields = [_concrete(model, name) for name in names]
    columns = ", ".join(_quote(field.column) for field in fields)
    row = "(" + ", ".join(["%s"] * len(fields)) + ")"
    params = [
        field.get_db_prep_save(record[name], connection)
        for record in records
        for name, field in zip(names, fields, strict=True)
    ]
    table = _quote(model._meta.db_table)
    execute(f"INSERT INTO {table} ({columns}) VALUES {', '.join([row] * len(records))}", params)


def update(instance: models.Model, names: list[str]) -> None:
    """``instance.save(update_fields=names)`` in one UPDATE, without its compiler."""
    model = type(instance)
    fields = [_concrete(model, name) for name in names]
    assignments = ", ".join(f"{_quote(field.column)} = %s" for field in fields)
    params = [f.get_db_prep_save(getattr(instance, f.attname), connection) for f in fields]
    pk = _concrete(model, "pk")
    params.append(pk.get_db_prep_value(instance.pk, connection))
    table = _quote(model._meta.db_table)
    execute(f"UPDATE {table} SET {assignments} WHERE {_quote(pk.column)} = %s", params)


def _concrete(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    field = model._meta.pk if name == "pk" else model._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field


def _quote(name: str | None) -> str:
    assert name is not None
    return str(connection.ops.quote_name(name))

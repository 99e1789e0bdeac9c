"""Rows of a written-out statement made into model instances, as Django's compiler makes them.

For the few statements written out by hand (the token's lookup, the event store's,
games/store/sql.py): their columns are known in advance, so the fields' converters are found
once a call, where ``raw()`` maps the columns to fields again for every statement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from django.db.models import Field, Model

_M = TypeVar("_M", bound=Model)


def instances(
    model: type[_M],
    fields: Sequence[Field[Any, Any]],
    rows: Sequence[Sequence[Any]],
    db: Any,
    extra: Sequence[str] = (),
) -> list[_M]:
    """``model`` instances of rows holding ``fields``' columns in order, then the ``extra``
    columns set as attributes (as ``raw()`` sets a column that is no field), each value
    converted as Django's compiler converts a column (the backend's converters, the field's
    ``from_db_value``) for the connection ``db``."""
    converting = [  # a field's plain column: its converters are its field's
        (index, converters, field.cached_col)
        for index, field in enumerate(fields)
        if (converters := [*db.ops.get_db_converters(field.cached_col),
                           *field.get_db_converters(db)])
    ]  # fmt: skip
    names = [field.attname for field in fields]
    width = len(fields)
    made = []
    for row in rows:
        values = list(row[:width])
        for index, converters, column in converting:
            for convert in converters:
                values[index] = convert(values[index], column, db)
        instance = model.from_db(db.alias, names, values)
        for name, value in zip(extra, row[width:], strict=True):
            setattr(instance, name, value)
        made.append(instance)
    return made

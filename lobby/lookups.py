"""Rows looked up by an id from a URL: a malformed id is no row, never a server error."""

from __future__ import annotations

import uuid
from typing import Any, TypeVar

from django.db.models import Model, QuerySet

M = TypeVar("M", bound=Model)


def by_id(rows: QuerySet[M], value: Any) -> M | None:
    try:
        key = value if isinstance(value, uuid.UUID) else uuid.UUID(str(value))
    except ValueError:
        return None
    return rows.filter(pk=key).first()

"""Admin pieces every app's admin shares."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest


class ReadOnly:
    """Nothing here is added, changed or deleted by hand: a log is append-only (the database
    refuses UPDATE and DELETE of the game's events too), and what follows a log or records a
    fact (read models, ratings, chat lines, moderation) changes only through the services."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

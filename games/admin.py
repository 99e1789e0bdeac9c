"""The admin: games and their seats to look after; the event log to read, never to change."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import Game, GameEvent, Seat


class ReadOnly:
    """Nothing here is added, changed or deleted by hand: the log is append-only (the database
    refuses UPDATE and DELETE too), and read models follow it."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SeatInline(ReadOnly, admin.TabularInline):  # type: ignore[type-arg]  # generic in the stubs only
    model = Seat
    fields = ("number", "player", "bot_level", "awaiting", "has_acted", "timeouts")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "preset", "players", "status", "version", "created_at", "finished_at")
    list_filter = ("status", "preset", "players", "visibility", "rated")
    search_fields = ("id",)
    inlines = [SeatInline]


@admin.register(GameEvent)
class GameEventAdmin(ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    """Events as stored, private parts included: staff only (the admin needs is_staff)."""

    list_display = ("game", "seq", "type", "seat", "actor", "created_at")
    list_filter = ("type",)
    search_fields = ("game__id",)
    list_select_related = ("actor",)
    ordering = ("game", "seq")

"""The admin: games and their seats to look after; the event log to read, never to change."""

from __future__ import annotations

from django.contrib import admin

from games.models import Game, GameEvent, Seat
from truc_api.admin import ReadOnly


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

"""The lobby in the admin: seeks, challenges and rematches to look at; chat lines to moderate.

A chat line is never edited nor deleted (the database refuses both): a staff member hides it
(or shows it again) with an action that adds a ``ChatModeration`` row, so the log keeps who hid
which line, when and why.
"""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from lobby import chat
from lobby.models import Challenge, ChallengeSeat, ChatLine, ChatModeration, Rematch, Seek
from truc_api.admin import ReadOnly


@admin.register(Seek)
class SeekAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "player", "partner", "preset", "players", "rated", "status", "created_at")
    list_filter = ("status", "preset", "players", "rated")
    search_fields = ("id", "player__username", "partner__username")
    raw_id_fields = ("player", "partner", "game")
    readonly_fields = ("pool", "rating", "created_at", "ended_at", "game")


class ChallengeSeatInline(admin.TabularInline):  # type: ignore[type-arg]  # generic in the stubs only
    model = ChallengeSeat
    raw_id_fields = ("player",)
    extra = 0


@admin.register(Challenge)
class ChallengeAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "challenger", "preset", "players", "status", "created_at", "expires_at")
    list_filter = ("status", "preset", "players")
    search_fields = ("id", "challenger__username")
    raw_id_fields = ("challenger", "declined_by", "game")
    inlines = [ChallengeSeatInline]


@admin.register(Rematch)
class RematchAdmin(ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("game", "status", "new_game", "offered_by", "updated_at")
    list_filter = ("status",)


class ModerationInline(ReadOnly, admin.TabularInline):  # type: ignore[type-arg]  # generic in the stubs only
    model = ChatModeration
    fields = ("hidden", "staff", "reason", "at")
    readonly_fields = fields


@admin.register(ChatLine)
class ChatLineAdmin(ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "game", "room", "author", "text", "created_at", "hidden")
    list_filter = ("room",)
    search_fields = ("text", "author__username", "game__id")
    inlines = [ModerationInline]
    actions = ["hide_lines", "show_lines"]

    @admin.display(boolean=True)
    def hidden(self, line: ChatLine) -> bool:
        return chat.is_hidden(line)

    @admin.action(description="Hide the selected lines")
    def hide_lines(self, request: HttpRequest, lines: QuerySet[ChatLine]) -> None:
        for line in lines:
            chat.hide(request.user, line, hidden=True, reason="hidden from the admin")
        self.message_user(request, f"{len(lines)} line(s) hidden.", messages.SUCCESS)

    @admin.action(description="Show the selected lines again")
    def show_lines(self, request: HttpRequest, lines: QuerySet[ChatLine]) -> None:
        for line in lines:
            chat.hide(request.user, line, hidden=False, reason="shown again from the admin")
        self.message_user(request, f"{len(lines)} line(s) shown.", messages.SUCCESS)


@admin.register(ChatModeration)
class ChatModerationAdmin(ReadOnly, admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("line", "hidden", "staff", "reason", "at")

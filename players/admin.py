"""Players in the admin: Django's UserAdmin, plus the display name."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from players.models import Block, Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):  # type: ignore[type-arg]  # not subscriptable at run time
    fieldsets = (
        *(UserAdmin.fieldsets or ()),
        ("Game profile", {"fields": ("display_name", "challenges_from", "deleted_at")}),
    )
    list_display = ("username", "display_name", "is_active", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")


@admin.register(Block)
class BlockAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("blocker", "blocked", "created_at")
    search_fields = ("blocker__username", "blocked__username")
    raw_id_fields = ("blocker", "blocked")

"""Players in the admin: Django's UserAdmin, plus the display name."""

from django.contrib import admin
from django.contrib.auth.admin import UserAdmin

from players.models import Player


@admin.register(Player)
class PlayerAdmin(UserAdmin):  # type: ignore[type-arg]  # not subscriptable at run time
    fieldsets = (*(UserAdmin.fieldsets or ()), ("Game profile", {"fields": ("display_name",)}))
    list_display = ("username", "display_name", "is_active", "is_staff", "date_joined")
    search_fields = ("username", "display_name", "email")

from django.contrib import admin

from notifications.models import Attempt, Delivery, Subscription


@admin.register(Subscription)
class SubscriptionAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "player", "url", "kinds", "created_at")
    exclude = ("secret",)
    raw_id_fields = ("player",)


class AttemptInline(admin.TabularInline):  # type: ignore[type-arg]  # generic in the stubs only
    model = Attempt
    extra = 0
    readonly_fields = ("number", "at", "status_code", "error", "duration_ms")


@admin.register(Delivery)
class DeliveryAdmin(admin.ModelAdmin):  # type: ignore[type-arg]  # generic in the stubs only
    list_display = ("id", "kind", "status", "attempt_count", "next_attempt_at", "created_at")
    list_filter = ("status", "kind")
    raw_id_fields = ("subscription", "game", "replay_of")
    inlines = [AttemptInline]

"""Push notifications: the players' devices, their choices, and the outbox of pushes.

A ``Push`` is written in the transaction that writes its cause (the events of a turn change, a
reminder, a challenge), once per cause and device: the database's unique key makes a second one
impossible. A task on the push queue sends it after commit and a short delay (``sending.py``).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Platform(models.TextChoices):
    WEBPUSH = "webpush", "a browser's Web Push subscription (VAPID, RFC 8291)"
    FCM = "fcm", "a Firebase Cloud Messaging registration token (Android and iOS apps)"
    APNS = "apns", "an Apple Push Notification service device token"


class Locale(models.TextChoices):
    EN = "en", "English"
    ES = "es", "Spanish"
    CA = "ca", "Valencian"


class PushKind(models.TextChoices):
    """What a push tells; a player chooses which he receives (``PushSettings.kinds``)."""

    YOUR_TURN = "your_turn", "the player's seat may act now"
    TIME_ALMOST_UP = "time_almost_up", "the player's turn times out soon (urgent)"
    CALL_PENDING = "call_pending", "a truc/envit (truco/envido) awaits the player's answer"
    CHALLENGE_RECEIVED = "challenge_received", "someone challenged the player"
    MATCH_FOUND = "match_found", "a seek of the player was paired: the game started"
    CHALLENGE_ACCEPTED = "challenge_accepted", "a challenge of the player was accepted"
    REMATCH_OFFERED = "rematch_offered", "a player at a finished game offers a rematch"
    GAME_OVER = "game_over", "the player's match ended (result, rating change)"
    CHAT = "chat", "a line of chat at the player's table"


#: What a player receives until he chooses: everything but chat.
DEFAULT_KINDS = [kind.value for kind in PushKind if kind != PushKind.CHAT]


class Device(models.Model):
    """One of a player's devices: where a push for him goes.

    ``address`` is what identifies the device to its push service (an FCM or APNs token, a Web
    Push endpoint URL): registering it again refreshes this row, for whichever player registers
    it last (a phone that changed hands, an account switched in the app).
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_devices"
    )
    platform = models.CharField(max_length=8, choices=Platform.choices)
    address = models.CharField(max_length=2000, help_text="The token, or the Web Push endpoint.")
    keys = models.JSONField(default=dict, help_text="Web Push: the browser's p256dh and auth.")
    topic = models.CharField(max_length=200, blank=True, help_text="APNs: the app's bundle id.")
    locale = models.CharField(max_length=2, choices=Locale.choices, default=Locale.EN)
    label = models.CharField(max_length=100, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    refreshed_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-refreshed_at"]
        constraints = [
            models.UniqueConstraint(fields=["platform", "address"], name="device_once"),
        ]
        indexes = [models.Index(fields=["player", "-refreshed_at"])]

    def __str__(self) -> str:
        return f"{self.player_id} {self.platform} {self.label or self.pk}"


class PushSettings(models.Model):
    """A player's choices: the kinds he receives, and his quiet hours in his own time zone."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="push_settings",
    )
    kinds = models.JSONField(default=list, help_text="The PushKind values wanted.")
    time_zone = models.CharField(max_length=64, default="UTC")
    quiet_from = models.TimeField(null=True, blank=True)
    quiet_until = models.TimeField(null=True, blank=True)
    urgent_in_quiet_hours = models.BooleanField(
        default=False, help_text="Whether 'time almost up' comes through the quiet hours."
    )


class Push(models.Model):
    """One push to one device for one cause: the outbox row and its delivery log's head."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for its delay, or for a retry"
        SENDING = "sending", "claimed by a worker, being sent"
        SENT = "sent", "accepted by the push service"
        SKIPPED = "skipped", "not sent: stale, the player at the table, or quiet hours"
        FAILED = "failed", "refused, or every attempt failed"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    device = models.ForeignKey(Device, on_delete=models.CASCADE, related_name="pushes")
    cause = models.CharField(
        max_length=120, help_text="What made it: `game:<id>:<version>:<kind>` or a lobby's id."
    )
    kind = models.CharField(max_length=20, choices=PushKind.choices)
    game = models.ForeignKey(
        "games.Game", on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    version = models.PositiveIntegerField(default=0, help_text="The game's version (0: lobby).")
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    data = models.JSONField(default=dict, help_text="Ids and figures; never a card or a name.")
    message = models.JSONField(
        null=True, blank=True, help_text="The data last sent (PushData): the delivery log shows it."
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.PENDING)
    reason = models.CharField(max_length=200, blank=True, help_text="Why skipped or failed.")
    attempt_count = models.PositiveSmallIntegerField(default=0)
    due_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["cause", "device"], name="push_once_per_cause"),
        ]
        indexes = [
            models.Index(
                fields=["due_at"],
                condition=Q(status__in=["pending", "sending"]),
                name="push_due",
            ),
            models.Index(fields=["device", "-created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.kind} {self.status}"


class PushAttempt(models.Model):
    push = models.ForeignKey(Push, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["push", "number"]
        constraints = [
            models.UniqueConstraint(fields=["push", "number"], name="push_attempt_number"),
        ]

"""Webhook subscriptions, the outbox of deliveries with their attempts, and deadline reminders.

A ``Delivery`` is written in the transaction that writes the events causing it (the outbox), so a
notification exists exactly when its cause does; a Celery task sends it after commit.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Kind(models.TextChoices):
    YOUR_TURN = "your_turn", "the subscriber's seat may act now and could not before"
    CALL_PENDING = "call_pending", "a call awaits the answer of the subscriber's side"
    DEADLINE_NEAR = "deadline_near", "the subscriber's turn times out soon"
    HAND_ENDED = "hand_ended", "a hand of the subscriber's game ended"
    MATCH_ENDED = "match_ended", "the subscriber's match ended"
    # The lobby's (lobby/notices.py): a body of ids and settings, never a game's state.
    MATCH_FOUND = "match_found", "a seek of the subscriber was paired: the game started"
    SEEK_EXPIRED = "seek_expired", "a seek of the subscriber expired unpaired"
    CHALLENGE_RECEIVED = "challenge_received", "someone challenged the subscriber"
    CHALLENGE_ACCEPTED = "challenge_accepted", "every seat accepted a challenge: the game started"
    CHALLENGE_DECLINED = "challenge_declined", "a challenged player declined"
    CHALLENGE_CANCELLED = "challenge_cancelled", "the challenger withdrew a challenge"
    CHALLENGE_EXPIRED = "challenge_expired", "a challenge was not answered in time"
    REMATCH_OFFERED = "rematch_offered", "a player at a finished game of his offers a rematch"
    REMATCH_STARTED = "rematch_started", "everyone accepted the rematch: the new game started"
    REMATCH_DECLINED = "rematch_declined", "a player declined the rematch"


#: The kinds about a game the subscriber is seated at, whose body is his seat's view of it
#: (notifications/payloads.py); every other kind is the lobby's.
GAME_KINDS = (
    Kind.YOUR_TURN,
    Kind.CALL_PENDING,
    Kind.DEADLINE_NEAR,
    Kind.HAND_ENDED,
    Kind.MATCH_ENDED,
)


class Subscription(models.Model):
    """A URL that wants some kinds of notification about the games its owner is seated at.

    An integrating application is a player account for now: it subscribes for the seats it holds.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_subscriptions"
    )
    url = models.URLField(max_length=2000)
    kinds = models.JSONField(help_text="The Kind values wanted.")
    # Kept in clear: signing needs the key itself. Shown once, at creation.
    secret = models.CharField(max_length=100)
    description = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    # The breaker (notifications/breaker.py): attempts failed in a row, and while it is open,
    # until when no attempt is made (its deliveries wait, their attempts not counted).
    consecutive_failures = models.PositiveIntegerField(default=0)
    paused_until = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["created_at"]

    def __str__(self) -> str:
        return f"{self.player_id} → {self.url}"


class Delivery(models.Model):
    """One notification to one subscription; its id is the ``webhook-id`` receivers dedupe by."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting to be sent, or to be retried"
        DELIVERED = "delivered", "answered 2xx"
        FAILED = "failed", "every attempt failed"
        EXPIRED = "expired", "not sent: it was stale before it could go (a deadline passed)"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    subscription = models.ForeignKey(
        Subscription, on_delete=models.CASCADE, related_name="deliveries"
    )
    kind = models.CharField(max_length=24, choices=Kind.choices)
    game = models.ForeignKey(
        "games.Game",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        help_text="Empty for a lobby notice about no game (a challenge, say).",
    )
    version = models.PositiveIntegerField(help_text="The game's version that caused it (0: lobby).")
    payload = models.JSONField(help_text="The body, as the subscriber's seat may see the game.")
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PENDING)
    attempt_count = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True, default=timezone.now)
    # An attempt in flight until then (counted against its subscription's concurrency limit).
    claimed_until = models.DateTimeField(null=True, blank=True)
    # Held back by its subscription's concurrency limit or breaker rather than by its retry
    # schedule: sent as soon as a slot frees or the breaker closes (notifications/sending.py).
    held_back = models.BooleanField(default=False)
    # Never sent from then on: a deadline_near after its deadline would say what is no longer so.
    expires_at = models.DateTimeField(null=True, blank=True)
    replay_of = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replays"
    )
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # One notification of a kind per subscription and game version; replays are extra.
            models.UniqueConstraint(
                fields=["subscription", "game", "version", "kind"],
                condition=Q(replay_of__isnull=True),
                name="delivery_once_per_version",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="delivery_pending_due",
            ),
            models.Index(fields=["subscription", "-created_at"]),
            models.Index(
                fields=["subscription", "claimed_until"],
                condition=Q(status="pending"),
                name="delivery_pending_by_owner",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.id} {self.kind} {self.status}"


class Attempt(models.Model):
    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempt_log")
    number = models.PositiveSmallIntegerField()
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["delivery", "number"]
        constraints = [
            models.UniqueConstraint(fields=["delivery", "number"], name="attempt_number_unique"),
        ]

    @property
    def answered_in_ms(self) -> int | None:
        """How long the receiver took to answer; None when it did not (how long a failure took
        would tell a subscriber about the network between the server and his URL)."""
        return None if self.status_code is None else self.duration_ms


class Reminder(models.Model):
    """A "deadline is near" reminder went out for this game version; the constraint: only once."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "version"], name="reminder_once_per_version"),
        ]

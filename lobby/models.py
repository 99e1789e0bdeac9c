"""The lobby: seeks waiting to be paired, challenges, rematch offers, and the tables' chat.

What must never break is held by the database: a player waits in at most one seek
(``QueueEntry``'s primary key is the player), a challenge seats a player once, a game has one
rematch, and chat lines are never updated or deleted (a trigger; hiding one is a moderation row).
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class AskedTable(models.Model):
    """What a seek and a challenge share: the table they ask for, when they were made, expire
    and ended, and the game they led to (once matched or accepted)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=32)
    options = models.JSONField(default=dict, blank=True)
    players = models.PositiveSmallIntegerField()
    turn_seconds = models.PositiveIntegerField()
    rated = models.BooleanField()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    ended_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When it stopped waiting: matched or accepted, declined, cancelled or expired.",
    )
    game = models.ForeignKey(
        "games.Game", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        abstract = True
        ordering = ["-created_at"]


class Seek(AskedTable):
    """A player (or two partners) asking for a game of these settings, paired by lobby/seeks.py."""

    class Status(models.TextChoices):
        WAITING_PARTNER = "waiting_partner", "waiting for the named partner to confirm"
        OPEN = "open", "waiting to be paired"
        MATCHED = "matched", "paired: the game is created and started"
        CANCELLED = "cancelled", "cancelled by a seeker"
        EXPIRED = "expired", "nobody compatible came in time"

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seeks"
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="partner_seeks",
        help_text="At a table of 4: the partner queueing with the player, on the same side.",
    )
    pool = models.CharField(
        max_length=255, help_text="Every setting that must match, as one key (lobby/pairing.py)."
    )
    rating = models.IntegerField(
        help_text="The seekers' rating in the game's pool (a pair's mean)."
    )
    rating_min = models.IntegerField(null=True, blank=True)
    rating_max = models.IntegerField(null=True, blank=True)
    bot_after = models.PositiveIntegerField(
        null=True, blank=True, help_text="Unrated only: seconds after which bots fill the table."
    )
    bot_level = models.CharField(max_length=8, blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.OPEN)

    class Meta(AskedTable.Meta):
        indexes = [
            # The pairing pass reads the open seeks of one pool, oldest first, or by rating.
            models.Index(
                fields=["pool", "created_at"], condition=Q(status="open"), name="seek_open"
            ),
            models.Index(fields=["pool", "rating"], condition=Q(status="open"), name="seek_rating"),
            models.Index(
                fields=["expires_at"],
                condition=Q(status__in=["open", "waiting_partner"]),
                name="seek_expiry",
            ),
            models.Index(fields=["player", "-created_at"]),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(status="matched", game__isnull=False)
                | (~Q(status="matched") & Q(game__isnull=True)),
                name="seek_matched_has_game",
            ),
        ]

    def __str__(self) -> str:
        return f"seek {self.id} {self.preset} {self.players}p {self.status}"

    @property
    def seekers(self) -> list[int]:
        return [self.player_id] + ([self.partner_id] if self.partner_id else [])


class QueueEntry(models.Model):
    """A player waiting in a seek. The player is the key: nobody waits in two seeks at once."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    seek = models.ForeignKey(Seek, on_delete=models.CASCADE, related_name="queued")


class Challenge(AskedTable):
    """A game proposed to named players, or to whoever opens its private link."""

    class Status(models.TextChoices):
        PENDING = "pending", "waiting for the challenged players"
        ACCEPTED = "accepted", "every seat accepted: the game is created and started"
        DECLINED = "declined", "a challenged player declined"
        CANCELLED = "cancelled", "the challenger withdrew it"
        EXPIRED = "expired", "not answered in time"

    class DeclineReason(models.TextChoices):
        GENERIC = "generic", "no reason given"
        LATER = "later", "not now"
        TOO_FAST = "too_fast", "the turn clock is too fast"
        TOO_SLOW = "too_slow", "the turn clock is too slow"
        RATED = "rated", "I would rather play unrated"
        CASUAL = "casual", "I would rather play rated"
        PRESET = "preset", "not these rules"

    challenger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="challenges_sent"
    )
    visibility = models.CharField(max_length=8)
    link_token = models.CharField(max_length=64, null=True, blank=True, unique=True)
    status = models.CharField(max_length=9, choices=Status.choices, default=Status.PENDING)
    decline_reason = models.CharField(max_length=8, choices=DeclineReason.choices, blank=True)
    declined_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta(AskedTable.Meta):
        indexes = [
            models.Index(
                fields=["expires_at"], condition=Q(status="pending"), name="challenge_due"
            ),
        ]

    def __str__(self) -> str:
        return f"challenge {self.id} {self.status}"


class ChallengeSeat(models.Model):
    """One seat of a challenge's table: the challenger holds seat 0 (his partner seat 2)."""

    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="challenge_seats",
        help_text="Empty: an open seat, taken by whoever accepts through the link.",
    )
    accepted = models.BooleanField(default=False)

    class Meta:
        ordering = ["challenge", "number"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "number"], name="challenge_seat_unique"),
            models.UniqueConstraint(fields=["challenge", "player"], name="challenge_player_unique"),
        ]
        indexes = [models.Index(fields=["player"])]


class Rematch(models.Model):
    """The rematch of a finished game: offered, accepted seat by seat, then its own game."""

    class Status(models.TextChoices):
        OFFERED = "offered", "waiting for every seated player"
        STARTED = "started", "everyone accepted: the new game started"
        DECLINED = "declined", "a seated player declined"

    game = models.OneToOneField(
        "games.Game", on_delete=models.PROTECT, primary_key=True, related_name="rematch"
    )
    new_game = models.OneToOneField(
        "games.Game",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="rematch_of",
    )
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OFFERED)
    offered_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    accepted_by = models.JSONField(default=list, help_text="Ids of the players who accepted.")
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"rematch of {self.game_id} {self.status}"


class ChatLine(models.Model):
    """A line said at a game, in the players' room or the spectators'. Never updated or deleted."""

    class Room(models.TextChoices):
        PLAYERS = "players", "the seated players"
        SPECTATORS = "spectators", "the spectators (hidden from players while the match is on)"

    id = models.BigAutoField(primary_key=True)
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="+")
    room = models.CharField(max_length=10, choices=Room.choices)
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="chat_lines"
    )
    text = models.CharField(max_length=500)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "id"]
        indexes = [
            models.Index(fields=["game", "room", "id"]),
            models.Index(fields=["author", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} {self.room} #{self.id}"


class ChatModeration(models.Model):
    """A staff member hid (or showed again) a chat line; the latest row says which holds."""

    line = models.ForeignKey(ChatLine, on_delete=models.PROTECT, related_name="moderations")
    hidden = models.BooleanField()
    staff = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    reason = models.CharField(max_length=200, blank=True)
    at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["line", "at", "id"]

    def __str__(self) -> str:
        return f"{'hide' if self.hidden else 'show'} {self.line_id}"

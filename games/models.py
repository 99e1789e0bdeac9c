"""Games as an append-only event log, with the read models kept in step with it.

The log (``GameEvent``) is the truth: a game's state is the fold of its events. ``Game``, ``Seat``,
``CamaRecord`` and ``HandRecord`` are read models written in the same transaction as the events they
follow, so lists and history need no replay; ``HandSnapshot`` is a cache that lets a rebuild start
at the last deal instead of the first event.
"""

from __future__ import annotations

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

#: A game's id as it reaches a function: the UUID, or its text (a URL's path, a task's argument).
GameId = uuid.UUID | str


class Game(models.Model):
    class Status(models.TextChoices):
        OPEN = "open", "waiting for players"
        ACTIVE = "active", "being played"
        FINISHED = "finished", "finished"
        ABORTED = "aborted", "aborted"

    class Visibility(models.TextChoices):
        PUBLIC = "public", "public: listed, open to spectators"
        PRIVATE = "private", "private: joined with a code"

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    preset = models.CharField(max_length=32)
    rules = models.JSONField(help_text="The fully resolved rules (RULES.md §2).")
    players = models.PositiveSmallIntegerField()
    visibility = models.CharField(max_length=8, choices=Visibility.choices)
    join_code = models.CharField(max_length=16, null=True, blank=True)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.OPEN)
    version = models.PositiveIntegerField(default=0, help_text="The seq of the last event.")
    turn = models.PositiveSmallIntegerField(null=True, blank=True)
    rated = models.BooleanField(default=True, help_text="Whether the result changes Elo ratings.")
    has_bots = models.BooleanField(default=False, help_text="Whether a bot sits at the table.")
    turn_seconds = models.PositiveIntegerField(
        default=86_400, help_text="Time per turn, from seconds (live) to days (correspondence)."
    )
    forfeit_after = models.PositiveSmallIntegerField(
        default=3, help_text="Consecutive timeouts of one seat that forfeit its side's match."
    )
    snapshot = models.JSONField(
        null=True, blank=True, help_text="A copy of the last HandSnapshot: a cache of the state."
    )
    snapshot_seq = models.PositiveIntegerField(default=0)
    deadline = models.DateTimeField(
        null=True, blank=True, help_text="When the turn times out; the source of truth."
    )
    scores = models.JSONField(default=list)
    camas = models.JSONField(default=list)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    end_reason = models.CharField(max_length=32, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="created_games"
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    #: The seats the event store read with this row, in order, each with its player's name
    #: (``games.store.log.seats_of``); None until read. Not a column.
    seats_read: list[Seat] | None = None

    class Meta:
        ordering = ["-created_at"]
        # Each action rewrites its game's row, and a row that changes an indexed column (the
        # deadline does) is written again in every index whose condition it meets: the
        # indexes hold only the games their queries look for, so an action rewrites few.
        constraints = [
            models.UniqueConstraint(
                fields=["join_code"], condition=Q(join_code__isnull=False), name="join_code_unique"
            ),
        ]
        indexes = [
            # The open games' list; the timeouts' sweep; the ratings' reconciler.
            models.Index(
                fields=["visibility", "-created_at"], condition=Q(status="open"), name="game_open"
            ),
            models.Index(fields=["deadline"], condition=Q(status="active"), name="game_deadline"),
            models.Index(
                fields=["finished_at"],
                condition=Q(status="finished", rated=True),
                name="game_rated_finished",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.preset} {self.players}p {self.id}"


class Seat(models.Model):
    # No index of its own: the unique constraints below begin with the game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="seats"
    )
    awaiting = models.BooleanField(default=False, help_text="The game waits for this seat.")
    bot_level = models.CharField(
        max_length=8, blank=True, help_text="A server-side bot's level; empty for a person."
    )
    has_acted = models.BooleanField(default=False)
    timeouts = models.PositiveSmallIntegerField(default=0, help_text="Consecutive timeouts.")
    joined_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "number"]
        constraints = [
            models.UniqueConstraint(fields=["game", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["game", "player"], name="seat_player_unique"),
        ]
        # No index holds ``awaiting``, which every action changes: then its UPDATE can stay in
        # the row's page and leave the indexes alone (a HOT update). A player's seats are few;
        # his list sorts them by it (``MyGamesView``) with the player's index.


class GameEvent(models.Model):
    """One fact of a game. Never updated or deleted: a database trigger refuses both."""

    id = models.BigAutoField(primary_key=True)
    # Indexed by its constraint below, which begins with the game (and so in the classes after).
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="events", db_index=False)
    seq = models.PositiveIntegerField()
    type = models.CharField(max_length=32)
    schema_version = models.PositiveSmallIntegerField()
    payload = models.JSONField(help_text="The event's full JSON (private parts included).")
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["game", "seq"], name="game_event_seq_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.game_id}#{self.seq} {self.type}"


class CamaRecord(models.Model):
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="camas_played", db_index=False
    )
    number = models.PositiveSmallIntegerField()
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    scores = models.JSONField(default=list)
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="cama_unique")]


class HandRecord(models.Model):
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="hands", db_index=False)
    number = models.PositiveIntegerField()
    cama = models.PositiveSmallIntegerField()
    dealer = models.PositiveSmallIntegerField()
    mano = models.PositiveSmallIntegerField()
    first_seq = models.PositiveIntegerField()
    last_seq = models.PositiveIntegerField(null=True, blank=True)
    winner_side = models.PositiveSmallIntegerField(null=True, blank=True)
    reason = models.CharField(max_length=32, blank=True)
    points = models.JSONField(default=list)
    scores = models.JSONField(default=list)
    started_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["game", "number"]
        constraints = [models.UniqueConstraint(fields=["game", "number"], name="hand_unique")]


class HandSnapshot(models.Model):
    """The match state just before a deal (``engine.snapshot``): a cache, never the truth."""

    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="snapshots", db_index=False
    )
    hand_number = models.PositiveIntegerField()
    seq = models.PositiveIntegerField(help_text="The last event folded into the snapshot.")
    state = models.JSONField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "hand_number"], name="snapshot_unique"),
        ]


class IdempotencyRecord(models.Model):
    """What an action POST did, kept so a retry with the same key gets the same answer, for
    ``IDEMPOTENCY_HOURS`` (settings.py); then the beat purges it (``games.tasks``). The answer is
    not kept: it is the game at ``last_seq`` as ``seat`` sees it, with the events from
    ``first_seq``, read back from the log (``games.services._earlier``)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    key = models.CharField(max_length=255)
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+")
    request_hash = models.CharField(max_length=64)
    seat = models.PositiveSmallIntegerField(help_text="The seat that acted.")
    first_seq = models.PositiveIntegerField(help_text="The first event the action wrote.")
    last_seq = models.PositiveIntegerField(help_text="Its last: the game's version after it.")
    deadline = models.DateTimeField(null=True, help_text="The turn's deadline the action set.")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "key"], name="idempotency_key_unique"),
        ]
        # The purge's: the oldest records, in the order they were written.
        indexes = [models.Index(fields=["created_at"], name="idempotency_created")]

"""Players: the accounts that sit at tables (people now; bots are players too); their ratings."""

from __future__ import annotations

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils import timezone

from players.ratings import START_RATING


class Player(AbstractUser):
    """A person with an account. The username is the public name at the table."""

    class ChallengesFrom(models.TextChoices):
        EVERYONE = "everyone", "anyone may challenge me"
        KNOWN = "known", "only players I have sat at a table with"

    display_name = models.CharField(max_length=40, blank=True)
    challenges_from = models.CharField(
        max_length=8, choices=ChallengesFrom.choices, default=ChallengesFrom.EVERYONE
    )
    deleted_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the account was deleted and its personal data erased.",
    )
    is_guest = models.BooleanField(
        default=False,
        help_text="Made by POST /api/auth/guest: no password until claimed; removed when idle.",
    )

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.display_name or self.username

    @property
    def public_name(self) -> str:
        return public_name(self.display_name, self.username)


def public_name(display_name: str, username: str) -> str:
    """The name a player shows others: the display name he chose, else his username."""
    return display_name or username


# --- Ratings: one Elo rating per player and pool; players/ratings.py holds the rule --------------


class RatingFamily(models.TextChoices):
    VALENCIANO = "valenciano", "Truc valencià"
    ARGENTINO = "argentino", "Truco argentino"


class RatingSize(models.TextChoices):
    ONE_V_ONE = "1v1", "one against one"
    TWO_V_TWO = "2v2", "pairs"
    THREE_V_THREE = "3v3", "three against three"


# Both argentino presets differ only in details of the envido and the mazo: one pool rates both.
PRESET_FAMILIES: dict[str, RatingFamily] = {
    "valenciano": RatingFamily.VALENCIANO,
    "argentino": RatingFamily.ARGENTINO,
    "argentino_clasico": RatingFamily.ARGENTINO,
}
TABLE_SIZES: dict[int, RatingSize] = {
    2: RatingSize.ONE_V_ONE,
    4: RatingSize.TWO_V_TWO,
    6: RatingSize.THREE_V_THREE,
}


def rating_pool(preset: str, players: int) -> tuple[RatingFamily, RatingSize]:
    """The pool a game is rated in: its family of rules and its table size."""
    return PRESET_FAMILIES[preset], TABLE_SIZES[players]


class Rating(models.Model):
    """A player's current rating in one pool; created at START_RATING by their first rated game."""

    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="ratings")
    family = models.CharField(max_length=16, choices=RatingFamily.choices)
    size = models.CharField(max_length=3, choices=RatingSize.choices)
    value = models.IntegerField(default=START_RATING)
    games = models.PositiveIntegerField(default=0, help_text="Rated games played in this pool.")
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["player", "family", "size"]
        constraints = [
            models.UniqueConstraint(fields=["player", "family", "size"], name="rating_pool_unique"),
        ]
        indexes = [models.Index(fields=["family", "size", "-value", "-games"])]

    def __str__(self) -> str:
        return f"{self.player} {self.family} {self.size}: {self.value}"


class RatingChange(models.Model):
    """What one rated game did to one player's rating. Written once per game and player."""

    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="rating_changes")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="rating_changes")
    family = models.CharField(max_length=16, choices=RatingFamily.choices)
    size = models.CharField(max_length=3, choices=RatingSize.choices)
    before = models.IntegerField()
    after = models.IntegerField()
    delta = models.IntegerField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Exactly once per game and player: the backstop behind the game-row lock.
            models.UniqueConstraint(fields=["game", "player"], name="rating_change_once"),
            models.CheckConstraint(
                condition=models.Q(after=models.F("before") + models.F("delta")),
                name="rating_change_adds_up",
            ),
        ]
        indexes = [models.Index(fields=["player", "-created_at"])]

    def __str__(self) -> str:
        return f"{self.player} {self.delta:+d} in {self.game_id}"


class Block(models.Model):
    """``blocker`` wants nothing from ``blocked``: no challenge, no pairing, no chat line."""

    blocker = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blocks")
    blocked = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["blocker", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~models.Q(blocker=models.F("blocked")), name="block_not_oneself"
            ),
        ]
        indexes = [models.Index(fields=["blocked"])]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"

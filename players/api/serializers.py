"""Input serializers check the shape of a request body; output serializers shape the answers."""

from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from players.models import Player, RatingFamily, RatingSize
from players.ratings import PROVISIONAL_GAMES, START_RATING
from truc_api.serializers import StrictSerializer, player_id_field

# Cap what a client may send to be hashed: a megabyte of password costs real CPU to hash.
PASSWORD_MAX_LENGTH = 256
USERNAME_MAX_LENGTH = Player._meta.get_field("username").max_length
DISPLAY_NAME_MAX_LENGTH = Player._meta.get_field("display_name").max_length

# --- input ---------------------------------------------------------------------------------------


class RegisterSerializer(StrictSerializer):
    """A new account. Unknown keys are a 400."""

    username = serializers.CharField(
        max_length=USERNAME_MAX_LENGTH,
        validators=[UnicodeUsernameValidator()],
        help_text="Letters, digits and @/./+/-/_ only; unique regardless of case.",
    )
    password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True
    )
    display_name = serializers.CharField(
        max_length=DISPLAY_NAME_MAX_LENGTH,
        allow_blank=True,
        default="",
        help_text="Shown at the table; never a bot's name, nor invisible characters (a 422).",
    )


class ClaimSerializer(RegisterSerializer):
    """The name and password a guest takes for his account. Unknown keys are a 400."""


class LoginSerializer(StrictSerializer):
    """A username and its password. Unknown keys are a 400."""

    username = serializers.CharField(max_length=USERNAME_MAX_LENGTH)
    password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True
    )


class ProfileChangeSerializer(StrictSerializer):
    """The profile fields to change; any subset. Unknown keys are a 400."""

    display_name = serializers.CharField(
        max_length=DISPLAY_NAME_MAX_LENGTH,
        required=False,
        allow_blank=True,
        help_text="Blank to show the username instead; never a bot's name, nor invisible"
        " characters (a 422).",
    )
    challenges_from = serializers.ChoiceField(
        Player.ChallengesFrom.choices,
        required=False,
        help_text="`known`: challenges only from players you have sat at a table with.",
    )


class PasswordChangeSerializer(StrictSerializer):
    """Your current password and the new one. Unknown keys are a 400."""

    current_password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True
    )
    new_password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True
    )


class AccountDeleteSerializer(StrictSerializer):
    """Your password, to confirm. Unknown keys are a 400."""

    password = serializers.CharField(
        max_length=PASSWORD_MAX_LENGTH, trim_whitespace=False, write_only=True
    )


class BlockCreateSerializer(StrictSerializer):
    """The player to block. Unknown keys are a 400."""

    blocked_id = player_id_field()


# --- output --------------------------------------------------------------------------------------


class PlayerSerializer(serializers.Serializer[Any]):
    """What anyone may see of a player."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()


class PoolStatsSerializer(serializers.Serializer[Any]):
    """Finished matches in one pool (rated or not; an aborted game is no result)."""

    family = serializers.ChoiceField(choices=RatingFamily.choices)
    size = serializers.ChoiceField(choices=RatingSize.choices)
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    losses = serializers.IntegerField()


class ProfileSerializer(PlayerSerializer):
    """A player's public profile, with his results in every pool."""

    stats = PoolStatsSerializer(many=True)


class AccountSerializer(ProfileSerializer):
    """What a player sees of their own account."""

    date_joined = serializers.DateTimeField()
    challenges_from = serializers.ChoiceField(Player.ChallengesFrom.choices)


class BlockSerializer(serializers.Serializer[Any]):
    player = PlayerSerializer(source="blocked")
    created_at = serializers.DateTimeField()


class SessionSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(
        help_text="Send it as `Authorization: Bearer <token>` (`Token <token>` works too). "
        "Shown only once."
    )
    expiry = serializers.DateTimeField()
    player = PlayerSerializer()


# --- ratings -------------------------------------------------------------------------------------


class PoolRatingSerializer(serializers.Serializer[Any]):
    """A player's rating in one pool (family of rules and table size)."""

    family = serializers.ChoiceField(choices=RatingFamily.choices)
    size = serializers.ChoiceField(choices=RatingSize.choices)
    value = serializers.IntegerField(help_text=f"Elo rating; everyone starts at {START_RATING}.")
    games = serializers.IntegerField(help_text="Rated games played in this pool.")
    provisional = serializers.BooleanField(
        help_text=f"Fewer than {PROVISIONAL_GAMES} rated games: the rating still moves fast."
    )
    updated_at = serializers.DateTimeField(allow_null=True, help_text="Null for a pool not played.")


class RatingChangeSerializer(serializers.Serializer[Any]):
    """What one rated game did to the player's rating."""

    game = serializers.UUIDField(source="game_id")
    family = serializers.ChoiceField(choices=RatingFamily.choices)
    size = serializers.ChoiceField(choices=RatingSize.choices)
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    delta = serializers.IntegerField()
    created_at = serializers.DateTimeField()


class RatingHistoryPageSerializer(serializers.Serializer[Any]):
    """One page of rating changes, newest first (`limit` and `offset` as in every list)."""

    count = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = RatingChangeSerializer(many=True)


class PlayerRatingsSerializer(serializers.Serializer[Any]):
    player = PlayerSerializer()
    ratings = PoolRatingSerializer(many=True, help_text="Every pool, played or not.")
    history = RatingHistoryPageSerializer()


class LeaderboardEntrySerializer(serializers.Serializer[Any]):
    rank = serializers.IntegerField(help_text="1 for the best; players with equal ratings differ.")
    player = PlayerSerializer()
    value = serializers.IntegerField()
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()
    updated_at = serializers.DateTimeField()

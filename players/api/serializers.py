"""Input serializers check the shape of a request body; output serializers shape the answers."""

from typing import Any

from django.contrib.auth.validators import UnicodeUsernameValidator
from rest_framework import serializers

from players.models import Player
from truc_api.serializers import StrictSerializer

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
        max_length=DISPLAY_NAME_MAX_LENGTH, allow_blank=True, default=""
    )


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
        help_text="Blank to show the username instead.",
    )


# --- output --------------------------------------------------------------------------------------


class PlayerSerializer(serializers.Serializer[Any]):
    """What anyone may see of a player."""

    id = serializers.IntegerField()
    username = serializers.CharField()
    display_name = serializers.CharField()


class AccountSerializer(PlayerSerializer):
    """What a player sees of their own account."""

    date_joined = serializers.DateTimeField()


class SessionSerializer(serializers.Serializer[Any]):
    token = serializers.CharField(
        help_text="Send it as `Authorization: Token <token>`. Shown only once."
    )
    expiry = serializers.DateTimeField()
    player = PlayerSerializer()

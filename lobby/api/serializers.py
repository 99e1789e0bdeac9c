"""The lobby's request and answer shapes."""

from __future__ import annotations

from typing import Any, TypedDict

from django.conf import settings
from rest_framework import serializers

from games.api.serializers import RuleOptionsField
from games.bots import LEVELS
from games.engine import PRESETS
from games.models import Game
from lobby.models import Challenge, ChatLine, Rematch, Seek
from notifications.api.serializers import SubscriptionSerializer
from players.api.serializers import (
    PlayerSerializer,
    PoolRatingSerializer,
    PoolStatsSerializer,
    RatingChangeSerializer,
)
from players.models import Player
from truc_api.components import component, component_choice
from truc_api.pagination import MAX_QUERY_INTEGER
from truc_api.serializers import StrictSerializer, player_id_field, rating_field

#: The lobby seats tables of 2 and 4 (6-player tables: /api/games).
TABLE_SIZES = (2, 4)


class _TurnField(TypedDict):
    min_value: int
    max_value: int
    default: int
    help_text: str


_TURN: _TurnField = {
    "min_value": 5,
    "max_value": 30 * 86_400,
    "default": 86_400,
    "help_text": "Time per turn: seconds for live tables, up to 30 days for correspondence.",
}


class ReasonOrNullField(serializers.ChoiceField):
    """A reason stored blank when there is none (a CharField), answered as null: "no reason" is
    no value of the reasons' enum."""

    def to_representation(self, value: Any) -> Any:
        return None if value == "" else super().to_representation(value)


# --- input ---------------------------------------------------------------------------------------


class SeekCreateSerializer(StrictSerializer):
    """What game you seek. Unknown keys are a 400."""

    preset = component_choice("Preset", tuple(PRESETS))
    players = serializers.ChoiceField(TABLE_SIZES, default=2)
    options = RuleOptionsField(required=False, default=dict)
    turn_seconds = serializers.IntegerField(**_TURN)
    rated = serializers.BooleanField(default=True)
    rating_min = rating_field(
        required=False,
        allow_null=True,
        default=None,
        help_text="The lowest rating you accept; with neither bound, a window around yours that "
        "widens with the time waited.",
    )
    rating_max = rating_field(required=False, allow_null=True, default=None)
    partner_id = player_id_field(
        required=False,
        allow_null=True,
        default=None,
        help_text="At a table of 4: the partner you queue with; he confirms with POST .../join.",
    )
    bot_after = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=86_400,
        help_text="Unrated only: after this many seconds, bots take the seats nobody took.",
    )
    bot_level = serializers.ChoiceField(
        LEVELS, default="basic", help_text="random, basic or strong."
    )
    expires_in = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=5,
        max_value=7 * 86_400,
        help_text="Seconds before the seek expires unpaired (default: the server's).",
    )


class ChallengeCreateSerializer(StrictSerializer):
    """A game proposed to named players, or to whoever opens its link. Unknown keys are a 400."""

    preset = component_choice("Preset", tuple(PRESETS))
    players = serializers.ChoiceField(TABLE_SIZES, default=2)
    options = RuleOptionsField(required=False, default=dict)
    turn_seconds = serializers.IntegerField(**_TURN)
    rated = serializers.BooleanField(default=True)
    visibility = serializers.ChoiceField(Game.Visibility.choices, default=Game.Visibility.PUBLIC)
    opponents = serializers.ListField(
        child=player_id_field(),
        default=list,
        max_length=2,
        help_text="Player ids for the other side's seats (1, then 3); seats left unnamed are "
        "open to whoever opens the challenge's link.",
    )
    partner_id = player_id_field(
        required=False, allow_null=True, default=None, help_text="At a table of 4: seat 2."
    )
    expires_in = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=5, max_value=30 * 86_400
    )


class DeclineSerializer(StrictSerializer):
    """Why you decline. Unknown keys are a 400."""

    reason = serializers.ChoiceField(
        Challenge.DeclineReason.choices, default=Challenge.DeclineReason.GENERIC
    )


class ChatLineCreateSerializer(StrictSerializer):
    """A line to say at the table. Unknown keys are a 400."""

    room = serializers.ChoiceField(ChatLine.Room.choices, default=ChatLine.Room.PLAYERS)
    text = serializers.CharField(max_length=settings.CHAT_MAX_LENGTH)


class ChatQuerySerializer(StrictSerializer):
    from_query = True

    room = serializers.ChoiceField(
        ChatLine.Room.choices, default=ChatLine.Room.PLAYERS, help_text="The room to read."
    )
    after = serializers.IntegerField(
        min_value=0, max_value=MAX_QUERY_INTEGER, default=0, help_text="Lines after this id."
    )


# --- output --------------------------------------------------------------------------------------


#: Seeks and challenges say when they stopped waiting in the same words as games and hands.
ENDED_AT = (
    "When it stopped waiting (its `status` left `open`, `waiting_partner` or `pending`):"
    " matched or accepted, declined, cancelled or expired. None while it waits."
)


class SeekSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(Seek.Status.choices)
    player_id = serializers.IntegerField()
    partner_id = serializers.IntegerField(allow_null=True)
    preset = component_choice("Preset", tuple(PRESETS))
    players = serializers.ChoiceField(TABLE_SIZES)
    options = RuleOptionsField(help_text="The options the game is asked with (RULES.md §2).")
    turn_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    rating = serializers.IntegerField(help_text="Your rating in the game's pool (a pair's mean).")
    rating_min = serializers.IntegerField(allow_null=True)
    rating_max = serializers.IntegerField(allow_null=True)
    bot_after = serializers.IntegerField(allow_null=True)
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True, help_text=ENDED_AT)
    game_id = serializers.UUIDField(allow_null=True, help_text="Once matched: the game to play.")


class ChallengeSeatSerializer(serializers.Serializer[Any]):
    number = component("Seat", help_text="The seat at the table: 0 the challenger's.")
    player_id = serializers.IntegerField(allow_null=True, help_text="None: an open seat.")
    accepted = serializers.BooleanField()


class ChallengeSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    status = serializers.ChoiceField(Challenge.Status.choices)
    challenger_id = serializers.IntegerField()
    preset = component_choice("Preset", tuple(PRESETS))
    players = serializers.ChoiceField(TABLE_SIZES)
    options = RuleOptionsField(help_text="The options the game is asked with (RULES.md §2).")
    turn_seconds = serializers.IntegerField()
    rated = serializers.BooleanField()
    visibility = serializers.ChoiceField(Game.Visibility.choices)
    seats = ChallengeSeatSerializer(many=True, source="seats.all")
    link_token = serializers.SerializerMethodField(
        help_text="The private link's token (POST /api/challenges/link/{token}/accept): shown to "
        "the challenger only."
    )
    decline_reason = ReasonOrNullField(
        Challenge.DeclineReason.choices,
        allow_null=True,
        help_text="Why it was declined; null unless it was.",
    )
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True, help_text=ENDED_AT)
    game_id = serializers.UUIDField(allow_null=True)

    def get_link_token(self, challenge: Challenge) -> str | None:
        viewer = self.context.get("viewer")
        return challenge.link_token if viewer and viewer.pk == challenge.challenger_id else None


class RematchSerializer(serializers.Serializer[Any]):
    game_id = serializers.UUIDField()
    status = serializers.ChoiceField(Rematch.Status.choices, allow_null=True)
    offered_by = serializers.IntegerField(allow_null=True)
    accepted_by = serializers.ListField(child=serializers.IntegerField())
    next_game_id = serializers.UUIDField(allow_null=True, help_text="The rematch's game.")
    previous_game_id = serializers.UUIDField(
        allow_null=True, help_text="The game this one is the rematch of."
    )


class ChatAuthorSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField(source="public_name")


class ChatLineSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    room = serializers.ChoiceField(ChatLine.Room.choices)
    author = ChatAuthorSerializer()
    text = serializers.CharField()
    at = serializers.DateTimeField(source="created_at")


# --- the data export (lobby/export.py) ---------------------------------------------------------
# Each part is the API's own shape where the API has one (a seek, a challenge, a rating, a game and
# its feed, a subscription), so an export reads with the types a client already has.


class DataExportProfileSerializer(PlayerSerializer):
    """Your account as the server keeps it (no password, no token)."""

    email = serializers.CharField(help_text="Empty when none was given.")
    date_joined = serializers.DateTimeField()
    challenges_from = serializers.ChoiceField(Player.ChallengesFrom.choices)


class DataExportGameSerializer(serializers.Serializer[Any]):
    seat = component("Seat", help_text="Your seat at it.")
    game = component("Game", help_text="The game as your seat sees it (`GET /api/games/{id}`).")
    events = component("FeedItem", many=True, help_text="Its whole log, redacted for your seat.")


class DataExportChatLineSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    game_id = serializers.UUIDField()
    room = serializers.ChoiceField(ChatLine.Room.choices)
    author_id = serializers.IntegerField()
    text = serializers.CharField()
    at = serializers.DateTimeField(source="created_at")


class DataExportBlockSerializer(serializers.Serializer[Any]):
    player_id = serializers.IntegerField(source="blocked_id", help_text="The player you block.")
    at = serializers.DateTimeField(source="created_at")


class DataExportSerializer(serializers.Serializer[Any]):
    """Your data: everything of yours the server keeps that you may see, and nothing else."""

    exported_at = serializers.DateTimeField()
    profile = DataExportProfileSerializer()
    ratings = PoolRatingSerializer(many=True, help_text="Every pool, played or not.")
    rating_history = RatingChangeSerializer(many=True, help_text="Newest first.")
    stats = PoolStatsSerializer(many=True)
    games = DataExportGameSerializer(many=True, help_text="Every game you sat at, oldest first.")
    chat = DataExportChatLineSerializer(
        many=True, help_text="The lines you may read now: yours and your tables'."
    )
    seeks = SeekSerializer(many=True, help_text="Yours and those naming you as partner.")
    challenges = ChallengeSerializer(many=True, help_text="Those you sit at, sent or received.")
    blocks = DataExportBlockSerializer(many=True, help_text="Yours (never who blocks you).")
    webhook_subscriptions = SubscriptionSerializer(many=True, help_text="Without their secrets.")

"""The games API's shapes: input serializers validate requests; output serializers make every
answer from the viewer's projection the selectors read (``truc_api.serializers.output``), and
the OpenAPI document is generated from them: what it says is what is sent."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games import contract
from games.bots import LEVELS
from games.engine import PRESETS
from games.models import Game
from players.models import RatingFamily, RatingSize
from truc_api.components import component, component_choice, ref
from truc_api.pagination import MAX_QUERY_INTEGER
from truc_api.problems import field_error
from truc_api.serializers import ReadModelSerializer, StrictSerializer

# --- input -------------------------------------------------------------------------------------
# The engine checks what it owns: a game's rules (``resolve_rules``) and an action's type and card
# (``Action.from_json``); these serializers check the rest, and document the engine's part with
# the components of games/api/contract.py, generated from the same tables.


@extend_schema_field(ref("RuleOptions"))
class RuleOptionsField(serializers.JSONField):
    """Overrides of a preset's options: an object, whose names and values the engine checks
    (``resolve_rules``: one validator), documented by the contract's ``RuleOptions``."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError([field_error("Expected an object.", "invalid_type")])
        return data


class BotSeatSerializer(StrictSerializer):
    """A server-side bot in one seat."""

    seat = serializers.IntegerField(min_value=1, max_value=contract.MAX_PLAYERS - 1)
    level = serializers.ChoiceField(LEVELS, help_text="random, basic or strong.")


class GameCreateSerializer(StrictSerializer):
    """A new table: its preset, size, visibility and rule overrides. Unknown keys are a 400."""

    preset = component_choice("Preset", tuple(PRESETS))
    players = component(
        "Players", default=2, help_text="Players at the table (checked with the rules)."
    )
    visibility = serializers.ChoiceField(Game.Visibility.choices, default=Game.Visibility.PUBLIC)
    options = RuleOptionsField(required=False, default=dict)
    turn_seconds = serializers.IntegerField(
        min_value=5,
        max_value=30 * 86_400,
        default=86_400,
        help_text="Time per turn: seconds for live tables, up to 30 days for correspondence.",
    )
    forfeit_after = serializers.IntegerField(
        min_value=1,
        max_value=10,
        default=3,
        help_text="Consecutive timeouts of one seat that forfeit its side's match.",
    )
    bots = BotSeatSerializer(
        many=True,
        required=False,
        default=list,
        help_text="Server-side bots in distinct seats from 1 up; a game with a bot is not rated.",
    )


class JoinSerializer(StrictSerializer):
    """Take a seat at this game; the body may be empty. Unknown keys are a 400."""

    seat = serializers.IntegerField(
        min_value=0,
        max_value=contract.MAX_PLAYERS - 1,
        required=False,
        help_text="A free seat; the first by default.",
    )
    join_code = serializers.CharField(
        max_length=16, required=False, help_text="Needed for a private game."
    )


class JoinByCodeSerializer(StrictSerializer):
    """Take a seat at the private game with this code. Unknown keys are a 400."""

    join_code = serializers.CharField(max_length=16)
    seat = serializers.IntegerField(min_value=0, max_value=contract.MAX_PLAYERS - 1, required=False)


class ActionSerializer(StrictSerializer):
    """An action for the caller's own seat: the seat always comes from the token, never the body.
    ``type`` and ``card`` are the engine's to read (``services.act``); documented by the
    ``ActionRequest`` component."""

    type = serializers.JSONField()
    card = serializers.JSONField(required=False)
    expected_version = serializers.IntegerField(min_value=0, max_value=MAX_QUERY_INTEGER)


class FeedQuerySerializer(StrictSerializer):
    from_query = True

    after = serializers.IntegerField(
        min_value=0, max_value=MAX_QUERY_INTEGER, default=0, help_text="Events after this seq."
    )
    limit = serializers.IntegerField(min_value=1, max_value=500, default=200)


class OpenGamesQuerySerializer(StrictSerializer):
    from_query = True

    preset = component_choice("Preset", tuple(PRESETS), required=False, help_text="Only this.")
    players = component_choice(
        "Players", contract.PLAYER_COUNTS, required=False, help_text="Only tables of this size."
    )


# --- output: the answers, made from the selectors' read models ----------------------------------


class PlayerRefSerializer(ReadModelSerializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class TableSeatSerializer(ReadModelSerializer):
    """A seat of the table and who sits in it."""

    seat = component("Seat")
    side = component("Side", help_text="The seat's side: seat mod 2 (RULES.md §1).")
    player = PlayerRefSerializer(allow_null=True, help_text="Null for a free seat.")


class PlaySerializer(ReadModelSerializer):
    seat = component("Seat")
    card = component("CardCode")


class PendingCallSerializer(ReadModelSerializer):
    ladder = component("Ladder")
    call = component("Call")
    caller = component("Seat", help_text="The seat that made the call.")
    answering_side = component(
        "Side",
        help_text=(
            "The side that must answer (`quiero`, `no_quiero`, a raise): its first active player"
            " after the caller has the turn, and either active player of that side may answer."
        ),
    )


class TrucoViewSerializer(ReadModelSerializer):
    level = component("TrucoLevel", help_text="The accepted level: 1 (no call) to 5 (joc fora).")
    holder = component("Side", nullable=True, help_text="The side holding the quiero (may raise).")


class EnvidoViewSerializer(ReadModelSerializer):
    calls = component("EnvidoCall", many=True, help_text="This hand's envido calls, in order.")
    winner = component("Side", nullable=True, help_text="The side that won an accepted envido.")
    value = serializers.IntegerField(allow_null=True, help_text="The winning value only.")
    points = component(
        "Points",
        nullable=True,
        help_text="The envido's points and the side they go to (`kind` `envido`), scored when"
        " the hand ends (RULES.md §7) as its `hand_ended` lists them; null while nothing is owed.",
    )


class FlorViewSerializer(ReadModelSerializer):
    """The hand's flor (RULES.md §5.3): who sang, the contest, and how it was settled."""

    sung = component("Seat", many=True, help_text="The seats that sang flor, in order.")
    round = serializers.BooleanField(help_text="Holders are still singing; `turn` sings next.")
    calls = component("FlorCall", many=True, help_text="The contest: flor, then its raises.")
    winner = component("Side", nullable=True, help_text="The side the flor points go to.")
    value = serializers.IntegerField(
        allow_null=True, help_text="The winning flor's value, only when the flores were compared."
    )
    points = component(
        "Points",
        nullable=True,
        help_text="The flor's points and the side they go to (`kind` `flor`), scored when the"
        " hand ends (§7) as its `hand_ended` lists them; null while nothing is owed.",
    )


class HandViewSerializer(ReadModelSerializer):
    number = serializers.IntegerField(min_value=1)
    dealer = component("Seat")
    mano = component("Seat", help_text="The seat after the dealer: it leads the first baza.")
    over = serializers.BooleanField()
    kind = component("HandKind")
    duel = component(
        "Duel", nullable=True, help_text="Pica-pica: the duel in progress, or the last one played."
    )
    duelists = component(
        "Seat",
        many=True,
        nullable=True,
        length=2,
        help_text="The duel's two seats, its mano first.",
    )
    earlier_duels = serializers.ListField(
        child=PlaySerializer(many=True), help_text="Pica-pica: the cards played in each duel over."
    )
    my_cards = component(
        "CardCode",
        many=True,
        nullable=True,
        help_text="The reader's unplayed cards; null for a spectator.",
    )
    my_envido = serializers.IntegerField(allow_null=True, help_text="The reader's envido value.")
    my_flor = serializers.IntegerField(
        allow_null=True, help_text="The reader's own flor value, with the flor on; never another's."
    )
    cards_left = serializers.ListField(
        child=serializers.IntegerField(min_value=0, max_value=3),
        min_length=2,
        max_length=6,
        help_text="By seat: how many cards each still holds (as many as the table's players).",
    )
    bazas = serializers.ListField(
        child=PlaySerializer(many=True), help_text="The completed bazas' plays, in order."
    )
    baza = PlaySerializer(many=True, help_text="The baza in progress, in play order.")
    baza_results = component(
        "BazaResult", many=True, help_text="By completed baza: the side that won it, or parda."
    )
    folded = component("Seat", many=True, help_text="Seats that went to the mazo this hand.")
    envido_phase = serializers.BooleanField()
    pending_call = PendingCallSerializer(allow_null=True)
    truco = TrucoViewSerializer()
    envido = EnvidoViewSerializer()
    flor = FlorViewSerializer()


def by_side(help_text: str) -> serializers.ListField:
    """A whole number for each of the two sides, indexed by ``Side``: every table, of 2, 4 or 6
    players, has two (RULES.md §1: side = seat mod 2)."""
    return serializers.ListField(
        child=serializers.IntegerField(min_value=0),
        min_length=2,
        max_length=2,
        help_text=help_text,
    )


class StateViewSerializer(ReadModelSerializer):
    side = component("Side", nullable=True, help_text="The reader's side; null for a spectator.")
    scores = by_side("By side: this cama's scores.")
    camas = by_side("By side: camas won.")
    match_over = serializers.BooleanField()
    match_winner = component("Side", nullable=True)
    end_reason = component("MatchEndReason", nullable=True)
    turn = component("Seat", nullable=True, help_text="The seat that must act now, if any.")
    hand = HandViewSerializer(allow_null=True)
    legal_actions = component(
        "LegalAction", many=True, help_text="What the reader's seat may do now; empty if nothing."
    )


class GameRatingChangeSerializer(ReadModelSerializer):
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    seat = component("Seat", nullable=True)
    family = serializers.ChoiceField(RatingFamily.choices)
    size = serializers.ChoiceField(RatingSize.choices)
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    delta = serializers.IntegerField()


class ClockSerializer(ReadModelSerializer):
    turn_seconds = serializers.IntegerField()
    forfeit_after = serializers.IntegerField()


_VERSION = "The number of events in the game's log: the last event's `seq` (0 before it starts)."


class GameSerializer(ReadModelSerializer):
    id = serializers.UUIDField()
    preset = component("Preset")
    players = component("Players")
    visibility = serializers.ChoiceField(Game.Visibility.choices)
    status = serializers.ChoiceField(Game.Status.choices)
    version = serializers.IntegerField(min_value=0, help_text=_VERSION)
    created_at = serializers.DateTimeField()
    seats = TableSeatSerializer(many=True, help_text="By seat, every seat of the table.")
    my_seat = component("Seat", nullable=True, help_text="The reader's seat; null if not seated.")
    join_code = serializers.CharField(allow_null=True, help_text="Shown to seated players only.")
    winner_side = component("Side", nullable=True)
    end_reason = component("GameEndReason", nullable=True)
    rated = serializers.BooleanField()
    rating_changes = GameRatingChangeSerializer(
        many=True, help_text="Empty until a finished, rated game has been rated."
    )
    clock = ClockSerializer()
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the current turn times out (absolute, UTC)."
    )
    rules = component("Rules")
    state = StateViewSerializer(allow_null=True, help_text="Null until the table is full.")


class GameSummarySerializer(ReadModelSerializer):
    id = serializers.UUIDField()
    preset = component("Preset")
    players = component("Players")
    visibility = serializers.ChoiceField(Game.Visibility.choices)
    status = serializers.ChoiceField(Game.Status.choices)
    version = serializers.IntegerField(min_value=0, help_text=_VERSION)
    seats = TableSeatSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="By side.")
    camas = serializers.ListField(child=serializers.IntegerField(), help_text="By side.")
    turn = component("Seat", nullable=True)
    deadline = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    my_seat = component("Seat", nullable=True)
    awaiting = serializers.BooleanField(help_text="The game waits for the caller.")


class FeedPageSerializer(ReadModelSerializer):
    events = component(
        "FeedItem", many=True, help_text="In order of `seq`, redacted for the reader."
    )
    after = serializers.IntegerField(
        min_value=0, help_text="The cursor: the last `seq` here (or the one asked for when none)."
    )
    more = serializers.BooleanField(
        help_text="The log holds events beyond this page: ask again with `after` at once."
    )
    version = serializers.IntegerField(min_value=0, help_text=_VERSION)


class ActionResultSerializer(ReadModelSerializer):
    version = serializers.IntegerField(help_text=_VERSION)
    events = component("FeedItem", many=True, help_text="The events this action caused.")
    game = GameSerializer()


class CamaRecordSerializer(ReadModelSerializer):
    number = serializers.IntegerField(min_value=1)
    winner = component("Side", nullable=True, help_text="As in its `cama_ended` event.")
    scores = serializers.ListField(child=serializers.IntegerField(), help_text="By side.")
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class HandRecordSerializer(ReadModelSerializer):
    """A hand, in the words of its `hand_dealt` and `hand_ended` events."""

    number = serializers.IntegerField(min_value=1)
    cama = serializers.IntegerField(min_value=1)
    dealer = component("Seat")
    mano = component("Seat")
    winner = component("Side", nullable=True, help_text="Null while it is played.")
    reason = component("HandEndReason", nullable=True)
    points = component("Points", many=True)
    scores = by_side("By side: the scores when it was dealt, then after it.")
    first_seq = serializers.IntegerField()
    last_seq = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class HistorySerializer(ReadModelSerializer):
    camas = CamaRecordSerializer(many=True)
    hands = HandRecordSerializer(many=True)


class ExportSerializer(ReadModelSerializer):
    game = GameSerializer()
    history = HistorySerializer()
    events = component("FeedItem", many=True)


# --- GET /api/rules ----------------------------------------------------------------------------


class SuitInfoSerializer(ReadModelSerializer):
    code = component("Suit")
    es = serializers.CharField(help_text="Its name in Spanish.")
    ca = serializers.CharField(help_text="Its name in Valencian.")


class FigureSerializer(ReadModelSerializer):
    rank = serializers.IntegerField()
    es = serializers.CharField()
    ca = serializers.CharField()


class CardInfoSerializer(ReadModelSerializer):
    code = component("CardCode")
    rank = serializers.IntegerField()
    suit = component("Suit")
    truco_strength = serializers.IntegerField(
        help_text="Higher wins the baza; equal strengths tie (parda between sides)."
    )
    envido_value = serializers.IntegerField(help_text="Face value 1-7, 0 for the figures.")


class DeckInfoSerializer(ReadModelSerializer):
    name = component("Deck")
    cards = CardInfoSerializer(many=True, help_text="Strongest first (truco order).")


@extend_schema_field(
    {"type": ["array", "null"], "items": {"type": ["string", "integer", "boolean"]}}
)
class OptionValuesField(serializers.ListField):
    """A choice's values: strings, integers (``players``) or the two booleans."""


class OptionInfoSerializer(ReadModelSerializer):
    name = serializers.ChoiceField(contract.OPTION_NAMES, help_text="A key of `Rules`.")
    type = serializers.ChoiceField(("integer", "choice", "boolean"))
    minimum = serializers.IntegerField(allow_null=True)
    maximum = serializers.IntegerField(allow_null=True)
    values = OptionValuesField(allow_null=True, help_text="A choice's values; null for integers.")


class ActionInfoSerializer(ReadModelSerializer):
    type = component("ActionType")
    aliases = component("ActionType", many=True, help_text="Valenciano names of it.")
    takes_card = serializers.BooleanField()
    ladder = component("Ladder", nullable=True)
    truco_level = component("TrucoLevel", nullable=True, help_text="The level a truco call asks.")
    envido_points = serializers.IntegerField(
        allow_null=True, help_text="What an accepted envido call adds (falta: see RULES.md §5.2)."
    )


class RulesMetadataSerializer(ReadModelSerializer):
    presets = component("Rules", many=True)
    options = OptionInfoSerializer(many=True)
    suits = SuitInfoSerializer(many=True)
    decks = DeckInfoSerializer(many=True)
    figures = FigureSerializer(many=True)
    actions = ActionInfoSerializer(many=True)
    event_types = component("EventType", many=True)

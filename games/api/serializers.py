"""The games API's shapes: input serializers validate requests; output serializers document the
views that the selectors build (the OpenAPI document is generated from them)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from games.bots import LEVELS
from games.engine import PRESETS
from games.engine import rules as engine_rules
from games.engine.actions import ALIASES, CANONICAL
from games.models import Game
from truc_api.serializers import StrictSerializer

# --- input -------------------------------------------------------------------------------------

#: The table sizes (RULES.md §1), as (value, label) choices: the OpenAPI enum ``PlayersEnum``.
PLAYER_CHOICES = [(players, str(players)) for players in engine_rules.PLAYER_COUNTS]


class RuleOptionsSerializer(StrictSerializer):
    """Overrides of the preset's options (RULES.md §2); any subset, every one optional."""

    deck = serializers.ChoiceField(engine_rules.DECK_NAMES, required=False)
    target = serializers.IntegerField(min_value=6, max_value=60, required=False)
    buenas_from = serializers.IntegerField(min_value=2, max_value=60, required=False)
    camas_to_win = serializers.IntegerField(min_value=1, max_value=5, required=False)
    first_parda = serializers.ChoiceField(engine_rules.FIRST_PARDA, required=False)
    envido_window = serializers.ChoiceField(engine_rules.ENVIDO_WINDOWS, required=False)
    envido_raise = serializers.ChoiceField(engine_rules.ENVIDO_RAISES, required=False)
    falta = serializers.ChoiceField(engine_rules.FALTA_MODES, required=False)
    truco_top = serializers.ChoiceField(engine_rules.TRUCO_TOPS, required=False)
    mazo_team = serializers.ChoiceField(engine_rules.MAZO_TEAMS, required=False)
    mazo_envido_penalty = serializers.BooleanField(required=False)
    flor = serializers.BooleanField(
        required=False, help_text="RULES.md §5.3; not with the valencian22 deck."
    )
    pica_pica = serializers.BooleanField(
        required=False, help_text="RULES.md §9; only in games of 6 players."
    )


class BotSeatSerializer(StrictSerializer):
    """A server-side bot in one seat."""

    seat = serializers.IntegerField(min_value=1, max_value=5)
    level = serializers.ChoiceField(LEVELS, help_text="random, basic or strong.")


class GameCreateSerializer(StrictSerializer):
    """A new table: its preset, size, visibility and rule overrides. Unknown keys are a 400."""

    preset = serializers.ChoiceField(tuple(PRESETS))
    players = serializers.ChoiceField(
        PLAYER_CHOICES, default=2, help_text="2, 4 or 6 (3 against 3, RULES.md §9)."
    )
    visibility = serializers.ChoiceField(Game.Visibility.choices, default=Game.Visibility.PUBLIC)
    options = RuleOptionsSerializer(required=False, default=dict)
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
        help_text="Server-side bots for some of seats 1-5; a game with a bot is not rated.",
    )


class JoinSerializer(StrictSerializer):
    """Take a seat at this game; the body may be empty. Unknown keys are a 400."""

    seat = serializers.IntegerField(
        min_value=0, max_value=5, required=False, help_text="A free seat; the first by default."
    )
    join_code = serializers.CharField(
        max_length=16, required=False, help_text="Needed for a private game."
    )


class JoinByCodeSerializer(StrictSerializer):
    """Take a seat at the private game with this code. Unknown keys are a 400."""

    join_code = serializers.CharField(max_length=16)
    seat = serializers.IntegerField(min_value=0, max_value=5, required=False)


class _Shared(tuple[str, ...]):
    """Choices that DRF's per-request deep copy of a serializer's fields may share: copying these
    thirty strings one by one was a fifth of validating an action (182 -> 143 us, measured)."""

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


_ACTION_TYPES = frozenset((*CANONICAL, *ALIASES))
_PLAIN_KEYS = frozenset(("type", "card", "expected_version"))


class ActionSerializer(StrictSerializer):
    """An action for the caller's own seat: the seat always comes from the token, never the body."""

    type = serializers.ChoiceField(
        _Shared((*CANONICAL, *ALIASES)),
        help_text="Canonical names, or their valenciano aliases (RULES.md §5).",
    )
    card = serializers.CharField(
        max_length=3, required=False, help_text="With `play` only: the card, e.g. `7O`."
    )
    expected_version = serializers.IntegerField(
        min_value=0, help_text="The game version the client acted on; 409 if it has moved on."
    )

    @classmethod
    def plain(cls, data: Any) -> dict[str, Any] | None:
        """``data`` as validation returns it, when it is an action in its plainest form (each
        value of its own JSON type, nothing to trim or convert); None for anything else, which
        the serializer checks and explains. Building the serializer copies its fields for each
        request: this check costs a tenth of it (bench/README.md), and tests hold it to the
        serializer's answers."""
        if not isinstance(data, dict) or not _PLAIN_KEYS.issuperset(data):
            return None
        kind, card, version = data.get("type"), data.get("card", ""), data.get("expected_version")
        if kind.__class__ is not str or kind not in _ACTION_TYPES:
            return None
        if version.__class__ is not int or version < 0:
            return None
        if "card" in data and (
            card.__class__ is not str
            or not 0 < len(card) <= 3
            or card != card.strip()
            or "\x00" in card
        ):
            return None
        return dict(data)


class FeedQuerySerializer(StrictSerializer):
    after = serializers.IntegerField(min_value=0, default=0, help_text="Events after this seq.")
    limit = serializers.IntegerField(min_value=1, max_value=500, default=200)


# --- output (documentation of the selectors' dictionaries) -------------------------------------


@extend_schema_field({"oneOf": [{"type": "integer"}, {"type": "string", "enum": ["parda"]}]})
class BazaResultField(serializers.Field):
    def to_representation(self, value: Any) -> Any:
        return value


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    side = serializers.IntegerField(help_text="seat mod 2: side 0 = seats 0, 2, 4 (RULES.md §1).")
    player = PlayerRefSerializer(allow_null=True)


class PlaySerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    card = serializers.CharField()


class PendingCallSerializer(serializers.Serializer):
    ladder = serializers.ChoiceField(
        ("truco", "envido", "flor"), help_text="flor: the contest of RULES.md §5.3.5."
    )
    call = serializers.CharField()
    caller = serializers.IntegerField()
    answering_side = serializers.IntegerField()


class TrucoViewSerializer(serializers.Serializer):
    level = serializers.IntegerField(help_text="The accepted level: 1 (no call) to 5 (joc fora).")
    holder = serializers.IntegerField(allow_null=True, help_text="The side holding the quiero.")


class EnvidoViewSerializer(serializers.Serializer):
    calls = serializers.ListField(child=serializers.CharField())
    winner = serializers.IntegerField(allow_null=True)
    value = serializers.IntegerField(allow_null=True, help_text="The winning value only.")
    points = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="[side, points]"
    )


class FlorViewSerializer(serializers.Serializer):
    sung = serializers.ListField(
        child=serializers.IntegerField(), help_text="The seats that sang flor, in order."
    )
    round = serializers.BooleanField(help_text="Holders are still singing; `turn` sings next.")
    calls = serializers.ListField(
        child=serializers.CharField(), help_text="The contest: flor, then its raises."
    )
    winner = serializers.IntegerField(allow_null=True, help_text="The side the flor went to.")
    value = serializers.IntegerField(
        allow_null=True, help_text="The winning flor's value, when the flores were compared."
    )
    points = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="[side, points]"
    )


class LegalActionSerializer(serializers.Serializer):
    type = serializers.CharField()
    card = serializers.CharField(required=False)


class HandViewSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    dealer = serializers.IntegerField()
    mano = serializers.IntegerField()
    over = serializers.BooleanField()
    kind = serializers.ChoiceField(("redonda", "pica_pica"), help_text="RULES.md §9.")
    duel = serializers.IntegerField(
        allow_null=True, help_text="Pica-pica: the duel in progress (0-2), or the last one."
    )
    duelists = serializers.ListField(
        child=serializers.IntegerField(), allow_null=True, help_text="The duel's seats, mano first."
    )
    earlier_duels = serializers.ListField(
        child=PlaySerializer(many=True), help_text="The cards played in each finished duel."
    )
    my_cards = serializers.ListField(child=serializers.CharField(), allow_null=True)
    my_envido = serializers.IntegerField(allow_null=True)
    my_flor = serializers.IntegerField(
        allow_null=True, help_text="The reader's own flor value, with flor on; never another's."
    )
    cards_left = serializers.ListField(child=serializers.IntegerField())
    bazas = serializers.ListField(child=PlaySerializer(many=True))
    baza = PlaySerializer(many=True)
    baza_results = serializers.ListField(child=BazaResultField())
    folded = serializers.ListField(child=serializers.IntegerField())
    envido_phase = serializers.BooleanField()
    pending_call = PendingCallSerializer(allow_null=True)
    truco = TrucoViewSerializer()
    envido = EnvidoViewSerializer()
    flor = FlorViewSerializer()


class StateViewSerializer(serializers.Serializer):
    side = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    camas = serializers.ListField(child=serializers.IntegerField())
    match_over = serializers.BooleanField()
    match_winner = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField(allow_null=True)
    turn = serializers.IntegerField(allow_null=True)
    hand = HandViewSerializer(allow_null=True)
    legal_actions = LegalActionSerializer(many=True)


class RulesSerializer(serializers.Serializer):
    preset = serializers.CharField()
    deck = serializers.CharField()
    players = serializers.IntegerField()
    target = serializers.IntegerField()
    buenas_from = serializers.IntegerField()
    camas_to_win = serializers.IntegerField()
    first_parda = serializers.CharField()
    envido_window = serializers.CharField()
    envido_raise = serializers.CharField()
    falta = serializers.CharField()
    truco_top = serializers.CharField()
    mazo_team = serializers.CharField()
    mazo_envido_penalty = serializers.BooleanField()
    flor = serializers.BooleanField()
    pica_pica = serializers.BooleanField()


class GameRatingChangeSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    seat = serializers.IntegerField(allow_null=True)
    family = serializers.CharField()
    size = serializers.CharField()
    before = serializers.IntegerField()
    after = serializers.IntegerField()
    delta = serializers.IntegerField()


class ClockSerializer(serializers.Serializer):
    turn_seconds = serializers.IntegerField()
    forfeit_after = serializers.IntegerField()


class GameSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    preset = serializers.CharField()
    players = serializers.IntegerField()
    visibility = serializers.ChoiceField(Game.Visibility.choices)
    status = serializers.ChoiceField(Game.Status.choices)
    version = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    seats = SeatSerializer(many=True)
    my_seat = serializers.IntegerField(allow_null=True)
    join_code = serializers.CharField(allow_null=True, help_text="Shown to seated players only.")
    winner_side = serializers.IntegerField(allow_null=True)
    end_reason = serializers.CharField(allow_null=True)
    rated = serializers.BooleanField()
    rating_changes = GameRatingChangeSerializer(
        many=True, help_text="Empty until a finished, rated game has been rated."
    )
    clock = ClockSerializer()
    deadline = serializers.DateTimeField(
        allow_null=True, help_text="When the current turn times out (absolute, UTC)."
    )
    rules = RulesSerializer()
    state = StateViewSerializer(allow_null=True, help_text="Null until the table is full.")


class GameSummarySerializer(serializers.Serializer):
    id = serializers.UUIDField()
    preset = serializers.CharField()
    players = serializers.IntegerField()
    visibility = serializers.ChoiceField(Game.Visibility.choices)
    status = serializers.ChoiceField(Game.Status.choices)
    version = serializers.IntegerField()
    seats = SeatSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    camas = serializers.ListField(child=serializers.IntegerField())
    turn = serializers.IntegerField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()
    updated_at = serializers.DateTimeField()
    my_seat = serializers.IntegerField(allow_null=True)
    awaiting = serializers.BooleanField(help_text="The game waits for the caller.")


class FeedItemSerializer(serializers.Serializer):
    seq = serializers.IntegerField()
    type = serializers.CharField()
    at = serializers.DateTimeField()
    seat = serializers.IntegerField(allow_null=True, help_text="The acting seat, if any.")
    data = serializers.DictField(help_text="The event's fields, redacted for the reader.")


class ActionResultSerializer(serializers.Serializer):
    version = serializers.IntegerField()
    events = FeedItemSerializer(many=True)
    game = GameSerializer()


class PointsSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(("flor", "envido", "truco", "mazo_penalty"))
    side = serializers.IntegerField()
    points = serializers.IntegerField()


class CamaRecordSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    winner_side = serializers.IntegerField(allow_null=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class HandRecordSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    cama = serializers.IntegerField()
    dealer = serializers.IntegerField()
    mano = serializers.IntegerField()
    winner_side = serializers.IntegerField(allow_null=True)
    reason = serializers.CharField(allow_null=True)
    points = PointsSerializer(many=True)
    scores = serializers.ListField(child=serializers.IntegerField())
    first_seq = serializers.IntegerField()
    last_seq = serializers.IntegerField(allow_null=True)
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)


class HistorySerializer(serializers.Serializer):
    camas = CamaRecordSerializer(many=True)
    hands = HandRecordSerializer(many=True)


class ExportSerializer(serializers.Serializer):
    game = GameSerializer()
    history = HistorySerializer()
    events = FeedItemSerializer(many=True)

"""Events: the facts of a game. The stream holds only these; the state is their fold.

Each event type has a stable ``TYPE`` name and a ``SCHEMA`` version, and serialises to plain JSON.
Seats are numbers, sides are 0 (seats 0, 2, 4) and 1 (seats 1, 3, 5), a baza result is 0, 1 or
``"parda"``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from .errors import InvalidEvent
from .rules import Rules

PARDA = "parda"
BazaResult = int | str  # 0, 1 or PARDA

#: Why a hand (or a pica-pica duel) ends: its bazas (RULES.md §4.3), a refused truco (§5.1), an
#: envido or a flor that reached the target (§7, §5.3.6), a whole side at the mazo (§6), or, for a
#: pica-pica hand, its duels played (§9).
HAND_END_REASONS = ("bazas", "truco_refused", "envido_target", "flor_target", "mazo", "duels")
#: Why a match ends: on camas (§7), or by the shell: a resignation, repeated timeouts, a no-show.
MATCH_END_REASONS = ("camas", "resigned", "timeouts", "no_show")
#: What a hand's points are scored for (§7), and the members of each ``HandEnded.points`` entry.
POINT_KINDS = ("flor", "envido", "truco", "mazo_penalty")
POINTS_FIELDS = ("kind", "side", "points")
#: The kinds of hand (RULES.md §9) and how a flor is settled (§5.3.4-5).
HAND_KINDS = ("redonda", "pica_pica")
FLOR_SETTLEMENTS = ("unopposed", "quiero", "con_flor_me_achico", "no_quiero")


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[str] = ""
    SCHEMA: ClassVar[int] = 1

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.TYPE, "v": self.SCHEMA}
        for name in _names(type(self)):
            data[name] = _plain(getattr(self, name))
        return data


def _names(kind: type[Event]) -> tuple[str, ...]:
    """An event class's field names, in order, found once: ``fields()`` builds them anew on
    every call, and every recorded event is turned into JSON."""
    names = _NAMES.get(kind)
    if names is None:
        names = _NAMES[kind] = tuple(field.name for field in fields(kind))
    return names


_NAMES: dict[type[Event], tuple[str, ...]] = {}


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    """The first event of every game: the fully resolved rules it is played under (RULES.md §2)."""

    TYPE: ClassVar[str] = "match_started"
    rules: Rules
    rules_version: int


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """A deal: the cards each seat received, by seat. Private: each seat may see only its own.

    ``kind`` is ``"redonda"`` or ``"pica_pica"`` (RULES.md §9; schema 2: a schema-1 deal is a
    redonda). A pica-pica deal opens duel 0 at once; ``DuelStarted`` opens duels 1 and 2.
    """

    TYPE: ClassVar[str] = "hand_dealt"
    SCHEMA: ClassVar[int] = 2
    number: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    kind: str = "redonda"


@dataclass(frozen=True, slots=True)
class EnvidoPassed(Event):
    TYPE: ClassVar[str] = "envido_passed"
    seat: int


@dataclass(frozen=True, slots=True)
class CardPlayed(Event):
    TYPE: ClassVar[str] = "card_played"
    seat: int
    card: str


@dataclass(frozen=True, slots=True)
class TrucoCalled(Event):
    TYPE: ClassVar[str] = "truco_called"
    seat: int
    call: str
    level: int


@dataclass(frozen=True, slots=True)
class TrucoAccepted(Event):
    TYPE: ClassVar[str] = "truco_accepted"
    seat: int
    level: int


@dataclass(frozen=True, slots=True)
class TrucoRefused(Event):
    TYPE: ClassVar[str] = "truco_refused"
    seat: int
    level: int


@dataclass(frozen=True, slots=True)
class EnvidoCalled(Event):
    TYPE: ClassVar[str] = "envido_called"
    seat: int
    call: str


@dataclass(frozen=True, slots=True)
class EnvidoAccepted(Event):
    """The referee compares at once and announces the winning side and its value (RULES.md §5.2)."""

    TYPE: ClassVar[str] = "envido_accepted"
    seat: int
    winner: int
    value: int
    points: int


@dataclass(frozen=True, slots=True)
class EnvidoRefused(Event):
    TYPE: ClassVar[str] = "envido_refused"
    seat: int
    side: int
    points: int


@dataclass(frozen=True, slots=True)
class FlorSung(Event):
    """A player sings his flor (RULES.md §5.3.1); its value is unsaid unless it wins a contest."""

    TYPE: ClassVar[str] = "flor_sung"
    seat: int


@dataclass(frozen=True, slots=True)
class FlorCalled(Event):
    """A raise in the flor contest: ``contraflor`` or ``contraflor_al_resto`` (RULES.md §5.3.5)."""

    TYPE: ClassVar[str] = "flor_called"
    seat: int
    call: str


@dataclass(frozen=True, slots=True)
class FlorSettled(Event):
    """The flor is settled (RULES.md §5.3.4-6): ``how`` is ``unopposed``, ``quiero``,
    ``con_flor_me_achico`` or ``no_quiero``; ``seat`` answered the contest (None when unopposed);
    ``value`` is the winning flor's, announced only when the flores were compared."""

    TYPE: ClassVar[str] = "flor_settled"
    seat: int | None
    how: str
    winner: int
    value: int | None
    points: int


@dataclass(frozen=True, slots=True)
class Folded(Event):
    """Irse al mazo (RULES.md §6); ``penalty`` is the extra point of ``mazo_envido_penalty``."""

    TYPE: ClassVar[str] = "folded"
    seat: int
    penalty: int


@dataclass(frozen=True, slots=True)
class TurnTimedOut(Event):
    """The shell's clock ran out on ``seat`` (its ``count``-th timeout in a row); what the seat is
    made to do follows as ordinary events."""

    TYPE: ClassVar[str] = "turn_timed_out"
    seat: int
    count: int


@dataclass(frozen=True, slots=True)
class BazaEnded(Event):
    TYPE: ClassVar[str] = "baza_ended"
    number: int
    result: BazaResult
    winner: int | None
    leader: int


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """``points`` lists (kind, side, points) in the order they were scored (RULES.md §7)."""

    TYPE: ClassVar[str] = "hand_ended"
    number: int
    winner: int | None
    reason: str
    points: tuple[tuple[str, int, int], ...]
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class DuelEnded(Event):
    """A pica-pica duel is over and scored at once (RULES.md §9); fields as in ``HandEnded``."""

    TYPE: ClassVar[str] = "duel_ended"
    duel: int
    winner: int | None
    reason: str
    points: tuple[tuple[str, int, int], ...]
    scores: tuple[int, int]


@dataclass(frozen=True, slots=True)
class DuelStarted(Event):
    """The next duel of a pica-pica hand: ``seats`` (its mano first) play it alone (RULES.md §9)."""

    TYPE: ClassVar[str] = "duel_started"
    duel: int
    seats: tuple[int, int]


@dataclass(frozen=True, slots=True)
class CamaEnded(Event):
    TYPE: ClassVar[str] = "cama_ended"
    winner: int
    camas: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchEnded(Event):
    """The match is over: won on camas, or ended by the shell (resignation, forfeit, abort)."""

    TYPE: ClassVar[str] = "match_ended"
    winner: int | None
    reason: str
    seat: int | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.TYPE: cls
    for cls in (
        MatchStarted,
        HandDealt,
        EnvidoPassed,
        CardPlayed,
        TrucoCalled,
        TrucoAccepted,
        TrucoRefused,
        EnvidoCalled,
        EnvidoAccepted,
        EnvidoRefused,
        FlorSung,
        FlorCalled,
        FlorSettled,
        Folded,
        TurnTimedOut,
        BazaEnded,
        DuelEnded,
        DuelStarted,
        HandEnded,
        CamaEnded,
        MatchEnded,
    )
}


def event_from_json(data: Mapping[str, Any]) -> Event:
    """Read an event back from its JSON form; anything unexpected raises ``InvalidEvent``."""
    cls = EVENT_TYPES.get(data.get("type", ""))
    if cls is None:
        raise InvalidEvent(f"unknown event type {data.get('type')!r}")
    version = data.get("v")
    if not isinstance(version, int) or not 1 <= version <= cls.SCHEMA:
        raise InvalidEvent(f"{cls.TYPE}: unsupported schema version {version!r}")
    names = {field.name for field in fields(cls)}
    given = set(data) - {"type", "v"}
    if not given <= names:
        raise InvalidEvent(f"{cls.TYPE}: unknown field(s) {sorted(given - names)}")
    values = {name: _tupled(data[name]) for name in given}
    if cls is MatchStarted:
        values["rules"] = Rules.from_json(data["rules"])
    try:
        return cls(**values)
    except TypeError as error:
        raise InvalidEvent(f"{cls.TYPE}: {error}") from error


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(item) for item in value]
    if isinstance(value, Rules):
        return value.to_json()
    return value


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(item) for item in value)
    return value

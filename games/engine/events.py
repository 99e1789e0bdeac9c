"""Events: the facts of a game. The stream holds only these; the state is their fold.

Each event type has a stable ``TYPE`` name and a ``SCHEMA`` version, and serialises to plain JSON.
Seats are numbers, sides are 0 (seats 0 and 2) and 1 (seats 1 and 3), a baza result is 0, 1 or
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

#: Why a hand ends: its bazas (RULES.md §4.3), a refused truco (§5.1), an envido that reached the
#: target (§7), or a whole side at the mazo (§6).
HAND_END_REASONS = ("bazas", "truco_refused", "envido_target", "mazo")
#: Why a match ends: on camas (§7), or by the shell: a resignation, repeated timeouts, a no-show.
MATCH_END_REASONS = ("camas", "resigned", "timeouts", "no_show")
#: What a hand's points are scored for (§7), and the members of each ``HandEnded.points`` entry.
POINT_KINDS = ("envido", "truco", "mazo_penalty")
POINTS_FIELDS = ("kind", "side", "points")


@dataclass(frozen=True, slots=True)
class Event:
    TYPE: ClassVar[str] = ""
    SCHEMA: ClassVar[int] = 1

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.TYPE, "v": self.SCHEMA}
        for field in fields(self):
            data[field.name] = _plain(getattr(self, field.name))
        return data


@dataclass(frozen=True, slots=True)
class MatchStarted(Event):
    """The first event of every game: the fully resolved rules it is played under (RULES.md §2)."""

    TYPE: ClassVar[str] = "match_started"
    rules: Rules
    rules_version: int


@dataclass(frozen=True, slots=True)
class HandDealt(Event):
    """A deal: the cards each seat received, by seat. Private: each seat may see only its own."""

    TYPE: ClassVar[str] = "hand_dealt"
    number: int
    dealer: int
    hands: tuple[tuple[str, ...], ...]


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
        Folded,
        TurnTimedOut,
        BazaEnded,
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

"""The state of a match: what the fold of its events knows. Immutable; built only by ``evolve``."""

from __future__ import annotations

from dataclasses import dataclass

from .events import BazaResult
from .rules import Rules


def side_of(seat: int) -> int:
    """RULES.md §1: side 0 = seats 0 and 2, side 1 = seats 1 and 3."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class Hand:
    """One deal (RULES.md §1): three cards each and up to three bazas."""

    number: int
    dealer: int
    mano: int
    dealt: tuple[tuple[str, ...], ...]  # by seat: the envido counts these, played or not
    held: tuple[tuple[str, ...], ...]  # by seat: the cards not yet played
    to_play: int  # the seat whose card comes next (or who folds)
    baza: tuple[tuple[int, str], ...] = ()  # (seat, card) of the baza in progress, in play order
    bazas: tuple[tuple[tuple[int, str], ...], ...] = ()  # the completed bazas' plays, face up
    results: tuple[BazaResult, ...] = ()  # of the bazas completed
    folded: frozenset[int] = frozenset()
    phase_turn: int | None = None  # the envido phase's next seat (envido_window before_first_card)
    truco_level: int = 1  # the accepted level (RULES.md §5.1)
    truco_holder: int | None = None  # the side that holds the quiero and may raise
    truco_call: int | None = None  # the level called and not yet answered
    truco_caller: int | None = None
    envido_calls: tuple[str, ...] = ()  # canonical names, at most one envido per hand
    envido_caller: int | None = None  # the seat of the last envido call
    envido_pending: bool = False
    envido_points: tuple[int, int] | None = None  # (side, points), scored when the hand ends
    envido_winner: int | None = None  # the side that won an accepted envido
    envido_value: int | None = None  # its winning value, announced; the loser's stays hidden
    penalty: tuple[int, int] = (0, 0)  # mazo_envido_penalty points owed to each side
    over: bool = False

    @property
    def pending_caller(self) -> int | None:
        """The seat whose call awaits an answer; an envido called over a truco comes first."""
        if self.envido_pending:
            return self.envido_caller
        if self.truco_call is not None:
            return self.truco_caller
        return None

    @property
    def pending_ladder(self) -> str | None:
        if self.envido_pending:
            return "envido"
        if self.truco_call is not None:
            return "truco"
        return None


@dataclass(frozen=True, slots=True)
class State:
    rules: Rules
    version: int = 1  # the number of events folded, the first included
    scores: tuple[int, int] = (0, 0)
    camas: tuple[int, int] = (0, 0)
    next_dealer: int = 0
    hand: Hand | None = None
    cama_won: bool = False  # the scores reset at the next deal (RULES.md §7)
    winner: int | None = None
    end_reason: str | None = None

    @property
    def players(self) -> int:
        return self.rules.players

    @property
    def match_over(self) -> bool:
        return self.end_reason is not None

    @property
    def needs_deal(self) -> bool:
        """Between hands: the shell shuffles and appends the next ``HandDealt``."""
        return not self.match_over and (self.hand is None or self.hand.over)

"""The state of a match: what the fold of its events knows. Immutable; built only by ``evolve``."""

from __future__ import annotations

from dataclasses import dataclass

from .events import BazaResult
from .rules import Rules


def side_of(seat: int) -> int:
    """RULES.md §1: side 0 = seats 0, 2 (and 4), side 1 = seats 1, 3 (and 5)."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class Hand:
    """One deal (RULES.md §1): three cards each and up to three bazas.

    A pica-pica hand (RULES.md §9) is played as three duels on its one deal: the fields from
    ``to_play`` to ``flor_value`` then describe the duel in progress, and start afresh with each.
    """

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
    flor_sung: tuple[int, ...] = ()  # the seats that sang flor, in the order they sang (§5.3)
    flor_queue: tuple[int, ...] = ()  # the flor round: holders still to sing, in order
    flor_calls: tuple[str, ...] = ()  # the contest: "flor", then its raises
    flor_caller: int | None = None  # the seat of the contest's last call
    flor_pending: bool = False  # a contest call awaits its answer
    flor_points: tuple[int, int] | None = None  # (side, points), scored when the hand ends
    flor_winner: int | None = None  # the side the flor points go to
    flor_value: int | None = None  # the winning flor's value, when the flores were compared
    kind: str = "redonda"  # or "pica_pica" (RULES.md §9)
    duel: int | None = None  # the pica-pica duel in progress, 0-2; None in a redonda
    earlier_duels: tuple[tuple[tuple[int, str], ...], ...] = ()  # each finished duel's plays
    duel_points: tuple[tuple[str, int, int], ...] = ()  # what the finished duels scored, in order
    over: bool = False

    @property
    def players(self) -> int:
        return len(self.dealt)

    @property
    def current_mano(self) -> int:
        """The mano of the play in progress: the hand's, or the duel's (RULES.md §9)."""
        if self.duel is None:
            return self.mano
        return (self.mano + self.duel) % self.players

    @property
    def duelists(self) -> tuple[int, int] | None:
        """A duel's two seats, its mano first: seat k and the seat facing him, k + 3 (§9)."""
        if self.duel is None:
            return None
        return self.current_mano, (self.current_mano + 3) % self.players

    def in_play(self, seat: int) -> bool:
        """Whether ``seat`` takes part in the play in progress: not folded, and in the duel."""
        duelists = self.duelists
        return seat not in self.folded and (duelists is None or seat in duelists)

    @property
    def pending_caller(self) -> int | None:
        """The seat whose call awaits an answer; the flor comes first (§5.3.3), then an envido
        called over a truco (§5)."""
        if self.flor_pending:
            return self.flor_caller
        if self.envido_pending:
            return self.envido_caller
        if self.truco_call is not None:
            return self.truco_caller
        return None

    @property
    def pending_ladder(self) -> str | None:
        if self.flor_pending:
            return "flor"
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

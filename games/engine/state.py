"""The state of a match: what the fold of its events knows. Immutable; built only by ``evolve``."""

from __future__ import annotations

from dataclasses import dataclass

from .events import BazaResult
from .rules import Rules


def side_of(seat: int) -> int:
    """RULES.md §1: side 0 = seats 0, 2 (and 4), side 1 = seats 1, 3 (and 5)."""
    return seat % 2


@dataclass(frozen=True, slots=True)
class Flor:
    """The flor of a hand, or of a pica-pica duel (RULES.md §5.3). Apart from ``Hand`` so that
    a hand without one (most of them) copies one field, not eight, at every event."""

    sung: tuple[int, ...] = ()  # the seats that sang flor, in the order they sang
    queue: tuple[int, ...] = ()  # the flor round: holders still to sing, in order
    calls: tuple[str, ...] = ()  # the contest: "flor", then its raises
    caller: int | None = None  # the seat of the contest's last call
    pending: bool = False  # a contest call awaits its answer
    points: tuple[int, int] | None = None  # (side, points), scored when the hand ends
    winner: int | None = None  # the side the flor points go to
    value: int | None = None  # the winning flor's value, when the flores were compared


NO_FLOR = Flor()


@dataclass(frozen=True, slots=True)
class Duels:
    """A pica-pica hand's duels (RULES.md §9): the one in progress and what the others left."""

    duel: int = 0  # the duel in progress (the last one once the hand is over)
    earlier: tuple[tuple[tuple[int, str], ...], ...] = ()  # each finished duel's plays
    points: tuple[tuple[str, int, int], ...] = ()  # what the finished duels scored, in order


@dataclass(frozen=True, slots=True)
class Hand:
    """One deal (RULES.md §1): three cards each and up to three bazas.

    A pica-pica hand (RULES.md §9) is played as three duels on its one deal (``duels``): the
    fields from ``to_play`` to ``flor`` then describe the duel in progress, and start afresh
    with each.
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
    flor: Flor = NO_FLOR  # RULES.md §5.3
    duels: Duels | None = None  # a pica-pica hand's (RULES.md §9); None in a redonda
    over: bool = False

    # Read-only names for the parts of ``flor`` and ``duels``, as the views and cases say them.

    @property
    def flor_sung(self) -> tuple[int, ...]:
        return self.flor.sung

    @property
    def flor_queue(self) -> tuple[int, ...]:
        return self.flor.queue

    @property
    def flor_calls(self) -> tuple[str, ...]:
        return self.flor.calls

    @property
    def flor_caller(self) -> int | None:
        return self.flor.caller

    @property
    def flor_pending(self) -> bool:
        return self.flor.pending

    @property
    def flor_points(self) -> tuple[int, int] | None:
        return self.flor.points

    @property
    def flor_winner(self) -> int | None:
        return self.flor.winner

    @property
    def flor_value(self) -> int | None:
        return self.flor.value

    @property
    def kind(self) -> str:
        return "redonda" if self.duels is None else "pica_pica"

    @property
    def duel(self) -> int | None:
        """The pica-pica duel in progress, 0-2; None in a redonda."""
        return None if self.duels is None else self.duels.duel

    @property
    def earlier_duels(self) -> tuple[tuple[tuple[int, str], ...], ...]:
        return () if self.duels is None else self.duels.earlier

    @property
    def duel_points(self) -> tuple[tuple[str, int, int], ...]:
        return () if self.duels is None else self.duels.points

    @property
    def players(self) -> int:
        return len(self.dealt)

    @property
    def current_mano(self) -> int:
        """The mano of the play in progress: the hand's, or the duel's (RULES.md §9)."""
        if self.duels is None:
            return self.mano
        return (self.mano + self.duels.duel) % len(self.dealt)

    @property
    def duelists(self) -> tuple[int, int] | None:
        """A duel's two seats, its mano first: seat k and the seat facing him, k + 3 (§9)."""
        if self.duels is None:
            return None
        mano = self.current_mano
        return mano, (mano + 3) % len(self.dealt)

    def in_play(self, seat: int) -> bool:
        """Whether ``seat`` takes part in the play in progress: not folded, and in the duel."""
        if seat in self.folded:
            return False
        if self.duels is None:
            return True
        mano = self.current_mano
        return seat == mano or seat == (mano + 3) % len(self.dealt)

    @property
    def pending_caller(self) -> int | None:
        """The seat whose call awaits an answer; the flor comes first (§5.3.3), then an envido
        called over a truco (§5)."""
        if self.flor.pending:
            return self.flor.caller
        if self.envido_pending:
            return self.envido_caller
        if self.truco_call is not None:
            return self.truco_caller
        return None

    @property
    def pending_ladder(self) -> str | None:
        if self.flor.pending:
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

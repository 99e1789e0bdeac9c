"""Point tables and outcomes: bazas, the hand winner, envido values (RULES.md §4, §5)."""

from __future__ import annotations

from collections.abc import Sequence

from .cards import TRUCO_RANK, envido_of, flor_of
from .events import PARDA, BazaResult
from .rules import Rules
from .state import side_of

ENVIDO_CALL_POINTS = {"envido": 2, "real_envido": 3}
FALTA = "falta_envido"

#: RULES.md §5.2: the order raises climb, per ``envido_raise``.
ENVIDO_LADDERS: dict[str, tuple[str, ...]] = {
    "any_higher": ("envido", "envido", "real_envido", FALTA),
    "next_level": ("envido", "envido", "real_envido", FALTA),
    "valenciano": ("envido", "envido", FALTA),  # envit, torne, falta
}


def baza_outcome(plays: Sequence[tuple[int, str]]) -> tuple[BazaResult, int | None]:
    """RULES.md §4.1: the top rank wins; played by both sides it is parda; partners may tie."""
    top = max(TRUCO_RANK[card] for _, card in plays)
    best = [seat for seat, card in plays if TRUCO_RANK[card] == top]
    if len({side_of(seat) for seat in best}) == 2:
        return PARDA, None
    return side_of(best[0]), best[0]


def hand_winner(results: Sequence[BazaResult], mano_side: int, first_parda: str) -> int | None:
    """RULES.md §4.3: the side that has won the hand, or None while the bazas leave it open."""
    r = list(results)
    if first_parda == "mano_wins" and r and r[0] == PARDA:
        r[0] = mano_side  # the first parda counts as won by the mano's side
    if len(r) < 2:
        return None
    first, second = r[0], r[1]
    if len(r) == 2:
        if first == PARDA:
            return None if second == PARDA else int(second)  # next_decides
        return int(first) if second in (first, PARDA) else None
    third = r[2]
    if first == PARDA:  # and so was the second, or the hand would be decided
        return mano_side if third == PARDA else int(third)
    return int(first) if third == PARDA else int(third)  # split 1-1: the third decides


def envido_step_allowed(mode: str, calls: Sequence[str], call: str) -> bool:
    """Whether ``call`` may follow ``calls`` on the envido ladder (§5.2 ``envido_raise``)."""
    ladder = ENVIDO_LADDERS[mode]
    position = -1
    for made in calls:
        position = ladder.index(made, position + 1)
    if mode == "next_level" and calls:
        return position + 1 < len(ladder) and ladder[position + 1] == call
    return call in ladder[position + 1 :]


def envido_accepted_points(
    calls: Sequence[str], rules: Rules, scores: Sequence[int], winner: int
) -> int:
    """The sum of the calls; a sequence ending in falta is worth the falta only."""
    if calls[-1] == FALTA:
        return falta_points(rules, scores, winner)
    return sum(ENVIDO_CALL_POINTS[call] for call in calls)


def envido_refused_points(calls: Sequence[str]) -> int:
    """1 for a single call, else the accepted value of the sequence without its last call."""
    if len(calls) == 1:
        return 1
    return sum(ENVIDO_CALL_POINTS[call] for call in calls[:-1])


def falta_points(rules: Rules, scores: Sequence[int], winner: int) -> int:
    """RULES.md §5.2 falta value: L leader's score, W winner's, T target, H buenas_from."""
    target, buenas = rules.target, rules.buenas_from
    leader, won = max(scores), scores[winner]
    if rules.falta == "cama":
        return target - won if leader < buenas else target - leader
    if target <= 15 or leader >= buenas:
        return target - leader
    return buenas - won


def envido_winner(
    dealt: Sequence[Sequence[str]], mano: int, counted: Sequence[int]
) -> tuple[int, int]:
    """(side, value) of the best envido among ``counted`` seats; ties go nearest the mano."""
    players = len(dealt)
    order = [(mano + step) % players for step in range(players)]
    best_seat, best_value = -1, -1
    for seat in order:
        if seat in counted:
            value = envido_of(dealt[seat])
            if value > best_value:
                best_seat, best_value = seat, value
    return side_of(best_seat), best_value


def best_flor(dealt: Sequence[Sequence[str]], mano: int, sung: Sequence[int]) -> tuple[int, int]:
    """(seat, value) of the best flor sung; a tie goes to the singer nearest the mano (§5.3.5)."""
    players = len(dealt)
    order = sorted(sung, key=lambda seat: (seat - mano) % players)
    values = {seat: flor_of(dealt[seat]) or 0 for seat in order}
    best = max(order, key=lambda seat: values[seat])  # max keeps the first of equals
    return best, values[best]


def flor_contest_points(calls: Sequence[str], flores: int, resto: int) -> int:
    """RULES.md §5.3.5, accepted: 3 per flor sung, + 3 with a contraflor; a contraflor al resto is
    the resto (what the leader lacks) + 3 per flor."""
    if calls[-1] == "contraflor_al_resto":
        return resto + 3 * flores
    return 3 * flores + (3 if "contraflor" in calls else 0)


def truco_points(level: int, rules: Rules, winner_score: int) -> int:
    """RULES.md §5.1: levels 1-4 are worth their number; joc fora the rest of the cama."""
    return rules.target - winner_score if level == 5 else level

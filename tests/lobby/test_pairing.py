"""The pure pairing rules (lobby/pairing.py): windows, their widening, blocks, partners."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from lobby.pairing import Unit, Widening, compatible, find_tables, seating

T0 = datetime(2026, 5, 1, 20, 0, tzinfo=UTC)
WIDENING = Widening(base=100, per_second=2.0, most=500)


def _unit(name: str, rating: int, *players: int, waited: float = 0, **window) -> Unit:
    return Unit(
        name, players or (hash(name) % 10_000,), rating, T0 - timedelta(seconds=waited), **window
    )


def test_the_window_widens_with_the_wait_up_to_its_most():
    assert WIDENING.width(0) == 100
    assert WIDENING.width(100) == 300
    assert WIDENING.width(10_000) == 500


def test_both_windows_must_hold_the_other_rating():
    patient = _unit("a", 1500, 1, waited=200)  # 500 wide
    newcomer = _unit("b", 1800, 2)  # 100 wide
    assert patient.accepts(newcomer, T0, WIDENING)
    assert not compatible([patient, newcomer], T0, WIDENING, frozenset())
    assert compatible([patient, newcomer], T0 + timedelta(seconds=100), WIDENING, frozenset())


def test_an_explicit_range_does_not_widen():
    picky = _unit("a", 1500, 1, waited=10_000, rating_min=1450, rating_max=1520)
    assert picky.window(T0, WIDENING) == (1450, 1520)
    assert not compatible([picky, _unit("b", 1530, 2)], T0, WIDENING, frozenset())


def test_a_block_either_way_keeps_two_apart():
    a, b = _unit("a", 1500, 1), _unit("b", 1500, 2)
    assert not compatible([a, b], T0, WIDENING, frozenset({(2, 1)}))
    assert find_tables([a, b], 2, T0, WIDENING, frozenset({(1, 2)})) == []


def test_the_longest_waiting_is_served_first_with_the_nearest_rating():
    old = _unit("old", 1500, 1, waited=60)
    near, far = _unit("near", 1510, 2), _unit("far", 1580, 3)
    [table] = find_tables([far, near, old], 2, T0, WIDENING)
    assert {unit.id for unit in table.units} == {"old", "near"}


def test_a_table_of_four_from_two_pairs_keeps_each_pair_on_one_side():
    pairs = [_unit("p", 1500, 1, 2), _unit("q", 1500, 3, 4)]
    [table] = find_tables(pairs, 4, T0, WIDENING)
    seats = table.seats
    assert {seats[0], seats[2]} in ({1, 2}, {3, 4}) and {seats[1], seats[3]} in ({1, 2}, {3, 4})


def test_a_pair_and_two_singles_fill_a_table_of_four():
    units = [_unit("p", 1500, 1, 2), _unit("s", 1500, 3), _unit("t", 1500, 4)]
    [table] = find_tables(units, 4, T0, WIDENING)
    assert {table.seats[1], table.seats[3]} == {3, 4}


def test_pairs_never_sit_at_a_table_of_two_and_three_pairs_never_at_one_of_four():
    assert find_tables([_unit("p", 1500, 1, 2), _unit("s", 1500, 3)], 2, T0, WIDENING) == []
    assert seating([_unit("s", 1500, 3), _unit("t", 1500, 4)], 2) == (3, 4)
    three = [_unit(name, 1500, n, n + 10) for n, name in enumerate("pqr")]
    assert len(find_tables(three, 4, T0, WIDENING)) == 1


def test_no_seeker_is_placed_twice():
    units = [_unit(str(n), 1500 + n, n) for n in range(9)]
    tables = find_tables(units, 2, T0, WIDENING)
    placed = [unit.id for table in tables for unit in table.units]
    assert len(placed) == len(set(placed)) == 8


def test_seeds_limit_the_pass_to_tables_around_a_newcomer():
    old = [_unit("a", 1500, 1, waited=5), _unit("b", 1505, 2, waited=5)]
    newcomer = _unit("new", 1700, 3)
    assert find_tables([*old, newcomer], 2, T0, WIDENING, seeds=frozenset({"new"})) == []
    [table] = find_tables([*old, newcomer], 2, T0, WIDENING, seeds=frozenset({"a"}))
    assert {unit.id for unit in table.units} == {"a", "b"}

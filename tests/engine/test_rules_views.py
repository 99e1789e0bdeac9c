"""RULES.md §8: what a player's view, or a spectator's, may show."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from games import engine as E

from .helpers import Table

FOUR = [["4C", "5C", "6C"], ["4E", "5E", "6E"], ["1E", "1B", "7O"], ["4O", "5O", "6O"]]
#: The mano's envido is 33, the pie's 29.
MANO_33 = [["7E", "6E", "4B"], ["5C", "4C", "3O"]]


def leaves(value: Any) -> Iterator[Any]:
    """Every scalar in a JSON-like value."""
    if isinstance(value, dict):
        for item in value.values():
            yield from leaves(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from leaves(item)
    else:
        yield value


def cards_in(view: Any) -> set[str]:
    deck = set(E.DECKS["spanish40"])
    return {leaf for leaf in leaves(view) if isinstance(leaf, str) and leaf in deck}


def numbers_in(view: Any) -> set[int]:
    return {leaf for leaf in leaves(view) if type(leaf) is int}


def test_view_shows_own_cards_and_never_another_players_unplayed_cards():
    """RULES.md §8: a player sees his own cards; never another's, his partner's included."""
    table = Table("argentino_clasico", players=4, hands=FOUR)
    for seat in range(4):
        view = E.view_for(table.state, seat)
        assert view["hand"]["my_cards"] == FOUR[seat]
        assert cards_in(view) == set(FOUR[seat])


def test_view_shows_every_played_card_face_up():
    """RULES.md §8: every card played is face up for every viewer, spectators included."""
    table = Table("argentino_clasico", players=4, hands=FOUR)
    table.plays("4C", "4E", "1E", "4O", "1B")  # baza 1 complete, baza 2 begun
    played = {"4C", "4E", "1E", "4O", "1B"}
    for seat in (0, 1, 2, 3, None):
        view = E.view_for(table.state, seat)
        held = set(table.hand.held[seat]) if seat is not None else set()
        assert cards_in(view) == played | held
        assert view["hand"]["baza"] == [{"seat": 2, "card": "1B"}]


def test_view_for_a_spectator_shows_no_unplayed_card_and_no_actions():
    """RULES.md §8: a spectator sees no unplayed card and has no legal actions."""
    table = Table("argentino_clasico", players=4, hands=FOUR)
    table.play(0, "4C")
    view = E.view_for(table.state, None)
    assert view["hand"]["my_cards"] is None
    assert cards_in(view) == {"4C"}
    assert view["legal_actions"] == []


def test_view_shows_the_pending_call_and_legal_actions_only_for_the_viewer():
    """RULES.md §5 and §8: the pending call, and legal actions (canonical) only for the viewer."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "truc")
    views = [E.view_for(table.state, seat) for seat in (0, 1, None)]
    for view in views:
        assert view["turn"] == 1
        assert view["hand"]["pending_call"] == {
            "ladder": "truco",
            "call": "truco",
            "caller": 0,
            "answering_side": 1,
        }
    assert views[0]["legal_actions"] == views[2]["legal_actions"] == []
    assert {action["type"] for action in views[1]["legal_actions"]} == {
        *("quiero", "no_quiero", "retruco"),
        *("envido", "real_envido", "falta_envido"),
    }


def test_view_never_shows_the_losing_envido_value():
    """RULES.md §5.2 and §8: only the winning side and its value are announced."""
    table = Table("argentino_clasico", hands=MANO_33)
    table.act(0, "envido")
    table.act(1, "quiero")
    for seat in (0, None):
        view = E.view_for(table.state, seat)
        assert (view["hand"]["envido"]["winner"], view["hand"]["envido"]["value"]) == (0, 33)
        assert 29 not in numbers_in(view)
        for event in table.events:
            assert 29 not in numbers_in(E.redact(event, seat))
    table.plays("7E", "3O", "6E", "4C")  # and not after the hand either
    assert 29 not in numbers_in(E.view_for(table.state, None))


def test_view_event_feed_shows_a_deal_only_to_its_own_seat():
    """RULES.md §8: a deal event shows each reader only his own cards."""
    table = Table("argentino_clasico", players=4, hands=FOUR)
    deal = table.events[-1]
    for seat in (0, 1, 2, 3, None):
        assert cards_in(E.redact(deal, seat)) == (set(FOUR[seat]) if seat is not None else set())

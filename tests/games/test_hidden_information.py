"""RULES.md §8 through HTTP: no output shows another seat's unplayed card or a losing envido value.

Random matches are played through the API; after every action each viewer (every seat, and a
spectator of the public game) reads the game, the whole event feed and the history, and at the end
the export. The hidden cards come from the database: ``hand_dealt`` events hold every seat's deal,
and a card stays hidden until a ``card_played`` event shows it. Responses are compared as parsed
JSON values, never as text: "1E" is a substring of "11E".
"""

from __future__ import annotations

import bisect
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from rest_framework.throttling import UserRateThrottle

from games import engine
from games.models import GameEvent
from tests.games.conftest import Client

ALL_CARDS = frozenset(engine.DECKS["spanish40"]) | frozenset(engine.DECKS["valencian22"])


# --- what the database knows: every deal, every card played -------------------------------------


@dataclass
class Deal:
    """One hand as dealt: every seat's cards, when each card was played, how the envido went."""

    seq: int
    number: int
    hands: list[list[str]]
    played: dict[str, int] = field(default_factory=dict)  # card → seq of its card_played
    envido_winner: int | None = None  # the side that won an accepted envido
    folded: set[int] = field(default_factory=set)  # seats at the mazo so far
    envido_value: int | None = None  # the winner's value when the envido was settled

    def hidden_from(self, viewer: int | None, at: int) -> set[str]:
        """The cards of the other seats that no card_played event up to ``at`` has shown."""
        return {
            card
            for seat, cards in enumerate(self.hands)
            if seat != viewer
            for card in cards
            if self.played.get(card, at + 1) > at
        }

    def side_envido(self, side: int) -> int:
        """RULES.md §5.2: a side's best, of the members not yet at the mazo."""
        return max(
            engine.envido_of(cards)
            for seat, cards in enumerate(self.hands)
            if seat % 2 == side and seat not in self.folded
        )


class Ledger:
    """The game's deals, read from its event log; ``refresh`` reads the events appended since."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.deals: list[Deal] = []
        self.seq = 0
        self.refresh()

    def refresh(self) -> Ledger:
        rows = GameEvent.objects.filter(game_id=self.game_id, seq__gt=self.seq).order_by("seq")
        for seq, payload in rows.values_list("seq", "payload"):
            kind = payload["type"]
            if kind == "hand_dealt":
                hands = [list(cards) for cards in payload["hands"]]
                self.deals.append(Deal(seq, payload["number"], hands))
            elif kind == "card_played":
                self.deals[-1].played[payload["card"]] = seq
            elif kind == "folded":
                self.deals[-1].folded.add(payload["seat"])
            elif kind == "envido_accepted":
                deal = self.deals[-1]
                deal.envido_winner = payload["winner"]
                deal.envido_value = deal.side_envido(payload["winner"])
            self.seq = seq
        return self

    def deal_at(self, seq: int) -> Deal | None:
        """The hand being played when the log stood at ``seq``."""
        index = bisect.bisect_right([deal.seq for deal in self.deals], seq)
        return self.deals[index - 1] if index else None

    def hidden_at(self, seq: int, viewer: int | None) -> set[str]:
        deal = self.deal_at(seq)
        return set() if deal is None else deal.hidden_from(viewer, seq)


# --- what a response shows ------------------------------------------------------------------------


def strings_in(value: Any) -> set[str]:
    """Every string in a parsed JSON value, dictionary keys included."""
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set(value).union(*(strings_in(item) for item in value.values()))
    if isinstance(value, list):
        return set().union(*(strings_in(item) for item in value))
    return set()


def envido_numbers(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], int]]:
    """Every number stored under a key that speaks of envido values (``value``, ``*envido*``)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict) or not (key == "value" or "envido" in key):
                yield from envido_numbers(item, (*path, key))
            else:
                yield from (((*path, key), number) for number in _numbers(item))
    elif isinstance(value, list):
        for item in value:
            yield from envido_numbers(item, path)


def _numbers(value: Any) -> Iterator[int]:
    if isinstance(value, list):
        for item in value:
            yield from _numbers(item)
    elif isinstance(value, int) and not isinstance(value, bool):
        yield value


def check_view(ledger: Ledger, view: dict[str, Any], viewer: int | None) -> None:
    """A game view: no hidden card; envido numbers only the viewer's own and the winning one."""
    assert view["my_seat"] == viewer
    leaked = strings_in(view) & ledger.hidden_at(view["version"], viewer)
    assert not leaked, f"seat {viewer} sees {leaked} at version {view['version']}"
    hand = (view.get("state") or {}).get("hand")
    for path, number in envido_numbers(view):
        deal = ledger.deal_at(view["version"])
        assert hand is not None and deal is not None and deal.number == hand["number"], path
        if path == ("state", "hand", "my_envido"):
            assert viewer is not None and number == engine.envido_of(deal.hands[viewer])
        elif path == ("state", "hand", "envido", "value"):
            _check_winning_value(deal, number)
        else:
            raise AssertionError(f"an envido number at {'.'.join(path)} for seat {viewer}")


def check_feed(ledger: Ledger, items: list[dict[str, Any]], viewer: int | None) -> None:
    """Feed items: each holds no card hidden when it happened; a deal shows only the reader's."""
    for item in items:
        leaked = strings_in(item) & ledger.hidden_at(item["seq"], viewer)
        assert not leaked, f"seat {viewer} reads {leaked} in event {item['seq']} ({item['type']})"
        data = item["data"]
        if item["type"] == "hand_dealt":
            assert [seat for seat, cards in enumerate(data["hands"]) if cards is not None] == (
                [] if viewer is None else [viewer]
            )
        for path, number in envido_numbers(data):
            assert item["type"] == "envido_accepted" and path == ("value",), (item, path)
            deal = ledger.deal_at(item["seq"])
            assert deal is not None
            _check_winning_value(deal, number)


def _check_winning_value(deal: Deal, value: int) -> None:
    """RULES.md §8: the envido value announced is the winner's; the loser's is never told."""
    assert deal.envido_winner is not None
    assert value == deal.envido_value, "not the winning side's value"


def check_history(history: dict[str, Any]) -> None:
    """The hand history holds no card at all, and no envido value."""
    assert not strings_in(history) & ALL_CARDS
    assert not list(envido_numbers(history))


def check_action_response(ledger: Ledger, body: dict[str, Any], seat: int) -> None:
    check_feed(ledger, body["events"], seat)
    check_view(ledger, body["game"], seat)


def check_export(ledger: Ledger, body: dict[str, Any], viewer: int | None) -> None:
    check_view(ledger, body["game"], viewer)
    check_history(body["history"])
    check_feed(ledger, body["events"], viewer)
    assert [item["seq"] for item in body["events"]] == list(range(1, ledger.seq + 1))


# --- random matches -------------------------------------------------------------------------------


@pytest.fixture
def unthrottled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every viewer reads three resources after every action: far beyond 600 requests a minute."""
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": None})


def watch(game_id: str, viewers: dict[int | None, Client], ledger: Ledger) -> dict[int | None, Any]:
    """Every viewer reads the game, the whole feed and the history; each is checked."""
    views = {}
    for viewer, client in viewers.items():
        view = client.get(f"/api/games/{game_id}")
        assert view.status_code == 200, view.json()
        views[viewer] = view.json()
        check_view(ledger, views[viewer], viewer)
        feed = client.get(f"/api/games/{game_id}/events?after=0")
        assert feed.status_code == 200, feed.json()
        check_feed(ledger, feed.json()["events"], viewer)
        history = client.get(f"/api/games/{game_id}/history")
        assert history.status_code == 200, history.json()
        check_history(history.json())
    return views


def play_watched(
    game_id: str, viewers: dict[int | None, Client], rng: random.Random, limit: int = 1000
) -> Ledger:
    """Random legal actions until the match ends, every output checked after every action."""
    ledger = Ledger(game_id)
    for _ in range(limit):
        views = watch(game_id, viewers, ledger)
        if views[0]["status"] != "active":
            break
        movers = [
            seat for seat in views if seat is not None and views[seat]["state"]["legal_actions"]
        ]
        seat = rng.choice(movers)
        action = rng.choice(views[seat]["state"]["legal_actions"])
        response = viewers[seat].act(game_id, action, views[seat]["version"])
        assert response.status_code == 201, response.json()
        check_action_response(ledger.refresh(), response.json(), seat)
    else:
        raise AssertionError("the match did not end")
    for viewer, client in viewers.items():
        export = client.get(f"/api/games/{game_id}/export")
        assert export.status_code == 200, export.json()
        check_export(ledger, export.json(), viewer)
    return ledger


# Short camas keep every match to a few seconds; the rules that matter here are untouched.
SHORT = {"target": 9, "buenas_from": 5, "camas_to_win": 1}
TWO_CAMAS = {"target": 6, "buenas_from": 4, "camas_to_win": 2}


@pytest.mark.slow
@pytest.mark.parametrize(
    ("preset", "players", "options"),
    [
        ("valenciano", 2, TWO_CAMAS),
        ("argentino", 2, SHORT),
        ("argentino_clasico", 2, SHORT),
        ("valenciano", 4, SHORT),
        ("argentino", 4, SHORT),
        ("argentino_clasico", 4, SHORT),
    ],
)
def test_hidden_information_no_viewer_ever_sees_another_seats_unplayed_card(
    table, make_client, unthrottled, preset, players, options
):
    game_id, clients = table(preset, players=players, options=options)
    viewers: dict[int | None, Client] = {**dict(enumerate(clients)), None: make_client()}

    ledger = play_watched(game_id, viewers, random.Random(f"{preset}-{players}"))

    assert len(ledger.deals) >= 2, "the match spans several hands"
    assert any(deal.played for deal in ledger.deals)


def test_hidden_information_envido_shows_only_the_winning_value(table, make_client):
    """An envido accepted at once: views and feeds tell the winner's value, nobody the loser's."""
    game_id, clients = table("argentino", players=2)
    spectator = make_client()
    for _ in range(2):  # the envido phase: the mano calls, the other accepts
        view = clients[0].get(f"/api/games/{game_id}").json()
        turn = view["state"]["turn"]
        kind = "envido" if view["state"]["hand"]["pending_call"] is None else "quiero"
        response = clients[turn].act(game_id, {"type": kind}, view["version"])
        assert response.status_code == 201, response.json()
    ledger = Ledger(game_id)
    deal = ledger.deals[-1]
    assert deal.envido_winner is not None
    for viewer, client in [*enumerate(clients), (None, spectator)]:
        view = client.get(f"/api/games/{game_id}").json()
        check_view(ledger, view, viewer)
        assert view["state"]["hand"]["envido"]["value"] == deal.envido_value
        feed = client.get(f"/api/games/{game_id}/events?after=0").json()["events"]
        check_feed(ledger, feed, viewer)
        assert [item["type"] for item in feed].count("envido_accepted") == 1


def test_hidden_information_a_refused_card_does_not_tell_who_holds_it(table):
    """Trying every card one does not hold: the same refusal whether a rival holds it or nobody."""
    game_id, clients = table("valenciano", players=4)
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = view["state"]["turn"]
    mine = set(clients[mover].get(f"/api/games/{game_id}").json()["state"]["hand"]["my_cards"])
    held_by_others = Ledger(game_id).hidden_at(view["version"], mover)
    assert len(held_by_others) == 9

    refusals = set()
    for card in sorted(set(engine.DECKS["valencian22"]) - mine):
        response = clients[mover].act(game_id, {"type": "play", "card": card}, view["version"])
        assert response.status_code == 422, response.json()
        refusals.add(response.content)

    assert len(refusals) == 1, refusals

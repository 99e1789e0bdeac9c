"""Who may do what: every game endpoint × every kind of viewer, on a started 4-player game.

Viewers: the seat whose turn it is (``own_seat``), his partner, an opponent, a stranger, someone
with no token and someone whose token was revoked by logging out. A stranger may watch a public
game; a private game does not exist for him (404). Every error is a problem with its stable code;
every success holds no card the viewer may not see (STYLE.md principle 8, RULES.md §8). The seat
that acts always comes from the token: the body cannot name one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest

from games.models import Game, GameEvent
from tests.games.conftest import Client
from tests.games.test_hidden_information import (
    ALL_CARDS,
    Ledger,
    check_action_response,
    check_feed,
    check_history,
    check_view,
    strings_in,
)
from truc_api.problems import PROBLEM_CONTENT_TYPE

SEATED = ("own_seat", "partner", "opponent")
TRUCO = {"type": "truco"}
LIST_LIMIT = "?limit=50"  # without a limit the lists fail: see test_game_api.py


def assert_problem(response: Any, status: int, code: str) -> dict[str, Any]:
    """An RFC 9457 problem with this status and stable code."""
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert (body["status"], body["code"]) == (status, code)
    assert {"type", "title", "detail"} <= set(body)
    if status == 401:
        assert response["WWW-Authenticate"]
    return body


@dataclass
class Arena:
    """A started valenciano game for four, seen by one viewer; two more games to list."""

    game_id: str
    visibility: str
    clients: list[Client]
    own: int  # the seat whose turn it is
    viewer: str
    client: Client
    open_public: str  # a public game waiting for players
    open_private: str  # a private game waiting for players

    @property
    def seat(self) -> int | None:
        """The viewer's seat, None for a stranger (anonymous and revoked never get this far)."""
        offsets = {"own_seat": 0, "opponent": 1, "partner": 2}
        return (self.own + offsets[self.viewer]) % 4 if self.viewer in offsets else None

    @property
    def join_code(self) -> str:
        """The code a viewer knows: seated players read it in their view; others must guess."""
        game = Game.objects.get(pk=self.game_id)
        return game.join_code if self.viewer in SEATED and game.join_code else "GUESSED2"

    def version(self) -> int:
        return Game.objects.get(pk=self.game_id).version

    def ledger(self) -> Ledger:
        return Ledger(self.game_id)


@pytest.fixture
def arena(table, make_client) -> Callable[[str, str], Arena]:
    def build(viewer: str, visibility: str) -> Arena:
        game_id, clients = table("valenciano", players=4, visibility=visibility)
        view = clients[0].get(f"/api/games/{game_id}").json()
        own = view["state"]["turn"]
        assert TRUCO in clients[own].get(f"/api/games/{game_id}").json()["state"]["legal_actions"]
        host = make_client()
        open_public = host.post("/api/games", {"preset": "argentino", "players": 4}).json()["id"]
        open_private = host.post(
            "/api/games", {"preset": "argentino", "players": 4, "visibility": "private"}
        ).json()["id"]
        by_role = {"own_seat": own, "opponent": (own + 1) % 4, "partner": (own + 2) % 4}
        if viewer in by_role:
            client = clients[by_role[viewer]]
        elif viewer == "revoked":
            client = Client(clients[own].player)  # a second token of a seated player...
            assert client.post("/api/auth/logout").status_code == 204  # ...logged out
        else:
            client = make_client()
            if viewer == "anonymous":
                client.http.credentials()
        return Arena(game_id, visibility, clients, own, viewer, client, open_public, open_private)

    return build


# --- the endpoints --------------------------------------------------------------------------------


def _game(arena: Arena, tail: str = "") -> str:
    return f"/api/games/{arena.game_id}{tail}"


ENDPOINTS: dict[str, Callable[[Arena], Any]] = {
    "read": lambda a: a.client.get(_game(a)),
    "join": lambda a: a.client.post(
        _game(a, "/join"), {"join_code": a.join_code} if a.visibility == "private" else {}
    ),
    "leave": lambda a: a.client.post(_game(a, "/leave")),
    "resign": lambda a: a.client.post(_game(a, "/resign")),
    "actions": lambda a: a.client.act(a.game_id, TRUCO, a.version()),
    "events": lambda a: a.client.get(_game(a, "/events?after=0")),
    "history": lambda a: a.client.get(_game(a, "/history")),
    "export": lambda a: a.client.get(_game(a, "/export")),
    "open": lambda a: a.client.get(f"/api/games/open{LIST_LIMIT}"),
    "mine": lambda a: a.client.get(f"/api/games/mine{LIST_LIMIT}"),
    "create": lambda a: a.client.post("/api/games", {"preset": "valenciano"}),
    "join_by_code": lambda a: a.client.post("/api/games/join", {"join_code": a.join_code}),
}
GAME_ENDPOINTS = {
    name for name in ENDPOINTS if name not in ("open", "mine", "create", "join_by_code")
}

VIEWERS = [
    *((viewer, visibility) for viewer in SEATED for visibility in ("public", "private")),
    ("stranger", "public"),
    ("stranger", "private"),
    ("anonymous", "private"),
    ("revoked", "public"),
]


def expected(endpoint: str, viewer: str, visibility: str) -> tuple[int, str | None]:
    """What each viewer is answered on a started game: a status, and a code for errors."""
    if viewer in ("anonymous", "revoked"):
        return 401, "not_authenticated"
    seated = viewer in SEATED
    if endpoint in GAME_ENDPOINTS and not seated and visibility == "private":
        return 404, "not_found"  # a private game's existence is not told to strangers
    not_seated = (403, "not_seated")
    return {
        "read": (200, None),
        "join": (409, "game_started"),
        "leave": (409, "game_started") if seated else not_seated,
        "resign": (200, None) if seated else not_seated,
        "actions": (
            (201, None)
            if viewer == "own_seat"
            else (422, "not_your_turn")
            if seated
            else not_seated
        ),
        "events": (200, None),
        "history": (200, None),
        "export": (409, "game_not_over"),
        "open": (200, None),
        "mine": (200, None),
        "create": (201, None),
        # A public game has no code: what a viewer sends is a guess, and finds nothing.
        "join_by_code": (
            (409, "game_started") if seated and visibility == "private" else (404, "not_found")
        ),
    }[endpoint]


def check_success(endpoint: str, arena: Arena, body: Any) -> None:
    """A success shows the viewer nothing he may not see, and only the games he may see."""
    ledger, seat = arena.ledger(), arena.seat
    if endpoint == "read":
        check_view(ledger, body, seat)
    elif endpoint == "resign":
        assert seat is not None, "only a seated player resigns"
        check_view(ledger, body, seat)
        assert (body["status"], body["winner_side"]) == ("finished", 1 - seat % 2)
    elif endpoint == "actions":
        check_action_response(ledger, body, arena.own)
        assert {item["seat"] for item in body["events"]} == {arena.own}
    elif endpoint == "events":
        check_feed(ledger, body["events"], seat)
        assert [item["seq"] for item in body["events"]] == list(range(1, ledger.seq + 1))
        assert (body["after"], body["more"], body["version"]) == (ledger.seq, False, ledger.seq)
    elif endpoint == "history":
        check_history(body)
    elif endpoint in ("open", "mine", "create"):
        assert not strings_in(body) & ALL_CARDS
        listed = {row["id"] for row in body.get("results", [])}
        if endpoint == "open":
            assert listed == {arena.open_public}, "only public games waiting for players"
        if endpoint == "mine":
            assert (arena.game_id in listed) == (seat is not None)
    else:
        raise AssertionError(f"{endpoint} was not expected to succeed")


@pytest.mark.parametrize(("viewer", "visibility"), VIEWERS, ids=lambda value: value)
@pytest.mark.parametrize("endpoint", ENDPOINTS)
def test_authorization_matrix(arena, endpoint, viewer, visibility):
    context = arena(viewer, visibility)
    version = context.version()
    status, code = expected(endpoint, viewer, visibility)

    response = ENDPOINTS[endpoint](context)

    if code is None:
        assert response.status_code == status, response.json()
        assert response["Content-Type"] == "application/json"
        check_success(endpoint, context, response.json())
    else:
        assert_problem(response, status, code)
        assert context.version() == version, "a refused request changes nothing"


# --- acting: the seat comes from the token ----------------------------------------------------


@pytest.mark.parametrize("named", ["own", "other"])
def test_authorization_action_body_cannot_name_a_seat(arena, named):
    context = arena("own_seat", "public")
    seat = context.own if named == "own" else (context.own + 1) % 4
    version = context.version()

    response = context.client.post(
        _game(context, "/actions"),
        {**TRUCO, "seat": seat, "expected_version": version},
        **{"Idempotency-Key": f"seat-{named}"},
    )

    body = assert_problem(response, 400, "invalid_request")
    assert body["errors"] == [
        {"field": "seat", "code": "unknown_field", "message": "This field is not expected."}
    ]
    assert context.version() == version


@pytest.mark.parametrize("viewer", ["partner", "opponent"])
def test_authorization_acting_out_of_turn_is_refused(arena, viewer):
    context = arena(viewer, "public")
    version = context.version()

    response = context.client.act(context.game_id, TRUCO, version)

    body = assert_problem(response, 422, "not_your_turn")
    assert body["current_version"] == version
    assert context.version() == version


def test_authorization_nobody_acts_for_another_seat(arena):
    """Each token acts only as its own seat: the same truco at the same version is refused to the
    three others and taken from the mover, and the event names the token's seat."""
    context = arena("own_seat", "public")
    version = context.version()
    others_first = sorted(range(4), key=lambda seat: seat == context.own)
    answers = {
        seat: context.clients[seat].act(context.game_id, TRUCO, version).status_code
        for seat in others_first
    }

    assert answers == {seat: 201 if seat == context.own else 422 for seat in range(4)}
    called = GameEvent.objects.get(game_id=context.game_id, type="truco_called")
    assert (called.seat, called.payload["seat"]) == (context.own, context.own)
    assert called.actor == context.clients[context.own].player


# --- after the match: the export, and nothing more to do --------------------------------------


@pytest.mark.parametrize(("viewer", "visibility"), VIEWERS, ids=lambda value: value)
def test_authorization_export_of_a_finished_game(arena, viewer, visibility):
    context = arena(viewer, visibility)
    resigned = context.clients[context.own].post(_game(context, "/resign"))
    assert resigned.status_code == 200, resigned.json()

    response = context.client.get(_game(context, "/export"))

    if viewer in ("anonymous", "revoked"):
        assert_problem(response, 401, "not_authenticated")
    elif viewer == "stranger" and visibility == "private":
        assert_problem(response, 404, "not_found")
    else:
        assert response.status_code == 200, response.json()
        body = response.json()
        ledger = context.ledger()
        check_view(ledger, body["game"], context.seat)
        check_history(body["history"])
        check_feed(ledger, body["events"], context.seat)


@pytest.mark.parametrize("endpoint", ["actions", "resign", "leave", "join"])
def test_authorization_finished_game_takes_no_more_requests(arena, endpoint):
    context = arena("partner", "public")
    assert context.clients[context.own].post(_game(context, "/resign")).status_code == 200
    version = context.version()
    code = "game_started" if endpoint in ("leave", "join") else "game_over"

    assert_problem(ENDPOINTS[endpoint](context), 409, code)
    assert context.version() == version


def test_authorization_seated_player_joining_his_private_game_again_is_told_it_started(arena):
    context = arena("partner", "private")

    response = context.client.post(_game(context, "/join"), {})

    assert_problem(response, 409, "game_started")

"""The games API around play: conditional reads, the event feed's paging, the lists, joining and
leaving, resigning, the export, request validation and the problem answers of the URL space."""

from __future__ import annotations

import re
from typing import Any

import pytest

from tests.games.conftest import Client
from tests.games.test_authorization import assert_problem
from tests.games.test_hidden_information import ALL_CARDS, strings_in

pytestmark = pytest.mark.django_db


def fields_at_fault(body: dict[str, Any]) -> set[str]:
    return {error["field"] for error in body["errors"]}


def create(client: Client, preset: str = "valenciano", **fields: Any) -> dict[str, Any]:
    response = client.post("/api/games", {"preset": preset, **fields})
    assert response.status_code == 201, response.json()
    return response.json()


def read(client: Client, game_id: str) -> dict[str, Any]:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200, response.json()
    return response.json()


def hand_turn_to(game_id: str, clients: list[Client], seat: int) -> None:
    """In a 2-player valenciano game: if the other seat is to move, it calls truco, and then
    ``seat`` must answer."""
    view = read(clients[0], game_id)
    if view["state"]["turn"] != seat:
        response = clients[1 - seat].act(game_id, {"type": "truco"}, view["version"])
        assert response.status_code == 201, response.json()
    assert read(clients[0], game_id)["state"]["turn"] == seat


# --- ETag and If-None-Match -----------------------------------------------------------------------


@pytest.fixture
def watched(table, make_client) -> tuple[str, list[Client], Client]:
    game_id, clients = table("valenciano", players=2)
    return game_id, clients, make_client()


def test_etag_repeat_with_the_etag_is_a_bodiless_304(watched):
    game_id, clients, _ = watched
    first = clients[0].get(f"/api/games/{game_id}")
    tag = first["ETag"]

    again = clients[0].get(f"/api/games/{game_id}", **{"If-None-Match": tag})

    assert first.status_code == 200 and tag
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag


def test_etag_changes_after_an_action(watched):
    game_id, clients, spectator = watched
    readers = [*clients, spectator]
    tags = [reader.get(f"/api/games/{game_id}")["ETag"] for reader in readers]
    view = read(clients[0], game_id)
    mover = view["state"]["turn"]
    action = read(clients[mover], game_id)["state"]["legal_actions"][0]
    assert clients[mover].act(game_id, action, view["version"]).status_code == 201

    after = [
        reader.get(f"/api/games/{game_id}", **{"If-None-Match": tag})
        for reader, tag in zip(readers, tags, strict=True)
    ]

    assert [response.status_code for response in after] == [200, 200, 200]
    assert all(response.json()["version"] == view["version"] + 1 for response in after)
    assert all(new["ETag"] != old for new, old in zip(after, tags, strict=True))


def test_etag_is_per_viewer_and_tells_nothing_private(watched):
    game_id, clients, spectator = watched
    readers = [*clients, spectator]
    tags = [reader.get(f"/api/games/{game_id}")["ETag"] for reader in readers]

    assert len(set(tags)) == 3, "seat 0, seat 1 and a spectator each have their own tag"
    assert not set(re.split(r"[^0-9A-Za-z]+", " ".join(tags))) & ALL_CARDS
    # Another viewer's tag validates nothing: each reader gets his own full view.
    for reader, other in [(clients[0], tags[1]), (clients[1], tags[2]), (spectator, tags[0])]:
        response = reader.get(f"/api/games/{game_id}", **{"If-None-Match": other})
        assert response.status_code == 200
        assert response.json()["my_seat"] == (
            None if reader is spectator else clients.index(reader)
        )


def test_etag_changes_when_a_player_joins(make_client):
    host, guest, spectator = make_client(), make_client(), make_client()
    game = create(host, players=4)
    tag = spectator.get(f"/api/games/{game['id']}")["ETag"]
    assert guest.post(f"/api/games/{game['id']}/join", {}).status_code == 200

    response = spectator.get(f"/api/games/{game['id']}", **{"If-None-Match": tag})

    assert response.status_code == 200


# --- the event feed ------------------------------------------------------------------------------


def test_event_feed_pages_with_after_and_limit(table):
    game_id, clients = table("valenciano", players=2)
    version = read(clients[0], game_id)["version"]
    assert version >= 2, "the match has started and the first hand is dealt"

    def seqs(query: str) -> list[int]:
        response = clients[0].get(f"/api/games/{game_id}/events?{query}")
        assert response.status_code == 200, response.json()
        return [item["seq"] for item in response.json()["events"]]

    assert seqs("after=0") == list(range(1, version + 1))
    assert seqs("limit=1") == [1]
    assert seqs("after=1&limit=1") == [2]
    assert seqs(f"after={version}") == []
    beyond = clients[0].get(f"/api/games/{game_id}/events?after={version + 100}")
    assert (beyond.status_code, beyond.json()["code"]) == (422, "after_beyond_log")
    assert beyond.json()["current_version"] == version


def test_event_feed_says_where_to_ask_next(table):
    """The cursor: the last seq of the page, and whether the log holds more beyond it."""
    game_id, clients = table("valenciano", players=2)
    version = read(clients[0], game_id)["version"]

    first = clients[0].get(f"/api/games/{game_id}/events?limit=1").json()
    rest = clients[0].get(f"/api/games/{game_id}/events?after={first['after']}").json()

    assert (first["after"], first["more"], first["version"]) == (1, True, version)
    assert (rest["after"], rest["more"]) == (version, False)
    assert [item["seq"] for item in rest["events"]] == list(range(2, version + 1))


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("after=-1", "after"),
        ("after=abc", "after"),
        ("after=1.5", "after"),
        ("limit=0", "limit"),
        ("limit=-5", "limit"),
        ("limit=many", "limit"),
        ("limit=501", "limit"),
        ("since=3", "since"),
    ],
)
def test_event_feed_bad_paging_is_a_400(table, query, field):
    game_id, clients = table("valenciano", players=2)

    response = clients[0].get(f"/api/games/{game_id}/events?{query}")

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {field}


# --- the lists ----------------------------------------------------------------------------------


@pytest.fixture
def lobby(table, make_client) -> dict[str, Any]:
    """Games in every state: open public ones of two presets and sizes, an open private one, a
    started public one and an aborted one."""
    host, reader = make_client(), make_client()
    games = {
        "valenciano_2": create(host, "valenciano")["id"],
        "argentino_4": create(host, "argentino", players=4)["id"],
        "argentino_2": create(host, "argentino")["id"],
        "private": create(host, "argentino", visibility="private")["id"],
        "started": table("argentino")[0],
    }
    leaver = make_client()
    left = create(leaver, "argentino")["id"]
    assert leaver.post(f"/api/games/{left}/leave").status_code == 204  # aborted
    return {"reader": reader, "games": games}


def listed(client: Client, query: str = "") -> list[str]:
    response = client.get(f"/api/games/open?limit=50{query}")
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["results"]]


def test_open_games_lists_public_games_waiting_for_players_newest_first(lobby):
    games = lobby["games"]
    assert listed(lobby["reader"]) == [
        games["argentino_2"],
        games["argentino_4"],
        games["valenciano_2"],
    ]


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("&preset=argentino", ["argentino_2", "argentino_4"]),
        ("&players=2", ["argentino_2", "valenciano_2"]),
        ("&preset=argentino&players=4", ["argentino_4"]),
        ("&preset=argentino_clasico", []),
    ],
)
def test_open_games_filters_by_preset_and_players(lobby, query, names):
    assert listed(lobby["reader"], query) == [lobby["games"][name] for name in names]


def test_open_games_is_paginated(lobby):
    response = lobby["reader"].get("/api/games/open?limit=2&offset=1")

    body = response.json()
    assert body["count"] == 3
    assert [row["id"] for row in body["results"]] == [
        lobby["games"]["argentino_4"],
        lobby["games"]["valenciano_2"],
    ]
    assert body["previous"] and body["next"] is None
    row = body["results"][0]
    assert (row["status"], row["visibility"], row["my_seat"], row["awaiting"]) == (
        "open",
        "public",
        None,
        False,
    )


@pytest.mark.parametrize("path", ["/api/games/open", "/api/games/mine"])
def test_game_lists_answer_without_a_limit(lobby, path):
    lobby["reader"].http.raise_request_exception = False

    response = lobby["reader"].get(path)

    assert response.status_code == 200
    assert {"count", "results"} <= set(response.json())


# --- the live games, to watch ------------------------------------------------------------------


@pytest.fixture
def watchable(table, make_client) -> dict[str, Any]:
    """Started games: public ones of two presets and sizes, one moved since, a private one; and
    an open one, a finished one (both not being played)."""
    moved_id, movers = table("valenciano")
    games = {
        "valenciano_2": moved_id,
        "argentino_2": table("argentino")[0],
        "argentino_4": table("argentino", players=4)[0],
        "private": table("argentino", visibility="private")[0],
        "open": create(make_client(), "argentino")["id"],
    }
    hand_turn_to(moved_id, movers, 1)  # the first started, but moved last: listed first
    over_id, players = table("valenciano")
    assert players[0].post(f"/api/games/{over_id}/resign").status_code == 200
    return {"watcher": make_client(), "games": games}


def live(client: Client, query: str = "") -> dict[str, Any]:
    response = client.get(f"/api/games/live?limit=50{query}")
    assert response.status_code == 200, response.json()
    return response.json()


def test_live_games_lists_public_games_being_played_most_recently_moved_first(watchable):
    games = watchable["games"]
    body = live(watchable["watcher"])
    ids = [row["id"] for row in body["results"]]
    assert ids == [games["valenciano_2"], games["argentino_4"], games["argentino_2"]]
    assert body["count"] == 3
    for row in body["results"]:
        assert (row["status"], row["visibility"], row["my_seat"]) == ("active", "public", None)
        assert row["turn"] is not None and row["deadline"]
    # A summary row: no hand, and no card of any deck anywhere in it.
    assert not strings_in(body) & ALL_CARDS


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("&preset=argentino", ["argentino_4", "argentino_2"]),
        ("&players=2", ["valenciano_2", "argentino_2"]),
        ("&preset=argentino&players=4", ["argentino_4"]),
        ("&preset=argentino_clasico", []),
        ("&limit=1&offset=1", ["argentino_4"]),
    ],
)
def test_live_games_filter_by_preset_and_players_a_page_at_a_time(watchable, query, names):
    rows = live(watchable["watcher"], query)["results"]
    assert [row["id"] for row in rows] == [watchable["games"][name] for name in names]


def test_a_player_sees_his_seat_in_the_live_list(table):
    game_id, clients = table("valenciano")
    rows = live(clients[1])["results"]
    assert [(row["id"], row["my_seat"]) for row in rows] == [(game_id, 1)]


@pytest.mark.parametrize("query", ["preset=poker", "players=3", "limit=0", "status=open"])
def test_live_games_refuse_a_bad_filter(watchable, query):
    response = watchable["watcher"].get(f"/api/games/live?{query}")
    assert_problem(response, 400, "invalid_request")


def test_my_games_puts_the_games_awaiting_me_first(make_client):
    me, rival = make_client(), make_client()
    waiting = create(me)["id"]
    assert rival.post(f"/api/games/{waiting}/join", {}).status_code == 200
    hand_turn_to(waiting, [me, rival], 0)
    not_waiting = create(me)["id"]
    assert rival.post(f"/api/games/{not_waiting}/join", {}).status_code == 200
    hand_turn_to(not_waiting, [me, rival], 1)
    still_open = create(me, players=4)["id"]  # the most recently moved of the three
    create(rival)  # not mine

    response = me.get("/api/games/mine?limit=10")

    body = response.json()
    assert body["count"] == 3
    rows = [(row["id"], row["awaiting"]) for row in body["results"]]
    assert rows == [(waiting, True), (still_open, False), (not_waiting, False)]
    assert not strings_in(body) & ALL_CARDS


# --- joining and leaving --------------------------------------------------------------------------


def test_join_by_code_seats_a_player_at_a_private_game(make_client):
    host, friend = make_client(), make_client()
    game = create(host, players=4, visibility="private")
    code = game["join_code"]
    assert code

    response = friend.post("/api/games/join", {"join_code": code, "seat": 2})

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["id"], body["my_seat"], body["join_code"]) == (game["id"], 2, code)
    assert body["seats"][2]["player"]["id"] == friend.player.pk


def test_join_private_game_needs_its_code(make_client):
    host, friend = make_client(), make_client()
    game = create(host, visibility="private")

    assert_problem(friend.post(f"/api/games/{game['id']}/join", {}), 404, "not_found")
    assert_problem(
        friend.post(f"/api/games/{game['id']}/join", {"join_code": "WRONG234"}), 404, "not_found"
    )
    assert_problem(friend.post("/api/games/join", {"join_code": "WRONG234"}), 404, "not_found")
    joined = friend.post(f"/api/games/{game['id']}/join", {"join_code": game["join_code"]})
    assert joined.status_code == 200, joined.json()
    assert joined.json()["status"] == "active"


def test_join_takes_the_chosen_seat_or_the_first_free_one(make_client):
    host, second, third = make_client(), make_client(), make_client()
    game = create(host, players=4)

    chosen = second.post(f"/api/games/{game['id']}/join", {"seat": 3}).json()
    first_free = third.post(f"/api/games/{game['id']}/join", {}).json()

    assert (chosen["my_seat"], first_free["my_seat"]) == (3, 1)
    assert [seat["player"] is not None for seat in first_free["seats"]] == [True, True, False, True]


def test_join_a_taken_seat_is_refused(make_client):
    host, second, third = make_client(), make_client(), make_client()
    game = create(host, players=4)
    assert second.post(f"/api/games/{game['id']}/join", {"seat": 2}).status_code == 200

    assert_problem(third.post(f"/api/games/{game['id']}/join", {"seat": 2}), 409, "seat_taken")
    assert_problem(third.post(f"/api/games/{game['id']}/join", {"seat": 0}), 409, "seat_taken")


@pytest.mark.parametrize(("players", "seat"), [(4, 99), (4, -1), (2, "1"), (2, 1.5)])
def test_join_a_seat_no_table_has_is_a_400(make_client, players, seat):
    host, guest = make_client(), make_client()
    game = create(host, players=players)

    response = guest.post(f"/api/games/{game['id']}/join", {"seat": seat})

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {"seat"}


@pytest.mark.parametrize(("players", "seat"), [(2, 2), (2, 3)])
def test_join_a_seat_this_table_lacks_is_a_422(make_client, players, seat):
    """A seat number the schema allows (other tables have it) that this table has not."""
    host, guest = make_client(), make_client()
    game = create(host, players=players)

    response = guest.post(f"/api/games/{game['id']}/join", {"seat": seat})

    assert fields_at_fault(assert_problem(response, 422, "invalid_seats")) == {"seat"}


def test_join_twice_is_refused(make_client):
    host, guest = make_client(), make_client()
    game = create(host, players=4)
    assert guest.post(f"/api/games/{game['id']}/join", {}).status_code == 200

    assert_problem(host.post(f"/api/games/{game['id']}/join", {}), 409, "already_seated")
    assert_problem(guest.post(f"/api/games/{game['id']}/join", {}), 409, "already_seated")


def test_join_a_started_game_is_refused(table, make_client):
    game_id, _ = table("valenciano", players=2)

    assert_problem(make_client().post(f"/api/games/{game_id}/join", {}), 409, "game_started")


def test_leave_before_the_start_frees_the_seat(make_client):
    host, guest = make_client(), make_client()
    game = create(host, players=4)
    assert guest.post(f"/api/games/{game['id']}/join", {"seat": 1}).status_code == 200

    response = guest.post(f"/api/games/{game['id']}/leave")

    assert response.status_code == 204
    view = read(host, game["id"])
    assert view["status"] == "open"
    assert view["seats"][1]["player"] is None
    assert game["id"] in listed(host)


def test_leave_by_the_last_player_aborts_the_game(make_client):
    host = make_client()
    game = create(host)

    response = host.post(f"/api/games/{game['id']}/leave")

    assert response.status_code == 204
    view = read(host, game["id"])  # a public game: he may still look at it
    assert (view["status"], view["end_reason"], view["my_seat"]) == ("aborted", "abandoned", None)
    assert game["id"] not in listed(host)
    assert host.get("/api/games/mine?limit=10").json()["count"] == 0


def test_leave_after_the_start_is_refused(table):
    game_id, clients = table("valenciano", players=2)

    assert_problem(clients[1].post(f"/api/games/{game_id}/leave"), 409, "game_started")
    assert read(clients[0], game_id)["status"] == "active"


def test_leave_a_game_i_am_not_seated_at(make_client):
    public, private = create(make_client()), create(make_client(), visibility="private")
    stranger = make_client()

    assert_problem(stranger.post(f"/api/games/{public['id']}/leave"), 403, "not_seated")
    assert_problem(stranger.post(f"/api/games/{private['id']}/leave"), 404, "not_found")


# --- resigning and the export ------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 4])
def test_resign_ends_the_match_for_the_other_side(table, players):
    game_id, clients = table("argentino", players=players)
    resigner = players - 1  # side 1

    response = clients[resigner].post(f"/api/games/{game_id}/resign")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["status"], body["winner_side"], body["end_reason"]) == ("finished", 0, "resigned")
    assert body["state"]["match_over"] is True
    assert all(read(client, game_id)["winner_side"] == 0 for client in clients)


def test_resign_then_nothing_more_is_played(table):
    game_id, clients = table("valenciano", players=2)
    version = read(clients[0], game_id)["version"]
    assert clients[0].post(f"/api/games/{game_id}/resign").status_code == 200

    for client in clients:
        assert_problem(client.act(game_id, {"type": "mazo"}, version + 1), 409, "game_over")
        assert_problem(client.post(f"/api/games/{game_id}/resign"), 409, "game_over")
    assert read(clients[1], game_id)["version"] == version + 1


def test_resign_before_the_start_is_refused(make_client):
    host = make_client()
    game = create(host)

    assert_problem(host.post(f"/api/games/{game['id']}/resign"), 409, "game_not_started")


def test_export_before_the_end_is_refused(table, make_client):
    game_id, clients = table("valenciano", players=2)
    waiting = create(make_client())

    assert_problem(clients[0].get(f"/api/games/{game_id}/export"), 409, "game_not_over")
    assert_problem(clients[0].get(f"/api/games/{waiting['id']}/export"), 409, "game_not_over")


def test_export_after_resigning(table):
    game_id, clients = table("valenciano", players=2)
    assert clients[1].post(f"/api/games/{game_id}/resign").status_code == 200

    response = clients[0].get(f"/api/games/{game_id}/export")

    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["game"]["winner_side"] == 0
    assert body["events"][-1]["type"] == "match_ended"
    assert [item["seq"] for item in body["events"]] == list(range(1, body["game"]["version"] + 1))
    assert len(body["history"]["hands"]) == 1


# --- creating: options are checked ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "at_fault"),
    [
        ({"options": {"target": 100}}, "options.target"),
        ({"options": {"target": 5}}, "options.target"),
        ({"options": {"target": "many"}}, "options.target"),
        ({"options": {"deck": "french52"}}, "options.deck"),
        ({"options": {"camas_to_win": 0}}, "options.camas_to_win"),
        ({"options": {"first_parda": "coin_toss"}}, "options.first_parda"),
        ({"options": {"jokers": True}}, "options.jokers"),
        ({"options": "fast"}, "options"),
        ({"players": 3}, "players"),
        ({"visibility": "secret"}, "visibility"),
        ({"preset": "poker"}, "preset"),
        ({"seat": 1}, "seat"),
    ],
)
def test_create_with_bad_options_names_the_field(make_client, fields, at_fault):
    response = make_client().post("/api/games", {"preset": "valenciano", **fields})

    assert at_fault in fields_at_fault(assert_problem(response, 400, "invalid_request"))


def test_create_buenas_from_above_target_is_refused(make_client):
    response = make_client().post(
        "/api/games", {"preset": "argentino", "options": {"target": 10, "buenas_from": 12}}
    )

    # Each value matches the schema; together the rules refuse them: a 422, not a 400.
    body = assert_problem(response, 422, "invalid_rules")
    assert fields_at_fault(body) == {"options.buenas_from"}
    assert "buenas_from" in body["detail"]


def test_create_resolves_the_preset_with_the_overrides(make_client):
    game = create(make_client(), "argentino", options={"target": 15, "buenas_from": 8})

    assert game["rules"]["target"] == 15 and game["rules"]["buenas_from"] == 8
    assert game["rules"]["deck"] == "spanish40"
    assert (game["status"], game["my_seat"], game["state"]) == ("open", 0, None)


# --- the URL space: every answer is a problem -----------------------------------------------


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/nothing"),
        ("get", "/api/games/"),
        ("get", "/api/games/open/extra"),
        ("get", "/api/games/{id}/cards"),
        ("get", "/api/games/{id}/events/1"),
        ("post", "/api/games/{id}/deal"),
        ("get", "/api/games/not-a-uuid"),
        ("get", "/api/games/00000000-0000-0000-0000-000000000000"),
        ("get", "/api/games/00000000-0000-0000-0000-000000000000/events"),
        ("post", "/api/games/00000000-0000-0000-0000-000000000000/actions"),
    ],
)
def test_unknown_url_is_a_404_problem(table, method, path):
    game_id, clients = table("valenciano", players=2)
    url = path.replace("{id}", game_id)
    if method == "post":
        body = {"type": "mazo", "expected_version": 2}  # valid: only the URL is wrong
        response = clients[0].post(url, body, **{"Idempotency-Key": "unknown-url"})
    else:
        response = clients[0].get(url)

    assert_problem(response, 404, "not_found")


@pytest.mark.parametrize("path", ["/api/games", "/api/games/{id}/actions", "/api/games/join"])
def test_malformed_json_body_is_a_400_problem(table, path):
    game_id, clients = table("valenciano", players=2)

    response = clients[0].http.post(
        path.replace("{id}", game_id),
        data='{"type": "truco",',
        content_type="application/json",
        headers={"Idempotency-Key": "malformed"},
    )

    assert_problem(response, 400, "invalid_request")


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/games"),
        ("delete", "/api/games/{id}"),
        ("put", "/api/games/{id}"),
        ("patch", "/api/games/{id}"),
        ("get", "/api/games/{id}/actions"),
        ("get", "/api/games/{id}/join"),
        ("post", "/api/games/{id}/events"),
        ("post", "/api/games/open"),
        ("delete", "/api/games/mine"),
        ("get", "/api/games/join"),
    ],
)
def test_wrong_method_is_a_405_problem(table, method, path):
    game_id, clients = table("valenciano", players=2)

    response = getattr(clients[0].http, method)(path.replace("{id}", game_id), format="json")

    assert_problem(response, 405, "method_not_allowed")


def test_an_actions_answer_carries_the_etag_of_its_view(table):
    """The answer's view is the one a read would give: polling with its ETag is a 304."""
    game_id, clients = table("valenciano", players=2)
    view = read(clients[0], game_id)
    mover = clients[view["state"]["turn"]]
    legal = read(mover, game_id)["state"]["legal_actions"][0]

    acted = mover.act(game_id, legal, view["version"], key="etag-of-action")
    replayed = mover.act(game_id, legal, view["version"], key="etag-of-action")

    assert acted.status_code == 201, acted.json()
    polled = mover.get(f"/api/games/{game_id}", **{"If-None-Match": acted["ETag"]})
    assert polled.status_code == 304
    assert acted["ETag"] == mover.get(f"/api/games/{game_id}")["ETag"]
    assert replayed["Idempotent-Replayed"] == "true"
    assert "ETag" not in replayed  # an old answer: its view may be old too


@pytest.mark.parametrize(
    ("query", "field"),
    [("preset=bogus", "preset"), ("players=0.5", "players"), ("players=3", "players")],
)
def test_open_games_filters_refuse_what_the_schema_refuses(make_client, query, field):
    """An unknown preset or size is a 400 naming it, not an empty list."""
    response = make_client().get(f"/api/games/open?{query}")

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {field}


@pytest.mark.parametrize(
    ("path", "declared"),
    [
        ("/api/games/mine", "limit=1&offset=0"),
        ("/api/games/open", "preset=valenciano&players=2&limit=1"),
        ("/api/webhooks/subscriptions", "limit=1"),
        ("/api/webhooks/deliveries", "kind=your_turn&status=pending&limit=1"),
        ("/api/leaderboards/valenciano/1v1", "min_games=0&limit=1"),
        ("/api/games/{game_id}/chat", "room=players&after=0"),
        ("/api/players/{player_id}/ratings", "family=valenciano&size=1v1&limit=1"),
    ],
)
def test_a_list_refuses_a_parameter_it_does_not_declare(table, path, declared):
    """A typo (`stauts`) is a 400 naming it, not the whole list; the declared ones still work."""
    game_id, clients = table("valenciano", players=2)
    path = path.format(game_id=game_id, player_id=clients[0].player.pk)
    assert clients[0].get(f"{path}?{declared}").status_code == 200
    response = clients[0].get(f"{path}?{declared}&stauts=pending")
    assert response.status_code == 400, response.json()
    assert [(e["field"], e["code"]) for e in response.json()["errors"]] == [
        ("stauts", "unknown_field")
    ]

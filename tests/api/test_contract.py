"""The contract: the committed document's value sets are the engine's, `GET /api/rules` tells a
client what it needs, and what the server sends matches the schemas it publishes."""

from __future__ import annotations

import dataclasses
import random
import re
from typing import Any

import jsonschema
import pytest

from games import engine
from games.engine import cards
from games.engine.actions import ALIASES, CANONICAL
from games.engine.rules import OPTION_BOUNDS, OPTION_CHOICES
from games.rated_results import rate_game
from notifications.services import subscribe
from tests.api.document import SCHEMAS, conforms
from tests.factories import PlayerFactory
from tests.games.conftest import Client
from truc_api.openapi import problem_codes


def test_enums_of_the_document_are_the_engines_tables() -> None:
    assert SCHEMAS["ActionType"]["enum"] == [*CANONICAL, *ALIASES]
    assert set(SCHEMAS["CardCode"]["enum"]) == set().union(*map(set, cards.DECKS.values()))
    assert SCHEMAS["EventType"]["enum"] == list(engine.EVENT_TYPES)
    assert SCHEMAS["Preset"]["enum"] == list(engine.PRESETS)
    assert SCHEMAS["Players"]["enum"] == list(OPTION_CHOICES["players"])
    assert SCHEMAS["Deck"]["enum"] == list(OPTION_CHOICES["deck"])
    for name, (low, high) in OPTION_BOUNDS.items():
        assert SCHEMAS["Rules"]["properties"][name] == {
            "type": "integer",
            "minimum": low,
            "maximum": high,
        }
    assert set(engine.REASONS) <= set(SCHEMAS["ProblemCode"]["enum"])
    assert SCHEMAS["ProblemCode"]["enum"] == problem_codes()


def test_every_event_type_has_its_schema_under_the_feeds_discriminator() -> None:
    mapping = SCHEMAS["FeedItem"]["discriminator"]["mapping"]
    assert list(mapping) == list(engine.EVENT_TYPES)
    for kind, target in mapping.items():
        event = SCHEMAS[target.rsplit("/", 1)[-1]]
        assert event["properties"]["type"]["enum"] == [kind]
        data = SCHEMAS[event["properties"]["data"]["$ref"].rsplit("/", 1)[-1]]
        fields = [field.name for field in dataclasses.fields(engine.EVENT_TYPES[kind])]
        assert sorted(data["required"]) == sorted(fields)
        assert data["additionalProperties"] is False


def test_problem_codes_include_each_applications_errors() -> None:
    codes = set(SCHEMAS["ProblemCode"]["enum"])
    expected = {"stale_version", "idempotency_conflict", "username_taken", "delivery_pending"}
    assert expected | {"after_beyond_log", "invalid_rules", "invalid_seats", "throttled"} <= codes


# --- GET /api/rules -------------------------------------------------------------------------------


@pytest.mark.django_db
def test_rules_metadata_is_public_and_told_by_the_engine(client: Any) -> None:
    response = client.get("/api/rules")

    assert response.status_code == 200
    body = response.json()
    conforms(body, "RulesMetadata")
    assert [preset["preset"] for preset in body["presets"]] == list(engine.PRESETS)
    assert body["presets"][0] == engine.PRESETS["valenciano"].to_json()
    decks = {deck["name"]: deck["cards"] for deck in body["decks"]}
    assert {name: {card["code"] for card in deck} for name, deck in decks.items()} == {
        name: set(deck) for name, deck in cards.DECKS.items()
    }
    strengths = [card["truco_strength"] for card in decks["spanish40"]]
    assert strengths == sorted(strengths, reverse=True), "strongest first"
    assert decks["spanish40"][0]["code"] == "1E"  # the espadilla (RULES.md §3)
    suits = {suit["code"]: (suit["es"], suit["ca"]) for suit in body["suits"]}
    assert suits["O"] == ("oros", "ors")
    truc = next(action for action in body["actions"] if action["type"] == "truco")
    assert (truc["aliases"], truc["ladder"], truc["truco_level"]) == (["truc"], "truco", 2)
    assert {alias for action in body["actions"] for alias in action["aliases"]} == set(ALIASES)
    options = {option["name"]: option for option in body["options"]}
    assert (options["target"]["minimum"], options["target"]["maximum"]) == OPTION_BOUNDS["target"]
    assert options["mazo_envido_penalty"]["type"] == "boolean"


# --- what the server sends is what the document says ----------------------------------------------


@pytest.mark.django_db
def test_a_played_match_is_sent_in_the_documents_shapes() -> None:
    """Every view, action answer, feed page and history of a whole match, checked against the
    committed document's schemas (the feed's typed events included)."""
    clients = [Client(PlayerFactory.create()), Client(PlayerFactory.create())]
    options = {"target": 6, "buenas_from": 3, "camas_to_win": 1}
    created = clients[0].post("/api/games", {"preset": "argentino_clasico", "options": options})
    assert created.status_code == 201, created.json()
    conforms(created.json(), "Game")
    game_id = created.json()["id"]
    assert clients[1].post(f"/api/games/{game_id}/join").status_code == 200
    rng = random.Random(13)
    for _ in range(500):
        views = [client.get(f"/api/games/{game_id}").json() for client in clients]
        if views[0]["status"] != "active":
            break
        seat = next(seat for seat, view in enumerate(views) if view["state"]["legal_actions"])
        conforms(views[seat], "Game")
        action = rng.choice(views[seat]["state"]["legal_actions"])
        answer = clients[seat].act(game_id, action, views[seat]["version"])
        assert answer.status_code == 201, answer.json()
        conforms(answer.json(), "ActionResult")
    else:
        raise AssertionError("the match did not end")
    feed = clients[1].get(f"/api/games/{game_id}/events?limit=500").json()
    conforms(feed, "FeedPage")
    kinds = {item["type"] for item in feed["events"]}
    assert {"match_started", "hand_dealt", "hand_ended", "match_ended"} <= kinds
    conforms(clients[0].get(f"/api/games/{game_id}/history").json(), "History")
    conforms(clients[0].get(f"/api/games/{game_id}/export").json(), "Export")


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"type": "play"}, "card"),
        ({"type": "truco", "card": "7O"}, "card"),
        ({"type": "play", "card": "7X"}, "card"),
        ({"type": "fold"}, "type"),
        ({"type": "truco", "expected_version": "3"}, "expected_version"),
        ({"type": "truco", "seat": 1}, "seat"),
    ],
)
def test_an_action_the_schema_refuses_the_server_refuses(body: dict[str, Any], field: str) -> None:
    """A 400 naming the field at fault, for a body the `ActionRequest` schema refuses too."""
    clients = [Client(PlayerFactory.create()), Client(PlayerFactory.create())]
    game_id = clients[0].post("/api/games", {"preset": "valenciano"}).json()["id"]
    clients[1].post(f"/api/games/{game_id}/join")
    sent = {"expected_version": 2, **body}

    with pytest.raises(jsonschema.ValidationError):
        conforms(sent, "ActionRequest")
    response = clients[0].post(f"/api/games/{game_id}/actions", sent, **{"Idempotency-Key": "k"})
    assert response.status_code == 400, response.json()
    conforms(response.json(), "Problem")
    assert response.json()["code"] == "invalid_request"
    assert [error["field"] for error in response.json()["errors"]] == [field]


@pytest.mark.django_db
@pytest.mark.parametrize("page", ["/api/redoc/", "/api/docs/"])
def test_the_docs_need_no_internet(client: Any, page: str) -> None:
    """Every script, style and font of the docs' pages is served from here (the sidecar)."""
    response = client.get(page)

    assert response.status_code == 200
    html = response.content.decode()
    assert "<script" in html
    assert not re.findall(r"(?:src|href)=[\"']https?://", html), "an asset from the internet"
    assert "fonts.googleapis.com" not in html


@pytest.mark.django_db
def test_a_players_data_export_is_sent_in_the_documents_shapes() -> None:
    """An export with every part filled (a finished rated game and its rating change, an active
    game, chat lines, a seek, challenges sent, received and declined, a block, a subscription),
    checked against the committed document's `DataExport`, typed part by part."""
    ana, pep, pest = (Client(PlayerFactory.create()) for _ in range(3))
    finished = _seated_game(ana, pep, "valenciano")
    ana.post(f"/api/games/{finished}/chat", {"text": "Bona sort!"})
    pep.post(f"/api/games/{finished}/resign")
    assert rate_game(finished), "the finished game was rated"
    active = _seated_game(ana, pep, "argentino")
    pep.post(f"/api/games/{active}/chat", {"text": "Suerte"})
    assert ana.post("/api/seeks", {"preset": "argentino", "rated": False}).status_code == 201
    sent = ana.post("/api/challenges", {"preset": "valenciano", "opponents": [pep.player.pk]})
    received = pep.post("/api/challenges", {"preset": "argentino", "opponents": [ana.player.pk]})
    assert sent.status_code == received.status_code == 201
    declined = ana.post(f"/api/challenges/{received.json()['id']}/decline", {"reason": "later"})
    assert declined.status_code == 200, declined.json()
    ana.post("/api/players/me/blocks", {"blocked_id": pest.player.pk})
    subscribe(ana.player, url="https://example.com/ana", kinds=["your_turn", "match_found"])

    answer = ana.get("/api/players/me/export")
    assert answer.status_code == 200
    export = answer.json()
    conforms(export, "DataExport", exactly=True)
    filled = {part: len(export[part]) for part in _EXPORT_LISTS}
    assert all(filled.values()), filled  # every part's items were checked, none was empty
    assert [game["game"]["id"] for game in export["games"]] == [finished, active]
    assert {c["status"] for c in export["challenges"]} == {"pending", "declined"}
    assert [c["link_token"] for c in export["challenges"]] == [None, None]  # no open seat


_EXPORT_LISTS = (
    *("ratings", "rating_history", "stats", "games", "chat", "seeks", "challenges"),
    *("blocks", "webhook_subscriptions"),
)


def _seated_game(first: Client, second: Client, preset: str) -> str:
    created = first.post("/api/games", {"preset": preset})
    assert created.status_code == 201, created.json()
    joined = second.post(f"/api/games/{created.json()['id']}/join")
    assert joined.status_code == 200, joined.json()
    return created.json()["id"]

"""A Python client generated from the committed `openapi.yaml` plays a whole match over real HTTP.

openapi-python-client writes the client into a temporary directory (nothing is cached in the
repository); the test then uses only its typed functions and models against pytest-django's
`live_server`. If the generator or the typed models choke on part of the schema, the schema is
what needs fixing.
"""

from __future__ import annotations

import importlib
import os
import random
import subprocess
import sys
import uuid
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SCHEMA = REPO / "openapi.yaml"
GENERATOR = Path(sys.executable).with_name("openapi-python-client")
PACKAGE = "truc_generated_client"


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported; its modules are dropped from `sys.modules` afterwards."""
    root = tmp_path_factory.mktemp("client")
    result = subprocess.run(
        [
            str(GENERATOR),
            "generate",
            "--path",
            str(SCHEMA),
            "--output-path",
            str(root / PACKAGE),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=root,
        # The generator formats its output with ruff, found on PATH: the venv's, however the
        # tests were started.
        env={**os.environ, "PATH": f"{GENERATOR.parent}{os.pathsep}{os.environ.get('PATH', '')}"},
    )
    assert result.returncode == 0, f"openapi-python-client failed:\n{result.stdout}{result.stderr}"
    # The generator reports schema parts it skipped as warnings but still exits 0.
    assert "Warning" not in result.stdout + result.stderr, result.stdout + result.stderr
    sys.path.insert(0, str(root))
    try:
        package = importlib.import_module(PACKAGE)
        for name in ("api.auth.auth_register", "api.games.games_act", "models"):
            importlib.import_module(f"{PACKAGE}.{name}")
        yield package
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == PACKAGE or m.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def _mod(api: ModuleType, name: str) -> Any:
    return importlib.import_module(f"{api.__name__}.{name}")


@pytest.mark.slow
def test_generated_client_plays_a_whole_match(api: ModuleType, live_server: Any) -> None:
    # Closing the clients ends their keep-alive connections, so the live server's request threads
    # close their database connections before the test database is dropped.
    with ExitStack() as stack:
        _play_a_whole_match(api, live_server.url, stack)


def _play_a_whole_match(api: ModuleType, base_url: str, stack: ExitStack) -> None:
    models = _mod(api, "models")
    client_mod = _mod(api, "client")
    register = _mod(api, "api.auth.auth_register")
    create = _mod(api, "api.games.games_create")
    join = _mod(api, "api.games.games_join")
    read = _mod(api, "api.games.games_read")
    act = _mod(api, "api.games.games_act")
    events = _mod(api, "api.games.games_events")
    history = _mod(api, "api.games.games_history")
    export = _mod(api, "api.games.games_export")
    mine = _mod(api, "api.games.games_mine")

    # An undocumented status code raises instead of parsing to None.
    anonymous = stack.enter_context(
        client_mod.Client(base_url=base_url, raise_on_unexpected_status=True)
    )

    def sign_up(name: str) -> Any:
        body = models.RegisterRequest(username=name, password="s3cret-Pass!", display_name=name)
        session = register.sync(client=anonymous, body=body)
        assert isinstance(session, models.Session), session
        # The generator's default: `Authorization: Bearer <token>`, the scheme the schema declares.
        authenticated = client_mod.AuthenticatedClient(
            base_url=base_url, token=session.token, raise_on_unexpected_status=True
        )
        return stack.enter_context(authenticated)

    clients = [sign_up("pep"), sign_up("vicenta")]

    # A short match (one cama to 6) keeps the test quick; it is still played to its very end.
    options = models.RuleOptions(target=6, buenas_from=3, camas_to_win=1)
    game = create.sync(
        client=clients[0],
        body=models.GameCreateRequest(
            preset=models.Preset.VALENCIANO,
            players=models.Players.VALUE_2,
            visibility=models.VisibilityEnum.PUBLIC,
            options=options,
        ),
    )
    assert isinstance(game, models.Game), game
    assert game.status == models.GameStatusEnum.OPEN
    assert game.state is None
    joined = join.sync(game.id, client=clients[1], body=models.JoinRequest(seat=1))
    assert isinstance(joined, models.Game), joined
    assert joined.status == models.GameStatusEnum.ACTIVE
    game_id = str(game.id)

    rng = random.Random(20240601)
    actions = 0
    for _ in range(1000):
        views, etags = [], []
        for client in clients:
            response = read.sync_detailed(game_id, client=client)
            assert response.status_code == 200, response.content
            assert isinstance(response.parsed, models.Game), response.parsed
            views.append(response.parsed)
            etags.append(response.headers["ETag"])
        if views[0].status != models.GameStatusEnum.ACTIVE:
            break
        movers = [seat for seat, view in enumerate(views) if view.state.legal_actions]
        assert len(movers) == 1, "exactly one seat may act at a time in a two-player game"
        seat = movers[0]
        legal = rng.choice(views[seat].state.legal_actions)
        version = views[seat].version
        # A listed legal action goes back as it is: a card's play, or any other action.
        if isinstance(legal, models.LegalPlay):
            body = models.PlayActionRequest(
                type_=models.PlayActionRequestType.PLAY, card=legal.card, expected_version=version
            )
        else:
            assert isinstance(legal, models.LegalCall), legal
            body = models.CallActionRequest(
                type_=models.CallActionType(legal.type_.value), expected_version=version
            )
        result = act.sync_detailed(
            game_id, client=clients[seat], body=body, idempotency_key=str(uuid.uuid4())
        )
        assert result.status_code == 201, result.content
        assert isinstance(result.parsed, models.ActionResult)
        assert result.parsed.version > views[seat].version
        assert result.parsed.game.version == result.parsed.version
        actions += 1
    else:
        raise AssertionError("the match did not end")

    final = views[0]
    assert final.status == models.GameStatusEnum.FINISHED
    assert final.state.match_over is True
    assert final.winner_side in (0, 1)
    assert final.end_reason == "camas"  # won at the table: not resigned, forfeited or aborted
    assert final.state.camas[final.winner_side] == 1
    assert actions > 1

    # A conditional read: nothing changed since seat 0's last ETag.
    unchanged = read.sync_detailed(game_id, client=clients[0], if_none_match=etags[0])
    assert unchanged.status_code == 304

    # An action after the end is a documented problem, parsed into the typed Problem.
    late = act.sync_detailed(
        game_id,
        client=clients[0],
        body=models.CallActionRequest(
            type_=models.CallActionType.MAZO, expected_version=final.version
        ),
        idempotency_key=str(uuid.uuid4()),
    )
    assert late.status_code == 409
    assert isinstance(late.parsed, models.Problem)
    assert late.parsed.code == models.ProblemCode.GAME_OVER

    feed = events.sync(game_id, client=clients[1], after=0, limit=500)
    assert isinstance(feed, models.FeedPage), feed
    assert [item.seq for item in feed.events] == list(range(1, len(feed.events) + 1))
    assert (len(feed.events), feed.after, feed.more) == (final.version, final.version, False)
    _replay_typed_events(models, feed.events, final, seat_of_reader=1)

    record = history.sync(game_id, client=clients[0])
    assert isinstance(record, models.History), record
    assert len(record.camas) == 1
    assert record.camas[0].winner == final.winner_side
    assert record.hands and all(hand.winner in (0, 1) for hand in record.hands)
    ended = [item for item in feed.events if isinstance(item, models.HandEndedEvent)]
    # The history and the events say the same in the same words.
    assert [(hand.winner, hand.points) for hand in record.hands] == [
        (item.data.winner, item.data.points) for item in ended
    ]

    exported = export.sync(game_id, client=clients[1])
    assert isinstance(exported, models.Export), exported
    assert exported.game.id == game.id
    assert exported.game.status == models.GameStatusEnum.FINISHED
    assert len(exported.events) == final.version
    assert len(exported.history.hands) == len(record.hands)

    listed = mine.sync(client=clients[0], limit=10)
    assert isinstance(listed, models.PaginatedGameSummaryList), listed
    assert [str(row.id) for row in listed.results] == [game_id]


def _replay_typed_events(models: Any, feed: list[Any], final: Any, seat_of_reader: int) -> None:
    """A client keeping its own state from the typed events alone, switching on their types:
    the scores, camas, cards and winner it ends with are the server's."""
    scores, camas, winner = [0, 0], [0, 0], None
    played: set[Any] = set()
    for item in feed:
        match item:
            case models.HandDealtEvent():
                hands = item.data.hands
                assert [cards is not None for cards in hands] == [
                    seat == seat_of_reader for seat in range(len(hands))
                ], "a deal shows the reader's own cards only"
                played = set()
            case models.CardPlayedEvent():
                assert isinstance(item.data.card, models.CardCode)
                assert item.data.card not in played, "a card is played once a hand"
                played.add(item.data.card)
            case models.HandEndedEvent():
                for points in item.data.points:
                    assert isinstance(points.kind, models.PointKind)
                scores = list(item.data.scores)
            case models.CamaEndedEvent():
                camas = list(item.data.camas)
            case models.MatchEndedEvent():
                winner = item.data.winner
                assert item.data.reason == models.MatchEndReason.CAMAS
            case models.MatchStartedEvent():
                assert item.data.rules.preset == models.Preset.VALENCIANO
    assert camas == list(final.state.camas)
    assert scores == list(final.state.scores)
    assert winner == final.winner_side

"""Schemathesis over the committed `openapi.yaml`: generated requests against the real WSGI app.

Every request carries a fresh knox token of a player seated in real games, and most ids in valid
paths are swapped for real ones (an active game, an open one, a finished one, real players), so
the operations reach their real objects and not only their 404s. Hypothesis runs bounded and
derandomized (a fixed seed, no example database): the same requests every run.

Every check runs (`--checks all`): the server refuses what the schema refuses and accepts what
it allows. Both streams are included: through WSGI (as here) a stream is finite, what the log
holds after the cursor and then its end, so each answer is whole, and schemathesis checks every
Server-Sent Event of it against its message schema, and its `data` against the `contentSchema`.
`TRUC_SCHEMATHESIS_EXAMPLES` sets the examples per operation (4 by default, to fit the test-time
budget; `make test PROFILE=thorough` runs 100).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from knox.models import AuthToken
from schemathesis.core.parameters import ParameterLocation
from schemathesis.generation.meta import CoverageScenario

from tests.factories import PlayerFactory
from tests.games.conftest import Client

SCHEMA = Path(__file__).resolve().parents[2] / "openapi.yaml"

EXAMPLES = int(os.environ.get("TRUC_SCHEMATHESIS_EXAMPLES", "4"))

schema = schemathesis.openapi.from_path(str(SCHEMA)).exclude(
    # Logging out revokes the signed-in client's token: what every other request stands on.
    operation_id=["auth_logout", "auth_logout_all"],
)
schema.app = get_wsgi_application()  # in-process, inside the test's own database transaction
schema.config.generation.update(max_examples=EXAMPLES, deterministic=True, database="none")
schema.config.seed = 20240601
# A request the schema allows may still meet a game's state or rules that refuse it: a 422 (the
# rules say no, a seat this table lacks), as a 409 (a stale version) already is by default.
schema.config.checks.positive_data_acceptance.expected_statuses = [
    *schema.config.checks.positive_data_acceptance.expected_statuses,
    "422",
]


class World:
    """Real players and games for the generated requests to land on."""

    def __init__(self) -> None:
        self.me = Client(PlayerFactory.create())
        rival = Client(PlayerFactory.create())
        stranger = Client(PlayerFactory.create())
        self.players = [self.me.player.pk, stranger.player.pk]
        self.games = [
            self._game(self.me, rival, "valenciano"),  # active, "me" seated
            self._game(stranger, None, "argentino"),  # open: "me" may join it
            self._game(self.me, rival, "argentino_clasico"),  # finished just below
        ]
        resigned = self.me.post(f"/api/games/{self.games[2]}/resign")
        assert resigned.status_code == 200, resigned.json()

    @staticmethod
    def _game(owner: Client, joiner: Client | None, preset: str) -> str:
        created = owner.post("/api/games", {"preset": preset})
        assert created.status_code == 201, created.json()
        game_id = str(created.json()["id"])
        if joiner is not None:
            joined = joiner.post(f"/api/games/{game_id}/join")
            assert joined.status_code == 200, joined.json()
        return game_id

    def aim(self, case: Any) -> None:
        """Swap a generated id for a real one three times in four; the rest keep their 404s."""
        if case.meta is not None and case.meta.is_negative_at(ParameterLocation.PATH):
            return  # a deliberately invalid path stays invalid
        for name, real in (("game_id", self.games), ("player_id", self.players)):
            if name in (case.path_parameters or {}):
                generated = case.path_parameters[name]
                choices = [*real, generated]
                pick = choices[zlib.crc32(repr(generated).encode()) % len(choices)]
                case.path_parameters = {**case.path_parameters, name: pick}

    def headers(self) -> dict[str, str]:
        # A fresh token per request: a generated call to log out must not log out the next one.
        _, token = AuthToken.objects.create(self.me.player)
        return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def world(db: None) -> Iterator[World]:
    world = World()  # first: Django's test client reconnects the signals below after each call
    # Django's handler closes the connection after a request made inside a transaction (here the
    # test's own). Django's test client disconnects these two signals for the same reason.
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield world
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)


def _call_and_validate(case: Any, world: World) -> None:
    if _unknown_header(case):
        return
    world.aim(case)
    case.call_and_validate(headers={} if _without_token(case) else world.headers())


def _unknown_header(case: Any) -> bool:
    """A "negative" case that only adds a header the operation does not name: a recipient must
    ignore a header field it does not recognise (RFC 9110 §5.1), so accepting it is right."""
    data = case.meta.phase.data if case.meta is not None else None
    return (
        getattr(data, "scenario", None) == CoverageScenario.OBJECT_UNEXPECTED_PROPERTIES
        and getattr(data, "parameter_location", None) == ParameterLocation.HEADER
    )


def _without_token(case: Any) -> bool:
    """A negative case whose point is a request without its credentials: sent without them (a
    token added here would make it a valid request, which the server rightly accepts)."""
    mutations = case.meta.phase.data.mutations if case.meta is not None else ()
    return any(
        mutation.parameter_location == ParameterLocation.HEADER
        and "required" in mutation.keywords
        and "Authorization" in _listed(mutation.original_value)
        for mutation in mutations
    )


def _listed(value: Any) -> list[Any]:
    """A mutation's value as a list (a `required` mutation's is the list of names removed)."""
    return value if isinstance(value, list) else [value]


# One world per operation, shared by its examples on purpose: they all play on the same games.
_SHARED_WORLD = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.mark.slow
@schema.parametrize()
@_SHARED_WORLD
def test_api_conforms_to_its_schema(case: Any, world: World) -> None:
    _call_and_validate(case, world)


@pytest.mark.parametrize("path", ["/api/games/mine", "/api/games/open"])
def test_lists_without_a_limit_are_not_a_server_error(path: str, db: None) -> None:
    response = Client(PlayerFactory.create()).get(path)
    assert response.status_code == 200


@pytest.mark.parametrize(
    "query", ["limit=0", "limit=201", "limit=1.5", "offset=-1", "offset=null", "limit="]
)
def test_lists_refuse_a_page_the_schema_refuses(query: str, db: None) -> None:
    """`limit` is 1 to 200 and `offset` from 0, as the schema says, not read as the default."""
    response = Client(PlayerFactory.create()).get(f"/api/games/open?{query}")
    assert response.status_code == 400, response.json()
    assert {error["field"] for error in response.json()["errors"]} == {query.split("=")[0]}

"""A player's OAuth apps, the apps he allowed, and his personal tokens, over HTTP."""

import pytest
from oauth2_provider.models import AccessToken, Application

from tests.factories import PASSWORD, PlayerFactory
from tests.oauth.flow import bearer, login_token, register_app, tokens_for
from truc_api.problems import PROBLEM_CONTENT_TYPE

pytestmark = pytest.mark.django_db

APPS, TOKENS, ALLOWED = "/api/oauth/apps", "/api/players/me/tokens", "/api/oauth/authorizations"


def problem(answer, status: int, code: str) -> dict:
    assert answer.status_code == status, answer.content
    assert answer["Content-Type"] == PROBLEM_CONTENT_TYPE
    body: dict = answer.json()
    assert body["code"] == code
    return body


@pytest.fixture
def owner():
    player = PlayerFactory.create()
    return player, bearer(login_token(player))


def test_a_confidential_apps_secret_is_shown_once_and_kept_as_a_digest(owner) -> None:
    player, client = owner
    made = client.post(
        APPS,
        {
            "name": "Site",
            "redirect_uris": ["https://site.example/cb"],
            "client_type": "confidential",
        },
        format="json",
    )
    assert made.status_code == 201, made.content
    body = made.json()
    secret = body["client_secret"]
    assert secret and made["Location"] == f"/api/oauth/apps/{body['app']['id']}"
    stored = Application.objects.get(pk=body["app"]["id"])
    assert stored.client_secret != secret and stored.user == player
    read = client.get(f"{APPS}/{body['app']['id']}").json()
    assert "client_secret" not in read
    assert read["redirect_uris"] == ["https://site.example/cb"]


@pytest.mark.parametrize(
    "uri",
    ["http://site.example/cb", "ftp://site.example/cb", "/cb", "https://site.example/cb#x",
     "https://user@site.example/cb"],
)  # fmt: skip
def test_a_redirect_uri_must_be_https_or_loopback(owner, uri) -> None:
    _, client = owner
    answer = client.post(
        APPS, {"name": "Site", "redirect_uris": [uri], "client_type": "public"}, format="json"
    )
    body = problem(answer, 400, "invalid_request")
    assert body["errors"][0]["field"] == "redirect_uris.0"
    assert not Application.objects.exists()


def test_a_loopback_http_redirect_is_allowed(owner) -> None:
    _, client = owner
    answer = client.post(
        APPS,
        {"name": "CLI", "redirect_uris": ["http://127.0.0.1:8765/cb"], "client_type": "public"},
        format="json",
    )
    assert answer.status_code == 201
    assert answer.json()["client_secret"] is None


def test_apps_are_their_owners_only(owner) -> None:
    _, client = owner
    app = register_app(PlayerFactory.create())
    problem(client.get(f"{APPS}/{app.id}"), 404, "not_found")
    problem(client.delete(f"{APPS}/{app.id}"), 404, "not_found")
    assert client.get(APPS).json() == []


def test_an_app_renamed_and_deleted_with_its_tokens(owner) -> None:
    player, client = owner
    app = register_app(player)
    changed = client.patch(f"{APPS}/{app.id}", {"name": "Coach 2"}, format="json")
    assert changed.json()["name"] == "Coach 2"
    tokens = tokens_for(PlayerFactory.create(), app, "games:read")
    assert client.delete(f"{APPS}/{app.id}").status_code == 204
    assert bearer(tokens["access_token"]).get("/api/games/mine").status_code == 401


def test_a_player_sees_and_revokes_the_apps_he_allowed(owner) -> None:
    player, client = owner
    app = register_app(PlayerFactory.create())
    tokens = tokens_for(player, app, "games:read profile:read")
    [allowed] = client.get(ALLOWED).json()
    assert allowed["app_id"] == app.id and allowed["scopes"] == ["games:read", "profile:read"]
    assert client.delete(f"{ALLOWED}/{app.id}").status_code == 204
    assert client.get(ALLOWED).json() == []
    assert bearer(tokens["access_token"]).get("/api/games/mine").status_code == 401
    # Taken back already, or never given, or beyond any id: no such app of his.
    for app_id in (app.id, 2**63):
        problem(client.delete(f"{ALLOWED}/{app_id}"), 404, "not_found")


def test_an_app_cannot_manage_the_account(owner) -> None:
    player, _ = owner
    app = register_app(PlayerFactory.create())
    tokens = tokens_for(player, app, "games:read")
    body = problem(bearer(tokens["access_token"]).get(TOKENS), 403, "missing_scope")
    assert body["scope"] == "account:manage"


def test_a_personal_token_is_shown_once_and_carries_its_scopes(owner) -> None:
    player, client = owner
    made = client.post(TOKENS, {"description": "stats", "scopes": ["games:read"]}, format="json")
    assert made.status_code == 201, made.content
    body = made.json()
    token = body["token"]
    assert token.startswith("truc_pt_")
    assert not AccessToken.objects.filter(token=token).exists()  # only its checksum is kept
    [listed] = client.get(TOKENS).json()
    assert listed == body["personal"] and "token" not in listed
    assert bearer(token).get("/api/games/mine").status_code == 200
    problem(bearer(token).post("/api/games", {}, format="json"), 403, "missing_scope")


def test_account_manage_in_a_personal_token_needs_the_password(owner) -> None:
    _, client = owner
    asked = {"description": "admin script", "scopes": ["account:manage"]}
    problem(client.post(TOKENS, asked, format="json"), 422, "password_required")
    wrong = client.post(TOKENS, {**asked, "password": "nope"}, format="json")
    problem(wrong, 422, "fields_refused")
    made = client.post(TOKENS, {**asked, "password": PASSWORD}, format="json")
    assert made.status_code == 201


def test_an_unknown_scope_is_refused(owner) -> None:
    _, client = owner
    answer = client.post(TOKENS, {"description": "x", "scopes": ["games:all"]}, format="json")
    assert problem(answer, 400, "invalid_request")["errors"][0]["field"] == "scopes.0"


def test_a_revoked_personal_token_is_refused_at_once(owner) -> None:
    _, client = owner
    made = client.post(TOKENS, {"description": "x", "scopes": ["games:read"]}, format="json")
    token, token_id = made.json()["token"], made.json()["personal"]["id"]
    assert client.delete(f"{TOKENS}/{token_id}").status_code == 204
    assert client.get(TOKENS).json() == []
    problem(bearer(token).get("/api/games/mine"), 401, "not_authenticated")
    problem(client.delete(f"{TOKENS}/{token_id}"), 404, "not_found")


def test_another_players_token_cannot_be_revoked(owner) -> None:
    _, client = owner
    other = bearer(login_token(PlayerFactory.create()))
    made = other.post(TOKENS, {"description": "x", "scopes": ["games:read"]}, format="json")
    problem(client.delete(f"{TOKENS}/{made.json()['personal']['id']}"), 404, "not_found")


def test_an_unknown_delegated_token_is_a_401() -> None:
    answer = bearer("truc_pt_not-a-token").get("/api/games/mine")
    problem(answer, 401, "not_authenticated")
    assert answer["WWW-Authenticate"] == "Bearer"

"""The authorization-code flow with PKCE, through the real URL configuration: what it grants,
and each way it refuses (a wrong verifier, a reused code, a foreign redirect URI, `plain`)."""

from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client

from tests.factories import PlayerFactory
from tests.oauth.flow import (
    REDIRECT,
    allow,
    authorize_query,
    bearer,
    exchange,
    pkce_pair,
    register_app,
    signed_in_browser,
    tokens_for,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def app():
    return register_app(PlayerFactory.create())


def test_flow_grants_a_token_with_the_scopes_allowed(app) -> None:
    ana = PlayerFactory.create()
    tokens = tokens_for(ana, app, "profile:read games:read")
    assert tokens["token_type"] == "Bearer"
    assert set(tokens["scope"].split()) == {"profile:read", "games:read"}
    assert tokens["access_token"].startswith("truc_at_")
    me = bearer(tokens["access_token"]).get("/api/players/me")
    assert me.status_code == 200, me.content
    assert me.json()["id"] == ana.pk


def test_consent_page_names_each_scope_and_warns_on_dangerous_ones(app) -> None:
    _, challenge = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    quiet = browser.get("/oauth/authorize/", authorize_query(app, challenge, "games:read"))
    assert quiet.status_code == 200
    assert b"games:read" in quiet.content and b'class="warning"' not in quiet.content
    loud = browser.get("/oauth/authorize/", authorize_query(app, challenge, "games:play"))
    assert b"games:play" in loud.content and b'class="warning"' in loud.content


@pytest.mark.parametrize(
    ("language", "phrase"),
    [("en", "It asks for these permissions"), ("es", "Pide estos permisos"),
     ("ca", "Demana aquests permisos")],
)  # fmt: skip
def test_consent_page_speaks_the_browsers_language(app, language, phrase) -> None:
    _, challenge = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    page = browser.get(
        "/oauth/authorize/",
        authorize_query(app, challenge, "games:read"),
        HTTP_ACCEPT_LANGUAGE=language,
    )
    assert page["Content-Language"] == language
    assert phrase in page.content.decode()


def test_consent_page_sends_a_player_without_a_session_to_sign_in(app) -> None:
    _, challenge = pkce_pair()
    page = Client().get("/oauth/authorize/", authorize_query(app, challenge, "games:read"))
    assert page.status_code == 302
    assert page["Location"].startswith("/oauth/login/?next=")


def test_a_refused_consent_sends_access_denied_back(app) -> None:
    _, challenge = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    query = authorize_query(app, challenge, "games:read")
    browser.get("/oauth/authorize/", query)
    answer = browser.post("/oauth/authorize/", query)  # no "allow"
    assert answer.status_code == 302
    assert parse_qs(urlsplit(answer["Location"]).query)["error"] == ["access_denied"]


def test_a_wrong_verifier_is_refused(app) -> None:
    _, challenge = pkce_pair()
    other_verifier, _ = pkce_pair()
    code = allow(
        signed_in_browser(PlayerFactory.create()), authorize_query(app, challenge, "games:read")
    )
    answer = exchange(app, code, other_verifier)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_grant"


def test_a_code_is_used_once(app) -> None:
    verifier, challenge = pkce_pair()
    code = allow(
        signed_in_browser(PlayerFactory.create()), authorize_query(app, challenge, "games:read")
    )
    assert exchange(app, code, verifier).status_code == 200
    again = exchange(app, code, verifier)
    assert again.status_code == 400
    assert again.json()["error"] == "invalid_grant"


def test_a_foreign_redirect_uri_is_refused_without_redirecting(app) -> None:
    _, challenge = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    for foreign in (
        "https://evil.example/callback",
        f"{REDIRECT}/more",
        f"{REDIRECT}?extra=1",
        REDIRECT.replace("https", "http"),
    ):
        page = browser.get(
            "/oauth/authorize/", authorize_query(app, challenge, "games:read", redirect_uri=foreign)
        )
        assert page.status_code == 400, foreign  # shown to the player, never sent to `foreign`
        assert "Location" not in page


def test_a_redirect_uri_other_than_the_codes_is_refused_at_the_token_endpoint(app) -> None:
    verifier, challenge = pkce_pair()
    code = allow(
        signed_in_browser(PlayerFactory.create()), authorize_query(app, challenge, "games:read")
    )
    answer = exchange(app, code, verifier, redirect="https://evil.example/callback")
    assert answer.status_code == 400


@pytest.mark.parametrize("method", ["plain", None])
def test_only_s256_is_accepted(app, method) -> None:
    verifier, _ = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    query = authorize_query(app, verifier, "games:read", code_challenge_method=method or "")
    if method is None:
        del query["code_challenge_method"]  # RFC 7636 §4.3: absent means plain
    page = browser.get("/oauth/authorize/", query)
    # Refused before any consent: the error goes back to the app's registered URI.
    assert page.status_code == 302
    assert parse_qs(urlsplit(page["Location"]).query)["error"] == ["invalid_request"]


def test_a_missing_challenge_is_refused(app) -> None:
    browser = signed_in_browser(PlayerFactory.create())
    query = authorize_query(app, "x", "games:read")
    del query["code_challenge"], query["code_challenge_method"]
    page = browser.get("/oauth/authorize/", query)
    assert page.status_code == 302
    assert parse_qs(urlsplit(page["Location"]).query)["error"] == ["invalid_request"]


def test_account_manage_is_never_granted_to_an_app(app) -> None:
    _, challenge = pkce_pair()
    browser = signed_in_browser(PlayerFactory.create())
    page = browser.get("/oauth/authorize/", authorize_query(app, challenge, "account:manage"))
    assert page.status_code == 302
    assert parse_qs(urlsplit(page["Location"]).query)["error"] == ["invalid_scope"]


def test_refresh_tokens_rotate_and_a_reused_one_revokes_the_family(app) -> None:
    first = tokens_for(PlayerFactory.create(), app, "games:read")
    form = {"grant_type": "refresh_token", "client_id": app.client_id}
    second = Client().post("/oauth/token/", {**form, "refresh_token": first["refresh_token"]})
    assert second.status_code == 200, second.content
    rotated = second.json()
    assert rotated["refresh_token"] != first["refresh_token"]
    assert bearer(rotated["access_token"]).get("/api/games/mine").status_code == 200
    replay = Client().post("/oauth/token/", {**form, "refresh_token": first["refresh_token"]})
    assert replay.status_code == 400
    # The reuse of a rotated token shows it was stolen: what it led to is revoked too.
    assert bearer(rotated["access_token"]).get("/api/games/mine").status_code == 401
    later = Client().post("/oauth/token/", {**form, "refresh_token": rotated["refresh_token"]})
    assert later.status_code == 400


def test_a_confidential_app_must_send_its_secret(app) -> None:
    server = register_app(PlayerFactory.create(), client_type="confidential")
    assert server.client_secret
    verifier, challenge = pkce_pair()
    code = allow(
        signed_in_browser(PlayerFactory.create()), authorize_query(server, challenge, "games:read")
    )
    secretless = exchange(server.__class__(server.id, server.client_id, None), code, verifier)
    assert secretless.status_code == 401
    assert exchange(server, code, verifier).status_code == 200


def test_revocation_ends_the_token(app) -> None:
    tokens = tokens_for(PlayerFactory.create(), app, "games:read")
    answer = Client().post(
        "/oauth/revoke/", {"token": tokens["access_token"], "client_id": app.client_id}
    )
    assert answer.status_code == 200  # RFC 7009 §2.2
    assert bearer(tokens["access_token"]).get("/api/games/mine").status_code == 401
    refreshed = Client().post(
        "/oauth/token/",
        {"grant_type": "refresh_token", "client_id": app.client_id,
         "refresh_token": tokens["refresh_token"]},
    )  # fmt: skip
    assert refreshed.status_code == 400  # its refresh token went with it


def test_discovery_document_names_the_endpoints_and_s256_only() -> None:
    answer = Client().get("/.well-known/oauth-authorization-server")
    assert answer.status_code == 200
    meta = answer.json()
    assert meta["authorization_endpoint"] == "http://testserver/oauth/authorize/"
    assert meta["token_endpoint"] == "http://testserver/oauth/token/"
    assert meta["revocation_endpoint"] == "http://testserver/oauth/revoke/"
    assert meta["code_challenge_methods_supported"] == ["S256"]
    assert "games:play" in meta["scopes_supported"]
    assert "account:manage" not in meta["scopes_supported"]
    assert meta["response_types_supported"] == ["code"]
    assert set(meta["grant_types_supported"]) == {"authorization_code", "refresh_token"}

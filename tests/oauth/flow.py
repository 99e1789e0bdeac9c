"""The authorization-code + PKCE flow as an app and a player in a browser go through it, over
the real URL configuration: the player signs in on the server's page and allows the app; the app
exchanges the code for tokens. Shared by the OAuth tests."""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

from django.test import Client
from rest_framework.test import APIClient

from tests.factories import PASSWORD

REDIRECT = "https://coach.example/callback"


def pkce_pair() -> tuple[str, str]:
    """A code verifier and its S256 challenge (RFC 7636 §4.1, §4.2)."""
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def login_token(player) -> str:
    answer = APIClient().post(
        "/api/auth/login", {"username": player.username, "password": PASSWORD}, format="json"
    )
    assert answer.status_code == 200, answer.content
    return str(answer.json()["token"])


def bearer(token: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {token}")
    return client


@dataclass
class App:
    id: int
    client_id: str
    client_secret: str | None


def register_app(owner, client_type: str = "public", redirect: str = REDIRECT) -> App:
    answer = bearer(login_token(owner)).post(
        "/api/oauth/apps",
        {"name": "Truc coach", "redirect_uris": [redirect], "client_type": client_type},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    body = answer.json()
    return App(body["app"]["id"], body["app"]["client_id"], body["client_secret"])


def signed_in_browser(player) -> Client:
    """A browser whose player signed in on the server's sign-in page."""
    browser = Client()
    page = browser.post(
        "/oauth/login/", {"username": player.username, "password": PASSWORD, "next": "/"}
    )
    assert page.status_code == 302, page.content
    return browser


def authorize_query(app: App, challenge: str, scope: str, **overrides: str) -> dict[str, str]:
    query = {
        "response_type": "code",
        "client_id": app.client_id,
        "redirect_uri": REDIRECT,
        "scope": scope,
        "state": "st4te",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
    }
    query.update(overrides)
    return query


def allow(browser: Client, query: dict[str, str]) -> str:
    """The player allows on the consent page; the code the app receives."""
    page = browser.get("/oauth/authorize/", query)
    assert page.status_code == 200, page.content
    form = {**query, "allow": "Authorize"}
    form.pop("response_type")
    answer = browser.post("/oauth/authorize/", {**form, "response_type": "code"})
    assert answer.status_code == 302, answer.content
    sent_back = urlsplit(answer["Location"])
    assert f"{sent_back.scheme}://{sent_back.netloc}{sent_back.path}" == REDIRECT
    params = parse_qs(sent_back.query)
    assert params["state"] == ["st4te"]
    return params["code"][0]


def exchange(app: App, code: str, verifier: str, redirect: str = REDIRECT):
    """The app's token request (a public client: its id, no secret)."""
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": redirect,
        "client_id": app.client_id,
        "code_verifier": verifier,
    }
    if app.client_secret:
        form["client_secret"] = app.client_secret
    return Client().post("/oauth/token/", form)


def tokens_for(player, app: App, scope: str) -> dict[str, str]:
    """The whole flow: the app's access and refresh tokens for ``player`` with ``scope``."""
    verifier, challenge = pkce_pair()
    code = allow(signed_in_browser(player), authorize_query(app, challenge, scope))
    answer = exchange(app, code, verifier)
    assert answer.status_code == 200, answer.content
    return dict(answer.json())

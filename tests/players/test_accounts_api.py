"""Accounts over HTTP: register, log in and out with knox tokens, and players' profiles."""

from datetime import timedelta

import pytest
from knox.models import AuthToken

from players.models import Player
from tests.factories import PASSWORD, PlayerFactory
from truc_api.problems import PROBLEM_CONTENT_TYPE

pytestmark = pytest.mark.django_db

REGISTER, LOGIN = "/api/auth/register", "/api/auth/login"
LOGOUT, LOGOUT_ALL, ME = "/api/auth/logout", "/api/auth/logout-all", "/api/players/me"


def assert_problem(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    assert response["Content-Type"] == PROBLEM_CONTENT_TYPE
    body = response.json()
    assert body["status"] == status
    assert body["code"] == code
    return body


def fields_at_fault(body: dict) -> set[str]:
    return {error["field"] for error in body["errors"]}


def login(client, username: str, password: str = PASSWORD):
    return client.post(LOGIN, {"username": username, "password": password})


def authorised(client, token: str):
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


# --- register -----------------------------------------------------------------------------------


def test_register_creates_player_and_logs_in(api_client):
    response = api_client.post(
        REGISTER, {"username": "pep", "password": PASSWORD, "display_name": "Pep"}
    )

    assert response.status_code == 201
    body = response.json()
    player = Player.objects.get(username="pep")
    assert body["player"] == {"id": player.pk, "username": "pep", "display_name": "Pep"}
    assert body["expiry"] and player.check_password(PASSWORD)
    assert authorised(api_client, body["token"]).get(ME).json()["username"] == "pep"


def test_register_display_name_is_optional(api_client):
    response = api_client.post(REGISTER, {"username": "pep", "password": PASSWORD})

    assert response.status_code == 201
    assert response.json()["player"]["display_name"] == ""


@pytest.mark.parametrize("password", ["short1!", "password123", "12345678901", "pepito-pep"])
def test_register_weak_password_is_a_422_naming_the_password(api_client, password):
    response = api_client.post(REGISTER, {"username": "pepito-pep", "password": password})

    body = assert_problem(response, 422, "weak_password")
    assert fields_at_fault(body) == {"password"}
    assert not Player.objects.exists()


@pytest.mark.parametrize("username", ["pep", "PEP", "Pep"])
def test_register_duplicate_username_in_any_case_is_a_409(api_client, username):
    PlayerFactory.create(username="pep")

    response = api_client.post(REGISTER, {"username": username, "password": PASSWORD})

    assert_problem(response, 409, "username_taken")
    assert Player.objects.count() == 1


def test_register_bad_username_is_a_400(api_client):
    response = api_client.post(REGISTER, {"username": "pep pérez!", "password": PASSWORD})

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {"username"}


def test_register_unknown_field_is_a_400_naming_it(api_client):
    response = api_client.post(
        REGISTER, {"username": "pep", "password": PASSWORD, "is_staff": True}
    )

    body = assert_problem(response, 400, "invalid_request")
    assert body["errors"] == [
        {"field": "is_staff", "code": "unknown_field", "message": "This field is not expected."}
    ]
    assert not Player.objects.exists()


def test_register_unknown_and_missing_fields_are_reported_together(api_client):
    response = api_client.post(REGISTER, {"username": "pep", "colour": "oros"})

    body = assert_problem(response, 400, "invalid_request")
    assert fields_at_fault(body) == {"password", "colour"}


def test_register_ignores_a_stale_token(api_client):
    authorised(api_client, "not-a-token")

    response = api_client.post(REGISTER, {"username": "pep", "password": PASSWORD})

    assert response.status_code == 201


# --- login --------------------------------------------------------------------------------------


def test_login_gives_a_new_token_per_device(api_client):
    player = PlayerFactory.create(username="pep")

    first, second = login(api_client, "pep"), login(api_client, "pep")

    assert first.status_code == second.status_code == 200
    assert first.json()["token"] != second.json()["token"]
    assert first.json()["player"] == {
        "id": player.pk,
        "username": "pep",
        "display_name": player.display_name,
    }
    assert AuthToken.objects.filter(user=player).count() == 2


def test_login_accepts_the_username_in_any_case(api_client):
    PlayerFactory.create(username="pep")

    assert login(api_client, "PEP").status_code == 200


def test_login_stores_only_a_digest_of_the_token(api_client):
    PlayerFactory.create(username="pep")

    token = login(api_client, "pep").json()["token"]

    stored = AuthToken.objects.get()
    assert token not in (stored.digest, stored.token_key)


def test_login_wrong_password_and_unknown_user_answer_alike(api_client):
    PlayerFactory.create(username="pep")

    wrong_password = assert_problem(login(api_client, "pep", "nope"), 401, "invalid_credentials")
    unknown_user = assert_problem(login(api_client, "nobody"), 401, "invalid_credentials")

    assert wrong_password == unknown_user
    assert not AuthToken.objects.exists()
    # Every 401 names the scheme to authenticate with (RFC 9110 §15.5.2), this one too.
    assert login(api_client, "pep", "nope")["WWW-Authenticate"] == "Bearer"


def test_login_inactive_player_is_refused(api_client):
    PlayerFactory.create(username="pep", is_active=False)

    assert_problem(login(api_client, "pep"), 401, "invalid_credentials")


def test_login_unknown_field_is_a_400(api_client):
    PlayerFactory.create(username="pep")

    response = api_client.post(LOGIN, {"username": "pep", "password": PASSWORD, "remember": 1})

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {"remember"}


def test_login_is_throttled_after_ten_a_minute(api_client):
    PlayerFactory.create(username="pep")
    for _ in range(10):
        assert login(api_client, "pep", "guess").status_code == 401

    response = login(api_client, "pep")

    assert_problem(response, 429, "throttled")
    assert int(response["Retry-After"]) > 0


# --- tokens: logout, revocation, expiry ---------------------------------------------------------


def test_token_works_until_logout_revokes_it(api_client):
    PlayerFactory.create(username="pep")
    client = authorised(api_client, login(api_client, "pep").json()["token"])
    assert client.get(ME).status_code == 200

    assert client.post(LOGOUT).status_code == 204

    body = assert_problem(client.get(ME), 401, "not_authenticated")
    assert body["detail"] == "Invalid token."


def test_logout_revokes_only_this_device(api_client):
    PlayerFactory.create(username="pep")
    phone, laptop = (
        login(api_client, "pep").json()["token"],
        login(api_client, "pep").json()["token"],
    )

    assert authorised(api_client, phone).post(LOGOUT).status_code == 204

    assert_problem(api_client.get(ME), 401, "not_authenticated")
    assert authorised(api_client, laptop).get(ME).status_code == 200


def test_logout_all_revokes_every_device(api_client):
    player = PlayerFactory.create(username="pep")
    other = PlayerFactory.create()
    _, others_token = AuthToken.objects.create(other)
    phone, laptop = (
        login(api_client, "pep").json()["token"],
        login(api_client, "pep").json()["token"],
    )

    assert authorised(api_client, phone).post(LOGOUT_ALL).status_code == 204

    for token in (phone, laptop):
        assert_problem(authorised(api_client, token).get(ME), 401, "not_authenticated")
    assert not AuthToken.objects.filter(user=player).exists()
    assert authorised(api_client, others_token).get(ME).status_code == 200


def test_expired_token_is_a_401(api_client):
    _, token = AuthToken.objects.create(PlayerFactory.create(), expiry=timedelta(seconds=-1))

    response = authorised(api_client, token).get(ME)

    assert_problem(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"] == "Bearer"


@pytest.mark.parametrize("method, path", [("post", LOGOUT), ("post", LOGOUT_ALL), ("get", ME)])
def test_authenticated_endpoints_without_a_token_are_a_401(api_client, method, path):
    assert_problem(getattr(api_client, method)(path), 401, "not_authenticated")


# --- players ------------------------------------------------------------------------------------

NO_RESULTS = [
    {"family": family, "size": size, "games": 0, "wins": 0, "losses": 0}
    for family in ("valenciano", "argentino")
    for size in ("1v1", "2v2", "3v3")
]


def test_me_shows_the_account(api_client):
    player = PlayerFactory.create(username="pep", display_name="Pep")
    _, token = AuthToken.objects.create(player)

    body = authorised(api_client, token).get(ME).json()

    assert body == {
        "id": player.pk,
        "username": "pep",
        "display_name": "Pep",
        "date_joined": player.date_joined.isoformat().replace("+00:00", "Z"),
        "challenges_from": "everyone",
        "stats": NO_RESULTS,
    }


def test_me_patch_changes_the_display_name(api_client):
    player = PlayerFactory.create(display_name="Pep")
    _, token = AuthToken.objects.create(player)

    response = authorised(api_client, token).patch(ME, {"display_name": "Pepet"})

    assert response.status_code == 200
    assert response.json()["display_name"] == "Pepet"
    player.refresh_from_db()
    assert player.display_name == "Pepet"


@pytest.mark.parametrize(
    "body, field",
    [({"username": "root"}, "username"), ({"display_name": "x" * 41}, "display_name")],
)
def test_me_patch_rejects_unknown_or_invalid_fields(api_client, body, field):
    player = PlayerFactory.create(username="pep", display_name="Pep")
    _, token = AuthToken.objects.create(player)

    response = authorised(api_client, token).patch(ME, body)

    assert fields_at_fault(assert_problem(response, 400, "invalid_request")) == {field}
    player.refresh_from_db()
    assert (player.username, player.display_name) == ("pep", "Pep")


def test_player_profile_is_public_fields_only(api_client):
    viewer, player = (
        PlayerFactory.create(),
        PlayerFactory.create(username="pep", display_name="Pep"),
    )
    _, token = AuthToken.objects.create(viewer)

    response = authorised(api_client, token).get(f"/api/players/{player.pk}")

    assert response.json() == {
        "id": player.pk,
        "username": "pep",
        "display_name": "Pep",
        "stats": NO_RESULTS,
    }


def test_player_profile_of_no_one_is_a_404(api_client):
    _, token = AuthToken.objects.create(PlayerFactory.create())

    assert_problem(authorised(api_client, token).get("/api/players/999999"), 404, "not_found")


@pytest.mark.parametrize("prefix", ["Bearer", "bearer", "Token"])
def test_a_token_is_accepted_as_bearer_and_as_knox_token(api_client, prefix):
    """RFC 6750's `Bearer`, which the schema declares, and knox's `Token`, which clients send."""
    player = PlayerFactory.create()
    _, token = AuthToken.objects.create(player)
    api_client.credentials(HTTP_AUTHORIZATION=f"{prefix} {token}")

    response = api_client.get(ME)

    assert response.status_code == 200, response.json()
    assert response.json()["id"] == player.pk


@pytest.mark.parametrize("header", ["Bearer", "Bearer a b", "Basic dXNlcjpwYXNz"])
def test_a_malformed_or_foreign_authorization_is_a_401(api_client, header):
    api_client.credentials(HTTP_AUTHORIZATION=header)

    assert_problem(api_client.get(ME), 401, "not_authenticated")

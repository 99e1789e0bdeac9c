"""Public names (players/names.py): none passes for a bot's, none hides or reorders text."""

from __future__ import annotations

import pytest

from tests.factories import PASSWORD
from tests.players.test_accounts_api import ME, REGISTER, assert_problem, authorised

pytestmark = pytest.mark.django_db

BOT_LIKE = ["Bot strong 1", "bot-basic-2", "BOT", "[bot] pep", "bot1", "Ｂｏｔ strong 1"]
HIDDEN = ["pep\u202eved", "\u200bpep", "pep\u2066x\u2069", "pe\u00adp", "pe\u2028p"]


def _field_codes(body: dict) -> dict[str, str]:
    return {error["field"]: error["code"] for error in body["errors"]}


@pytest.mark.parametrize(
    ("name", "code"),
    [(n, "bot_name") for n in BOT_LIKE] + [(n, "invisible_character") for n in HIDDEN],
)
def test_register_refuses_a_display_name_that_deceives(api_client, name, code) -> None:
    response = api_client.post(
        REGISTER, {"username": "pep", "password": PASSWORD, "display_name": name}, format="json"
    )

    # A rule of characters the schema's pattern cannot state: a 422, as for a weak password.
    assert _field_codes(assert_problem(response, 422, "fields_refused")) == {"display_name": code}


@pytest.mark.parametrize("name", ["Bottle", "Botella", "Robot 7", "Pep ❤ Truc", "Àngels"])
def test_register_takes_ordinary_display_names(api_client, name) -> None:
    response = api_client.post(
        REGISTER, {"username": "pep", "password": PASSWORD, "display_name": name}, format="json"
    )

    assert response.status_code == 201, response.json()


def test_profile_change_refuses_a_bot_name_and_keeps_the_old_one(api_client) -> None:
    registered = api_client.post(
        REGISTER, {"username": "pep", "password": PASSWORD, "display_name": "Pep"}, format="json"
    ).json()
    authorised(api_client, registered["token"])

    response = api_client.patch(ME, {"display_name": "Bot strong 1"}, format="json")

    assert _field_codes(assert_problem(response, 422, "fields_refused")) == {
        "display_name": "bot_name"
    }
    assert api_client.get(ME).json()["display_name"] == "Pep"


@pytest.mark.parametrize("username", ["bot.strong.1", "Bot_basic", "BOT"])
def test_a_username_that_reads_as_a_bot_is_taken(api_client, username) -> None:
    """A username is the public name of a player without a display name."""
    response = api_client.post(
        REGISTER, {"username": username, "password": PASSWORD}, format="json"
    )

    assert_problem(response, 409, "username_taken")

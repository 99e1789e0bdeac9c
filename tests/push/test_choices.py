"""A player's choices: the kinds he receives and his quiet hours, read on his own clock."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from push.models import Device, PushKind, PushSettings
from push.rules import quiet, wanted
from tests.push.conftest import SETTINGS


def test_choices_default_to_everything_but_chat(make_client) -> None:
    chosen = make_client().get(SETTINGS).json()

    assert "chat" not in chosen["kinds"] and "your_turn" in chosen["kinds"]
    assert chosen["quiet_from"] is None and chosen["time_zone"] == "UTC"


def test_choices_patch_changes_only_what_is_given(make_client) -> None:
    client = make_client()
    first = client.http.patch(
        SETTINGS,
        {"time_zone": "Europe/Madrid", "quiet_from": "23:00", "quiet_until": "08:00"},
        format="json",
    )
    assert first.status_code == 200, first.json()
    second = client.http.patch(SETTINGS, {"kinds": ["chat", "your_turn"]}, format="json").json()

    assert second["kinds"] == ["chat", "your_turn"]
    assert (second["time_zone"], second["quiet_from"], second["quiet_until"]) == (
        "Europe/Madrid",
        "23:00",
        "08:00",
    )
    cleared = client.http.patch(
        SETTINGS, {"quiet_from": None, "quiet_until": None}, format="json"
    ).json()
    assert cleared["quiet_from"] is None and cleared["kinds"] == ["chat", "your_turn"]


@pytest.mark.parametrize(
    ("body", "status", "field", "code"),
    [
        ({"kinds": ["turn"]}, 400, "kinds.0", "invalid_choice"),
        ({"quiet_from": "25:00", "quiet_until": "08:00"}, 400, "quiet_from", "invalid"),
        ({"snooze": True}, 400, "snooze", "unknown_field"),
        ({"time_zone": "Mars/Olympus"}, 422, "time_zone", "invalid_time_zone"),
        ({"quiet_from": "22:00"}, 422, "quiet_until", "quiet_hours_incomplete"),
    ],
)
def test_choices_patch_refuses_bad_values(make_client, body, status, field, code) -> None:
    client = make_client()
    response = client.http.patch(SETTINGS, body, format="json")

    assert response.status_code == status
    problem = response.json()
    assert problem["code"] == ("invalid_request" if status == 400 else "choices_refused")
    assert (field, code) in {(e["field"], e["code"]) for e in problem["errors"]}, problem
    assert not PushSettings.objects.filter(player=client.player).exists()


def at(hour: int, minute: int = 0) -> datetime:
    return datetime(2026, 7, 1, hour, minute, tzinfo=UTC)


def test_quiet_hours_cross_midnight_on_the_players_clock() -> None:
    # Madrid is UTC+2 in July: 23:00 to 08:00 there is 21:00 to 06:00 UTC.
    chosen = PushSettings(time_zone="Europe/Madrid", quiet_from=time(23), quiet_until=time(8))

    assert quiet(chosen, at(21, 30)) and quiet(chosen, at(5, 59))
    assert not quiet(chosen, at(6, 0)) and not quiet(chosen, at(20, 59))


def test_quiet_hours_within_a_day() -> None:
    chosen = PushSettings(time_zone="UTC", quiet_from=time(13), quiet_until=time(15))
    assert quiet(chosen, at(14)) and not quiet(chosen, at(15)) and not quiet(chosen, at(12))


def test_quiet_hours_let_time_almost_up_through_only_if_chosen(make_client) -> None:
    player = make_client().player
    device = Device.objects.create(player=player, platform="fcm", address="tok")
    PushSettings.objects.create(
        player=player,
        kinds=[PushKind.YOUR_TURN, PushKind.TIME_ALMOST_UP],
        quiet_from=time(0),
        quiet_until=time(23, 59),
    )
    device = Device.objects.select_related("player__push_settings").get(pk=device.pk)
    now = at(12)

    assert not wanted(device, PushKind.YOUR_TURN, now)
    assert not wanted(device, PushKind.TIME_ALMOST_UP, now)
    PushSettings.objects.filter(player=player).update(urgent_in_quiet_hours=True)
    device = Device.objects.select_related("player__push_settings").get(pk=device.pk)
    assert wanted(device, PushKind.TIME_ALMOST_UP, now)
    assert not wanted(device, PushKind.GAME_OVER, at(12))  # not chosen at all

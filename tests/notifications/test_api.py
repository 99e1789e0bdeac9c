"""The webhooks API: subscriptions are the caller's own, the secret is shown once, URLs that
point inward are refused in production, and deliveries can be read and replayed."""

from __future__ import annotations

import uuid

import pytest

from notifications.models import Attempt, Delivery, Kind, Subscription
from tests.notifications.conftest import act, mover, subscribe

SUBSCRIPTIONS = "/api/webhooks/subscriptions"
DELIVERIES = "/api/webhooks/deliveries"


def test_subscription_create_shows_the_secret_once(make_client) -> None:
    client = make_client()
    created = subscribe(client, None, ["your_turn", "match_ended", "your_turn"])

    assert created["secret"].startswith("whsec_") and len(created["secret"]) > 30
    assert created["kinds"] == ["match_ended", "your_turn"]
    listed = client.get(SUBSCRIPTIONS).json()["results"]
    assert [s["id"] for s in listed] == [created["id"]]
    assert "secret" not in listed[0]
    assert "secret" not in client.get(f"{SUBSCRIPTIONS}/{created['id']}").json()


def test_subscription_secrets_differ(make_client) -> None:
    client = make_client()
    assert (
        subscribe(client, None, ["your_turn"])["secret"]
        != subscribe(client, None, ["your_turn"])["secret"]
    )


@pytest.mark.parametrize(
    ("body", "field", "code"),
    [
        ({"url": "https://example.com/x", "kinds": []}, "kinds", "min_length"),
        ({"url": "https://example.com/x", "kinds": ["turn"]}, "kinds", "invalid_choice"),
        ({"url": "https://example.com/x", "kinds": ["your_turn"], "secret": "x"}, "secret", None),
    ],
)
def test_subscription_create_rejects_bad_input(make_client, body, field, code) -> None:
    response = make_client().post(SUBSCRIPTIONS, body)
    assert response.status_code == 400
    problem = response.json()
    assert problem["code"] == "invalid_request"
    assert any(e["field"].split(".")[0] == field for e in problem["errors"]), problem
    if code:
        assert code in {e["code"] for e in problem["errors"]}


@pytest.mark.parametrize(
    "url",
    ["http://127.0.0.1:8000/hook", "http://localhost/hook", "https://10.1.2.3/x", "http://[::1]/"],
)
def test_subscription_private_address_refused_in_production(make_client, settings, url) -> None:
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    response = make_client().post(SUBSCRIPTIONS, {"url": url, "kinds": ["your_turn"]})
    # A URL the schema allows that the server may not call: a 422, not a 400.
    assert response.status_code == 422
    assert response.json()["code"] == "url_refused"
    assert response.json()["errors"][0]["code"] == "private_address"


@pytest.mark.parametrize("url", ["ftp://example.com/x", "not a url", "http://[::1/x"])
def test_subscription_to_another_scheme_is_refused(make_client, url) -> None:
    response = make_client().post(SUBSCRIPTIONS, {"url": url, "kinds": ["your_turn"]})
    assert response.status_code == 422
    assert response.json()["errors"] == [
        {
            "field": "url",
            "code": "invalid_url",
            "message": "Only http and https URLs with a host are accepted.",
        }
    ]


def test_subscription_of_another_player_is_not_found(make_client) -> None:
    owner, other = make_client(), make_client()
    created = subscribe(owner, None, ["your_turn"])
    assert other.get(f"{SUBSCRIPTIONS}/{created['id']}").status_code == 404
    assert other.http.delete(f"{SUBSCRIPTIONS}/{created['id']}").status_code == 404
    assert other.get(SUBSCRIPTIONS).json()["results"] == []
    assert other.get(f"{SUBSCRIPTIONS}/not-a-uuid").json()["code"] == "not_found"


def test_subscription_delete_takes_its_deliveries(table) -> None:
    game_id, clients = table("valenciano", players=2)
    created = [subscribe(client, None, ["your_turn"]) for client in clients]
    seat, action = mover(game_id, clients)
    act(clients[seat], game_id, action)
    assert Delivery.objects.count() == 1

    for client, subscription in zip(clients, created, strict=True):
        response = client.http.delete(f"{SUBSCRIPTIONS}/{subscription['id']}")
        assert response.status_code == 204
    assert Subscription.objects.count() == Delivery.objects.count() == 0


def test_subscription_requires_authentication(client) -> None:
    assert client.get(SUBSCRIPTIONS).status_code == 401


@pytest.fixture
def delivered(table):
    """A your_turn delivery marked delivered after one failed attempt and one good one."""
    game_id, clients = table("valenciano", players=2)
    subscriptions = [subscribe(client, None, ["your_turn"]) for client in clients]
    seat, action = mover(game_id, clients)
    act(clients[seat], game_id, action)
    delivery = Delivery.objects.get()
    Attempt.objects.create(delivery=delivery, number=1, status_code=500, error="HTTP 500")
    Attempt.objects.create(delivery=delivery, number=2, status_code=204)
    Delivery.objects.filter(pk=delivery.pk).update(
        status=Delivery.Status.DELIVERED, attempt_count=2
    )
    receiver = clients[1 - seat]
    return receiver, subscriptions[1 - seat], delivery


def test_deliveries_list_and_read_with_attempts(delivered, make_client) -> None:
    client, subscription, delivery = delivered
    [row] = client.get(DELIVERIES).json()["results"]
    assert row["id"] == str(delivery.pk)
    assert (row["kind"], row["status"], row["subscription"]) == (
        "your_turn",
        "delivered",
        subscription["id"],
    )
    assert [(a["number"], a["status_code"]) for a in row["attempts"]] == [(1, 500), (2, 204)]
    detail = client.get(f"{DELIVERIES}/{delivery.pk}").json()
    assert detail["payload"] == delivery.payload
    assert client.get(f"{DELIVERIES}?status=failed").json()["results"] == []
    assert client.get(f"{DELIVERIES}?kind=your_turn").json()["count"] == 1
    assert make_client().get(f"{DELIVERIES}/{delivery.pk}").status_code == 404


def test_delivery_replay_is_a_new_delivery_of_the_same_body(delivered) -> None:
    client, _, delivery = delivered
    response = client.post(f"{DELIVERIES}/{delivery.pk}/replay")
    assert response.status_code == 202, response.json()
    replay = response.json()
    assert replay["id"] != str(delivery.pk)
    assert (replay["replay_of"], replay["status"], replay["attempts"]) == (
        str(delivery.pk),
        "pending",
        [],
    )
    assert Delivery.objects.get(pk=replay["id"]).payload == delivery.payload
    again = client.post(f"{DELIVERIES}/{replay['id']}/replay")
    assert again.status_code == 409
    assert again.json()["code"] == "delivery_pending"


def test_kind_values_are_the_documented_ones() -> None:
    assert [kind.value for kind in Kind] == [
        "your_turn",
        "call_pending",
        "deadline_near",
        "hand_ended",
        "match_ended",
        # The lobby's (lobby/notices.py)
        "match_found",
        "seek_expired",
        "challenge_received",
        "challenge_accepted",
        "challenge_declined",
        "challenge_cancelled",
        "challenge_expired",
        "rematch_offered",
        "rematch_started",
        "rematch_declined",
    ]


def test_deliveries_filter_by_another_players_subscription_is_like_no_subscription(
    make_client,
) -> None:
    """Another player's subscription id and a random one answer alike: no existence oracle."""
    owner, other = make_client(), make_client()
    theirs = subscribe(owner, None, ["your_turn"])["id"]
    mine = subscribe(other, None, ["your_turn"])["id"]

    foreign = other.get(f"{DELIVERIES}?subscription={theirs}")
    random = other.get(f"{DELIVERIES}?subscription={uuid.uuid4()}")

    # A uuid is what the schema asks for: both are answered, with nothing (the list is his own).
    assert (foreign.status_code, random.status_code) == (200, 200)
    assert (
        foreign.json()
        == random.json()
        == {
            "count": 0,
            "next": None,
            "previous": None,
            "results": [],
        }
    )
    assert other.get(f"{DELIVERIES}?subscription={mine}").status_code == 200
    assert other.get(f"{DELIVERIES}?subscription=nope").status_code == 400  # not a uuid

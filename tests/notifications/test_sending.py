"""One attempt at a delivery, against real sockets: where it connects, how long it may take, what
the subscriber reads back, and unsubscribing while it is in flight. DNS and the route to a public
address are the only things faked (the edge of the world: this machine has no internet)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from datetime import datetime
from typing import Any, cast

import pytest
from django.db import connections
from django.utils import timezone

from notifications import sending
from notifications.models import Attempt, Delivery, Kind, Subscription
from tests.notifications.conftest import act, mover, subscribe
from tests.notifications.receiver import Receiver

DELIVERIES = "/api/webhooks/deliveries"


def _one_delivery(table, receiver: Receiver | None, url: str | None = None) -> Delivery:
    """A pending your_turn delivery to ``url`` (or ``receiver``), due now."""
    game_id, clients = table("valenciano", players=2)
    seat, action = mover(game_id, clients)
    subscribe(clients[1 - seat], receiver, [Kind.YOUR_TURN])
    act(clients[seat], game_id, action)
    if url is not None:
        Subscription.objects.update(url=url)
    delivery = Delivery.objects.select_related("subscription").get()
    delivery.client = clients[1 - seat]  # type: ignore[attr-defined]  # the tests' own
    return delivery


@pytest.fixture
def dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """A resolver for the name ``hooks.example``: its first answer, then its later ones; every
    other name goes to the real resolver. ``answers["asked"]`` counts the questions."""
    real = socket.getaddrinfo
    answers: dict[str, Any] = {"first": "127.0.0.1", "later": "127.0.0.1", "asked": 0}

    def resolve(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "hooks.example":
            return real(host, port, *args, **kwargs)
        answers["asked"] += 1
        address = answers["first"] if answers["asked"] == 1 else answers["later"]
        return real(address, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    return answers


@pytest.fixture
def public_host(monkeypatch: pytest.MonkeyPatch, receiver: Receiver) -> str:
    """A public address whose route leads to ``receiver`` (the network is faked; the sockets
    and the receiver are real)."""
    address = "93.184.215.14"
    real = socket.create_connection

    def connect(where: tuple[str, int], *args: Any, **kwargs: Any) -> socket.socket:
        if where[0] == address:
            where = cast(tuple[str, int], receiver.server.server_address[:2])  # AF_INET's
        return real(where, *args, **kwargs)

    monkeypatch.setattr(socket, "create_connection", connect)
    return address


def test_sending_connects_to_the_address_it_checked_not_a_second_answer(
    table, receiver, settings, dns, public_host
) -> None:
    """DNS rebinding: the name answers a public address to the check and a loopback one after;
    the request goes to the public one, and the internal service never hears of it."""
    internal = Receiver()  # a service of the server's own network, on loopback
    try:
        port = internal.server.server_address[1]
        delivery = _one_delivery(table, receiver, url=f"http://hooks.example:{port}/hook")
        settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
        dns["first"], dns["later"] = public_host, "127.0.0.1"

        assert sending.send(str(delivery.pk)) == Delivery.Status.DELIVERED

        assert internal.received == []
        [request] = receiver.accepted()
        assert request.headers["host"] == f"hooks.example:{port}"
        assert dns["asked"] == 1
    finally:
        internal.close()


@pytest.mark.parametrize(
    "address", ["64:ff9b::7f00:1", "2002:7f00:1::1", "::7f00:1", "ff0e::1", "224.0.1.1"]
)
def test_sending_refuses_an_address_that_stands_for_a_private_one_or_many(
    table, settings, dns, address
) -> None:
    """NAT64, 6to4, IPv4-compatible IPv6 and multicast all look global to ``ipaddress``."""
    delivery = _one_delivery(table, None, url="http://hooks.example/hook")
    settings.WEBHOOK_ALLOW_PRIVATE_ADDRESSES = False
    dns["first"] = address

    outcome = sending.post(delivery)

    assert (outcome.status_code, outcome.error) == (None, sending.ADDRESS_REFUSED)


def test_attempt_shows_the_subscriber_no_error_text_and_no_timing(table) -> None:
    """A closed port and a timeout would read differently (a port scanner): both read the same."""
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now: the connection is refused
    delivery = _one_delivery(table, None, url=f"http://127.0.0.1:{port}/hook")

    sending.send(str(delivery.pk))

    client = delivery.client  # type: ignore[attr-defined]  # the tests' own
    [attempt] = client.get(DELIVERIES).json()["results"][0]["attempts"]
    assert attempt["status_code"] is None
    assert attempt["error"] == sending.NO_ANSWER
    assert attempt["duration_ms"] is None


@pytest.fixture
def slow_receiver() -> Iterator[dict[str, Any]]:
    """A raw receiver: reads the request, waits for ``release`` (at most 20 s), then trickles
    its answer one byte every 0.2 s while ``trickle`` is set."""
    listener = socket.create_server(("127.0.0.1", 0))
    state: dict[str, Any] = {
        "url": f"http://127.0.0.1:{listener.getsockname()[1]}/hook",
        "got_request": threading.Event(),
        "release": threading.Event(),
        "trickle": False,
        "stop": threading.Event(),
    }

    def serve() -> None:
        with listener:
            listener.settimeout(20)
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            with conn:
                conn.recv(65536)
                state["got_request"].set()
                state["release"].wait(20)
                answer = b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"
                if not state["trickle"]:
                    conn.sendall(answer)
                    return
                for byte in answer * 100:
                    if state["stop"].wait(0.2):
                        return
                    try:
                        conn.send(bytes([byte]))
                    except OSError:
                        return

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield state
    state["stop"].set()
    state["release"].set()
    thread.join(25)


def test_attempt_is_cut_off_when_the_answer_trickles_past_the_timeout(
    table, settings, slow_receiver
) -> None:
    """Each byte comes well within the read timeout; the whole answer never does."""
    settings.WEBHOOK_TIMEOUT_SECONDS = 1.0
    slow_receiver["trickle"] = True
    slow_receiver["release"].set()
    delivery = _one_delivery(table, None, url=slow_receiver["url"])
    outcomes: list[sending.Outcome] = []

    started = time.monotonic()
    worker = threading.Thread(target=lambda: outcomes.append(sending.post(delivery)), daemon=True)
    worker.start()
    worker.join(6)

    assert not worker.is_alive(), "the attempt was not cut off"
    assert time.monotonic() - started < 3
    assert (outcomes[0].status_code, outcomes[0].error) == (None, sending.NO_ANSWER)


@pytest.mark.django_db(transaction=True)
def test_unsubscribe_during_an_attempt_answers_at_once_and_the_attempt_is_dropped(
    table, settings, slow_receiver
) -> None:
    settings.WEBHOOK_TIMEOUT_SECONDS = 3.0
    delivery = _one_delivery(table, None, url=slow_receiver["url"])
    results: list[str | None] = []

    def attempt() -> None:
        try:
            results.append(sending.send(str(delivery.pk)))
        finally:
            connections.close_all()

    worker = threading.Thread(target=attempt, daemon=True)
    worker.start()
    assert slow_receiver["got_request"].wait(10)

    started = time.monotonic()
    client = delivery.client  # type: ignore[attr-defined]  # the tests' own
    response = client.http.delete(f"/api/webhooks/subscriptions/{delivery.subscription_id}")
    waited = time.monotonic() - started
    slow_receiver["release"].set()
    worker.join(10)

    assert response.status_code == 204
    assert waited < 1.5  # it did not wait for the receiver
    assert results == [None]  # nothing left to record
    assert not Delivery.objects.exists() and not Attempt.objects.exists()


def test_attempt_and_retry_times_count_from_the_start_not_from_how_long_it_took(
    table, settings, slow_receiver
) -> None:
    """A receiver that never answers holds the attempt WEBHOOK_TIMEOUT_SECONDS: neither the
    attempt's time nor the retry's may show it (they would time the subscriber's network)."""
    settings.WEBHOOK_TIMEOUT_SECONDS = 1.0
    settings.WEBHOOK_RETRY_DELAYS = [60.0]
    delivery = _one_delivery(table, None, url=slow_receiver["url"])
    before = timezone.now()

    sending.send(str(delivery.pk))

    client = delivery.client  # type: ignore[attr-defined]  # the tests' own
    row = client.get(DELIVERIES).json()["results"][0]
    [attempt] = row["attempts"]
    at = datetime.fromisoformat(attempt["at"])
    retry = datetime.fromisoformat(row["next_attempt_at"])
    assert (at - before).total_seconds() < 0.5  # the attempt itself took a second
    assert 60.0 <= (retry - at).total_seconds() <= 66.0 + 0.5  # the delay and its jitter only

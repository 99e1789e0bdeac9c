"""The throttles (truc_api/throttling.py): a burst of the rate's size, then one request per
interval, with one number kept per client."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace
from typing import Any

import pytest
import redis
from django.core.cache import cache

from truc_api.throttling import UserRateThrottle, client_address


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SimpleNamespace:
    now = SimpleNamespace(t=1_000.0)
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "6/min"})  # every 10 s
    monkeypatch.setattr(UserRateThrottle, "timer", lambda self: now.t)
    cache.clear()
    return now


def _asks(player: int) -> tuple[bool, float]:
    throttle = UserRateThrottle()
    request: Any = SimpleNamespace(user=SimpleNamespace(pk=player, is_authenticated=True))
    allowed = throttle.allow_request(request, None)
    return allowed, throttle.wait()


def test_a_burst_of_the_rate_passes_and_the_next_request_waits_one_interval(clock):
    assert [_asks(1)[0] for _ in range(6)] == [True] * 6
    allowed, wait = _asks(1)
    assert not allowed
    assert wait == pytest.approx(10.0)
    assert _asks(2)[0]  # another player counts apart


def test_after_an_interval_one_more_request_passes_and_a_period_refills_the_burst(clock):
    for _ in range(6):
        _asks(1)
    clock.t += 10.0
    assert _asks(1)[0]
    assert not _asks(1)[0]
    clock.t += 60.0
    assert [_asks(1)[0] for _ in range(6)] == [True] * 6
    assert not _asks(1)[0]


def test_a_refused_request_does_not_count(clock):
    for _ in range(7):
        _asks(1)
    clock.t += 10.0
    assert _asks(1)[0]  # the seventh, refused, took nothing


def test_the_cache_keeps_one_number_per_client(clock):
    for _ in range(4):
        _asks(1)

    assert cache.get("throttle_user_1") == pytest.approx(clock.t + 4 * 10.0)  # DRF's key


REDIS = "redis://127.0.0.1:6379/7"


@pytest.fixture
def in_redis(settings, clock):
    """The throttles' cache in Redis, as docker-compose.yml has it (a database of its own)."""
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS,
        }
    }
    cache.clear()
    yield clock
    cache.clear()


def test_in_redis_the_same_burst_and_interval(in_redis):
    assert [_asks(1)[0] for _ in range(6)] == [True] * 6
    allowed, wait = _asks(1)
    assert not allowed and wait == pytest.approx(10.0)
    stored = redis.Redis.from_url(REDIS).get(cache.make_and_validate_key("throttle_user_1"))
    # redis-py's hints give its sync and async clients one result type (a value or an awaitable).
    assert float(stored) == pytest.approx(in_redis.t + 60.0)  # type: ignore[arg-type]  # the script's plain number
    in_redis.t += 10.0
    assert _asks(1)[0]
    assert not _asks(1)[0]
    assert _asks(2)[0]


def test_in_redis_requests_racing_from_threads_never_pass_more_than_the_burst(in_redis):
    with ThreadPoolExecutor(max_workers=8) as pool:
        passed = list(pool.map(lambda _: _asks(3)[0], range(40)))

    assert passed.count(True) == 6  # the script reads and writes at once


def test_in_redis_a_count_kept_in_another_format_counts_as_nothing(in_redis):
    """DRF's list of times, say, left by an earlier version: no error, a fresh count."""
    cache.set("throttle_user_1", [in_redis.t - 1.0] * 3, 60)

    assert [_asks(1)[0] for _ in range(6)] == [True] * 6
    assert not _asks(1)[0]


# --- whose requests count: X-Forwarded-For only from a trusted proxy ----------------------------

LOGIN = "/api/auth/login"


def _wrong_logins(client, forwarded_for, times: int = 11, **meta: str) -> list[int]:
    """``times`` wrong logins, the i-th with the X-Forwarded-For ``forwarded_for(i)``."""
    body = {"username": "nobody", "password": "wrong-password-1"}
    return [
        client.post(
            LOGIN, body, content_type="application/json", HTTP_X_FORWARDED_FOR=forwarded_for(i)
        ).status_code
        for i in range(times)
    ]


@pytest.mark.django_db
def test_a_made_up_forwarded_for_does_not_make_a_new_client(client):
    """From a peer that is no proxy, a new header each time is still the same client."""
    codes = _wrong_logins(client, lambda i: f"198.51.100.{i}")

    assert codes[:10] == [401] * 10  # THROTTLE_RATE_LOGIN: 10 a minute
    assert codes[10] == 429


@pytest.mark.django_db
def test_behind_a_trusted_proxy_each_forwarded_client_counts_apart(client, settings):
    settings.TRUSTED_PROXIES = ["127.0.0.0/8"]  # the test client's peer

    assert _wrong_logins(client, lambda i: f"198.51.100.{i}") == [401] * 11
    # What the client wrote before the proxy's entry is not believed: the proxy saw 203.0.113.9.
    forged = _wrong_logins(client, lambda i: f"10.0.0.{i}, 203.0.113.9")
    assert forged[:10] == [401] * 10 and forged[10] == 429


def test_client_address_skips_every_trusted_hop(settings):
    settings.TRUSTED_PROXIES = ["10.0.0.0/8", "::1"]
    meta = {"REMOTE_ADDR": "::1", "HTTP_X_FORWARDED_FOR": "1.1.1.1, 203.0.113.9, 10.2.3.4"}

    assert client_address(meta) == "203.0.113.9"
    assert client_address({**meta, "REMOTE_ADDR": "192.0.2.1"}) == "192.0.2.1"
    assert client_address({"REMOTE_ADDR": "::1", "HTTP_X_FORWARDED_FOR": "junk"}) == "junk"

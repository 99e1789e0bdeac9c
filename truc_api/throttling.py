"""Request rates with one number kept per client: DRF's throttles, counted as GCRA does.

DRF's throttles keep the time of every request of the last period in a list that each request
reads, trims and writes back whole: at the user rate of 600 a minute, up to 600 floats pickled
and sent to the cache and back on every request (to Redis, in docker-compose.yml): a cost that
grows with the rate allowed and is paid by every request.

Here the count is one "theoretical arrival time" per client (the generic cell rate algorithm):
a rate of N per period lets a burst of N through, then one request every period / N. The same
limits, a float read and written per request: in Redis by a script, in one round trip and at
once; in another cache, like DRF's, in two steps (requests racing from several processes may let
a few more through than the rate says).

Every answer a throttle counted says so in the IETF draft's fields
(draft-ietf-httpapi-ratelimit-headers): ``RateLimit-Policy: "user";q=600;w=60`` (the budget:
``q`` requests a ``w``-second window) and ``RateLimit: "user";r=598;t=2`` (``r`` left now, ``t``
seconds until the whole budget is back), one item per throttle that counted the request
(``RateLimitHeadersMiddleware``).

Whose requests count: an anonymous client is its address, which is the connection's peer unless
that peer is one of ``TRUSTED_PROXIES``; only then does ``X-Forwarded-For`` say who it is (the
nearest address in it that is not a trusted proxy). A client talking to the server directly could
otherwise be a new client with every made-up header (DRF trusts the header whole by default).
"""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.redis import RedisCache
from django.http import HttpRequest, HttpResponse
from django.utils.connection import ConnectionProxy
from redis.commands.core import Script
from rest_framework import throttling
from rest_framework.request import Request

if TYPE_CHECKING:  # DRF's views import its settings, which import these throttles
    from rest_framework.views import APIView


@dataclass(frozen=True)
class Budget:
    """One throttle's count of one request: its policy, and what is left of it."""

    name: str  # the throttle's scope: anon, user, login, actions
    quota: int
    window: int
    remaining: int
    reset: int


class _Cell(throttling.SimpleRateThrottle):
    wait_seconds = 0.0
    # DRF's __init__ sets both from the rate (parse_rate); its stubs leave them out. Read only
    # once a rate is set.
    num_requests: int
    duration: int

    def allow_request(self, request: Request, view: APIView) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        interval = self.duration / self.num_requests
        backend = _backend(self.cache)
        if isinstance(backend, RedisCache):
            wait, due = _in_redis(backend, self.key, now, interval, self.duration)
        else:
            due = max(backend.get(self.key, now), now)  # when this client's rate catches up
            wait = due - now - (self.duration - interval)  # > 0: a period's burst is used up
            if wait <= 0:
                backend.set(self.key, due + interval, self.duration)
        self.wait_seconds = max(wait, 0.0)
        allowed = wait <= 0
        if allowed:
            due += interval  # this request's share
        _counted(request, self._budget(now, due, interval))
        return allowed

    def _budget(self, now: float, due: float, interval: float) -> Budget:
        """What is left once ``due`` is this client's catch-up time: the burst the window
        still holds, and the seconds until it is whole again."""
        left = int((now + self.duration - due) // interval)
        return Budget(
            name=str(getattr(self, "scope", "") or "default"),
            quota=self.num_requests,
            window=self.duration,
            remaining=max(0, min(self.num_requests, left)),
            reset=max(0, math.ceil(due - now)),
        )

    def wait(self) -> float:
        return self.wait_seconds

    def get_ident(self, request: Request) -> str:
        return client_address(request.META)


def client_address(meta: dict[str, Any]) -> str:
    """The client's address: the peer's, or, behind a trusted proxy, the nearest address in
    X-Forwarded-For that is not a trusted proxy's (each proxy appends the peer it saw)."""
    address = str(meta.get("REMOTE_ADDR", ""))
    if not _trusted(address):
        return address
    for hop in reversed(str(meta.get("HTTP_X_FORWARDED_FOR", "")).split(",")):
        address = hop.strip()
        if not _trusted(address):
            break
    return address


def _trusted(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False  # not an address (a made-up header, a Unix socket): never a proxy
    return any(ip in network for network in _trusted_networks(tuple(settings.TRUSTED_PROXIES)))


@cache
def _trusted_networks(
    proxies: tuple[str, ...],
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    return tuple(ipaddress.ip_network(proxy, strict=False) for proxy in proxies)


# Each after DRF's own class, which says whose requests count (and, scoped, at which rate).
class AnonRateThrottle(throttling.AnonRateThrottle, _Cell):
    pass


class UserRateThrottle(throttling.UserRateThrottle, _Cell):
    pass


class ScopedRateThrottle(throttling.ScopedRateThrottle, _Cell):
    pass


# The same steps in Redis, in one round trip and at once (no request can slip in between).
_GCRA = """
local now, interval, period = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
-- anything but a number there (none yet, or another format's count) counts as nothing
local due = math.max(tonumber(redis.call('GET', KEYS[1])) or now, now)
local wait = due - now - (period - interval)
if wait <= 0 then
    redis.call('SET', KEYS[1], tostring(due + interval), 'PX', math.ceil(period * 1000))
end
return {tostring(wait), tostring(due)}
"""


def _backend(cache: Any) -> Any:
    """The cache itself, behind ``django.core.cache.cache`` (DRF's throttles' default)."""
    return caches[cache._alias] if isinstance(cache, ConnectionProxy) else cache


def _in_redis(
    cache: RedisCache, key: str, now: float, interval: float, period: float
) -> tuple[float, float]:
    """The wait before the request may pass (<= 0: it passes, and is counted), and when the
    client's rate caught up before it. The key holds a plain number, which only this script
    reads."""
    full_key = cache.make_and_validate_key(key)
    client = cache._cache.get_client(full_key, write=True)  # a new client each time: Django's
    wait, due = _SCRIPT(
        keys=[full_key], args=[repr(now), repr(interval), repr(period)], client=client
    )
    return float(wait), float(due)


# --- The answers' RateLimit-Policy and RateLimit fields ------------------------------------------

#: Where a request's counts wait for its answer (on Django's request, under DRF's).
_BUDGETS = "truc_rate_limits"


def _counted(request: Any, budget: Budget) -> None:
    django_request = getattr(request, "_request", request)  # DRF's Request wraps Django's
    if isinstance(django_request, HttpRequest):
        budgets: list[Budget] = getattr(django_request, _BUDGETS, [])
        setattr(django_request, _BUDGETS, [*budgets, budget])


class RateLimitHeadersMiddleware:
    """Writes the counts the throttles made of a request into its answer (a 429 too)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        budgets: list[Budget] = getattr(request, _BUDGETS, [])
        if budgets:
            response["RateLimit-Policy"] = ", ".join(
                f'"{b.name}";q={b.quota};w={b.window}' for b in budgets
            )
            response["RateLimit"] = ", ".join(
                f'"{b.name}";r={b.remaining};t={b.reset}' for b in budgets
            )
        return response


# Called by its digest; sent to Redis once, the first time Redis does not know it. No client
# here (each call names its own), which redis-py's hints do not allow for.
_SCRIPT = Script(None, _GCRA.encode())  # type: ignore[arg-type]

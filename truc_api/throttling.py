"""Request rates with one number kept per client: DRF's throttles, counted as GCRA does.

DRF's throttles keep the time of every request of the last period in a list that each request
reads, trims and writes back whole: at the user rate of 600 a minute, up to 600 floats pickled
and sent to the cache and back on every request (to Redis, in docker-compose.yml). That cost
15-25 % of the actions a second in bench/http_load.py with ``--cache-url`` (bench/README.md).

Here the count is one "theoretical arrival time" per client (the generic cell rate algorithm):
a rate of N per period lets a burst of N through, then one request every period / N. The same
limits, a float read and written per request. Like DRF's, the read and the write are two steps:
requests racing from several processes may let a few more through than the rate says.
"""

from __future__ import annotations

from typing import Any

from rest_framework import throttling


class _Cell(throttling.SimpleRateThrottle):
    wait_seconds = 0.0

    def allow_request(self, request: Any, view: Any) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        now = self.timer()
        interval = self.duration / self.num_requests
        due = max(self.cache.get(self.key, now), now)  # when this client's rate catches up
        ahead = due - now
        if ahead > self.duration - interval:  # a whole period's burst is used up
            self.wait_seconds = ahead - (self.duration - interval)
            return False
        self.cache.set(self.key, due + interval, self.duration)
        return True

    def wait(self) -> float:
        return self.wait_seconds


# Each after DRF's own class, which says whose requests count (and, scoped, at which rate).
class AnonRateThrottle(throttling.AnonRateThrottle, _Cell):
    pass


class UserRateThrottle(throttling.UserRateThrottle, _Cell):
    pass


class ScopedRateThrottle(throttling.ScopedRateThrottle, _Cell):
    pass

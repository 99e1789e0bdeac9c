"""Fixtures and settings shared by every test. `make test` runs them on PostgreSQL and Redis."""

from collections.abc import Iterator

import pytest
from django.core.cache import cache
from hypothesis import settings as hypothesis_settings

pytest_plugins = ["tests.celery_fixtures"]

# These shared 2-core machines drift in speed by a third within minutes: a per-example deadline
# there only adds flaky failures. A test that needs one still sets it with @settings(deadline=...).
hypothesis_settings.register_profile("truc", deadline=None)
hypothesis_settings.load_profile("truc")


@pytest.fixture(autouse=True)
def _isolated_cache() -> Iterator[None]:
    """Throttle counters live in the cache: no test may inherit another's."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings) -> None:
    # The default PBKDF2 costs ~0.35 s a hash on these machines; the tests hash dozens of times.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

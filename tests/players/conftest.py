"""Fixtures for the accounts tests; tests/conftest.py already clears the cache around each one."""

import pytest
from rest_framework.test import APIClient


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # The default PBKDF2 costs ~0.35 s a hash on these machines; the tests hash dozens of times.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()

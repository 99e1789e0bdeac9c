"""Fixtures for the accounts tests; tests/conftest.py already clears the cache around each one."""

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def api_client() -> APIClient:
    return APIClient()

"""Fixtures for the lobby's tests: the games' HTTP clients, and helpers to play a game out."""

from __future__ import annotations

from tests.games.conftest import Client, make_client, table  # noqa: F401  (fixtures)

__all__ = ["Client"]

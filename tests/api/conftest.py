"""The contract tests: the games tests' clients and started tables."""

from tests.games.conftest import make_client, table  # noqa: F401  (fixtures)

"""The settings load with no environment at all and fall back to the embedded defaults."""

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

_SHOW_SETTINGS = """
import json, os
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")
import django
django.setup()
from django.conf import settings
db = settings.DATABASES["default"]
print(json.dumps({
    "engine": db["ENGINE"], "name": str(db["NAME"]), "conn_max_age": db["CONN_MAX_AGE"],
    "debug": settings.DEBUG, "allowed_hosts": settings.ALLOWED_HOSTS,
    "broker": settings.CELERY_BROKER_URL, "eager": settings.CELERY_TASK_ALWAYS_EAGER,
}))
"""


def _settings_in(environment: dict[str, str]) -> dict[str, object]:
    """Import the settings in a fresh interpreter whose whole environment is `environment`."""
    result = subprocess.run(
        [sys.executable, "-c", _SHOW_SETTINGS],
        cwd=REPO,
        env={"PATH": os.environ.get("PATH", ""), **environment},
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    loaded: dict[str, object] = json.loads(result.stdout.splitlines()[-1])
    return loaded


def test_settings_empty_environment_runs_on_sqlite_and_eager_tasks() -> None:
    loaded = _settings_in({})

    assert loaded["engine"] == "django.db.backends.sqlite3"
    assert loaded["name"] == str(REPO / "db.sqlite3")
    assert loaded["conn_max_age"] == 60
    assert loaded["debug"] is False
    assert loaded["allowed_hosts"] == ["localhost", "127.0.0.1", "[::1]", "testserver"]
    assert loaded["broker"] == "memory://"
    assert loaded["eager"] is True


def test_settings_environment_selects_postgresql_and_a_real_broker() -> None:
    loaded = _settings_in(
        {
            "DATABASE_URL": "postgres://truc:secret@db:5432/truc_api",
            "CELERY_BROKER_URL": "redis://redis:6379/0",
            "ALLOWED_HOSTS": "api.example.org",
        }
    )

    assert loaded["engine"] == "truc_api.postgresql"  # Django's, checked more cheaply
    assert loaded["name"] == "truc_api"
    assert loaded["allowed_hosts"] == ["api.example.org"]
    assert loaded["eager"] is False

"""The settings load with no environment at all and fall back to the embedded defaults."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

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


def _run(script: str, environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """Run `script` in a fresh interpreter whose whole environment is `environment`."""
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        env={"PATH": os.environ.get("PATH", ""), **environment},
        capture_output=True,
        text=True,
        check=False,
    )


def _settings_in(environment: dict[str, str]) -> dict[str, object]:
    """Import the settings with no environment but `environment`."""
    result = _run(_SHOW_SETTINGS, environment)
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


_SHOW_LOGGING = """
import json, os, warnings
warnings.simplefilter("error")  # a warning at start-up fails the run
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")
import django
django.setup()
from django.conf import settings
from django.core.handlers.wsgi import WSGIHandler
WSGIHandler()  # builds the middleware, whitenoise's included
renderers = settings.LOGGING["formatters"]["structlog"]["processors"]
print(json.dumps({
    "format": settings.LOG_FORMAT,
    "renderer": type(renderers[-1]).__name__,
    "broker_options": getattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS", {}),
}))
"""


def _started_in(environment: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return _run(_SHOW_LOGGING, environment)


def test_settings_log_json_lines_off_a_terminal_and_readable_lines_in_debug(tmp_path) -> None:
    """Output to a pipe (a container's) is JSON; DEBUG or LOG_FORMAT=console (make run) reads."""
    missing = {"STATIC_ROOT": str(tmp_path / "no-collectstatic-ran")}
    production = _started_in(missing)
    debug = _started_in({**missing, "DEBUG": "true"})
    console = _started_in({**missing, "LOG_FORMAT": "console"})

    for started in (production, debug, console):
        assert started.returncode == 0, started.stderr  # no warning, whitenoise's included
    assert json.loads(production.stdout)["renderer"] == "JSONRenderer"
    assert json.loads(debug.stdout)["renderer"] == "ConsoleRenderer"
    assert json.loads(console.stdout)["renderer"] == "ConsoleRenderer"


def test_settings_refuse_an_unknown_log_format() -> None:
    started = _started_in({"LOG_FORMAT": "xml"})

    assert started.returncode != 0
    assert "LOG_FORMAT is json or console" in started.stderr


def test_settings_keep_the_folder_broker_under_its_folder(tmp_path) -> None:
    """kombu's control folder defaults to `control` in the working directory: the repository."""
    started = _started_in(
        {"CELERY_BROKER_URL": "filesystem://localhost/", "CELERY_BROKER_FOLDER": str(tmp_path)}
    )

    assert started.returncode == 0, started.stderr
    options = json.loads(started.stdout)["broker_options"]
    assert options["control_folder"] == str(tmp_path / "control")
    assert options["data_folder_in"] == options["data_folder_out"] == str(tmp_path)


def test_serve_refuses_the_development_key_off_loopback(settings) -> None:
    from django.core.management.base import CommandError

    from games.management.commands.serve import refuse_insecure_key_off_loopback

    settings.SECRET_KEY = settings.INSECURE_DEV_SECRET_KEY
    refuse_insecure_key_off_loopback("127.0.0.1")
    with pytest.raises(CommandError, match="set SECRET_KEY"):
        refuse_insecure_key_off_loopback("0.0.0.0")
    settings.SECRET_KEY = "a-key-of-this-deployment-only"
    refuse_insecure_key_off_loopback("0.0.0.0")


def test_env_example_documents_every_variable_compose_reads() -> None:
    compose = (REPO / "docker-compose.yml").read_text()
    example = (REPO / ".env.example").read_text()

    read = set(re.findall(r"\$\{([A-Z_]+)", compose))
    documented = set(re.findall(r"^([A-Z_]+)=", example, re.MULTILINE))
    assert read == documented


def test_dockerignore_leaves_out_what_runs_locally() -> None:
    ignored = set((REPO / ".dockerignore").read_text().split())

    assert {".run", "control", ".venv", ".env", "db.sqlite3", ".git"} <= ignored


def test_configuration_page_documents_every_variable_the_settings_read() -> None:
    settings_source = (REPO / "truc_api" / "settings.py").read_text()
    page = (REPO / "docs" / "configuration.md").read_text()

    read = set(re.findall(r'env\.\w+\(\s*"([A-Z_]+)"', settings_source))
    settings_part = page.split("## Run-time switches outside the settings")[0]
    documented = set(re.findall(r"^\| `([A-Z_]+)`(?:, `([A-Z_]+)`)?", settings_part, re.MULTILINE))
    assert read == {name for row in documented for name in row if name}

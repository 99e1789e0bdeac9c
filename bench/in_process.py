"""What the benches that run Django in their own process share: a PostgreSQL database of their
own, dropped and made anew on 127.0.0.1:5432, Django set up on it with an in-memory broker (no
worker: queued tasks are not run), and the migrations applied."""

from __future__ import annotations

import os
import subprocess

import django
from django.core.management import call_command


def setup_django(db: str, **env: str) -> None:
    """Make ``db`` anew and set Django up on it; ``env`` adds or overrides settings' variables."""
    for sql in (f"DROP DATABASE IF EXISTS {db}", f"CREATE DATABASE {db}"):
        subprocess.run(["psql", "-h", "127.0.0.1", "-U", "postgres", "-qc", sql], check=True)
    os.environ.update(
        {
            "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{db}",
            "CELERY_BROKER_URL": "memory://",
            "DJANGO_SETTINGS_MODULE": "truc_api.settings",
            "LOG_LEVEL": "WARNING",
            **env,
        }
    )
    django.setup()
    call_command("migrate", verbosity=0)

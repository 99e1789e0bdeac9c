"""The embedded default: `make run` serves on SQLite with no configuration."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_a_game_plays_through_the_api_on_sqlite(tmp_path):
    env = {
        **os.environ,
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "memory://",
        "DJANGO_SETTINGS_MODULE": "truc_api.settings",
        "LOG_LEVEL": "WARNING",
        # This checkout's code, whichever checkout the venv's editable install points at.
        "PYTHONPATH": str(ROOT),
    }
    env.pop("CACHE_URL", None)

    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "sqlite_smoke.py")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )

    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1].startswith("ok: ")

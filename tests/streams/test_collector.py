"""The streams process's garbage collector is tuned where the process starts (truc_api/asgi.py,
truc_api/collector.py): checked in a fresh process that imports the ASGI entry point, as granian's
worker does, with the settings on and switched off."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.streams.servers import REPO

#: Run in the new process: what the collector looks like once the entry point is imported, and
#: whether a view (loaded through the URLs) is still among the objects collections walk.
PROBE = """
import gc, json
import truc_api.asgi
from streams.views import game_stream_view
walked = any(found is game_stream_view for found in gc.get_objects())
print(json.dumps([gc.get_threshold()[0], gc.get_freeze_count(), walked]))
"""


def _started(**settings: str) -> tuple[int, int, bool]:
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "truc_api.settings", **settings}
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", PROBE],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    threshold, frozen, walked = json.loads(done.stdout.splitlines()[-1])
    return threshold, frozen, walked


def test_collector_streams_process_freezes_start_up_and_raises_the_young_threshold() -> None:
    threshold, frozen, walked = _started(STREAMS_GC_FREEZE="true", STREAMS_GC_THRESHOLD="40000")
    assert threshold == 40000
    assert frozen > 10_000  # Django, the apps and their modules
    assert not walked  # the views were loaded before the freeze


def test_collector_switched_off_leaves_pythons_defaults() -> None:
    threshold, frozen, walked = _started(STREAMS_GC_FREEZE="false", STREAMS_GC_THRESHOLD="0")
    assert threshold == 700
    assert frozen == 0
    assert walked

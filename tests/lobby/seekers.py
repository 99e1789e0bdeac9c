"""A process of seekers for the pairing proof (test_pairing_concurrency.py).

Run as ``python -m tests.lobby.seekers PLAN READY GO`` with DATABASE_URL naming the test
database: once Django is set up it creates the file READY and waits for the file GO, then creates
every seek of the JSON file PLAN through the lobby's service, as a server process would on each
arrival (each seek's own pairing pass runs at once), confirming a pair's partner right after.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def main(plan_path: str, ready: str, go: str) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "truc_api.settings")
    import django

    django.setup()
    from lobby import seeks
    from players.models import Player

    with open(plan_path, encoding="utf-8") as file:
        plan = json.load(file)
    players = Player.objects.in_bulk([entry["player"] for entry in plan])
    partners = Player.objects.in_bulk([e["partner"] for e in plan if e.get("partner")])
    Path(ready).touch()
    while not Path(go).exists():
        time.sleep(0.01)
    for entry in plan:
        request = seeks.SeekRequest(**entry["request"])
        seek = seeks.create_seek(players[entry["player"]], request)
        if entry.get("partner"):
            seeks.confirm_partner(partners[entry["partner"]], seek.pk)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])

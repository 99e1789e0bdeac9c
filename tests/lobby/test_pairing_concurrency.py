"""The pairing proof: seekers arriving at once in two server processes, with a real Celery worker
running the periodic pass beside them, on real PostgreSQL, produce only valid tables.

Every seeker ends in at most one game, no seek is matched twice, every table is one pool's and
its rating windows held when it was made, nobody sits with a player who blocks him or whom he
blocks, partners share a side, expired seeks are never paired, and once the passes are over no
two waiting seekers of a 2-player pool could still have been paired.

``TRUC_LOBBY_SEEKERS`` sets how many seekers arrive: 40 in the default run (the machine's load
makes 200 take a minute), 200 for the proof the issue asks for (docs/testing.md).
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import time
from collections import Counter, defaultdict
from datetime import timedelta
from pathlib import Path

import pytest
from django.db import connection
from django.db.models import F
from django.utils import timezone

from games.models import Game, Seat
from lobby import pairing, seeks
from lobby.models import QueueEntry, Seek
from lobby.tasks import sweep_lobby
from players.models import Block, Player, Rating
from tests.celery_fixtures import eventually

REPO = Path(__file__).resolve().parents[2]
SEEKERS = int(os.environ.get("TRUC_LOBBY_SEEKERS", "40"))
DAY = 86_400  # no turn-clock task: the games wait for moves nobody makes here


def _plan(rng: random.Random) -> tuple[list[dict], list[tuple[int, int]]]:
    """Who seeks what: two pools of 2 and one of 4 (a tenth of its seekers in pairs), ratings
    spread over 600 points, some narrow explicit ranges, a few short-lived seeks, some blocks."""
    count = SEEKERS
    players = Player.objects.bulk_create(
        Player(username=f"seeker{number}", display_name="") for number in range(count)
    )
    for player in players:
        Rating.objects.create(
            player=player, family="valenciano", size="1v1", value=rng.randint(1200, 1800)
        )
        Rating.objects.create(
            player=player, family="argentino", size="2v2", value=rng.randint(1300, 1700)
        )
    ids = [player.pk for player in players]
    rng.shuffle(ids)
    plan: list[dict] = []
    two = {"preset": "valenciano", "players": 2, "turn_seconds": DAY, "rated": True}
    four = {"preset": "argentino", "players": 4, "turn_seconds": DAY, "rated": True}
    casual = {**two, "rated": False}
    cut_two, cut_four = int(count * 0.55), int(count * 0.9)
    for index, player_id in enumerate(ids[:cut_two]):
        request: dict = dict(two)
        if index % 10 == 0:  # a narrow range of his own
            low = rng.randint(1200, 1750)
            request |= {"rating_min": low, "rating_max": low + 40}
        if index % 17 == 0:
            request["expires_in"] = 5
        plan.append({"player": player_id, "request": request})
    four_ids = ids[cut_two:cut_four]
    pairs = len(four_ids) // 10
    for index in range(pairs):
        player_id, partner_id = four_ids[2 * index], four_ids[2 * index + 1]
        plan.append(
            {
                "player": player_id,
                "partner": partner_id,
                "request": {**four, "partner_id": partner_id},
            }
        )
    plan += [{"player": player, "request": dict(four)} for player in four_ids[2 * pairs :]]
    plan += [{"player": player, "request": dict(casual)} for player in ids[cut_four:]]
    rng.shuffle(plan)
    blocks = [(ids[i], ids[i + 1]) for i in range(0, min(count, 60), 6)]  # within the 2-pool
    Block.objects.bulk_create(Block(blocker_id=a, blocked_id=b) for a, b in blocks)
    return plan, blocks


def _run_processes(plan: list[dict], tmp_path: Path, worker) -> None:
    name = connection.settings_dict["NAME"]
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://postgres@127.0.0.1:5432/{name}",
        "PYTHONPATH": str(REPO),
    }
    go = tmp_path / "go"
    processes: list[subprocess.Popen[bytes]] = []
    ready: list[Path] = []
    for half in (plan[0::2], plan[1::2]):
        path = tmp_path / f"plan{len(processes)}.json"
        path.write_text(json.dumps(half), encoding="utf-8")
        ready.append(tmp_path / f"ready{len(processes)}")
        seekers = [sys.executable, "-m", "tests.lobby.seekers"]
        command = [*seekers, str(path), str(ready[-1]), str(go)]
        processes.append(
            subprocess.Popen(
                command, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
            )
        )
    # Both processes have set Django up: the seekers arrive at once.
    assert eventually(lambda: all(flag.exists() for flag in ready), timeout=120)
    go.touch()
    # The periodic pass, in the real worker, while the seekers arrive.
    sent = len(worker.done)
    while any(process.poll() is None for process in processes):
        # At most two passes in flight, so that none is left queued when the test ends (a task
        # the worker had reserved would go back to the broker for the next test's worker).
        if sent - len(worker.done) < 2:
            sweep_lobby.delay()
            sent += 1
        time.sleep(0.15)
    for process in processes:
        out, err = process.communicate()
        assert process.returncode == 0, err.decode()[-3000:]
    assert worker.wait_for(sent, timeout=60) and len(worker.done) == sent


@pytest.mark.django_db(transaction=True)
def test_seekers_arriving_at_once_in_two_processes_make_only_valid_tables(
    celery_worker_thread, tmp_path
):
    plan, blocks = _plan(random.Random(15))
    _run_processes(plan, tmp_path, celery_worker_thread)
    # The worker's passes are done: one more from here, as the beat's next would.
    seeks.sweep()

    matched = list(Seek.objects.filter(status=Seek.Status.MATCHED))
    assert matched, "nobody was paired"
    _every_seeker_in_at_most_one_game(plan, matched)
    _every_table_is_valid(matched, frozenset(blocks))
    _expired_seeks_were_never_paired()
    _no_two_waiting_seekers_could_still_pair(frozenset(blocks))


def _every_seeker_in_at_most_one_game(plan: list[dict], matched: list[Seek]) -> None:
    seekers = [entry["player"] for entry in plan] + [e["partner"] for e in plan if "partner" in e]
    assert Seek.objects.count() == len(plan)  # each arrival made one seek, none twice
    seats = Counter(Seat.objects.values_list("player_id", flat=True))
    assert max(seats.values()) == 1, "a seeker sits at two tables"
    assert set(seats) <= set(seekers)
    games = {seek.game_id for seek in matched}
    assert Game.objects.count() == len(games)  # every game made belongs to matched seeks
    assert all(Game.objects.get(pk=game).status == Game.Status.ACTIVE for game in games)
    by_game: dict = defaultdict(list)
    for seek in matched:
        by_game[seek.game_id].extend(seek.seekers)
    for game, players in by_game.items():
        seated = set(Seat.objects.filter(game_id=game).values_list("player_id", flat=True))
        assert seated == set(players) and len(players) == len(seated)
    waiting = Seek.objects.filter(status=Seek.Status.OPEN)
    queued = set(QueueEntry.objects.values_list("player_id", flat=True))
    assert queued == {player for seek in waiting for player in seek.seekers}
    assert not queued & set(seats), "a seated seeker still waits"


def _every_table_is_valid(matched: list[Seek], blocks: frozenset) -> None:
    widening = seeks.widening()
    by_game: dict = defaultdict(list)
    for seek in matched:
        by_game[seek.game_id].append(seek)
    for game_id, table in by_game.items():
        game = Game.objects.get(pk=game_id)
        assert len({seek.pool for seek in table}) == 1
        assert sum(len(seek.seekers) for seek in table) == game.players == table[0].players
        assert game.rated == table[0].rated and game.preset == table[0].preset
        units = [seeks._unit(seek) for seek in table]
        made = max(seek.ended_at for seek in table)
        assert pairing.compatible(units, made, widening, blocks), f"window or block: {game_id}"
        assert all(seek.ended_at <= seek.expires_at for seek in table)
        seats = dict(Seat.objects.filter(game=game).values_list("player_id", "number"))
        for seek in table:
            if seek.partner_id:
                assert seats[seek.player_id] % 2 == seats[seek.partner_id] % 2


def _expired_seeks_were_never_paired() -> None:
    later = timezone.now() + timedelta(seconds=6)
    seeks.sweep(now=later)
    short = Seek.objects.filter(expires_at__lte=later)
    assert short.exists()
    assert set(short.values_list("status", flat=True)) <= {"matched", "expired"}
    assert not short.filter(status="matched", ended_at__gt=F("expires_at")).exists()


def _no_two_waiting_seekers_could_still_pair(blocks: frozenset) -> None:
    now = timezone.now()
    widening = seeks.widening()
    for pool in seeks.open_pools():
        waiting = [seeks._unit(s) for s in Seek.objects.filter(status="open", pool=pool)]
        if Seek.objects.filter(pool=pool).first().players != 2:
            continue
        for index, unit in enumerate(waiting):
            for other in waiting[index + 1 :]:
                assert not pairing.compatible([unit, other], now, widening, blocks)

"""How much the database grows per action and per finished match.

    python -m bench.growth [--matches 20] [--seed 0]

Makes its own PostgreSQL database (``truc_bench_growth`` on 127.0.0.1:5432, dropped and made
anew), plays ``--matches`` whole 2-player valenciano matches through the services (random legal
actions, each with its idempotency record, as the API stores them), runs ``VACUUM ANALYZE`` and
reports each table's size (``pg_total_relation_size``: rows, indexes, TOAST) per action and per
match, and what the purge of idempotency records (``IDEMPOTENCY_HOURS``) gives back. Figures in
README.md ("What grows").
"""

from __future__ import annotations

import argparse
import random
import uuid

from bench.in_process import setup_django

DB = "truc_bench_growth"
TABLES = (
    "games_gameevent",
    "games_game",
    "games_seat",
    "games_handrecord",
    "games_camarecord",
    "games_handsnapshot",
    "games_idempotencyrecord",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    setup_django(DB, CELERY_TASK_ALWAYS_EAGER="false")
    from django.db import connection

    before = _sizes()
    rng = random.Random(args.seed)
    actions = sum(_match(number, rng) for number in range(args.matches))
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
    grown = {table: size - before[table] for table, size in _sizes().items()}
    total = sum(grown.values())
    print(f"{args.matches} matches, {actions} actions ({actions / args.matches:.0f} a match)")
    print(f"{'table':28} {'bytes/action':>12} {'KB/match':>9}")
    for table, size in grown.items():
        print(f"{table:28} {size / actions:12.0f} {size / args.matches / 1024:9.1f}")
    kept = total - grown["games_idempotencyrecord"]
    print(f"{'all':28} {total / actions:12.0f} {total / args.matches / 1024:9.1f}")
    print(
        f"{'all, idempotency purged':28} {kept / actions:12.0f} {kept / args.matches / 1024:9.1f}"
    )


def _sizes() -> dict[str, int]:
    from django.db import connection

    with connection.cursor() as cursor:
        found = {}
        for table in TABLES:
            cursor.execute("SELECT pg_total_relation_size(%s)", [table])
            found[table] = int(cursor.fetchone()[0])
        return found


def _match(number: int, rng: random.Random) -> int:
    """One whole match through the services; the actions it took."""
    from games import engine, services
    from games.store.log import load_state
    from players.models import Player

    a, b = (Player.objects.create(username=f"g{number}-{side}") for side in "ab")
    game = services.create_game(a, preset="valenciano", options={}, players=2, visibility="public")
    services.join_game(b, game.pk)
    players, actions = (a, b), 0
    while True:
        game.refresh_from_db()
        if game.status != "active":
            return actions
        state = load_state(game)
        seat = next(s for s in range(2) if engine.legal_actions(state, s))
        action = rng.choice(engine.legal_actions(state, seat)).to_json()
        body = {**action, "expected_version": state.version}
        services.act(players[seat], game.pk, body, str(uuid.uuid4()))
        actions += 1


if __name__ == "__main__":
    main()

"""Celery tasks of the game server: they take ids, are idempotent, and are sent after commit."""

from __future__ import annotations

from celery import shared_task

from games import bot_players, open_tables, timeouts


@shared_task(name="games.tasks.apply_timeout")
def apply_timeout(game_id: str, version: int) -> bool:
    """A turn's deadline: a no-op unless the game is still at ``version`` and overdue."""
    return timeouts.apply_timeout(game_id, version)


@shared_task(name="games.tasks.bot_move")
def bot_move(game_id: str, version: int, seat: int) -> bool:
    """A bot's turn: a no-op unless the game is still at ``version`` with that seat to act."""
    return bot_players.move(game_id, version, seat)


@shared_task(name="games.tasks.sweep_overdue_turns")
def sweep_overdue_turns() -> int:
    """The periodic sweep: applies any overdue deadline a lost or late task left behind, and
    sends again the moves of bots whose task seems lost."""
    for game_id, version, seat in bot_players.stalled():
        bot_move.delay(str(game_id), version, seat)
    return timeouts.sweep()


@shared_task(name="games.tasks.expire_open_games")
def expire_open_games() -> int:
    """The periodic pass that aborts the open games that waited too long (games/open_tables.py)."""
    return open_tables.expire()

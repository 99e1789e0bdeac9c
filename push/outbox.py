"""The push outbox: which pushes a transaction's causes make, written in that transaction.

A game's save (``games.signals.recorded_together``), a reminder (``notifications.signals.
deadline_near``), a rating (``games.signals.game_rated``) and the lobby's notices (``tell``) each
write one ``Push`` per cause and device of the players they concern, the player's choices
permitting (``rules.wanted``); the unique key on (cause, device) makes a second one impossible,
whoever writes it. Each is sent after commit and ``PUSH_DELAY_SECONDS`` (``sending.py``), when
it is checked again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.utils import timezone

from games import signals
from games.models import Game, GameId, Seat
from games.store.log import seats_of
from notifications import outbox as webhooks
from notifications import signals as notices
from notifications.models import Kind
from players.models import Block
from push import rules, sending
from push.models import Device, Push, PushKind
from push.texts import words_of

#: The lobby's notices that are pushed, and as which kind.
LOBBY_KINDS = {
    Kind.MATCH_FOUND: PushKind.MATCH_FOUND,
    Kind.CHALLENGE_RECEIVED: PushKind.CHALLENGE_RECEIVED,
    Kind.CHALLENGE_ACCEPTED: PushKind.CHALLENGE_ACCEPTED,
    Kind.REMATCH_OFFERED: PushKind.REMATCH_OFFERED,
}


def follow_games() -> None:
    signals.recorded_together.connect(on_recorded_together, sender=Game, dispatch_uid="push.outbox")
    signals.game_rated.connect(on_rated, sender=Game, dispatch_uid="push.outbox.rated")
    notices.deadline_near.connect(on_deadline_near, dispatch_uid="push.outbox.deadline")


def on_recorded_together(sender: Any, recorded: Sequence[signals.Recorded], **_: Any) -> None:
    """A save's pushes, for every game of it at once: one query for the devices of all their
    players (none, mostly: then nothing more is read)."""
    saved = [one for one in recorded if one.rows]
    people = {s.player_id for one in saved for s in seats_of(one.game) if not s.bot_level}
    devices = devices_of(people) if people else {}
    if not devices:
        return
    pushes: list[Push] = []
    for one in saved:
        types = {row.type for row in one.rows}
        actor = one.rows[-1].seat
        for seat in seats_of(one.game):
            if seat.player_id not in devices:
                continue
            kind = _game_kind(webhooks.kinds_for(seat.number, one.before, one.state, types))
            if kind is None or (kind == PushKind.GAME_OVER and one.game.rated):
                continue  # a rated game's end is pushed with its rating change (``on_rated``)
            data = game_data(one.game, seat.number, actor)
            if kind == PushKind.CALL_PENDING and one.state.hand is not None:
                data["call"] = one.state.hand.pending_ladder or ""
            if kind == PushKind.GAME_OVER:
                data |= _result(one.game, seat.number)
            pushes += _for(devices[seat.player_id], one.game, seat.number, kind, data)
    write(pushes)


def _game_kind(kinds: list[str]) -> PushKind | None:
    """The one push a step makes for a seat: the match's end, else a call to answer (which is
    also the seat's turn), else the turn."""
    for kind, pushed in (
        (Kind.MATCH_ENDED, PushKind.GAME_OVER),
        (Kind.CALL_PENDING, PushKind.CALL_PENDING),
        (Kind.YOUR_TURN, PushKind.YOUR_TURN),
    ):
        if kind in kinds:
            return pushed
    return None


def on_deadline_near(sender: Any, game: Game, version: int, seats: list[int], **_: Any) -> None:
    by_seat = {seat.number: seat for seat in seats_of(game) if not seat.bot_level}
    players = {by_seat[number].player_id: number for number in seats if number in by_seat}
    devices = devices_of(players)
    write(
        [
            push
            for player, number in players.items()
            for push in _for(
                devices.get(player, []),
                game,
                number,
                PushKind.TIME_ALMOST_UP,
                game_data(game, number, None),
            )
        ]
    )


def on_rated(sender: Any, game: Game, changes: Iterable[Any], **_: Any) -> None:
    """A rated match's end, with each player's rating change (written with the ratings)."""
    deltas = {change.player_id: change.delta for change in changes}
    seats = {s.player_id: s.number for s in seats_of(game) if not s.bot_level}
    devices = devices_of(seats)
    pushes = []
    for player, number in seats.items():
        data = game_data(game, number, None) | _result(game, number)
        if player in deltas:
            data["rating_delta"] = deltas[player]
        pushes += _for(devices.get(player, []), game, number, PushKind.GAME_OVER, data)
    write(pushes)


def tell(
    player_ids: Iterable[int],
    kind: Kind,
    game_id: GameId | None,
    data: dict[str, Any],
    *,
    by: int | None = None,
) -> None:
    """A lobby notice, pushed when it is of a pushed kind (``LOBBY_KINDS``); called by the lobby
    in the transaction that made it true. ``data`` holds ids (``*_id``) and settings; ``by`` is
    the player whose doing it is (the challenger, the one offering a rematch)."""
    pushed = LOBBY_KINDS.get(kind)
    if pushed is None:
        return
    devices = devices_of(set(player_ids))
    if not devices:
        return
    about = data.get("challenge_id") or data.get("seek_id") or game_id
    game = Game.objects.filter(pk=game_id).first() if game_id else None
    pushes = []
    for player, own in devices.items():
        body: dict[str, Any] = {"game_id": str(game_id) if game_id else None}
        if game is not None:
            seat = Seat.objects.filter(game=game, player_id=player).first()
            body = game_data(game, seat.number if seat else None, None)
        if by is not None:
            body["opponent_id"] = by
        cause = f"{pushed.value}:{about}:{player}"
        pushes += [
            Push(device=device, cause=cause, kind=pushed, game=game, data=body)
            for device in own
            if rules.wanted(device, pushed)
        ]
    write(pushes)


def chat(game: Game, author_id: int, line_id: Any) -> None:
    """A line of chat at ``game``'s table, to the other seated players who chose it."""
    players = {s.player_id: s.number for s in seats_of(game) if not s.bot_level}
    players.pop(author_id, None)
    for blocker in Block.objects.filter(blocked_id=author_id, blocker_id__in=players):
        players.pop(blocker.blocker_id, None)  # his chat never reaches those who block him
    devices = devices_of(players)
    pushes = []
    for player, number in players.items():
        data = game_data(game, number, None) | {"opponent_id": author_id}
        pushes += [
            Push(
                device=device,
                cause=f"chat:{line_id}",
                kind=PushKind.CHAT,
                game=game,
                version=game.version,
                seat=number,
                data=data,
            )
            for device in devices.get(player, [])
            if rules.wanted(device, PushKind.CHAT)
        ]
    write(pushes)


def devices_of(players: Iterable[Any]) -> dict[Any, list[Device]]:
    """The devices of these players with their choices, by player: one query."""
    found: dict[Any, list[Device]] = {}
    query = Device.objects.filter(player__in=set(players)).select_related("player__push_settings")
    for device in query:
        found.setdefault(device.player_id, []).append(device)
    return found


def game_data(game: Game, seat: int | None, actor: int | None) -> dict[str, Any]:
    """What every push about a game carries: ids and figures, never a card. ``opponent_id`` is
    the player who made the move (when another seat made it), else the first seat across."""
    seats = seats_of(game)
    across = [s for s in seats if seat is not None and s.number % 2 != seat % 2]
    mover = [s for s in seats if actor is not None and s.number == actor and s.number != seat]
    opponent: Seat | None = (mover or across or [None])[0]  # type: ignore[list-item]
    return {
        "game_id": str(game.pk),
        "preset": game.preset,
        "words": words_of(game.preset),
        "seat": seat,
        "opponent_id": opponent.player_id if opponent is not None else None,
        "deadline": game.deadline.isoformat() if game.deadline else None,
    }


def _result(game: Game, seat: int) -> dict[str, Any]:
    side = seat % 2
    scores = list(game.scores or [])
    return {
        "won": game.winner_side == side,
        "score": scores[side : side + 1] + scores[1 - side : 2 - side] if len(scores) == 2 else [],
    }


def _for(
    devices: Iterable[Device], game: Game, seat: int, kind: PushKind, data: dict[str, Any]
) -> list[Push]:
    cause = f"game:{game.pk}:{game.version}:{kind.value}"
    return [
        Push(
            device=device,
            cause=cause,
            kind=kind,
            game=game,
            version=game.version,
            seat=seat,
            data=data,
        )
        for device in devices
        if rules.wanted(device, kind)
    ]


def write(pushes: list[Push]) -> None:
    """Written together (a second cause's row is ignored: the unique key), due after the
    deliberate delay, and sent after commit."""
    if not pushes:
        return
    due = timezone.now() + timedelta(seconds=settings.PUSH_DELAY_SECONDS)
    for push in pushes:
        push.due_at = due
    Push.objects.bulk_create(pushes, ignore_conflicts=True)
    sending.send_after_commit([push.pk for push in pushes], settings.PUSH_DELAY_SECONDS)

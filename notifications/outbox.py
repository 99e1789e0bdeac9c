"""The outbox: which notifications a transaction's events cause, written in that transaction.

``on_recorded_together`` runs inside the transaction that writes a game's events, so a ``Delivery``
commits or rolls back with its cause; each is sent by a task after commit (``sending.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from games import engine, signals
from games.models import Game, GameEvent
from games.store.log import seats_of
from notifications import sending
from notifications.models import Delivery, Kind, Subscription
from notifications.payloads import payload

#: A notice: the subscription, its owner's seat, and the kind of notification.
Notice = tuple[Subscription, int, str]


def follow_games() -> None:
    """Connect the outbox to the game log."""
    signals.recorded_together.connect(
        on_recorded_together, sender=Game, dispatch_uid="notifications.outbox"
    )


def on_recorded_together(sender: Any, recorded: Sequence[signals.Recorded], **_: Any) -> None:
    """The notices the saved events cause, for every game of a save at once (one action, or a
    whole sweep of timeouts): one query for the subscriptions of all their players."""
    saved = [one for one in recorded if one.rows]
    players = {seat.player_id for one in saved for seat in seats_of(one.game)}
    subscribed = subscriptions_of(players) if players else {}
    if not subscribed:
        return  # the common case: nobody seated has a subscription
    deliveries: list[Delivery] = []
    for one in saved:
        types = {row.type for row in one.rows}
        notices: list[Notice] = []
        for seat in seats_of(one.game):
            for subscription in subscribed.get(seat.player_id, []):
                kinds = kinds_for(seat.number, one.before, one.state, types)
                notices += [
                    (subscription, seat.number, k) for k in kinds if k in subscription.kinds
                ]
        deliveries += _deliveries(one.game, notices, one.state, one.rows)
    _send(deliveries)


def subscriptions_of(players: Iterable[Any]) -> dict[Any, list[Subscription]]:
    """The subscriptions of these players, oldest first, by player: one query (by the
    subscriptions' player index)."""
    found: dict[Any, list[Subscription]] = {}
    for subscription in Subscription.objects.filter(player__in=players).order_by("created_at"):
        found.setdefault(subscription.player_id, []).append(subscription)
    return found


def subscribers(game: Game, seats: Iterable[int] | None = None) -> list[tuple[Subscription, int]]:
    """The subscriptions of the players seated at ``game`` (at ``seats``), with their seat."""
    wanted = None if seats is None else set(seats)
    numbers = {
        seat.player_id: seat.number
        for seat in seats_of(game)
        if wanted is None or seat.number in wanted
    }
    subscribed = subscriptions_of(numbers) if numbers else {}
    return [(sub, numbers[player]) for player, subs in subscribed.items() for sub in subs]


def kinds_for(
    seat: int, before: engine.State | None, after: engine.State, types: set[str]
) -> list[str]:
    """What the step from ``before`` to ``after`` (through events of ``types``) tells ``seat``."""
    kinds: list[str] = []
    may_act = engine.may_act(after, seat)
    if may_act and (before is None or not engine.may_act(before, seat)):
        kinds.append(Kind.YOUR_TURN)
    call = pending_call(after)
    if may_act and call is not None and call != pending_call(before):
        kinds.append(Kind.CALL_PENDING)  # may_act: the seat is on the answering side
    if "hand_ended" in types:
        kinds.append(Kind.HAND_ENDED)
    if "match_ended" in types:
        kinds.append(Kind.MATCH_ENDED)
    return kinds


def pending_call(state: engine.State | None) -> tuple[Any, ...] | None:
    """What identifies the call awaiting an answer: a raise or a new ladder is a new call."""
    hand = state.hand if state is not None else None
    if hand is None or hand.over or hand.pending_caller is None:
        return None
    return (
        hand.number,
        hand.pending_ladder,
        hand.pending_caller,
        hand.envido_calls,
        hand.truco_call,
    )


def write(
    game: Game,
    notices: Sequence[Notice],
    state: engine.State,
    rows: Sequence[GameEvent] = (),
) -> list[Delivery]:
    """One delivery per notice, each body built from the notice's seat; sent after commit."""
    deliveries = _deliveries(game, notices, state, rows)
    _send(deliveries)
    return deliveries


def _deliveries(
    game: Game, notices: Sequence[Notice], state: engine.State, rows: Sequence[GameEvent]
) -> list[Delivery]:
    return [
        Delivery(
            subscription=subscription,
            kind=kind,
            game=game,
            version=game.version,
            payload=payload(kind, game, seat, state, rows),
            # "The deadline is near" is false once it has passed: never sent after it.
            expires_at=game.deadline if kind == Kind.DEADLINE_NEAR else None,
        )
        for subscription, seat, kind in notices
    ]


def _send(deliveries: list[Delivery]) -> None:
    """Written together, and sent after commit, a batch of them a task
    (``sending.send_all_after_commit``)."""
    Delivery.objects.bulk_create(deliveries)
    if deliveries:
        sending.send_all_after_commit((d.pk, d.subscription_id) for d in deliveries)

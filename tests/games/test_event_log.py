"""The event log is the truth (STYLE.md principles 4 and 6): the database keeps it append-only and
gapless, a game's state is the fold of its events, and every read model agrees with the log."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

import pytest
from django.db import IntegrityError, connection, transaction
from django.db.utils import DatabaseError

from games import engine, services, signals
from games.engine import events as ev
from games.models import CamaRecord, Game, GameEvent, HandRecord, HandSnapshot, Seat
from games.store import batch_read, log, recent, sql
from games.store.log import load_state
from tests.factories import PlayerFactory
from tests.games.conftest import Client, play_out


@pytest.fixture
def started(table: Callable[..., tuple[str, list[Client]]]) -> Game:
    game_id, _ = table("valenciano", players=2)
    return Game.objects.get(pk=game_id)


def _raw(statement: str, params: list[Any]) -> None:
    with connection.cursor() as cursor:
        cursor.execute(statement, params)


TAMPERING: dict[str, Callable[[Game], Any]] = {
    "orm-update": lambda game: GameEvent.objects.filter(game=game).update(type="tampered"),
    "orm-delete": lambda game: GameEvent.objects.filter(game=game).delete(),
    "orm-save": lambda game: GameEvent.objects.filter(game=game).first().save(),
    "orm-instance-delete": lambda game: GameEvent.objects.filter(game=game).last().delete(),
    "sql-update": lambda game: _raw(
        "UPDATE games_gameevent SET payload = '{}'::jsonb WHERE game_id = %s", [game.pk]
    ),
    "sql-delete": lambda game: _raw("DELETE FROM games_gameevent WHERE game_id = %s", [game.pk]),
}


@pytest.mark.parametrize("tamper", TAMPERING.values(), ids=TAMPERING.keys())
def test_event_log_refuses_update_and_delete(started: Game, tamper: Callable[[Game], Any]) -> None:
    before = list(GameEvent.objects.filter(game=started).values_list("seq", "type", "payload"))
    assert before, "a started game has events"

    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        tamper(started)

    after = list(GameEvent.objects.filter(game=started).values_list("seq", "type", "payload"))
    assert after == before


def test_event_log_refuses_a_second_event_with_the_same_seq(started: Game) -> None:
    with pytest.raises(IntegrityError, match="game_event_seq_unique"), transaction.atomic():
        _raw(
            "INSERT INTO games_gameevent (game_id, seq, type, schema_version, payload, created_at)"
            " VALUES (%s, %s, 'match_started', 1, '{}'::jsonb, now())",
            [started.pk, started.version],
        )
    assert GameEvent.objects.filter(game=started).count() == started.version


def _fold(payloads: list[dict[str, Any]]) -> engine.State:
    return engine.replay(map(engine.event_from_json, payloads))


@pytest.fixture(
    params=[("valenciano", 2, "sql"), ("argentino_clasico", 4, "sql"), ("valenciano", 2, "orm")],
    ids=lambda p: "-".join(map(str, p)),
)
def finished(
    request: Any, table: Callable[..., tuple[str, list[Client]]], monkeypatch: pytest.MonkeyPatch
) -> Game:
    """A whole match of random legal actions, played through HTTP, through the store's
    statements or the ORM's way (kept for the test's own reads)."""
    preset, players, way = request.param
    if way == "orm":
        monkeypatch.setattr(sql, "postgresql", lambda: False)
    game_id, clients = table(preset, players=players)
    final = play_out(game_id, clients, random.Random(f"log-{preset}-{players}"))
    assert final["status"] == "finished"
    return Game.objects.get(pk=game_id)


def _payloads(game: Game) -> list[dict[str, Any]]:
    return list(
        GameEvent.objects.filter(game=game).order_by("seq").values_list("payload", flat=True)
    )


@pytest.mark.slow
def test_event_log_fold_is_the_state_from_every_snapshot(finished: Game) -> None:
    payloads = _payloads(finished)
    state = _fold(payloads)
    assert state.match_over
    recent.forget_recent_states()  # the rebuild itself, not the state the last request kept
    assert load_state(finished) == state, "the store's rebuild from the latest snapshot"
    snapshots = list(HandSnapshot.objects.filter(game=finished).order_by("hand_number"))
    assert len(snapshots) == HandRecord.objects.filter(game=finished).count() > 1
    for snapshot in snapshots:
        # The snapshot is the state just before its hand's deal, and restoring it loses nothing.
        assert payloads[snapshot.seq]["type"] == "hand_dealt"
        assert snapshot.state == engine.snapshot(_fold(payloads[: snapshot.seq]))
        restored = engine.restore(snapshot.state)
        for payload in payloads[snapshot.seq :]:
            restored = engine.evolve(restored, engine.event_from_json(payload))
        assert restored == state, f"from the snapshot of hand {snapshot.hand_number}"


@pytest.mark.slow
def test_event_log_read_models_agree_with_the_log(finished: Game) -> None:
    rows = list(GameEvent.objects.filter(game=finished).order_by("seq"))
    events = [(row.seq, engine.event_from_json(row.payload)) for row in rows]
    state = _fold([row.payload for row in rows])

    assert [row.seq for row in rows] == list(range(1, len(rows) + 1))
    assert finished.version == rows[-1].seq
    assert (finished.scores, finished.camas) == (list(state.scores), list(state.camas))
    assert (finished.winner_side, finished.end_reason) == (state.winner, state.end_reason)

    deals = [(seq, event) for seq, event in events if isinstance(event, ev.HandDealt)]
    hands = {hand.number: hand for hand in HandRecord.objects.filter(game=finished)}
    assert [(hand.number, hand.first_seq) for hand in hands.values()] == [
        (event.number, seq) for seq, event in deals
    ], "one hand record per deal"
    ended = [(seq, event) for seq, event in events if isinstance(event, ev.HandEnded)]
    assert len(ended) == len(hands), "every hand of a finished match has ended"
    for seq, event in ended:
        hand = hands[event.number]
        assert hand.scores == list(event.scores)
        assert (hand.winner_side, hand.reason, hand.last_seq) == (event.winner, event.reason, seq)
        assert hand.points == [list(entry) for entry in event.points]

    camas = [event for _, event in events if isinstance(event, ev.CamaEnded)]
    assert camas, "a finished match has won at least one cama"
    records = CamaRecord.objects.filter(game=finished)
    assert [cama.winner_side for cama in records if cama.winner_side is not None] == [
        event.winner for event in camas
    ]
    for cama in camas:
        assert records.get(number=sum(cama.camas)).winner_side == cama.winner


def test_event_log_the_state_kept_after_an_action_is_the_fold_at_its_version(
    table: Callable[..., tuple[str, list[Client]]], django_capture_on_commit_callbacks: Any
) -> None:
    game_id, clients = table("valenciano", players=2)
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = view["state"]["turn"]
    action = clients[mover].get(f"/api/games/{game_id}").json()["state"]["legal_actions"][0]
    recent.forget_recent_states()

    with django_capture_on_commit_callbacks(execute=True):
        assert clients[mover].act(game_id, action, view["version"]).status_code == 201

    game = Game.objects.get(pk=game_id)
    kept = recent.recent_state(game.pk, game.version)
    assert kept is not None and kept == _fold(_payloads(game))
    assert recent.recent_state(game.pk, game.version - 1) is None  # only at its own version


def test_event_log_a_rolled_back_action_keeps_no_state(
    table: Callable[..., tuple[str, list[Client]]], django_capture_on_commit_callbacks: Any
) -> None:
    game_id, clients = table("valenciano", players=2)
    view = clients[0].get(f"/api/games/{game_id}").json()
    mover = view["state"]["turn"]
    legal = clients[mover].get(f"/api/games/{game_id}").json()["state"]["legal_actions"]
    assert clients[mover].act(game_id, legal[0], view["version"], key="k").status_code == 201
    while (now := clients[mover].get(f"/api/games/{game_id}").json())["state"]["turn"] != mover:
        other = 1 - mover
        again = clients[other].get(f"/api/games/{game_id}").json()
        action = again["state"]["legal_actions"][0]
        assert clients[other].act(game_id, action, again["version"]).status_code == 201
    recent.forget_recent_states()

    # The same key for a new, legal action: written, then rolled back at the key's INSERT.
    with django_capture_on_commit_callbacks(execute=True):
        reused = clients[mover].act(
            game_id, now["state"]["legal_actions"][0], now["version"], key="k"
        )

    assert reused.status_code == 409, reused.json()
    game_pk, version = uuid.UUID(game_id), now["version"]
    assert all(recent.recent_state(game_pk, version + n) is None for n in range(1, 20))


def test_event_log_a_kept_state_folded_on_by_new_events_is_the_fold_at_their_version(
    table: Callable[..., tuple[str, list[Client]]],
    django_capture_on_commit_callbacks: Any,
    django_assert_num_queries: Any,
) -> None:
    game_id, clients = table("valenciano", players=2)
    recent.forget_recent_states()
    with django_capture_on_commit_callbacks(execute=True):
        first = load_state(Game.objects.get(pk=game_id))  # kept at its version
    for _ in range(3):  # moves made elsewhere: their states are not kept here
        view = clients[0].get(f"/api/games/{game_id}").json()
        mover = view["state"]["turn"]
        action = clients[mover].get(f"/api/games/{game_id}").json()["state"]["legal_actions"][0]
        assert clients[mover].act(game_id, action, view["version"]).status_code == 201
    game = batch_read.get_games([game_id])[0]
    assert recent.recent_state(game.pk, first.version) == first
    assert game.version > first.version
    truth = _fold(_payloads(game))

    rows = batch_read.load_event_ranges([(game.pk, first.version - 1, game.version)])
    # Events that do not follow on the kept state (one missing): read from the log instead.
    gap = {game.pk: [row for row in rows[game.pk] if row.seq != first.version + 1]}
    with django_assert_num_queries(1):
        assert batch_read.states_after([game], gap) == [truth]
    assert recent.recent_state(game.pk, game.version) is None  # (kept only after commit)

    with django_capture_on_commit_callbacks(execute=True), django_assert_num_queries(0):
        assert batch_read.states_after([game], rows) == [truth]
    assert recent.recent_state(game.pk, game.version) == truth, "kept at its new version"


def _fields(instance: Any) -> dict[str, Any]:
    return {field.attname: getattr(instance, field.attname) for field in instance._meta.fields
            if field.attname in instance.__dict__}  # fmt: skip


def test_event_log_the_streams_read_gives_what_the_ordinary_reads_give(
    table: Callable[..., tuple[str, list[Client]]],
) -> None:
    game_id, clients = table("valenciano", players=2)
    other_id, _ = table("argentino", players=2)
    for _ in range(3):
        view = clients[0].get(f"/api/games/{game_id}").json()
        mover = view["state"]["turn"]
        action = clients[mover].get(f"/api/games/{game_id}").json()["state"]["legal_actions"][0]
        assert clients[mover].act(game_id, action, view["version"]).status_code == 201
    ids = [uuid.UUID(game_id), uuid.UUID(other_id)]
    games = batch_read.get_games(ids)
    versions = {game.pk: game.version for game in games}
    # Two readers of one game at different cursors, one of the other, and a game that is gone.
    keys = [(ids[0], 0), (ids[0], 2), (ids[1], 1), (uuid.uuid4(), 0)]

    read, events = batch_read.read_games_and_events(keys, most=3)

    by_id = {game.pk: game for game in read}
    assert set(by_id) == set(ids)
    for game in games:
        assert _fields(by_id[game.pk]) == _fields(game)
        assert [(_fields(s), log.seat_names(s)) for s in log.seats_of(by_id[game.pk])] == [
            (_fields(s), log.seat_names(s)) for s in log.seats_of(game)
        ]
    assert versions[ids[0]] >= 4  # the two readers' ranges (1-3, 3-5) overlap
    expected = batch_read.load_event_ranges([(ids[0], 0, 5), (ids[1], 1, 4)])
    for pk in ids:  # each event once, in seq order, as the ordinary read makes it
        assert [_fields(row) for row in events[pk]] == [_fields(row) for row in expected[pk]]


class _Heard:
    """What the store's two signals said, in order: (signal name, its arguments)."""

    def __init__(self) -> None:
        self.said: list[tuple[str, dict[str, Any]]] = []

    def recorded(self, sender: Any, **kwargs: Any) -> None:
        self.said.append(("recorded", kwargs))

    def committed(self, sender: Any, **kwargs: Any) -> None:
        self.said.append(("committed", kwargs))


@pytest.fixture
def heard() -> Any:
    listener = _Heard()
    signals.events_recorded.connect(listener.recorded, sender=Game, dispatch_uid="test.recorded")
    signals.events_committed.connect(listener.committed, sender=Game, dispatch_uid="test.comm")
    yield listener
    signals.events_recorded.disconnect(sender=Game, dispatch_uid="test.recorded")
    signals.events_committed.disconnect(sender=Game, dispatch_uid="test.comm")


def _full_table() -> Game:
    """A 2-player game with both seats taken, not started (seated around ``services``)."""
    host, guest = PlayerFactory.create(), PlayerFactory.create()
    game = services.create_game(
        host, preset="argentino", options={}, players=2, visibility="public"
    )
    Seat.objects.create(game=game, number=1, player=guest)
    return log.lock_game(game.pk)


@pytest.mark.django_db
def test_append_deals_when_a_hand_is_due_and_sends_both_signals(
    way: str, heard: _Heard, django_capture_on_commit_callbacks: Any
) -> None:
    game = _full_table()
    start = engine.start_match(engine.Rules.from_json(game.rules))

    with django_capture_on_commit_callbacks() as after_commit:
        done = log.append(game, None, [start])
        assert [name for name, _ in heard.said] == ["recorded"], "committed only after commit"
    for callback in after_commit:
        callback()

    # The match's start leaves a hand due: the deal is appended with it, and snapshotted.
    assert [row.type for row in done.rows] == ["match_started", "hand_dealt"]
    assert done.before is None and done.state.hand is not None and not done.state.needs_deal
    assert list(GameEvent.objects.filter(game=game).values_list("seq", "type")) == [
        (1, "match_started"),
        (2, "hand_dealt"),
    ]
    assert HandSnapshot.objects.get(game=game).seq == 1
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    recorded, committed = (kwargs for _, kwargs in heard.said)
    assert [name for name, _ in heard.said] == ["recorded", "committed"]
    for said in (recorded, committed):
        assert (said["rows"], said["state"], said["before"]) == (done.rows, done.state, None)
        assert said["game"].pk == game.pk
    assert committed["saved"] == 1

    # A pass at the hand's start leaves no hand due: nothing is dealt.
    seat = engine.turn(done.state)
    assert seat is not None
    events = engine.decide(done.state, seat, engine.Action("paso"))
    heard.said.clear()
    with django_capture_on_commit_callbacks(execute=True):
        played = log.append(game, done.state, events, seat=seat)
    assert [row.type for row in played.rows] == [event.TYPE for event in events] != []
    assert not any(isinstance(event, ev.HandDealt) for event in events)
    assert played.before == done.state and played.state == log.load_state(game)
    assert [name for name, _ in heard.said] == ["recorded", "committed"]

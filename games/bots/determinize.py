"""Determinization: full engine states that agree with everything one seat has seen.

A seat knows its own dealt cards, every card played face up (and by whom), how many cards each
seat still holds, and the public events of the hand. ``Knowledge`` gathers that from the seat's
view and redacted history (and refuses a history that does not lead to the view: a stale or
foreign one); ``Knowledge.sample`` deals the unseen cards (the deck minus its own
cards minus the played ones) to the other seats, each keeping the cards it has already played, and
rejects a deal that contradicts an accepted envido's announced winner and value (RULES.md §5.2;
when random deals seldom agree, it builds one around a hand that holds the announced value).
With ``models`` of some other seats (a policy over a view, e.g. ``basic.choose``, by seat) it
also rejects, but for a ``doubt`` share of them, the deals in which a model would not have made
the actions its seat made this hand: a truco call or an envido accepted says something about the
cards behind it. After ``max_tries`` rejections it keeps the last deal.

``model_fit`` weighs how well a model explains the other side's play over the match so far: the
hands in which an opponent played all three cards show its whole hand, so its view at each of its
actions, and whether the model would have done the same, are known exactly.

``rebuild`` turns a deal into the ``State`` the referee would hold: the between-hands state
comes from the view through ``engine.restore``, then the sampled ``HandDealt`` and the hand's
public events are folded in with ``engine.evolve``.
``Knowledge.state`` does the same faster: the fold depends on the hidden cards only through the
hand's ``dealt`` and ``held``, so it replays once and swaps those two for each further deal.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import combinations
from typing import Any

from games.engine import DECKS, Action, State, envido_of, event_from_json, evolve, restore, view_for
from games.engine import events as ev
from games.engine.scoring import envido_winner
from games.engine.snapshots import SNAPSHOT_SCHEMA

Hands = tuple[tuple[str, ...], ...]
Model = Callable[[dict[str, Any]], Action]

#: Random deals tried for an accepted envido's announcement before building one around it.
ENVIDO_TRIES = 100

#: The seat and the action that each kind of event records.
_ACTIONS: dict[type[ev.Event], Callable[[Any], tuple[int, Action]]] = {
    ev.CardPlayed: lambda event: (event.seat, Action("play", card=event.card)),
    ev.EnvidoPassed: lambda event: (event.seat, Action("paso")),
    ev.TrucoCalled: lambda event: (event.seat, Action(event.call)),
    ev.EnvidoCalled: lambda event: (event.seat, Action(event.call)),
    ev.TrucoAccepted: lambda event: (event.seat, Action("quiero")),
    ev.EnvidoAccepted: lambda event: (event.seat, Action("quiero")),
    ev.TrucoRefused: lambda event: (event.seat, Action("no_quiero")),
    ev.EnvidoRefused: lambda event: (event.seat, Action("no_quiero")),
    ev.Folded: lambda event: (event.seat, Action("mazo")),
}


def hand_history(history: Sequence[Mapping[str, Any]], number: int) -> tuple[int, list[ev.Event]]:
    """The index of the current hand's (redacted) deal in ``history``, and the events after it."""
    for index in range(len(history) - 1, -1, -1):
        if history[index]["type"] == "hand_dealt":
            if history[index]["number"] != number:
                break
            return index, [event_from_json(data) for data in history[index + 1 :]]
    raise ValueError(f"the history does not hold the deal of hand {number}")


def rebuild(view: Mapping[str, Any], history: Sequence[Mapping[str, Any]], hands: Hands) -> State:
    """The state of the view's game if ``hands`` (by seat) had been dealt: the replay route."""
    events = hand_history(history, view["hand"]["number"])[1]
    return replay_hand(before_deal(view, len(events)), view, hands, events)


def replay_hand(
    before: State, view: Mapping[str, Any], hands: Hands, events: Sequence[ev.Event]
) -> State:
    """Fold the view's deal, with ``hands``, and then ``events`` into the state ``before`` it."""
    state = evolve(before, ev.HandDealt(view["hand"]["number"], view["hand"]["dealer"], hands))
    for event in events:
        state = evolve(state, event)
    return state


def before_deal(view: Mapping[str, Any], events: int) -> State:
    """The state between hands before the view's deal, followed by ``events`` events of the hand."""
    hand = view["hand"]
    return restore(
        {
            "schema": SNAPSHOT_SCHEMA,
            "rules": view["rules"],
            "version": view["version"] - 1 - events,
            "scores": view["scores"],
            "camas": view["camas"],
            "next_dealer": hand["dealer"],
            "cama_won": False,  # the deal has already reset the scores of a won cama
        }
    )


@dataclass(slots=True)
class Knowledge:
    """What one seat knows of the hand in progress, and how to deal the rest consistently."""

    view: Mapping[str, Any]
    seat: int
    mine: tuple[str, ...]  # the seat's dealt cards
    played: dict[int, tuple[str, ...]]  # by seat, in play order
    missing: dict[int, int]  # by other seat: how many unplayed cards it holds
    unseen: tuple[str, ...]
    envido: tuple[int, int, tuple[int, ...]] | None  # (winner side, value, seats counted)
    events: list[ev.Event]  # the hand's public events after the deal
    before: State  # the state before the deal
    models: Mapping[int, Model] = field(default_factory=dict)  # by seat
    doubt: float = 0.1
    max_tries: int = 50
    _template: State | None = field(default=None)
    _holder_cache: list[tuple[int, tuple[str, ...]]] | None = field(default=None)

    @classmethod
    def of(
        cls,
        view: Mapping[str, Any],
        history: Sequence[Mapping[str, Any]],
        models: Mapping[int, Model] | None = None,
        doubt: float = 0.1,
        max_tries: int = 50,
    ) -> Knowledge:
        seat = view["seat"]
        hand = view["hand"]
        if seat is None or hand is None:
            raise ValueError("a determinization needs a seat's view of a hand in progress")
        index, events = hand_history(history, hand["number"])
        mine = tuple(history[index]["hands"][seat])
        players = view["rules"]["players"]
        played: dict[int, list[str]] = {other: [] for other in range(players)}
        folded: set[int] = set()
        envido: tuple[int, int, tuple[int, ...]] | None = None
        for event in events:
            if isinstance(event, ev.CardPlayed):
                played[event.seat].append(event.card)
            elif isinstance(event, ev.Folded):
                folded.add(event.seat)
            elif isinstance(event, ev.EnvidoAccepted):
                counted = tuple(other for other in range(players) if other not in folded)
                envido = (event.winner, event.value, counted)
        seen = set(mine).union(*played.values())
        unseen = tuple(card for card in DECKS[view["rules"]["deck"]] if card not in seen)
        missing = {other: hand["cards_left"][other] for other in range(players) if other != seat}
        if sum(missing.values()) > len(unseen) or any(
            len(played[other]) + count != 3 for other, count in missing.items()
        ):
            raise ValueError("the history does not lead to the view")
        knowledge = cls(
            view=view,
            seat=seat,
            mine=mine,
            played={other: tuple(cards) for other, cards in played.items()},
            missing=missing,
            unseen=unseen,
            envido=envido,
            events=events,
            before=before_deal(view, len(events)),
            models={} if models is None else dict(models),
            doubt=doubt,
            max_tries=max_tries,
        )
        # Any deal replays the public events: the seat's view of the result must be the view.
        if view_for(knowledge.state(knowledge.deal(unseen)), seat) != view:
            raise ValueError("the history does not lead to the view")
        return knowledge

    def deal(self, drawn: Sequence[str], fixed: tuple[int, tuple[str, ...]] | None = None) -> Hands:
        """The dealt hands, by seat, when the other seats' unplayed cards are ``drawn`` in turn;
        ``fixed`` (seat, cards) gives one seat its unplayed cards outright."""
        hands: list[tuple[str, ...]] = []
        start = 0
        for other in range(len(self.played)):
            if other == self.seat:
                hands.append(self.mine)
            elif fixed is not None and fixed[0] == other:
                hands.append(self.played[other] + fixed[1])
            else:
                count = self.missing[other]
                hands.append(self.played[other] + tuple(drawn[start : start + count]))
                start += count
        return tuple(hands)

    def consistent(self, hands: Hands) -> bool:
        """Whether a deal agrees with the accepted envido's announced winner and value."""
        if self.envido is None:
            return True
        winner, value, counted = self.envido
        return envido_winner(hands, self.view["hand"]["mano"], counted) == (winner, value)

    def explains(self, hands: Hands, models: Mapping[int, Model]) -> bool:
        """Whether each seat's model (``models``, by seat), holding ``hands``, acts as the seat
        did this hand.

        An action forced by a turn timeout is not the seat's own choice and is not checked.
        """
        hand = self.view["hand"]
        state = evolve(self.before, ev.HandDealt(hand["number"], hand["dealer"], hands))
        forced: int | None = None
        for event in self.events:
            recorded = _ACTIONS.get(type(event))
            if isinstance(event, ev.TurnTimedOut):
                forced = event.seat
            elif recorded is not None:
                seat, action = recorded(event)
                model = models.get(seat)
                if model is not None and seat != forced and model(view_for(state, seat)) != action:
                    return False
                forced = None
            state = evolve(state, event)
        return True

    def sample(self, rng: random.Random) -> Hands:
        """A deal of the unseen cards consistent with what the seat has seen."""
        hands = self._envido_deal(rng)
        for _ in range(self.max_tries - 1):
            if not self.models or self.explains(hands, self.models) or rng.random() < self.doubt:
                break
            hands = self._envido_deal(rng)
        return hands

    def _envido_deal(self, rng: random.Random) -> Hands:
        """A deal that agrees with the accepted envido: drawn at random while that works out
        quickly, else built around a hand that holds the announced value (``_holders``)."""
        needed = sum(self.missing.values())
        hands = self.deal(rng.sample(self.unseen, needed))
        for _ in range(ENVIDO_TRIES):
            if self.consistent(hands):
                return hands
            hands = self.deal(rng.sample(self.unseen, needed))
        holders = self._holders()
        for _ in range(ENVIDO_TRIES if holders else 0):
            seat, cards = rng.choice(holders)
            rest = [card for card in self.unseen if card not in cards]
            hands = self.deal(rng.sample(rest, needed - len(cards)), fixed=(seat, cards))
            if self.consistent(hands):
                return hands
        return hands

    def _holders(self) -> list[tuple[int, tuple[str, ...]]]:
        """Every (seat, unplayed cards) that would give another seat the announced envido."""
        if self._holder_cache is None:
            self._holder_cache = []
            if self.envido is not None:
                winner, value, counted = self.envido
                for seat in counted:
                    if seat == self.seat or seat % 2 != winner:
                        continue
                    for cards in combinations(self.unseen, self.missing[seat]):
                        if envido_of(self.played[seat] + cards) == value:
                            self._holder_cache.append((seat, cards))
        return self._holder_cache

    def state(self, hands: Hands) -> State:
        """``rebuild(view, history, hands)``: replays once, then swaps the hidden cards."""
        if self._template is None:
            self._template = replay_hand(self.before, self.view, hands, self.events)
            return self._template
        hand = self._template.hand
        assert hand is not None
        held = tuple(
            tuple(card for card in dealt if card not in self.played[seat])
            for seat, dealt in enumerate(hands)
        )
        return replace(self._template, hand=replace(hand, dealt=hands, held=held))


def determinize(
    view: Mapping[str, Any],
    history: Sequence[Mapping[str, Any]],
    rng: random.Random,
    samples: int,
    models: Mapping[int, Model] | None = None,
) -> list[State]:
    """``samples`` full states consistent with the seat's view and history."""
    knowledge = Knowledge.of(view, history, models=models)
    return [knowledge.state(knowledge.sample(rng)) for _ in range(samples)]


#: ``model_fit``: how many of the last completed hands it reads, and the chance that a player who
#: does play like the model still does something else (a slip), per action.
FIT_HANDS = 10
SLIP = 0.05


def model_fit(view: Mapping[str, Any], history: Sequence[Mapping[str, Any]], model: Model) -> float:
    """The log-likelihood ratio of ``model`` against a uniformly random player for the other
    side's actions in the last ``FIT_HANDS`` completed hands of ``history`` in which an opponent's
    whole hand came out: positive when the model explains them better. A model that plays as they
    did gets ``log((1 - SLIP) * n)`` for an action among ``n`` legal ones, ``log(SLIP)`` otherwise.
    """
    deals = [index for index, data in enumerate(history) if data["type"] == "hand_dealt"]
    seat = view["seat"]
    scores, camas, cama_won = [0, 0], [0, 0], False
    before: dict[int, tuple[list[int], list[int], bool]] = {}
    for index, data in enumerate(history):
        if data["type"] == "hand_dealt":
            before[index] = (list(scores), list(camas), cama_won)
            if cama_won:
                scores, cama_won = [0, 0], False
        elif data["type"] == "hand_ended":
            scores = list(data["scores"])
        elif data["type"] == "cama_ended":
            camas, cama_won = list(data["camas"]), True
    total = 0.0
    for start, end in list(zip(deals, deals[1:], strict=False))[-FIT_HANDS:]:
        hand = json.dumps(
            [view["rules"], seat, before[start], start, list(history[start:end])], sort_keys=True
        )
        total += _hand_fit(hand, model)
    return total


@lru_cache(maxsize=4096)
def _hand_fit(hand: str, model: Model) -> float:
    """``model_fit`` of one past hand, given as the JSON of (rules, seat, the scores, camas and
    cama flag before it, its deal's index in the history, its events)."""
    rules, seat, (scores, camas, cama_won), version, data = json.loads(hand)
    deal, events = data[0], [event_from_json(item) for item in data[1:]]
    players = rules["players"]
    played: dict[int, list[str]] = {other: [] for other in range(players)}
    for event in events:
        if isinstance(event, ev.CardPlayed):
            played[event.seat].append(event.card)
    shown = [other for other in range(players) if other % 2 != seat % 2 and len(played[other]) == 3]
    if not shown:
        return 0.0
    # The shown seats' views do not depend on the cards filled in for the others.
    mine = tuple(deal["hands"][seat])
    pool = [card for card in DECKS[rules["deck"]] if card not in mine]
    pool = [card for card in pool if all(card not in cards for cards in played.values())]
    hands: list[tuple[str, ...]] = []
    for other in range(players):
        if other == seat:
            hands.append(mine)
        else:
            missing = 3 - len(played[other])
            hands.append((*played[other], *pool[:missing]))
            del pool[:missing]
    state = restore(
        {
            "schema": SNAPSHOT_SCHEMA,
            "rules": rules,
            "version": version,
            "scores": scores,
            "camas": camas,
            "next_dealer": deal["dealer"],
            "cama_won": cama_won,
        }
    )
    state = evolve(state, ev.HandDealt(deal["number"], deal["dealer"], tuple(hands)))
    total, forced = 0.0, None
    for event in events:
        recorded = _ACTIONS.get(type(event))
        if isinstance(event, ev.TurnTimedOut):
            forced = event.seat
        elif recorded is not None:
            actor, action = recorded(event)
            if actor in shown and actor != forced:
                view = view_for(state, actor)
                options = len(view["legal_actions"])
                total += math.log((1 - SLIP) * options if model(view) == action else SLIP)
            forced = None
        state = evolve(state, event)
    return total

"""Snapshots of the state between hands, so that rebuilding a game replays one hand, not a match.

A snapshot is taken just before a ``HandDealt`` event: the deal replaces the whole hand, so the
match counters are all the fold needs. Snapshots are caches:
``restore(snapshot) + tail == replay(all)``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .errors import InvalidEvent
from .rules import Rules
from .state import State

SNAPSHOT_SCHEMA = 1


def snapshot(state: State) -> dict[str, Any]:
    if not state.needs_deal:
        raise ValueError("a snapshot is taken between hands, before the next deal")
    return {
        "schema": SNAPSHOT_SCHEMA,
        "rules": state.rules.to_json(),
        "version": state.version,
        "scores": list(state.scores),
        "camas": list(state.camas),
        "next_dealer": state.next_dealer,
        "cama_won": state.cama_won,
    }


def restore(data: Mapping[str, Any]) -> State:
    """The state a snapshot was taken of, with no hand: the next event must be its deal."""
    if data.get("schema") != SNAPSHOT_SCHEMA:
        raise InvalidEvent(f"unsupported snapshot schema {data.get('schema')!r}")
    scores, camas = data["scores"], data["camas"]
    return State(
        rules=Rules.from_json(data["rules"]),
        version=data["version"],
        scores=(scores[0], scores[1]),
        camas=(camas[0], camas[1]),
        next_dealer=data["next_dealer"],
        cama_won=data["cama_won"],
    )

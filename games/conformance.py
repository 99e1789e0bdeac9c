"""Runs worked rule cases (the format of shared/conformance/README.md) against the referee.

Pure Python, like the engine: no database and no other service.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from games import engine
from games.engine import Action, EngineError, IllegalAction, State
from games.engine.cards import is_card

_CASE_KEYS = {
    *("id", "about", "ruleset", "options", "players", "scores", "camas"),
    *("hands", "actions", "expect", "envido_of", "flor_of", "hand_kind"),
}
_EXPECT_KEYS = {
    *("scores", "hand_over", "camas", "match_winner", "baza_results"),
    *("envido_winner", "flor_winner", "duel", "turn", "legal", "envido", "flor"),
}


class CaseError(Exception):
    """The case itself does not follow the format."""


@dataclass(frozen=True)
class Outcome:
    file: str
    case_id: str
    failure: str | None  # None when the case passed

    def line(self) -> str:
        return f"FAIL {self.file} {self.case_id}: {self.failure}"


def case_files(paths: Iterable[str | Path]) -> Iterator[Path]:
    for path in map(Path, paths):
        if path.is_dir():
            yield from sorted(path.rglob("*.json"))
        else:
            yield path


def run_paths(paths: Iterable[str | Path]) -> list[Outcome]:
    return [outcome for file in case_files(paths) for outcome in run_file(file)]


def run_file(file: Path) -> list[Outcome]:
    name = str(file)
    try:
        cases = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        return [Outcome(name, "-", f"not a readable JSON file: {error}")]
    if not isinstance(cases, list):
        return [Outcome(name, "-", "a case file is a JSON list of cases")]
    outcomes = []
    for index, case in enumerate(cases):
        case_id = str(case.get("id", f"#{index}")) if isinstance(case, dict) else f"#{index}"
        try:
            outcomes.append(Outcome(name, case_id, run_case(case)))
        except (CaseError, EngineError) as error:
            outcomes.append(Outcome(name, case_id, f"bad case: {error}"))
    return outcomes


def run_case(case: Any) -> str | None:
    """What differed from the expectation, or None when the case passes."""
    if not isinstance(case, dict) or not isinstance(case.get("expect"), dict):
        raise CaseError("a case is an object with an 'expect' object")
    unknown = set(case) - _CASE_KEYS | set(case["expect"]) - _EXPECT_KEYS
    if unknown:
        raise CaseError(f"unknown key(s) {sorted(unknown)}")
    options = {**(case.get("options") or {}), "players": case.get("players", 2)}
    rules = engine.resolve_rules(_required(case, "ruleset", str), options)
    if "envido_of" in case:
        return _compare({"envido": engine.envido_of(_cards(case["envido_of"]))}, case["expect"])
    if "flor_of" in case:
        return _compare({"flor": engine.flor_of(_cards(case["flor_of"]))}, case["expect"])
    state = _dealt_state(rules, case)
    failures = []
    for step, raw in enumerate(_required(case, "actions", list), start=1):
        state, failure = _apply(state, step, raw)
        if failure:
            failures.append(failure)
    if failures:
        return "; ".join(failures)
    return _compare(_observed(state, case["expect"]), case["expect"])


def _dealt_state(rules: engine.Rules, case: Mapping[str, Any]) -> State:
    state = engine.replay([engine.start_match(rules)])
    state = replace(state, scores=_pair(case, "scores"), camas=_pair(case, "camas"))
    hands = [_cards(hand) for hand in _required(case, "hands", list)]
    kind = case.get("hand_kind", "redonda")
    if kind == "pica_pica" and rules.players != 6:
        raise CaseError("'hand_kind' pica_pica needs 6 players")
    return engine.evolve(state, engine.deal_hands(state, hands, kind))


def _apply(state: State, step: int, raw: Any) -> tuple[State, str | None]:
    if not isinstance(raw, dict) or not isinstance(raw.get("seat"), int):
        raise CaseError(f"action {step} needs an integer 'seat'")
    fields = {key: value for key, value in raw.items() if key not in ("seat", "illegal")}
    action = Action.from_json(fields)
    seat, illegal = raw["seat"], raw.get("illegal", False) is True
    try:
        events = engine.decide(state, seat, action)
    except IllegalAction as error:
        if illegal:
            return state, None
        return state, f"action {step} ({_say(raw)}) was rejected: {error.code}"
    if illegal:
        return state, f"action {step} ({_say(raw)}) should have been rejected"
    for event in events:
        state = engine.evolve(state, event)
    return state, None


def _observed(state: State, expect: Mapping[str, Any]) -> dict[str, Any]:
    hand = state.hand
    assert hand is not None
    observed: dict[str, Any] = {
        "scores": list(state.scores),
        "hand_over": hand.over,
        "camas": list(state.camas),
        "match_winner": state.winner,
        "baza_results": list(hand.results),
        "envido_winner": hand.envido_winner,
        "flor_winner": hand.flor_winner,
        "duel": hand.duel,
        "turn": engine.turn(state),
    }
    if "legal" in expect:
        seat = observed["turn"]
        actions = () if seat is None else engine.legal_actions(state, seat)
        observed["legal"] = sorted({action.type for action in actions})
    return observed


def _compare(observed: Mapping[str, Any], expect: Mapping[str, Any]) -> str | None:
    differences = []
    for key, wanted in expect.items():
        got = observed.get(key)
        if key == "legal":
            wanted = sorted(set(wanted))
        if got != wanted:
            differences.append(f"{key}: expected {json.dumps(wanted)}, got {json.dumps(got)}")
    return "; ".join(differences) or None


def _required(case: Mapping[str, Any], key: str, kind: type) -> Any:
    value = case.get(key)
    if not isinstance(value, kind):
        raise CaseError(f"'{key}' must be a {kind.__name__}")
    return value


def _pair(case: Mapping[str, Any], key: str) -> tuple[int, int]:
    value = case.get(key, [0, 0])
    if not (isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)):
        raise CaseError(f"'{key}' must be a list of two integers")
    return value[0], value[1]


def _cards(cards: Any) -> list[str]:
    if not isinstance(cards, list) or not all(is_card(card) for card in cards):
        raise CaseError(f"not a list of cards: {cards!r}")
    return cards


def _say(raw: Mapping[str, Any]) -> str:
    return f"seat {raw['seat']} {raw.get('type')}" + (f" {raw['card']}" if "card" in raw else "")

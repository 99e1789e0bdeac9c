"""Actions: what a player asks the referee to do (RULES.md §5 names)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .cards import is_card
from .errors import InvalidAction

TRUCO_CALLS = ("truco", "retruco", "vale_cuatro", "joc_fora")
ENVIDO_CALLS = ("envido", "real_envido", "falta_envido")
ANSWERS = ("quiero", "no_quiero")
#: RULES.md §5.3: singing a flor, and the contest's raises and concession (no aliases).
FLOR_CALLS = ("flor", "contraflor", "contraflor_al_resto", "con_flor_me_achico")
#: The contest's calls (RULES.md §5.3.4-5): the first flor stands as a call, then the raises.
FLOR_CONTEST_CALLS = ("flor", "contraflor", "contraflor_al_resto")
CANONICAL = ("play", *TRUCO_CALLS, *ENVIDO_CALLS, *FLOR_CALLS, *ANSWERS, "mazo", "paso")

#: RULES.md §5: the valenciano names are aliases of the canonical ones under every preset.
ALIASES = {
    "truc": "truco",
    "retruc": "retruco",
    "quatre_val": "vale_cuatro",
    "envit": "envido",
    "torne": "envido",  # only as the raise over an envit: the referee checks `said`
    "falta": "falta_envido",
    "vull": "quiero",
    "no_vull": "no_quiero",
}

#: The truco level each truco call asks for (RULES.md §5.1).
TRUCO_LEVEL = {name: level for level, name in enumerate(TRUCO_CALLS, start=2)}


@dataclass(frozen=True, slots=True)
class Action:
    """A canonical action; ``said`` keeps the word the player used when it was an alias."""

    type: str
    card: str | None = None
    said: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.said or self.type}
        if self.card is not None:
            data["card"] = self.card
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        if not isinstance(data, Mapping):
            raise InvalidAction("an action is a JSON object with a 'type'")
        if "type" not in data:
            raise InvalidAction("an action needs a 'type'", "required", "type")
        name = data["type"]
        if not isinstance(name, str) or (name not in CANONICAL and name not in ALIASES):
            raise InvalidAction(f"unknown action type {name!r}", "unknown_action", "type")
        allowed = {"type", "card"} if name == "play" else {"type"}
        extra = sorted(set(data) - allowed)
        if extra:
            raise InvalidAction(
                f"{name} takes no {', '.join(extra)}: only 'play' takes a card",
                "unknown_field",
                extra[0],
            )
        if name == "play":
            if "card" not in data:
                raise InvalidAction("'play' needs a card, such as '7O'", "required", "card")
            card = data["card"]
            if not is_card(card):
                raise InvalidAction(
                    f"{card!r} is no card: see GET /api/rules", "invalid_card", "card"
                )
            return cls("play", card=card)
        if name in ALIASES:
            return cls(ALIASES[name], said=name)
        return cls(name)

    @property
    def is_truco_call(self) -> bool:
        return self.type in TRUCO_LEVEL

    @property
    def is_envido_call(self) -> bool:
        return self.type in ENVIDO_CALLS

    @property
    def is_flor_call(self) -> bool:
        return self.type in FLOR_CALLS


def play(card: str) -> Action:
    return Action("play", card=card)

"""Presets and options (RULES.md §2): one resolved, validated ``Rules`` object per game."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from .errors import InvalidRules

#: Bumped whenever a rule's meaning changes, so a stored game replays under its own rules.
RULES_VERSION = 1

FIRST_PARDA = ("next_decides", "mano_wins")
ENVIDO_WINDOWS = ("before_first_card", "before_own_first_card", "first_baza")
ENVIDO_RAISES = ("any_higher", "next_level", "valenciano")
FALTA_MODES = ("malas_buenas", "cama")
TRUCO_TOPS = ("vale_cuatro", "joc_fora")
MAZO_TEAMS = ("side_concedes", "partner_continues")
DECK_NAMES = ("spanish40", "valencian22")
PLAYER_COUNTS = (2, 4, 6)


@dataclass(frozen=True, slots=True)
class Rules:
    preset: str
    deck: str
    players: int
    target: int
    buenas_from: int
    camas_to_win: int
    first_parda: str
    envido_window: str
    envido_raise: str
    falta: str
    truco_top: str
    mazo_team: str
    mazo_envido_penalty: bool
    flor: bool  # RULES.md §5.3, off in every preset
    pica_pica: bool  # RULES.md §9, 6 players only, off in every preset

    @property
    def truco_top_level(self) -> int:
        """RULES.md §5.1: vale cuatro is level 4, joc fora level 5."""
        return 5 if self.truco_top == "joc_fora" else 4

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Rules:
        """Read back stored rules, checking them as strictly as new ones."""
        options = dict(data)
        preset = options.pop("preset", None)
        if not isinstance(preset, str):
            raise InvalidRules("stored rules lack a preset", "invalid_rules")
        return resolve_rules(preset, options)


_VALENCIANO = Rules(
    preset="valenciano",
    deck="valencian22",
    players=2,
    target=24,
    buenas_from=13,
    camas_to_win=2,
    first_parda="next_decides",
    envido_window="before_own_first_card",
    envido_raise="valenciano",
    falta="cama",
    truco_top="joc_fora",
    mazo_team="partner_continues",
    mazo_envido_penalty=False,
    flor=False,
    pica_pica=False,
)
_ARGENTINO = Rules(
    preset="argentino",
    deck="spanish40",
    players=2,
    target=30,
    buenas_from=15,
    camas_to_win=1,
    first_parda="mano_wins",
    envido_window="before_first_card",
    envido_raise="next_level",
    falta="malas_buenas",
    truco_top="vale_cuatro",
    mazo_team="side_concedes",
    mazo_envido_penalty=False,
    flor=False,
    pica_pica=False,
)
_ARGENTINO_CLASICO = replace(
    _ARGENTINO,
    preset="argentino_clasico",
    first_parda="next_decides",
    envido_window="first_baza",
    envido_raise="any_higher",
    mazo_envido_penalty=True,
)

PRESETS: dict[str, Rules] = {
    rules.preset: rules for rules in (_VALENCIANO, _ARGENTINO, _ARGENTINO_CLASICO)
}

_CHOICES: dict[str, tuple[object, ...]] = {
    "deck": DECK_NAMES,
    "players": PLAYER_COUNTS,
    "first_parda": FIRST_PARDA,
    "envido_window": ENVIDO_WINDOWS,
    "envido_raise": ENVIDO_RAISES,
    "falta": FALTA_MODES,
    "truco_top": TRUCO_TOPS,
    "mazo_team": MAZO_TEAMS,
    "mazo_envido_penalty": (True, False),
    "flor": (True, False),
    "pica_pica": (True, False),
}
#: The integer options' ranges, both ends included (RULES.md §2).
OPTION_BOUNDS: dict[str, tuple[int, int]] = {
    "target": (6, 60),
    "buenas_from": (2, 60),
    "camas_to_win": (1, 5),
}
#: The codes of options each valid alone that the rules refuse together (RULES.md §2).
REFUSED_TOGETHER = ("buenas_above_target", "flor_with_valencian22", "pica_pica_without_six")
#: Every option's closed set of values; the API's contract is generated from these two tables.
OPTION_CHOICES: Mapping[str, tuple[object, ...]] = _CHOICES
_OPTION_NAMES = tuple(field.name for field in fields(Rules) if field.name != "preset")


def resolve_rules(preset: str, overrides: Mapping[str, Any] | None = None) -> Rules:
    """A preset with some options overridden; unknown options or values raise ``InvalidRules``."""
    if preset not in PRESETS:
        raise InvalidRules(
            f"unknown preset {preset!r}; choose one of {', '.join(PRESETS)}", "unknown_preset"
        )
    if not isinstance(overrides, Mapping | None):
        raise InvalidRules("the options are an object of option names", "invalid_option")
    overrides = dict(overrides or {})
    unknown = sorted(set(overrides) - set(_OPTION_NAMES))
    if unknown:
        raise InvalidRules(
            f"unknown option(s): {', '.join(unknown)}", "unknown_option", option=unknown[0]
        )
    for name, value in overrides.items():
        _check_option(name, value)
    rules = replace(PRESETS[preset], **overrides)
    if not rules.buenas_from <= rules.target:
        raise InvalidRules(
            f"buenas_from must lie between 2 and target ({rules.target})",
            "buenas_above_target",
            option="buenas_from",
        )
    # RULES.md §2: the two combinations that are rejected.
    if rules.flor and rules.deck == "valencian22":
        raise InvalidRules(
            "flor is a rule of the 40-card deck: it cannot be played with valencian22",
            "flor_with_valencian22",
            option="flor",
        )
    if rules.pica_pica and rules.players != 6:
        raise InvalidRules(
            "pica_pica is only for games of 6 players", "pica_pica_without_six", option="pica_pica"
        )
    return rules


def _check_option(name: str, value: Any) -> None:
    if name in _CHOICES:
        # bool is an int in Python: `True in (2, 4)` must not pass, nor `1 in (True, False)`.
        choices = _CHOICES[name]
        if not any(type(value) is type(choice) and value == choice for choice in choices):
            allowed = ", ".join(repr(choice) for choice in choices)
            raise InvalidRules(
                f"{name} must be one of {allowed}, not {value!r}", "invalid_option", option=name
            )
        return
    bounds = OPTION_BOUNDS[name]
    if type(value) is not int or not bounds[0] <= value <= bounds[1]:
        raise InvalidRules(
            f"{name} must be an integer from {bounds[0]} to {bounds[1]}, not {value!r}",
            "invalid_option",
            option=name,
        )

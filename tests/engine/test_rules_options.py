"""RULES.md §2: the presets, the overrides, and every option or value the referee refuses."""

from __future__ import annotations

import pytest

from games import engine as E

PRESET_TABLE = {
    "valenciano": {
        "deck": "valencian22",
        "players": 2,
        "target": 24,
        "buenas_from": 13,
        "camas_to_win": 2,
        "first_parda": "next_decides",
        "envido_window": "before_own_first_card",
        "envido_raise": "valenciano",
        "falta": "cama",
        "truco_top": "joc_fora",
        "mazo_team": "partner_continues",
        "mazo_envido_penalty": False,
        "flor": False,
        "pica_pica": False,
    },
    "argentino": {
        "deck": "spanish40",
        "players": 2,
        "target": 30,
        "buenas_from": 15,
        "camas_to_win": 1,
        "first_parda": "mano_wins",
        "envido_window": "before_first_card",
        "envido_raise": "next_level",
        "falta": "malas_buenas",
        "truco_top": "vale_cuatro",
        "mazo_team": "side_concedes",
        "mazo_envido_penalty": False,
        "flor": False,
        "pica_pica": False,
    },
    "argentino_clasico": {
        "deck": "spanish40",
        "players": 2,
        "target": 30,
        "buenas_from": 15,
        "camas_to_win": 1,
        "first_parda": "next_decides",
        "envido_window": "first_baza",
        "envido_raise": "any_higher",
        "falta": "malas_buenas",
        "truco_top": "vale_cuatro",
        "mazo_team": "side_concedes",
        "mazo_envido_penalty": True,
        "flor": False,
        "pica_pica": False,
    },
}

#: Every value §2 names for the enumerated options, valid under any preset.
CHOICES: dict[str, list[object]] = {
    "deck": ["spanish40", "valencian22"],
    "players": [2, 4, 6],
    "first_parda": ["next_decides", "mano_wins"],
    "envido_window": ["before_first_card", "before_own_first_card", "first_baza"],
    "envido_raise": ["any_higher", "next_level", "valenciano"],
    "falta": ["malas_buenas", "cama"],
    "truco_top": ["vale_cuatro", "joc_fora"],
    "mazo_team": ["side_concedes", "partner_continues"],
    "mazo_envido_penalty": [True, False],
}


@pytest.mark.parametrize("preset", PRESET_TABLE)
def test_preset_values_are_those_of_the_table(preset):
    """RULES.md §2: each preset resolves to exactly the values of the presets table."""
    resolved = E.resolve_rules(preset, {}).to_json()
    assert resolved == {"preset": preset, **PRESET_TABLE[preset]}


@pytest.mark.parametrize("preset", PRESET_TABLE)
def test_options_every_named_value_is_accepted_under_every_preset(preset):
    """RULES.md §2: the options take the values named in the table and §4–§6, under any preset."""
    for name, values in CHOICES.items():
        for value in values:
            assert getattr(E.resolve_rules(preset, {name: value}), name) == value


@pytest.mark.parametrize("preset", PRESET_TABLE)
def test_options_flor_and_pica_pica_are_accepted_where_rules_md_allows_them(preset):
    """RULES.md §2: flor with the 40-card deck, pica_pica with 6 players, under every preset."""
    assert E.resolve_rules(preset, {"deck": "spanish40", "flor": True}).flor is True
    assert E.resolve_rules(preset, {"flor": False}).flor is False
    six = E.resolve_rules(preset, {"players": 6, "pica_pica": True})
    assert (six.players, six.pica_pica) == (6, True)
    assert E.resolve_rules(preset, {"pica_pica": False}).pica_pica is False


def test_stored_rules_without_the_new_options_read_back_with_them_off():
    """A game stored before flor and pica_pica existed replays under its own rules: both off."""
    stored = E.resolve_rules("argentino", {"players": 4}).to_json()
    del stored["flor"], stored["pica_pica"]
    rules = E.Rules.from_json(stored)
    assert (rules.flor, rules.pica_pica, rules.players) == (False, False, 4)


def test_override_changes_only_the_named_options():
    """RULES.md §2: a game's rules are its preset plus its overrides."""
    rules = E.resolve_rules("valenciano", {"players": 4, "target": 30, "truco_top": "vale_cuatro"})
    expected = {
        **PRESET_TABLE["valenciano"],
        "players": 4,
        "target": 30,
        "truco_top": "vale_cuatro",
    }
    assert rules.to_json() == {"preset": "valenciano", **expected}


@pytest.mark.parametrize(
    "overrides",
    [
        {"target": 6, "buenas_from": 2},
        {"target": 60, "buenas_from": 60},
        {"target": 20, "buenas_from": 20},
        {"camas_to_win": 1},
        {"camas_to_win": 5},
    ],
)
def test_options_bounds_are_inclusive(overrides):
    """RULES.md §2: target 6–60, buenas_from 2–target, camas_to_win 1–5."""
    rules = E.resolve_rules("argentino", overrides)
    assert {name: getattr(rules, name) for name in overrides} == overrides


def test_match_started_stores_the_resolved_rules_and_version():
    """RULES.md §2: the first event holds the fully resolved options and a rules_version."""
    rules = E.resolve_rules("argentino", {"target": 18})
    data = E.start_match(rules).to_json()
    assert data["rules"] == {**rules.to_json(), "target": 18}
    assert data["rules_version"] == E.RULES_VERSION
    assert E.replay([E.event_from_json(data)]).rules == rules


def test_unknown_preset_is_rejected():
    """RULES.md §2: unknown values are rejected with a clear error."""
    with pytest.raises(E.InvalidRules) as error:
        E.resolve_rules("truco_uruguayo", {})
    assert error.value.code == "unknown_preset"


@pytest.mark.parametrize("name", ["flores", "preset", "Target", "rules_version"])
def test_unknown_option_is_rejected(name):
    """RULES.md §2: unknown options are rejected."""
    with pytest.raises(E.InvalidRules) as error:
        E.resolve_rules("argentino", {name: 1})
    assert error.value.code == "unknown_option"


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("argentino", {"players": 3}),
        ("argentino", {"players": 8}),
        ("argentino", {"target": 5}),
        ("argentino", {"target": 61}),
        ("argentino", {"buenas_from": 1}),
        ("argentino", {"camas_to_win": 0}),
        ("argentino", {"camas_to_win": 6}),
        ("argentino", {"players": True}),  # a bool is not a number of players
        ("argentino", {"target": True}),
        ("argentino", {"camas_to_win": True}),
        ("argentino", {"target": 24.0}),
        ("argentino", {"target": "24"}),
        ("argentino", {"mazo_envido_penalty": 1}),  # an int is not a bool
        ("argentino", {"mazo_envido_penalty": 0}),
        ("argentino", {"mazo_envido_penalty": "true"}),
        ("argentino", {"deck": "spanish48"}),
        ("argentino", {"first_parda": "mano"}),
        ("argentino", {"envido_window": "always"}),
        ("argentino", {"envido_raise": "any"}),
        ("argentino", {"falta": "buenas"}),
        ("argentino", {"truco_top": "retruco"}),
        ("argentino", {"mazo_team": "everyone"}),
        ("valenciano", {"envido_raise": None}),
        ("argentino", {"flor": 1}),
        ("argentino", {"pica_pica": "yes"}),
    ],
)
def test_invalid_option_value_is_rejected(preset, overrides):
    """RULES.md §2: values outside the valid ranges and names are rejected as invalid_option."""
    with pytest.raises(E.InvalidRules) as error:
        E.resolve_rules(preset, overrides)
    assert error.value.code == "invalid_option"
    assert error.value.option == next(iter(overrides))


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("argentino", {"target": 20, "buenas_from": 21}),
        ("valenciano", {"target": 12}),  # the preset's buenas_from 13 now lies above the target
    ],
)
def test_buenas_above_the_target_is_rejected(preset, overrides):
    """RULES.md §2: buenas_from lies between 2 and the target; each value alone may be valid."""
    with pytest.raises(E.InvalidRules) as error:
        E.resolve_rules(preset, overrides)
    assert (error.value.code, error.value.option) == ("buenas_above_target", "buenas_from")


@pytest.mark.parametrize(
    ("preset", "overrides", "code"),
    [
        ("valenciano", {"flor": True}, "flor_with_valencian22"),
        ("argentino", {"deck": "valencian22", "flor": True}, "flor_with_valencian22"),
        ("argentino", {"pica_pica": True}, "pica_pica_without_six"),
        ("argentino", {"players": 4, "pica_pica": True}, "pica_pica_without_six"),
    ],
)
def test_the_two_combinations_rules_md_rejects(preset, overrides, code):
    """RULES.md §2: flor with valencian22, pica_pica without 6 players; each value valid alone."""
    with pytest.raises(E.InvalidRules) as error:
        E.resolve_rules(preset, overrides)
    assert error.value.code == code and error.value.code in E.rules.REFUSED_TOGETHER

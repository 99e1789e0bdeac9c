"""The referee of Truc valencià and Truco argentino: pure Python: no Django, clock or randomness.

events = decide(state, seat, action)      # validates, or raises IllegalAction with a stable code
for event in events: state = evolve(state, event)
legal_actions(state, seat), view_for(state, seat | None), replay(events)
"""

from .actions import Action, play
from .cards import DECKS, envido_of, flor_of
from .errors import EngineError, IllegalAction, InvalidAction, InvalidEvent, InvalidRules
from .events import EVENT_TYPES, PARDA, Event, event_from_json
from .evolve import evolve, replay, start
from .referee import REASONS, decide, legal_actions, may_act, turn, why_not
from .rules import PRESETS, RULES_VERSION, Rules, resolve_rules
from .snapshots import restore, snapshot
from .state import Hand, State, side_of
from .table import (
    abort,
    deal,
    deal_hands,
    forfeit,
    next_hand_kind,
    resign,
    start_match,
    timeout_action,
)
from .views import redact, redact_json, view_for

__all__ = [
    "DECKS",
    "EVENT_TYPES",
    "PARDA",
    "PRESETS",
    "REASONS",
    "RULES_VERSION",
    "Action",
    "EngineError",
    "Event",
    "Hand",
    "IllegalAction",
    "InvalidAction",
    "InvalidEvent",
    "InvalidRules",
    "Rules",
    "State",
    "abort",
    "deal",
    "deal_hands",
    "decide",
    "envido_of",
    "flor_of",
    "event_from_json",
    "evolve",
    "forfeit",
    "legal_actions",
    "may_act",
    "next_hand_kind",
    "play",
    "redact",
    "redact_json",
    "replay",
    "resign",
    "resolve_rules",
    "restore",
    "side_of",
    "snapshot",
    "start",
    "start_match",
    "timeout_action",
    "turn",
    "view_for",
    "why_not",
]

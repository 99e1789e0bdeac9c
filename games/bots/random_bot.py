"""The ``random`` bot: any legal action of its view, uniformly."""

from __future__ import annotations

import random
from typing import Any

from games.engine import Action


def choose(view: dict[str, Any], rng: random.Random) -> Action:
    legal = view["legal_actions"]
    if not legal:
        raise ValueError("the seat has no legal action in this view")
    return Action.from_json(rng.choice(legal))

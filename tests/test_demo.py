"""`manage.py demo`: a whole match against a bot through the live HTTP API, narrated."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.core.management import call_command

from games.management.commands.demo import Command

pytestmark = pytest.mark.skipif(
    settings.CELERY_BROKER_URL.startswith("memory://"), reason="the bot moves on a real worker"
)


def test_demo_plays_a_match_against_a_bot_and_tells_it(live_server, celery_worker_thread):
    out = io.StringIO()
    call_command("demo", url=live_server.url, preset="valenciano", target=9, stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("Registered as demo-")
    assert any(line.startswith("Hand 1, Bot basic 1 dealing: ") for line in lines)
    assert any(line.startswith("Bot basic 1: the ") for line in lines)
    assert lines[-1].startswith("Match over (camas): ")


def test_demo_tells_the_flor_and_its_contest():
    """RULES.md §5.3: with ``--flor`` the demo tells the flor, the contest and its points."""
    demo = Command()
    demo.names = {0: "You", 1: "Bot basic 1"}
    told = [
        demo.sentence("flor_sung", {"seat": 1}, 1),
        demo.sentence("flor_called", {"seat": 0, "call": "contraflor_al_resto"}, 0),
        demo.sentence(
            "flor_settled",
            {"seat": 1, "how": "quiero", "winner": 0, "value": 35, "points": 16},
            1,
        ),
        demo.sentence(
            "flor_settled",
            {"seat": None, "how": "unopposed", "winner": 1, "value": None, "points": 3},
            None,
        ),
    ]
    assert told == [
        "Bot basic 1: ¡flor!",
        "You: contraflor al resto!",
        "Bot basic 1: con flor quiero. Flor with 35: 16 to your side.",
        "Flor: 3 to the bot's side.",
    ]

"""`manage.py demo`: a whole match against a bot through the live HTTP API, narrated."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.core.management import call_command

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

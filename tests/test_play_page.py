"""The web table's page and files, without a browser (tests/browser drives it in one): the page
carries no game logic and loads only the project's own files."""

from __future__ import annotations

import re
from pathlib import Path

from django.contrib.staticfiles import finders
from django.test import Client

STATIC = Path(__file__).resolve().parent.parent / "play" / "static" / "play"


def test_the_page_loads_the_modules_from_its_own_origin_only() -> None:
    answer = Client().get("/play/")
    assert answer.status_code == 200 and answer["Content-Type"].startswith("text/html")
    policy = answer["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy
    page = answer.content.decode()
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', page)
    assert "/static/play/app.js" in assets
    for asset in assets:
        assert finders.find(asset.removeprefix("/static/")), asset
    assert "<script>" not in page  # no inline script: the policy would refuse it anyway


def test_the_modules_import_each_other_and_nothing_from_elsewhere() -> None:
    modules = {path.name: path.read_text() for path in STATIC.glob("*.js")}
    for name, text in modules.items():
        for target in re.findall(r'from "([^"]+)"', text):
            assert target.startswith("./") and target[2:] in modules, (name, target)
        # No URL of another site anywhere (the SVG namespace is a name, not a fetch).
        urls = set(re.findall(r"https?://[^\s\"'`]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, (name, urls)


def test_a_post_to_the_page_is_refused() -> None:
    assert Client().post("/play/").status_code == 405


def test_the_service_worker_is_served_under_play_so_that_it_controls_the_table() -> None:
    answer = Client().get("/play/sw.js")
    assert answer.status_code == 200
    assert answer["Content-Type"].startswith("text/javascript")
    assert answer["Cache-Control"] == "no-cache"  # a new worker reaches the browsers at once
    assert answer.content == (STATIC / "sw.js").read_bytes()

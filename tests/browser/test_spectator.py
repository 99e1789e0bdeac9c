"""A spectator's page shows no hidden card: neither its DOM nor anything it received over the
network (every API answer's body, read back through Chrome's DevTools) holds a card that a
player still has in hand."""

from __future__ import annotations

import base64
import json
from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import PHONE, Api, unique_name
from tests.browser.pages import (
    game_id_of,
    network_log,
    open_page,
    press,
    sign_up,
    snapshot,
    wait_for,
)


def strings_in(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value}
    if isinstance(value, dict):
        return set().union(*(strings_in(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(strings_in(v) for v in value)) if value else set()
    return set()


def sse_data(text: str) -> list[Any]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ")]


def body_of(driver: Any, request_id: str, streaming: bool) -> str | None:
    """What the page received: the whole body of a finished answer; of a stream still open,
    what arrived so far (DevTools keeps it once asked to stream the resource's content)."""
    try:
        asked = {"requestId": request_id}
        if streaming:
            chunk = driver.execute_cdp_cmd("Network.streamResourceContent", asked)
            return base64.b64decode(chunk["bufferedData"]).decode()
        return str(driver.execute_cdp_cmd("Network.getResponseBody", asked)["body"])
    except Exception:  # a request that got no answer (aborted when the page moved on)
        return None


def received(driver: Any, origin: str) -> tuple[list[Any], list[Any]]:
    """The JSON of every API answer, and of every stream message, that the page received."""
    urls, bodies, streamed = [], [], []
    for message in network_log(driver):
        if message["method"] == "Network.requestWillBeSent":
            urls.append(message["params"]["request"]["url"])
        elif message["method"] == "Network.responseReceived":
            response = message["params"]["response"]
            # /api/rules lists every card of every deck: public, no game's data.
            skip = "/api/" not in response["url"] or response["url"].endswith("/api/rules")
            if skip or response["status"] in (204, 304):
                continue
            streaming = response["mimeType"] == "text/event-stream"
            body = body_of(driver, message["params"]["requestId"], streaming)
            if body and streaming:
                streamed.extend(sse_data(body))
            elif body:
                bodies.append(json.loads(body))
    # Nothing from elsewhere (chrome:// and data: are the browser's own pages and images).
    web = [url for url in urls if url.startswith(("http:", "https:", "ws:", "wss:"))]
    assert web and all(url.startswith(origin) for url in web), web
    return bodies, streamed


def step(players: dict[int, Api], game_id: str) -> dict[str, Any]:
    """The player whose turn it is plays his first card (or passes the envido phase)."""
    public = players[0].get(f"/games/{game_id}")
    seat = public["state"]["turn"]
    view = players[seat].get(f"/games/{game_id}")
    legal = view["state"]["legal_actions"]
    action = next((a for a in legal if a["type"] == "play"), None) or {"type": "paso"}
    return players[seat].act(game_id, action, view["version"])["game"]


def test_a_spectators_page_shows_no_hidden_card(browsers, live_url) -> None:
    players = {0: Api.register(live_url, unique_name("pau")), 1: None}
    players[1] = Api.register(live_url, unique_name("pep"))
    game = players[0].post("/games", {"preset": "argentino", "turn_seconds": 600}, expect=201)
    game_id = game["id"]
    players[1].post(f"/games/{game_id}/join")

    watcher = browsers(size=PHONE)
    sign_up(watcher, unique_name("vera"))
    form = watcher.find_element(By.ID, "watch")
    form.find_element(By.NAME, "game").send_keys(f"{live_url}/play/#/game/{game_id}")
    form.find_element(By.CSS_SELECTOR, "button").click()
    assert game_id_of(watcher) == game_id
    # The lobby's list of games being played (GET /api/games/live): this one, not a private one.
    hidden = players[0].post("/games", {"preset": "argentino", "visibility": "private"}, expect=201)
    players[1].post("/games/join", {"join_code": hidden["join_code"]})
    open_page(watcher, "#/")
    rows = wait_for(
        lambda: watcher.find_elements(By.CSS_SELECTOR, "#live-games .game-row"), what="live games"
    )
    assert [row.get_attribute("data-game") for row in rows] == [game_id]
    press(watcher, f"#live-games .game-row[data-game='{game_id}'] a.watch")
    assert game_id_of(watcher) == game_id
    assert watcher.find_elements(By.CSS_SELECTOR, ".badge.spectator")

    # A few moves while the spectator watches: the envido phase, then cards.
    for _ in range(4):
        view = step(players, game_id)

        def caught_up(v=view):
            return (snapshot(watcher) or {}).get("version") == v["version"]

        wait_for(caught_up)
    page = snapshot(watcher)
    hand = players[0].get(f"/games/{game_id}")["state"]["hand"]
    played = {play["card"] for plays in [*hand["bazas"], hand["baza"]] for play in plays}
    assert played, "no card was played: the test would prove nothing"
    hidden = set()
    for seat, api in players.items():
        mine = api.get(f"/games/{game_id}")["state"]["hand"]["my_cards"]
        hidden |= set(mine)
        # The spectator sees the right number of backs and no face in anyone's hand.
        assert page["seats"][str(seat)]["faces"] == []
        assert page["seats"][str(seat)]["backs"] == len(mine)
    assert page["actions"] == []

    # The DOM: no element names a hidden card, in data, labels or text.
    shown = set(
        watcher.execute_script(
            "return [...document.querySelectorAll('[data-card]')].map((e) => e.dataset.card)"
        )
    )
    assert played <= shown and not hidden & shown
    html = watcher.page_source
    for card in hidden:
        assert f'data-card="{card}"' not in html

    # The network: every answer the page received, parsed, holds no hidden card.
    bodies, streamed = received(watcher, live_url)
    # The page followed the game through its stream: the moves came as events and views.
    assert {"card_played"} <= {m.get("type") for m in streamed}
    assert any(m.get("id") == game_id for m in streamed)  # a view message
    seen = set().union(*(strings_in(body) for body in [*bodies, *streamed]))
    assert played <= seen, "the bodies were not read: the public cards should be there"
    assert not hidden & seen, hidden & seen
    deals = [
        event
        for body in [*bodies, *({"events": [m]} for m in streamed)]
        for event in body.get("events", [])
        if event.get("type") == "hand_dealt"
    ]
    assert deals and all(hands is None for e in deals for hands in e["data"]["hands"])

    # The turn clock counts down to the deadline (the players are thinking).
    first = snapshot(watcher)["clock"]
    wait_for(lambda: snapshot(watcher)["clock"] < first, timeout=5, what="the clock to tick")

    # The phone-sized page fits the screen: nothing to scroll sideways.
    width = watcher.execute_script("return [document.documentElement.scrollWidth, innerWidth]")
    assert width[0] <= width[1], width

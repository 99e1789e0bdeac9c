"""A table fed by two paths at once (the game's stream, and the answers to its own requests)
shows the newest of what they say, whatever order they arrive in.

The page's action is answered over HTTP while its stream tells the same moves and then the
bots' replies. On a busy server the bots' replies can reach the stream before the action's own
answer reaches the page; that answer then holds an older view than the page shows. Taken as
the table's view, it put the table back to the bot's turn, and nothing corrected it: the
stream had already sent its newest view, and the game waited for this seat (the whole-match
tests' intermittent stall, issues 14 and 17). Here the answer is made late on purpose.
"""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import unique_name
from tests.browser.pages import (
    check_table,
    fill_form,
    game_id_of,
    press,
    settle,
    sign_up,
    snapshot,
    wait_for,
)

#: Run before the page's own scripts: while ``__trucHoldActions`` is set, the answer to a
#: POST .../actions is held back (as a slow network would) once received in full; after its
#: release ``__trucHeld`` says "consumed" once the page has had ample time to take it in (its
#: handling is a few promise steps, not a wait on anything).
HOLD_ANSWERS = """
(() => {
  const realFetch = window.fetch.bind(window);
  window.__trucHoldActions = false;
  window.__trucHeld = null;
  window.fetch = async (input, init = {}) => {
    const response = await realFetch(input, init);
    const url = typeof input === "string" ? input : input.url;
    if (!window.__trucHoldActions || init.method !== "POST" || !/\\/actions$/.test(url)) {
      return response;
    }
    await response.clone().text();
    window.__trucHeld = "held";
    while (window.__trucHoldActions) await new Promise((done) => setTimeout(done, 20));
    setTimeout(() => (window.__trucHeld = "consumed"), 500);
    return response;
  };
})();
"""


def held(driver: Any) -> Any:
    return driver.execute_script("return window.__trucHeld")


def test_an_answer_that_arrives_after_the_streams_news_does_not_take_the_table_back(
    browsers,
) -> None:
    driver = browsers()
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_ANSWERS})
    api = sign_up(driver, unique_name("ana"))
    fill_form(driver, "new-bots", preset="valenciano", players=2, level="basic", length="quick")
    game_id = game_id_of(driver)
    view, _ = settle(driver, api, game_id)
    # A truc call: the bot must answer it, so the game moves past what the call's answer holds.
    assert "truco" in {action["type"] for action in view["state"]["legal_actions"]}
    driver.execute_script("window.__trucHoldActions = true")
    press(driver, ".actions button[data-action='truco']")
    wait_for(lambda: held(driver) == "held", what="the answer to the call, held back")
    # The bot answers (and plays on until it is this seat's turn); the stream tells the page.
    latest, _ = settle(driver, api, game_id)
    since = api.events(game_id, view["version"])
    called = next(event["seq"] for event in since if event["type"] == "truco_called")
    assert latest["version"] > called
    assert any(event["seat"] == 1 and event["seq"] > called for event in since)
    driver.execute_script("window.__trucHoldActions = false")
    wait_for(lambda: held(driver) == "consumed", what="the late answer taken in")
    page = snapshot(driver)
    assert page["version"] == latest["version"], (
        f"the late answer (version {called}) took the table back from {latest['version']} "
        f"to {page['version']}"
    )
    check_table(page, api.get(f"/games/{game_id}"))

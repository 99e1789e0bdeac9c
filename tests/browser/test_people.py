"""Two people, two browsers (two profiles: two browser contexts with their own storage): a
private table joined by its code, "my games" with the waiting ones first, a stale click read
again and retried, a resignation and the rating change, logging out and in, the language
switch."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import unique_name
from tests.browser.pages import (
    check_table,
    fill_form,
    game_id_of,
    log_in,
    network_log,
    open_page,
    press,
    settle,
    sign_up,
    snapshot,
    text_of,
    wait_for,
)

# The page's new requests for the game's stream are held (never answered) while set.
HOLD_FOLLOWING = {"patterns": [{"urlPattern": "*/stream*"}]}


def shown_version(driver) -> int:
    return (snapshot(driver) or {}).get("version", -1)


def test_a_private_table_joined_by_code_from_a_second_browser(browsers) -> None:
    ana_name, bea_name = unique_name("ana"), unique_name("bea")
    ana = browsers()
    ana_api = sign_up(ana, ana_name)
    # Switched by hand to Valencian, and kept.
    Select(ana.find_element(By.ID, "lang")).select_by_value("ca")
    wait_for(lambda: text_of(ana, "#my-games h2") == "Les meues partides", what="Valencian")
    # A public table nobody joins (not waiting for Ana), then the private one.
    fill_form(ana, "new-people", preset="argentino", players=2, visibility="public")
    game_id_of(ana)
    open_page(ana, "#/")
    fill_form(
        ana, "new-people", preset="valenciano", players=2, visibility="private", length="quick"
    )
    game_id = game_id_of(ana)
    code = wait_for(lambda: ana.find_elements(By.CSS_SELECTOR, ".join-code"), what="the code")
    join_code = code[0].get_attribute("data-code")
    assert join_code and join_code in code[0].text

    bea = browsers(language="es")
    bea_api = sign_up(bea, bea_name)
    form = bea.find_element(By.ID, "join-code")
    assert form.find_element(By.CSS_SELECTOR, "button").text == "Unirse"  # the browser's Spanish
    form.find_element(By.NAME, "code").send_keys(join_code)
    form.find_element(By.CSS_SELECTOR, "button").click()
    assert game_id_of(bea) == game_id
    # Ana's table, still filling when she opened it, learns that it is full.
    wait_for(lambda: (snapshot(ana) or {}).get("status") == "active", what="Ana's table to start")

    apis = {0: ana_api, 1: bea_api}
    drivers = {0: ana, 1: bea}
    view = ana_api.get(f"/games/{game_id}")
    first = view["state"]["turn"]  # X plays first, Y answers
    second = 1 - first
    for seat in (first,):
        view, page = settle(drivers[seat], apis[seat], game_id)
        check_table(page, view)

    # "My games" puts the one waiting for the player first.
    open_page(drivers[first], "#/")
    rows = wait_for(lambda: drivers[first].find_elements(By.CSS_SELECTOR, "#my-games li"))
    assert rows[0].get_attribute("data-game") == game_id
    assert rows[0].get_attribute("data-awaiting") == "yes"
    if first == 0:
        assert [r.get_attribute("data-awaiting") for r in rows] == ["yes", "no"]
    open_page(drivers[first], f"#/game/{game_id}")

    # Y's page, opened again after X's first card, is held from the game's stream (as on a
    # connection that has silently stalled); meanwhile Y calls an envit from another device and
    # X accepts it: Y's page still offers the cards at the old version.
    y, y_api, x_api = drivers[second], apis[second], apis[first]
    x_view = x_api.get(f"/games/{game_id}")
    card = x_view["state"]["hand"]["my_cards"][0]
    x_api.act(game_id, {"type": "play", "card": card}, x_view["version"])
    y.execute_cdp_cmd("Fetch.enable", HOLD_FOLLOWING)
    y.refresh()
    stale_view, stale_page = settle(y, y_api, game_id)
    check_table(stale_page, stale_view)
    moved = y_api.act(game_id, {"type": "envit"}, stale_view["version"])
    x_api.act(game_id, {"type": "vull"}, moved["version"])
    network_log(y)  # forget the traffic so far
    mine = stale_view["state"]["hand"]["my_cards"][0]
    press(y, f".seat.me .card.playable[data-card='{mine}']")
    wait_for(lambda: shown_version(y) > stale_view["version"] + 2, what="the retried action")
    statuses = [
        message["params"]["response"]["status"]
        for message in network_log(y)
        if message["method"] == "Network.responseReceived"
        and message["params"]["response"]["url"].endswith("/actions")
    ]
    assert statuses == [409, 201], statuses  # refused as stale, read again, retried
    played = [
        event
        for event in y_api.events(game_id, stale_view["version"])
        if event["type"] == "card_played" and event["seat"] == second
    ]
    assert [event["data"]["card"] for event in played] == [mine]
    assert text_of(y, "#toast") in (
        "The table had moved on: read again and retried.",
        "La mesa había cambiado: releída y reintentado.",
        "La taula havia canviat: rellegida i reintentat.",
    )
    y.execute_cdp_cmd("Fetch.disable", {})

    # Bea resigns (asked twice); both tables show the end and the rating change.
    press(bea, ".resign")
    wait_for(lambda: bea.find_elements(By.CSS_SELECTOR, ".resign.armed"), what="armed")
    press(bea, ".resign.armed")
    for seat, driver in drivers.items():

        def rated(api=apis[seat]):
            return (v := api.get(f"/games/{game_id}"))["rating_changes"] and v

        view = wait_for(rated, what="the rating")
        assert view["status"] == "finished" and view["rated"] and view["winner_side"] == 0

        def rated_on_page(driver=driver):
            end = (snapshot(driver) or {}).get("match_end")
            return end and end["ratings"] and end

        end = wait_for(rated_on_page, what="the rating change on the page")
        assert sorted(end["ratings"]) == sorted(
            [change["player_id"], change["delta"]] for change in view["rating_changes"]
        )
    assert any(delta > 0 for _, delta in end["ratings"])

    # Ana asks for the rematch (the lobby's); Bea's table offers it to her, she accepts, and both
    # tables move to the new game.
    press(ana, ".rematch-offer")
    wait_for(lambda: bea.find_elements(By.CSS_SELECTOR, ".rematch-accept"), what="the offer")
    press(bea, ".rematch-accept")
    new_id = wait_for(lambda: ana_api.get(f"/games/{game_id}/rematch")["next_game_id"])
    for driver in (ana, bea):

        def on_the_rematch(d=driver):
            return d.current_url.endswith(f"/game/{new_id}")

        def started(d=driver):
            return (snapshot(d) or {}).get("status") == "active"

        wait_for(on_the_rematch, what="the rematch")
        wait_for(started, what="it starts")

    # Logging out forgets the token; logging in again gets a new one.
    token = ana.execute_script("return localStorage.getItem('truc.token')")
    ana.find_element(By.ID, "logout").click()
    wait_for(lambda: ana.find_elements(By.ID, "login-form"), what="the login form")
    assert ana.execute_script("return localStorage.getItem('truc.token')") is None
    log_in(ana, ana_name)
    assert ana.execute_script("return localStorage.getItem('truc.token')") not in (None, token)
    assert text_of(ana, "#my-games h2") == "Les meues partides"

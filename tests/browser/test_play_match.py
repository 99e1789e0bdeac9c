"""Whole matches in the browser: a person signs up, starts a game against bots from the lobby and
plays it to the end by clicking what the table offers, the table held against the API's view of
the same seat after every move."""

from __future__ import annotations

import os
import random
import time
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from tests.browser.conftest import DESKTOP, PHONE, unique_name
from tests.browser.pages import (
    check_table,
    fill_form,
    fits_the_screen,
    game_id_of,
    play_to_end,
    press,
    settle,
    sign_up,
    snapshot,
    wait_for,
)

#: TRUC_SCREENSHOTS=DIR saves the table at desktop and phone sizes there (docs/testing.md).
SCREENSHOTS = os.environ.get("TRUC_SCREENSHOTS")
#: The default run plays quick matches (one cama to 6); TRUC_BROWSER_PROFILE=full plays the
#: presets' own length (minutes each: valenciano is two camas to 24).
LENGTH = "full" if os.environ.get("TRUC_BROWSER_PROFILE") == "full" else "quick"


def phone_and_desktop(driver: Any, api: Any, game_id: str) -> None:
    """The same table at a phone's size: it fits, still shows what the API says, and (with
    TRUC_SCREENSHOTS) both sizes are saved."""
    if SCREENSHOTS:
        Path(SCREENSHOTS).mkdir(parents=True, exist_ok=True)
        driver.set_window_size(1280, 1040)
        time.sleep(0.6)  # the last card's landing animation
        driver.save_screenshot(str(Path(SCREENSHOTS) / "table-desktop.png"))
    driver.set_window_size(*PHONE)
    view, page = settle(driver, api, game_id)
    fits_the_screen(driver)
    check_table(page, view)
    if SCREENSHOTS:
        driver.save_screenshot(str(Path(SCREENSHOTS) / "table-phone.png"))
    driver.set_window_size(*DESKTOP)


def test_a_valenciano_match_against_a_bot_played_to_the_end(browsers) -> None:
    driver = browsers()
    api = sign_up(driver, unique_name("ana"))
    assert "ana" in driver.find_element(By.ID, "who").text
    fill_form(driver, "new-bots", preset="valenciano", players=2, level="basic", length=LENGTH)
    game_id = game_id_of(driver)

    def at_the_second_move(moves, view):
        if moves == 2:
            phone_and_desktop(driver, api, game_id)

    view, page, moves = play_to_end(
        driver,
        api,
        game_id,
        random.Random(17),
        max_moves=400 if LENGTH == "quick" else 2000,
        between=at_the_second_move,
    )
    assert view["status"] == "finished" and moves > 0
    end = page["match_end"]
    assert end["winner"] == str(view["winner_side"])
    assert end["verdict"] == ("You won!" if view["winner_side"] == 0 else "You lost.")
    assert end["unrated"] and not view["rated"]  # a game with a bot is not rated
    # The lobby's rematch: with only bots to wait for, the new game starts at once.
    wait_for(lambda: driver.find_elements(By.CSS_SELECTOR, ".rematch-offer"), what="a rematch")
    press(driver, ".rematch-offer")
    new_id = wait_for(
        lambda: driver.current_url.rsplit("/", 1)[1] != game_id and driver.current_url,
        what="the rematch's table",
    ).rsplit("/", 1)[1]
    assert api.get(f"/games/{game_id}/rematch")["next_game_id"] == new_id
    view, page = settle(driver, api, new_id)
    check_table(page, view)


def test_a_four_player_argentino_match_with_three_bots_in_the_browsers_language(browsers) -> None:
    driver = browsers(language="es-AR")
    api = sign_up(driver, unique_name("beto"))
    # The browser asks for Spanish: the labels are Spanish; the calls are argentino's words.
    assert driver.find_element(By.ID, "logout").text == "Salir"
    fill_form(driver, "new-bots", preset="argentino", players=4, level="basic", length=LENGTH)
    game_id = game_id_of(driver)
    seats = wait_for(lambda: (snapshot(driver) or {}).get("seats"), what="the seats")
    positions = {int(seat): shown["position"] for seat, shown in seats.items()}
    # Me at the bottom, my partner (seat 2) across, seat 1 plays after me, on my right.
    assert positions == {0: "pos-bottom", 1: "pos-right", 2: "pos-top", 3: "pos-left"}
    view, page, moves = play_to_end(driver, api, game_id, random.Random(4))
    assert view["status"] == "finished" and moves > 0 and view["players"] == 4
    assert page["match_end"]["verdict"] == (
        "¡Has ganado!" if view["winner_side"] == 0 else "Has perdido."
    )

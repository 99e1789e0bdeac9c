"""Whole matches in the browser: a person signs up, starts a game against bots from the lobby and
plays it to the end by clicking what the table offers, the table held against the API's view of
the same seat after every move."""

from __future__ import annotations

import random

from selenium.webdriver.common.by import By

from tests.browser.conftest import unique_name
from tests.browser.pages import fill_form, game_id_of, play_to_end, sign_up


def test_a_valenciano_match_against_a_bot_played_to_the_end(browsers) -> None:
    driver = browsers()
    api = sign_up(driver, unique_name("ana"))
    assert "ana" in driver.find_element(By.ID, "who").text
    fill_form(driver, "new-bots", preset="valenciano", players=2, level="basic", length="quick")
    game_id = game_id_of(driver)
    view, page, moves = play_to_end(driver, api, game_id, random.Random(17))
    assert view["status"] == "finished" and moves > 0
    end = page["match_end"]
    assert end["winner"] == str(view["winner_side"])
    assert end["verdict"] == ("You won!" if view["winner_side"] == 0 else "You lost.")
    assert end["unrated"] and not view["rated"]  # a game with a bot is not rated
    assert end["play_again"]

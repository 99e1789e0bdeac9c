"""Driving the web table as a person would (forms, buttons, the keyboard), and reading what it
shows, to hold it against the API's view of the same seat."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from typing import Any

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

from tests.browser.conftest import PASSWORD, Api, server_log_tail

OVER = ("finished", "aborted")

#: What each canonical action's button must say, in the preset's language (RULES.md §5).
LABELS = {
    "valenciano": {
        "truco": "Truc",
        "retruco": "Retruc",
        "vale_cuatro": "Quatre val",
        "joc_fora": "Joc fora",
        "envido": "Envit",
        "falta_envido": "Falta",
        "quiero": "Vull",
        "no_quiero": "No vull",
        "mazo": "Me'n vaig",
        "paso": "Passe",
    },
    "argentino": {
        "truco": "Truco",
        "retruco": "Retruco",
        "vale_cuatro": "Vale cuatro",
        "envido": "Envido",
        "real_envido": "Real envido",
        "falta_envido": "Falta envido",
        "quiero": "Quiero",
        "no_quiero": "No quiero",
        "mazo": "Me voy al mazo",
        "paso": "Paso",
    },
}


def wait_for(condition: Callable[[], Any], timeout: float = 20.0, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.05)


def open_page(driver: Any, fragment: str = "#/") -> None:
    driver.get(f"{driver.base_url}/play/{fragment}")


def sign_up(driver: Any, username: str) -> Api:
    """Sign up through the form; the API client then acts with the page's own token."""
    open_page(driver, "#/signup")
    form = wait_for(lambda: driver.find_elements(By.ID, "signup-form"), what="signup form")[0]
    form.find_element(By.NAME, "username").send_keys(username)
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: driver.find_elements(By.ID, "my-games"), what="the lobby")
    return Api(driver.base_url, page_token(driver))


def log_in(driver: Any, username: str) -> None:
    open_page(driver, "#/login")
    form = wait_for(lambda: driver.find_elements(By.ID, "login-form"), what="login form")[0]
    form.find_element(By.NAME, "username").send_keys(username)
    form.find_element(By.NAME, "password").send_keys(PASSWORD)
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: driver.find_elements(By.ID, "my-games"), what="the lobby")


def text_of(driver: Any, selector: str) -> str | None:
    """The text of the first element matching, read at once (the page re-renders freely)."""
    return driver.execute_script(
        "const e = document.querySelector(arguments[0]); return e ? e.textContent : null",
        selector,
    )


def page_token(driver: Any) -> str:
    return str(driver.execute_script("return localStorage.getItem('truc.token')"))


def fill_form(driver: Any, form_id: str, **choices: Any) -> None:
    form = wait_for(lambda: driver.find_elements(By.ID, form_id), what=form_id)[0]
    for name, value in choices.items():
        Select(form.find_element(By.NAME, name)).select_by_value(str(value))
    form.find_element(By.CSS_SELECTOR, "button[type=submit]").click()


def game_id_of(driver: Any) -> str:
    wait_for(lambda: "#/game/" in driver.current_url, what="a table's URL")
    wait_for(lambda: driver.find_elements(By.ID, "table"), what="the table")
    return str(driver.current_url.rsplit("/", 1)[1])


# Everything the table shows that the API's view also says, read in one go (one render).
_SNAPSHOT = """
const root = document.getElementById('table');
if (!root) return null;
const cards = (scope, selector) => [...scope.querySelectorAll(selector)].map((c) => c.dataset.card);
const seats = {};
for (const seat of root.querySelectorAll('.seat')) {
  seats[seat.dataset.seat] = {
    faces: cards(seat, '.hand-cards .card.face'),
    backs: seat.querySelectorAll('.hand-cards .card.back').length,
    playable: cards(seat, '.hand-cards .card.playable'),
    played: cards(root, `.trick .play[data-seat="${seat.dataset.seat}"] .card`),
    turn: seat.dataset.turn,
    position: [...seat.classList].find((c) => c.startsWith('pos-')),
  };
}
const last = root.querySelector('.last-hand');
return {
  lang: document.documentElement.lang,
  version: Number(root.dataset.version),
  status: root.dataset.status,
  turn: root.dataset.turn,
  seats,
  actions: [...root.querySelectorAll('.actions button')].map(
    (b) => [b.dataset.action, b.textContent]),
  scores: [...root.querySelectorAll('.score')].map((s) => ({
    side: Number(s.dataset.side), points: Number(s.dataset.points), camas: Number(s.dataset.camas),
    words: s.querySelector('.words').textContent,
  })),
  pending: root.querySelector('.pending') ? root.querySelector('.pending').dataset.call : null,
  bazas: [...root.querySelectorAll('.bazas .baza')].map((b) => b.dataset.result),
  clock: root.querySelector('.clock') ? Number(root.querySelector('.clock').dataset.left) : null,
  last_hand: last && {
    number: Number(last.dataset.hand),
    bazas: [...last.querySelectorAll('.baza-result')].map((b) => b.dataset.result),
    points: [...last.querySelectorAll('[data-kind]')].map(
      (p) => [p.dataset.kind, Number(p.dataset.side), Number(p.dataset.points)]),
  },
  match_end: root.querySelector('.match-end') && {
    winner: root.querySelector('.match-end').dataset.winner,
    verdict: root.querySelector('.match-end .verdict').textContent,
    ratings: [...root.querySelectorAll('.rating-changes li')].map(
      (li) => [Number(li.dataset.player), Number(li.dataset.delta)]),
    unrated: !!root.querySelector('.match-end .unrated'),
    rematch: root.querySelector('.match-end .rematch') ?
      root.querySelector('.match-end .rematch').dataset.status || 'none' : null,
  },
};
"""


def snapshot(driver: Any) -> dict[str, Any] | None:
    return driver.execute_script(_SNAPSHOT)


def settle(driver: Any, api: Api, game_id: str, timeout: float = 30.0) -> tuple[Any, Any]:
    """Wait until the page shows the API's current version and the game waits for this seat
    (or is over): nobody else can move then, so the two can be compared."""
    found: list[Any] = [None, None]

    def settled() -> bool:
        view = api.get(f"/games/{game_id}")
        page = snapshot(driver)
        found[:] = [view, page]
        if view["status"] not in OVER and view["state"]["turn"] != view["my_seat"]:
            return False
        return bool(page) and page["version"] == view["version"]

    try:
        wait_for(settled, timeout, what=f"the page to show game {game_id} waiting for this seat")
    except AssertionError as error:
        view, page = found
        raise AssertionError(
            f"{error}\nAPI: {json.dumps(view)}\npage: {json.dumps(page)}\n"
            f"server log:\n{server_log_tail()}"
        ) from None
    return found[0], found[1]


#: malas and buenas as the page's language says them.
SCORE_WORDS = {"ca-ES-valencia": ("males", "bones")}


def score_words(points: int, rules: dict[str, Any], lang: str) -> str:
    malas, buenas = SCORE_WORDS.get(lang, ("malas", "buenas"))
    if points < rules["buenas_from"]:
        return f"{points} {malas}"
    return f"{points - rules['buenas_from'] + 1} {buenas}"


def label_for(preset: str, action: dict[str, Any], hand: dict[str, Any]) -> str:
    family = "valenciano" if preset == "valenciano" else "argentino"
    if family == "valenciano" and action["type"] == "envido" and hand["envido"]["calls"]:
        return "Torne"  # the raise over an envit (RULES.md §5.2)
    return LABELS[family][action["type"]]


def check_table(page: dict[str, Any], view: dict[str, Any]) -> None:
    """The page shows what the API's view of the same seat says: the cards (mine face up, the
    others' as backs), the cards of the baza, the scores in malas/buenas, camas, whose turn, the
    pending call, and exactly the legal actions, named in the preset's language."""
    assert page["version"] == view["version"]
    assert page["status"] == view["status"]
    state = view["state"]
    for score in page["scores"]:
        side = score["side"]
        assert score["points"] == state["scores"][side], (page["scores"], state["scores"])
        assert score["camas"] == state["camas"][side]
        assert score["words"] == score_words(state["scores"][side], view["rules"], page["lang"])
    hand = state["hand"]
    me = view["my_seat"]
    legal = state["legal_actions"]
    if hand is None:
        return
    for seat in range(view["players"]):
        shown = page["seats"][str(seat)]
        if seat == me:
            assert shown["faces"] == hand["my_cards"], (shown, hand["my_cards"])
            assert shown["backs"] == 0
            expected = sorted(a["card"] for a in legal if a["type"] == "play")
            assert sorted(shown["playable"]) == expected
        else:
            assert shown["faces"] == [], f"a face-up card in seat {seat}'s hand: {shown}"
            assert shown["backs"] == hand["cards_left"][seat]
        assert shown["played"] == [p["card"] for p in hand["baza"] if p["seat"] == seat]
        expected_turn = "yes" if state["turn"] == seat and view["status"] not in OVER else "no"
        assert shown["turn"] == expected_turn, (seat, shown, state["turn"])
    assert page["bazas"] == [str(result) for result in hand["baza_results"]]
    pending = hand["pending_call"]
    assert page["pending"] == (pending["call"] if pending else None)
    offered = {name: text for name, text in page["actions"]}
    if view["status"] in OVER or me is None:
        assert offered == {}
    else:
        calls = [a for a in legal if a["type"] != "play"]
        assert offered == {a["type"]: label_for(view["preset"], a, hand) for a in calls}
    if view["status"] == "active":
        assert page["clock"] is not None and 0 <= page["clock"] <= view["clock"]["turn_seconds"]


def check_last_hand(page: dict[str, Any], api: Api, game_id: str) -> int | None:
    """The last finished hand as the page sums it up, against the API's history and events:
    who won each baza, and the envido, truco (and penalty) points."""
    hands = [h for h in api.get(f"/games/{game_id}/history")["hands"] if h["last_seq"]]
    if not hands:
        assert page["last_hand"] is None
        return None
    last = hands[-1]
    shown = page["last_hand"]
    assert shown is not None and shown["number"] == last["number"], (shown, last)
    expected_points = sorted([p["kind"], p["side"], p["points"]] for p in last["points"])
    assert sorted(shown["points"]) == expected_points
    events = [e for e in api.events(game_id, last["first_seq"] - 1) if e["seq"] <= last["last_seq"]]
    results = [str(e["data"]["result"]) for e in events if e["type"] == "baza_ended"]
    assert shown["bazas"] == results
    return int(last["number"])


def choose(legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    """A person's choice among the offered actions: mostly cards, sometimes a call."""
    plays = [a for a in legal if a["type"] == "play"]
    calls = [a for a in legal if a["type"] not in ("play", "mazo")]
    if plays and (not calls or rng.random() < 0.75):
        return rng.choice(plays)
    if calls:
        return rng.choice(calls)
    return rng.choice(legal)


def press(driver: Any, selector: str) -> None:
    """Click the element, found again if the page re-rendered it under our feet (each message
    of the stream may redraw the table)."""
    for _ in range(20):
        try:
            driver.find_element(By.CSS_SELECTOR, selector).click()
            return
        except StaleElementReferenceException:
            time.sleep(0.05)
    raise AssertionError(f"{selector} kept changing under the click")


def selector_for(action: dict[str, Any]) -> str:
    if action["type"] == "play":
        return f".seat.me .card.playable[data-card='{action['card']}']"
    return f".actions button[data-action='{action['type']}']"


def key_for(action: dict[str, Any]) -> str:
    """The ``data-key`` the table gives the action's control: the focus follows it across the
    table's re-renders (each stream message may redraw it), so a person tabbing keeps his place."""
    return f"play-{action['card']}" if action["type"] == "play" else f"action-{action['type']}"


def focused_key(driver: Any) -> str | None:
    return driver.execute_script(
        "const e = document.activeElement; return e && e.dataset ? e.dataset.key || null : null"
    )


def click(driver: Any, action: dict[str, Any], version: int) -> None:
    press(driver, selector_for(action))
    moved_on(driver, version)


def press_with_keyboard(driver: Any, action: dict[str, Any], version: int) -> None:
    """Tab to the action's button as a keyboard user would, then press Enter. The control is
    known by its key, not by its element: a redraw while tabbing replaces the element."""
    wanted = key_for(action)
    driver.find_element(By.CSS_SELECTOR, selector_for(action))  # offered at all
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    for _ in range(60):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if focused_key(driver) == wanted:
            break
    else:
        raise AssertionError("the action cannot be reached with the Tab key")
    ActionChains(driver).send_keys(Keys.ENTER).perform()
    moved_on(driver, version)


def moved_on(driver: Any, version: int) -> None:
    wait_for(
        lambda: (snapshot(driver) or {}).get("version", version) > version,
        what=f"the table to move past version {version}",
    )


def play_to_end(
    driver: Any,
    api: Api,
    game_id: str,
    rng: random.Random,
    max_moves: int = 400,
    between: Callable[[int, Any], None] | None = None,
) -> tuple[Any, Any, int]:
    """Click offered actions until the match is over, holding the table against the API's view
    of this seat after every move; answers the last view and page, and the moves made.
    ``between(moves, view)`` runs at each settled table, before the next move."""
    moves = 0
    while True:
        view, page = settle(driver, api, game_id)
        check_table(page, view)
        check_last_hand(page, api, game_id)
        if between:
            between(moves, view)
        if view["status"] in OVER:
            return view, page, moves
        assert moves < max_moves, "the match did not end"
        action = choose(view["state"]["legal_actions"], rng)
        if moves == 0:
            press_with_keyboard(driver, action, view["version"])
        else:
            click(driver, action, view["version"])
        moves += 1


def fits_the_screen(driver: Any) -> None:
    """Nothing to scroll sideways, and every card and action button within the width."""
    overflow = driver.execute_script(
        """
        const width = document.documentElement.clientWidth;
        const outside = [...document.querySelectorAll('.card, .actions button, .score')]
          .filter((e) => {
            const r = e.getBoundingClientRect();
            return r.left < -1 || r.right > width + 1;
          })
          .map((e) => e.className);
        return {scroll: document.documentElement.scrollWidth, width, outside};
        """
    )
    assert overflow["scroll"] <= overflow["width"] and not overflow["outside"], overflow


def network_log(driver: Any) -> list[dict[str, Any]]:
    """Chrome's performance log: the DevTools network messages since the last call."""
    return [json.loads(entry["message"])["message"] for entry in driver.get_log("performance")]

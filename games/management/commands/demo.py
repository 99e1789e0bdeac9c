"""``manage.py demo``: a whole match against a bot, through the HTTP API, told as it happens.

A newcomer's first minute: it registers a player, creates a game with a bot, plays with the
``basic`` bot's rules of thumb on its own view, and narrates every event of the feed. It is an
ordinary API client (urllib, a knox token, ETags, Idempotency-Keys): run ``make run`` first.
"""

from __future__ import annotations

import json
import random
import secrets
import time
import urllib.error
import urllib.request
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from games import bots

SUITS = {"E": "espadas", "B": "bastos", "O": "oros", "C": "copas"}
FIGURES = {"10": "sota", "11": "caballo", "12": "rey"}
SIDES = {0: "your side", 1: "the bot's side", None: "nobody"}


class Api:
    def __init__(self, base: str) -> None:
        self.base = base.rstrip("/") + "/api"
        self.token: str | None = None

    def call(self, method: str, path: str, body: Any = None, **headers: str) -> Any:
        request = urllib.request.Request(self.base + path, method=method)
        request.add_header("Accept", "application/json")
        if self.token:
            request.add_header("Authorization", f"Bearer {self.token}")
        for name, value in headers.items():
            request.add_header(name.replace("_", "-"), value)
        data = None if body is None else json.dumps(body).encode()
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, data, timeout=30) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            raise CommandError(f"{method} {path}: {error.code} {error.read().decode()}") from None
        except urllib.error.URLError as error:
            raise CommandError(
                f"no Truc API at {self.base} ({error.reason}): run `make run`"
            ) from None


class Command(BaseCommand):
    help = "Play a full match against a bot through the HTTP API, narrating it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--url", default="http://127.0.0.1:8000")
        parser.add_argument(
            "--preset",
            default="argentino",
            choices=["valenciano", "argentino", "argentino_clasico"],
        )
        parser.add_argument("--level", default="basic", choices=bots.LEVELS)
        parser.add_argument("--target", type=int, help="a shorter cama, e.g. 15")
        parser.add_argument(
            "--flor", action="store_true", help="play with the flor (RULES.md §5.3; argentino)"
        )
        parser.add_argument("--pause", type=float, default=0.0, help="seconds between lines")

    def handle(self, *args: Any, **options: Any) -> None:
        self.pause = options["pause"]
        self.rng = random.Random()
        api = Api(options["url"])
        name = f"demo-{secrets.token_hex(3)}"
        api.token = api.call(
            "POST", "/auth/register", {"username": name, "password": secrets.token_urlsafe(12)}
        )["token"]
        self.say(
            f"Registered as {name}; a {options['preset']} game against a {options['level']} bot."
        )
        body: dict[str, Any] = {
            "preset": options["preset"],
            "bots": [{"seat": 1, "level": options["level"]}],
        }
        rules: dict[str, Any] = {}
        if options["target"]:
            rules |= {"target": options["target"], "buenas_from": max(2, options["target"] // 2)}
        if options["flor"]:
            rules["flor"] = True
        if rules:
            body["options"] = rules
        game = api.call("POST", "/games", body)
        self.names = {seat["seat"]: seat["player"]["name"] for seat in game["seats"]}
        self.names[0] = "You"
        self.play(api, game["id"])

    def play(self, api: Api, game_id: str) -> None:
        seen, history = 0, []
        while True:
            game = api.call("GET", f"/games/{game_id}")
            for item in api.call("GET", f"/games/{game_id}/events?after={seen}")["events"]:
                seen = item["seq"]
                history.append({"type": item["type"], "v": 1, **item["data"]})
                self.narrate(item, game)
            if game["status"] != "active":
                return
            state = game["state"]
            if not state["legal_actions"]:
                time.sleep(0.2)  # the bot's move is a task of the worker
                continue
            view = {**state, "rules": game["rules"], "version": game["version"], "seat": 0}
            action = bots.choose("basic", view, history, self.rng).to_json()
            action["expected_version"] = game["version"]
            key = secrets.token_hex(8)  # a fresh key per intended action
            api.call("POST", f"/games/{game_id}/actions", action, Idempotency_Key=key)

    def narrate(self, item: dict[str, Any], game: dict[str, Any]) -> None:
        self.say(self.sentence(item["type"], item["data"], item["seat"]))

    def sentence(self, kind: str, data: dict[str, Any], actor: int | None) -> str:
        """One event of the feed, told in words."""
        who = self.names.get(data.get("seat", actor), "?")
        match kind:
            case "match_started":
                rules = data["rules"]
                return f"{rules['preset']}: {rules['camas_to_win']} cama(s) of {rules['target']}."
            case "hand_dealt":
                cards = ", ".join(map(card_name, data["hands"][0]))
                return f"Hand {data['number']}, {self.names[data['dealer']]} dealing: {cards}."
            case "envido_passed":
                return f"{who}: paso."
            case "card_played":
                return f"{who}: the {card_name(data['card'])}."
            case "truco_called" | "envido_called":
                return f"{who}: {data['call'].replace('_', ' ')}!"
            case "truco_accepted":
                return f"{who}: quiero."
            case "envido_accepted":
                winner = SIDES[data["winner"]]
                return f"{who}: quiero. Envido to {winner} with {data['value']}."
            case "truco_refused" | "envido_refused":
                return f"{who}: no quiero."
            case "flor_sung":
                return f"{who}: ¡flor!"
            case "flor_called":
                return f"{who}: {data['call'].replace('_', ' ')}!"
            case "flor_settled":
                return self.flor_settled(who, data)
            case "folded":
                return f"{who}: to the mazo."
            case "baza_ended":
                winner = "parda" if data["winner"] is None else self.names[data["winner"]]
                return f"Baza {data['number']}: {winner}."
            case "hand_ended":
                points = [
                    f"{p['points']} {p['kind']} to {SIDES[p['side']]}" for p in data["points"]
                ]
                score = "-".join(map(str, data["scores"]))
                return f"Hand over: {', '.join(points) or 'no points'}. Score {score}."
            case "cama_ended":
                return (
                    f"Cama to {SIDES[data['winner']]}; camas {data['camas'][0]}-{data['camas'][1]}."
                )
            case "match_ended":
                return f"Match over ({data['reason']}): {SIDES[data['winner']]} won."
            case "turn_timed_out":
                return f"{who} ran out of time."
        return kind

    def flor_settled(self, who: str, data: dict[str, Any]) -> str:
        """RULES.md §5.3.6: the side the flor goes to, and the winning value if compared."""
        to = f"{data['points']} to {SIDES[data['winner']]}"
        match data["how"]:
            case "unopposed":
                return f"Flor: {to}."
            case "quiero":
                return f"{who}: con flor quiero. Flor with {data['value']}: {to}."
            case "con_flor_me_achico":
                return f"{who}: con flor me achico. Flor: {to}."
        return f"{who}: no quiero. Flor: {to}."

    def say(self, line: str) -> None:
        self.stdout.write(line)
        if self.pause:
            time.sleep(self.pause)


def card_name(card: str) -> str:
    rank, suit = card[:-1], card[-1]
    return f"{FIGURES.get(rank, rank)} of {SUITS[suit]}"

// The lobby: a game against bots, a table for people (public, or private with a join code),
// joining by code, my games (those waiting for me first, as GET /api/games/mine orders them),
// the public tables waiting for players, the public games being played (to watch), and watching
// any public game by its id or link.

import { api } from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { notifyButton } from "./notify.js";

const PRESETS = ["valenciano", "argentino", "argentino_clasico"];
const LEVELS = ["random", "basic", "strong"];
const TURN_SECONDS = [30, 60, 300, 86400];
// A quick match: one cama to 6 (buenas from 4), to try the table in a few minutes.
const QUICK = { target: 6, buenas_from: 4, camas_to_win: 1 };


const select = (name, values, label, selected) =>
  h("label", {}, h("span", { text: label }),
    h("select", { name }, values.map(([value, text]) => h("option", { value, text, selected: String(value) === String(selected) }))));

const turnLabel = (seconds) => (seconds < 60 ? t("seconds", { n: seconds }) : seconds < 3600 ? t("minutes", { n: seconds / 60 }) : "24 h");

async function create(spec) {
  const game = await api.createGame(spec);
  location.hash = `#/game/${game.id}`;
}

function botsSpec(form) {
  const players = Number(form.players.value);
  const seats = players === 2 ? [1] : [1, 2, 3];
  const spec = {
    preset: form.preset.value,
    players,
    bots: seats.map((seat) => ({ seat, level: form.level.value })),
    turn_seconds: Number(form.turn_seconds.value),
  };
  if (form.length.value === "quick") spec.options = { ...QUICK };
  return spec;
}

function peopleSpec(form) {
  const spec = {
    preset: form.preset.value,
    players: Number(form.players.value),
    visibility: form.visibility.value,
    turn_seconds: Number(form.turn_seconds.value),
  };
  if (form.length.value === "quick") spec.options = { ...QUICK };
  return spec;
}

function guarded(toast, work) {
  return async (event) => {
    event.preventDefault();
    const button = event.currentTarget.querySelector("button[type=submit]");
    if (button) button.disabled = true;
    try {
      await work(event.currentTarget);
    } catch (error) {
      toast(t("error", { message: error.message }));
    } finally {
      if (button) button.disabled = false;
    }
  };
}

const presetChoices = () => PRESETS.map((p) => [p, t(`preset_${p}`)]);
const lengthChoices = () => [["full", t("length_full")], ["quick", t("length_quick", { target: QUICK.target })]];
const turnChoices = () => TURN_SECONDS.map((s) => [s, turnLabel(s)]);

export function showLobby(main, { toast }) {
  const botsForm = h("form", { class: "card-panel", id: "new-bots", onsubmit: guarded(toast, (form) => create(botsSpec(form))) },
    h("h2", { text: t("new_game") }),
    select("preset", presetChoices(), t("preset"), "valenciano"),
    select("players", [[2, t("players_2")], [4, t("players_4")]], t("players"), 2),
    select("level", LEVELS.map((l) => [l, t(`level_${l}`)]), t("level"), "basic"),
    select("length", lengthChoices(), t("length"), "full"),
    select("turn_seconds", turnChoices(), t("turn_time"), 60),
    h("button", { type: "submit", text: t("start") }),
  );
  const peopleForm = h("form", { class: "card-panel", id: "new-people", onsubmit: guarded(toast, (form) => create(peopleSpec(form))) },
    h("h2", { text: t("new_table") }),
    select("preset", presetChoices(), t("preset"), "valenciano"),
    select("players", [[2, t("players_2")], [4, t("players_4")]], t("players"), 2),
    select("visibility", [["public", t("visibility_public")], ["private", t("visibility_private")]], t("visibility"), "public"),
    select("length", lengthChoices(), t("length"), "full"),
    select("turn_seconds", turnChoices(), t("turn_time"), 300),
    h("button", { type: "submit", text: t("create") }),
  );
  const joinForm = h("form", { class: "card-panel", id: "join-code", onsubmit: guarded(toast, async (form) => {
      const game = await api.joinByCode(form.code.value.trim());
      location.hash = `#/game/${game.id}`;
    }) },
    h("h2", { text: t("join_by_code") }),
    h("label", {}, h("span", { text: t("code") }), h("input", { name: "code", required: true, autocomplete: "off", maxlength: 16 })),
    h("button", { type: "submit", text: t("join") }),
  );
  const watchForm = h("form", { class: "card-panel", id: "watch", onsubmit: (event) => {
      event.preventDefault();
      const text = event.currentTarget.game.value.trim();
      const match = text.match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i);
      if (match) location.hash = `#/game/${match[0].toLowerCase()}`;
    } },
    h("h2", { text: t("spectate") }),
    h("label", {}, h("span", { text: t("game_id") }), h("input", { name: "game", required: true, autocomplete: "off" })),
    h("button", { type: "submit", text: t("watch") }),
  );
  const mine = h("section", { class: "list", id: "my-games" }, h("h2", { text: t("my_games") }), h("p", { text: "…" }));
  const open = h("section", { class: "list", id: "open-games" }, h("h2", { text: t("open_games") }), h("p", { text: "…" }));
  const live = h("section", { class: "list", id: "live-games" }, h("h2", { text: t("live_games") }), h("p", { text: "…" }));
  main.replaceChildren(h("div", { class: "lobby" }, h("div", { class: "forms" }, botsForm, peopleForm, joinForm, watchForm), mine, open, live));
  notifyButton(toast).then((button) => button && mine.before(button));
  fill(mine, "my_games", api.mine, mineRow, toast);
  fill(open, "open_games", api.open, openRow(toast), toast);
  fill(live, "live_games", api.live, liveRow, toast);
}

function names(game) {
  return game.seats.map((seat) => (seat.player ? seat.player.name : "·")).join(" / ");
}

// A list of games: its title, then a row a game (or "none"); an error is told, the list left.
async function fill(section, title, read, row, toast) {
  try {
    const page = await read();
    const rows = page.results.map(row);
    section.replaceChildren(h("h2", { text: t(title) }), rows.length ? h("ul", {}, rows) : h("p", { text: t("none") }));
  } catch (error) {
    toast(t("error", { message: error.message }));
  }
}

const mineRow = (game) =>
  h("li", { class: `game-row${game.awaiting ? " awaiting" : ""}`, "data-game": game.id, "data-awaiting": game.awaiting ? "yes" : "no" },
    game.awaiting ? h("strong", { class: "badge turn", text: t("your_turn") }) : null,
    h("a", { href: `#/game/${game.id}`, text: `${t(`preset_${game.preset}`)} · ${names(game)}` }),
    h("span", { class: "status", text: `${t(`status_${game.status}`)} · ${game.scores.join("–")}` }),
  );

const openRow = (toast) => (game) =>
  h("li", { class: "game-row", "data-game": game.id },
    h("span", { text: `${t(`preset_${game.preset}`)} · ${names(game)}` }),
    game.my_seat === null
      ? h("button", { type: "button", class: "join", text: t("join"), onclick: async () => {
          try {
            await api.join(game.id);
            location.hash = `#/game/${game.id}`;
          } catch (error) {
            toast(t("error", { message: error.message }));
          }
        } })
      : null,
    h("a", { href: `#/game/${game.id}`, text: game.my_seat === null ? t("watch") : t("open") }),
  );

// A game being played (GET /api/games/live): who plays, the score, and a link to watch it (or to
// my own seat at it).
const liveRow = (game) =>
  h("li", { class: "game-row", "data-game": game.id },
    h("span", { text: `${t(`preset_${game.preset}`)} · ${names(game)}` }),
    h("span", { class: "status", text: game.scores.join("–") }),
    h("a", { href: `#/game/${game.id}`, class: "watch", text: game.my_seat === null ? t("watch") : t("open") }),
  );

// The table: one game as my seat (or a spectator) sees it, kept live by live.js, acted on
// through POST /api/games/{id}/actions. Only the legal actions of the view are offered, so an
// illegal click cannot happen; a stale one (409) is read again and retried while still legal.

import { api, session } from "./api.js";
import { backCard, faceCard } from "./cards.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { follow } from "./live.js";
import { actionLabel, actionToSend, callLabel, camasWord, cardName, scoreWords } from "./words.js";

const OVER = new Set(["finished", "aborted"]);
const LOG_LINES = 14;


// Seats around the table from where I sit (me at the bottom; seat + 1 plays after me, to my
// right: RULES.md §1 counts seats counterclockwise).
function position(seat, bottom, players) {
  const offset = (seat - bottom + players) % players;
  if (players === 2) return offset === 0 ? "bottom" : "top";
  return ["bottom", "right", "top", "left"][offset];
}

export function openTable(main, gameId, { toast }) {
  const table = {
    view: null,
    seq: 0,
    log: [],
    hand: null, // the hand being played, from its events: {number, bazas: []}
    lastHand: null, // the last finished hand: {number, bazas, points, scores, reason}
    fresh: new Set(),
    busy: false,
    follower: null,
    clock: null,
    ratingTries: 0,
    resignArmed: false,
    offline: false,
    rematch: undefined, // the lobby's rematch state once the match is over (null: none offered)
    rematchTimer: null,
    rematchSettled: false, // declined, or no lobby: nothing more to follow
    closed: false,
  };

  const nameOf = (seat) => {
    const player = table.view.seats[seat].player;
    if (seat === table.view.my_seat) return t("you");
    return player ? player.name : t("empty_seat");
  };
  // The log names everyone, me too ("you plays" reads badly in every language).
  const playerName = (seat) => {
    const player = table.view.seats[seat].player;
    return player ? player.name : t("empty_seat");
  };
  const sideName = (side) => {
    const mine = table.view.state ? table.view.state.side : null;
    if (mine === null || mine === undefined) return t("side", { n: side + 1 });
    return side === mine ? t("us") : t("them");
  };

  // --- events: the log, the hand's bazas and its end, the cards that just arrived ---------------

  function takeEvents(events) {
    for (const event of events) {
      if (event.seq <= table.seq) continue;
      table.seq = event.seq;
      remember(event);
      const line = narrate(event);
      if (line) table.log.push(line);
    }
    table.log = table.log.slice(-LOG_LINES);
  }

  function remember(event) {
    const data = event.data;
    if (event.type === "hand_dealt") table.hand = { number: data.number, bazas: [] };
    if (event.type === "card_played") table.fresh.add(data.card);
    if (event.type === "baza_ended" && table.hand) table.hand.bazas.push(data);
    if (event.type === "hand_ended") {
      table.lastHand = { ...data, bazas: table.hand ? table.hand.bazas : [] };
      table.hand = null;
    }
  }

  function narrate(event) {
    const data = event.data;
    const preset = table.view.preset;
    const name = event.seat === null || event.seat === undefined ? "" : playerName(event.seat);
    switch (event.type) {
      case "card_played":
        return t("event_card_played", { name, card: cardName(data.card) });
      case "truco_called":
        return t("event_truco_called", { name, call: callLabel(preset, data.call) });
      case "envido_called":
        return t("event_envido_called", { name, call: callLabel(preset, data.call) });
      case "truco_accepted":
      case "envido_accepted":
        return t(`event_${event.type}`, { name, word: callLabel(preset, "quiero") });
      case "truco_refused":
      case "envido_refused":
        return t(`event_${event.type}`, { name, word: callLabel(preset, "no_quiero") });
      case "envido_passed":
        return t("event_envido_passed", { name, word: callLabel(preset, "paso") });
      case "folded":
        return t("event_folded", { name });
      case "turn_timed_out":
        return t("event_turn_timed_out", { name });
      case "baza_ended":
        return t("event_baza_ended", { n: data.number, who: bazaWinner(data.result) });
      case "hand_ended":
        return t("event_hand_ended", { n: data.number });
      case "hand_dealt":
        return t("event_hand_dealt", { n: data.number });
      case "cama_ended":
        return t("event_cama_ended", { side: sideName(data.winner) });
      case "match_ended":
        return t("event_match_ended");
      default:
        return null;
    }
  }

  // A hand's points: {kind, side, points} in the feed (older logs said [kind, side, points]).
  const pointsOf = (item) => (Array.isArray(item) ? { kind: item[0], side: item[1], points: item[2] } : item);

  const bazaWinner = (result) => (result === "parda" ? t("parda") : t("baza_to", { side: sideName(result) }));

  // --- views: the newest one is shown ----------------------------------------------------------

  // Views arrive by several paths at once: the stream, the answer to my own action, a re-read.
  // On a busy server the bots' replies can reach the stream before my action's answer reaches
  // me, and that answer then holds an older view than the table shows. Taken, it put the table
  // back to a turn long gone, and nothing corrected it: the stream had sent its newest view and
  // the game waited for me. A view of the same version may still be newer (a seat taken, the
  // rating written: the log did not move), so it is taken.
  function takeView(view) {
    if (table.view && view.version < table.view.version) return;
    table.view = view;
  }

  // --- reading --------------------------------------------------------------------------------

  async function load() {
    const read = await api.game(gameId);
    takeView(read.view);
    // The last finished hand and the recent events, for the summary and the log.
    if (table.view.version > 0) {
      const history = await api.history(gameId);
      const done = history.hands.filter((hand) => hand.last_seq !== null);
      const from = done.length ? done[done.length - 1].first_seq - 1 : Math.max(0, table.view.version - LOG_LINES);
      const events = await api.events(gameId, from);
      takeEvents(events);
      table.fresh.clear();
    }
    render();
    startFollowing(read.etag);
  }

  function startFollowing(etag) {
    table.follower = follow(gameId, {
      after: table.seq,
      etag,
      status: table.view.status,
      onEvents: (events) => takeEvents(events),
      onView: (view) => {
        takeView(view);
        render();
      },
      // Said when the link drops, and when it is back; not at every (re)connection.
      onLink: (state) => {
        if (state === "offline") toast(t("offline"));
        else if (table.offline) toast(t("live"));
        table.offline = state === "offline";
      },
    });
  }

  // A finished rated game is rated by a task a moment later: read again until it shows.
  function awaitRating() {
    const view = table.view;
    if (view.status !== "finished" || !view.rated || view.rating_changes.length || table.ratingTries > 30) return;
    table.ratingTries += 1;
    setTimeout(async () => {
      if (table.closed) return;
      const read = await api.game(gameId);
      takeView(read.view);
      render();
    }, 1000);
  }

  // --- acting ---------------------------------------------------------------------------------

  async function act(action) {
    if (table.busy) return;
    table.busy = true;
    main.querySelectorAll(".actions button, .card.playable").forEach((b) => (b.disabled = true));
    try {
      await send(action, table.view);
    } catch (error) {
      if (error.status === 409 && error.code === "stale_version") {
        await retryStale(action);
      } else {
        toast(t("error", { message: error.message }));
        await reread();
      }
    } finally {
      table.busy = false;
      render();
    }
  }

  async function send(action, view) {
    const result = await api.act(gameId, actionToSend(view.preset, action, view.state.hand), view.version);
    takeEvents(result.events);
    takeView(result.game);
    if (table.follower) table.follower.seen(result.version, result.game);
  }

  const sameAction = (a, b) => a.type === b.type && (a.card || null) === (b.card || null);

  async function retryStale(action) {
    const view = await reread();
    if (view.state && view.state.legal_actions.some((legal) => sameAction(legal, action))) {
      await send(action, view);
      toast(t("stale_retry"));
    } else {
      toast(t("stale_gone"));
    }
  }

  async function reread() {
    const read = await api.game(gameId);
    takeView(read.view);
    const missed = await api.events(gameId, table.seq);
    takeEvents(missed);
    return table.view;
  }

  // Asked twice: the first press only arms the button (for a while, across re-renders).
  async function resign() {
    if (!table.resignArmed) {
      table.resignArmed = true;
      setTimeout(() => {
        table.resignArmed = false;
        render();
      }, 6000);
      render();
      return;
    }
    table.resignArmed = false;
    try {
      takeView(await api.resign(gameId));
    } catch (error) {
      toast(t("error", { message: error.message }));
    }
    render();
  }

  // --- drawing --------------------------------------------------------------------------------

  function render() {
    if (table.closed || !table.view) return;
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.key : null;
    const view = table.view;
    const state = view.state;
    const root = h("section", {
      id: "table",
      class: `table players-${view.players}`,
      "aria-label": t("table"),
      data_version: view.version,
      data_status: view.status,
      data_preset: view.preset,
      data_turn: state && state.turn !== null ? state.turn : "",
      data_myseat: view.my_seat === null ? "" : view.my_seat,
    });
    root.append(topLine(view), scoreboard(view));
    if (view.status === "open") root.append(waiting(view));
    if (state) root.append(felt(view, state), actions(view, state));
    if (OVER.has(view.status)) root.append(matchEnd(view));
    root.append(sidePanels());
    main.replaceChildren(root);
    table.fresh.clear();
    const again = focused && main.querySelector(`[data-key="${CSS.escape(focused)}"]`);
    if (again && !again.disabled) again.focus();
    else if (focused && isMyTurn()) {
      const first = main.querySelector(".actions button:not([disabled]), .card.playable");
      if (first) first.focus();
    }
    tickClock();
    awaitRating();
    followRematch();
  }

  const isMyTurn = () =>
    table.view && table.view.state && table.view.my_seat !== null && table.view.state.turn === table.view.my_seat;

  function topLine(view) {
    const state = view.state;
    const bits = [h("a", { href: "#/", class: "back", text: t("back") })];
    if (view.my_seat === null) bits.push(h("span", { class: "badge spectator", text: t("spectator") }));
    if (state && state.hand) bits.push(h("span", { class: "hand-no", text: t("hand_n", { n: state.hand.number }) }));
    if (state && state.hand && state.hand.truco.level > 1) {
      bits.push(h("span", { class: "truco-level", text: t("truco_level", { n: state.hand.truco.level }) }));
    }
    if (view.status === "active") {
      bits.push(
        h("span", { class: "clock", role: "timer", "aria-label": t("clock"), data_deadline: view.deadline || "" }),
      );
    }
    if (view.status === "active" && view.my_seat !== null) {
      bits.push(
        h("button", {
          type: "button",
          class: `resign${table.resignArmed ? " armed" : ""}`,
          data_key: "resign",
          text: table.resignArmed ? t("resign_confirm") : t("resign"),
          onclick: () => resign(),
        }),
      );
    }
    return h("div", { class: "topline" }, bits);
  }

  function scoreboard(view) {
    const state = view.state;
    const scores = state ? state.scores : [0, 0];
    const camas = state ? state.camas : [0, 0];
    const showCamas = view.rules.camas_to_win > 1 || view.preset === "valenciano";
    const sides = [0, 1].map((side) => {
      const words = scoreWords(scores[side], view.rules);
      return h(
        "div",
        { class: `score side-${side}`, data_side: side, data_points: scores[side], data_camas: camas[side] },
        h("span", { class: "side-name", text: sideName(side) }),
        h("span", { class: "points", text: String(scores[side]) }),
        h("span", { class: `words ${words.half}`, text: `${words.count} ${words.word}` }),
        showCamas ? h("span", { class: "camas", text: `${camasWord()}: ${camas[side]}/${view.rules.camas_to_win}` }) : null,
      );
    });
    return h("div", { class: "scoreboard", role: "group", "aria-label": t("scores_after", { score: scores.join("–") }) }, sides);
  }

  function waiting(view) {
    const free = view.seats.filter((seat) => !seat.player).length;
    return h(
      "div",
      { class: "waiting" },
      h("p", { text: t("waiting_players", { free }) }),
      view.join_code ? h("p", { class: "join-code", data_code: view.join_code, text: t("share_code", { code: view.join_code }) }) : null,
    );
  }

  function felt(view, state) {
    const hand = state.hand;
    const bottom = view.my_seat === null ? 0 : view.my_seat;
    const seats = view.seats.map((seat) => seatBox(view, state, seat.seat, position(seat.seat, bottom, view.players)));
    return h("div", { class: "felt" }, seats, centre(view, state, hand));
  }

  function seatBox(view, state, seat, where) {
    const hand = state.hand;
    const mine = seat === view.my_seat;
    const playable = new Set(state.legal_actions.filter((a) => a.type === "play").map((a) => a.card));
    let cards = [];
    if (hand && mine && hand.my_cards) {
      cards = hand.my_cards.map((code) =>
        faceCard(code, playable.has(code) ? { onPlay: () => act({ type: "play", card: code }), label: t("play_card", { card: cardName(code) }) } : {}),
      );
      cards.forEach((card) => card.classList.contains("playable") && (card.dataset.key = `play-${card.dataset.card}`));
    } else if (hand) {
      cards = Array.from({ length: hand.cards_left[seat] }, () => backCard());
    }
    const tags = [];
    if (hand && hand.mano === seat) tags.push(h("span", { class: "tag", text: t("mano") }));
    if (hand && hand.dealer === seat) tags.push(h("span", { class: "tag", text: t("dealer") }));
    if (hand && hand.folded.includes(seat)) tags.push(h("span", { class: "tag folded", text: t("folded") }));
    const turn = state.turn === seat && !OVER.has(view.status);
    return h(
      "div",
      {
        class: `seat pos-${where} side-${seat % 2}${mine ? " me" : ""}${turn ? " turn" : ""}`,
        data_seat: seat,
        data_turn: turn ? "yes" : "no",
        "aria-label": mine ? t("your_cards") : t("cards_of", { name: nameOf(seat) }),
        role: "group",
      },
      h("div", { class: "name" }, h("span", { class: "turn-mark", "aria-hidden": "true", text: turn ? "▶" : "" }), nameOf(seat), tags),
      h("div", { class: "hand-cards", data_count: cards.length }, cards),
    );
  }

  function playedCard(code) {
    const card = faceCard(code);
    if (table.fresh.has(code)) card.classList.add("fresh");
    return card;
  }

  // The cards of the baza being played, each over its player's name.
  function trick(view, hand) {
    const bottom = view.my_seat === null ? 0 : view.my_seat;
    return h(
      "div",
      { class: "trick" },
      hand.baza.map((play) =>
        h("div", { class: `play side-${play.seat % 2} from-${position(play.seat, bottom, view.players)}`, data_seat: play.seat },
          playedCard(play.card),
          h("span", { class: "who", text: nameOf(play.seat) }),
        ),
      ),
    );
  }

  function centre(view, state, hand) {
    const parts = [];
    if (hand) parts.push(trick(view, hand));
    const pending = hand && hand.pending_call;
    if (pending) {
      const earlier = pending.ladder === "envido" ? hand.envido.calls.length - 1 : 0;
      parts.push(
        h("p", { class: "pending", data_call: pending.call, role: "status", text: t("pending", { name: nameOf(pending.caller), call: callLabel(view.preset, pending.call, earlier) }) }),
      );
    }
    if (state.turn !== null && !OVER.has(view.status)) {
      const answering = pending && view.state.side === pending.answering_side && state.turn === view.my_seat;
      const text = state.turn === view.my_seat ? (answering ? t("answer_you") : t("turn_you")) : t("turn_of", { name: nameOf(state.turn) });
      parts.push(h("p", { class: "whose-turn", data_seat: state.turn, text }));
    }
    if (hand && hand.envido.winner !== null && hand.envido.points) {
      parts.push(h("p", { class: "envido-result", text: t("envido_won", { points: hand.envido.points.points, side: sideName(hand.envido.points.side), value: hand.envido.value }) }));
    }
    if (hand && hand.bazas.length) {
      parts.push(
        h("ol", { class: "bazas" }, hand.bazas.map((plays, index) =>
          h("li", { class: "baza", data_result: hand.baza_results[index] },
            h("span", { class: "baza-label", text: `${t("baza_n", { n: index + 1 })}: ${bazaWinner(hand.baza_results[index])}` }),
            h("span", { class: "baza-cards" }, plays.map((play) => faceCard(play.card))),
          ),
        )),
      );
    }
    return h("div", { class: "centre" }, parts);
  }

  function actions(view, state) {
    if (view.my_seat === null || OVER.has(view.status)) return h("div", { class: "actions empty" });
    const hand = state.hand;
    const calls = state.legal_actions.filter((action) => action.type !== "play");
    return h(
      "div",
      { class: "actions", role: "group", "aria-label": t("actions") },
      calls.map((action) =>
        h("button", {
          type: "button",
          class: `action act-${action.type}`,
          data_action: action.type,
          data_key: `action-${action.type}`,
          text: actionLabel(view.preset, action, hand),
          onclick: () => act(action),
        }),
      ),
    );
  }

  function matchEnd(view) {
    const mine = view.state ? view.state.side : null;
    let verdict = t("no_winner");
    if (view.winner_side !== null) {
      verdict = mine === null || mine === undefined ? t("winner_side", { side: sideName(view.winner_side) }) : view.winner_side === mine ? t("winner_us") : t("winner_them");
    }
    const rating = [];
    if (!view.rated) rating.push(h("p", { class: "unrated", text: t("unrated") }));
    else if (!view.rating_changes.length) rating.push(h("p", { class: "rating-pending", text: t("rating_pending") }));
    else {
      rating.push(
        h("ul", { class: "rating-changes" }, view.rating_changes.map((change) =>
          h("li", { data_player: change.player_id, data_delta: change.delta, text: t("rating_change", { name: change.name, before: change.before, after: change.after, delta: (change.delta > 0 ? "+" : "") + change.delta }) }),
        )),
      );
    }
    return h(
      "div",
      { class: "match-end", role: "status", data_winner: view.winner_side === null ? "" : view.winner_side },
      h("h2", { text: t("match_over") }),
      h("p", { class: "verdict", text: verdict }),
      view.end_reason ? h("p", { class: "reason", text: t("end_reason", { reason: view.end_reason }) }) : null,
      h("div", { class: "rating" }, h("h3", { text: t("rating") }), rating),
      rematchPanel(view),
    );
  }

  // --- the rematch (the lobby's): offered, accepted by everyone seated, then the new game ---

  function followRematch() {
    const view = table.view;
    if (table.closed || view.status !== "finished" || view.my_seat === null) return;
    if (table.rematchTimer || table.rematchSettled) return; // one read at a time, none once settled
    // The timer stays set while a read is under way, so the render it ends with starts no other.
    const read = async () => {
      if (table.closed) return;
      try {
        table.rematch = await api.rematch(gameId);
      } catch {
        table.rematch = null; // no lobby on this server: no rematch to offer
        table.rematchSettled = true;
        table.rematchTimer = null;
        return render();
      }
      if (table.rematch.next_game_id && table.rematch.accepted_by.includes(session.player.id)) {
        location.hash = `#/game/${table.rematch.next_game_id}`;
        return;
      }
      const pending = table.rematch.status === null || table.rematch.status === "offered";
      table.rematchSettled = !pending;
      table.rematchTimer = pending ? setTimeout(read, 2000) : null;
      render();
    };
    table.rematchTimer = setTimeout(read, 0);
  }

  async function askRematch(decline) {
    try {
      table.rematch = decline ? await api.declineRematch(gameId) : await api.wantRematch(gameId);
    } catch (error) {
      toast(t("error", { message: error.message }));
    }
    if (table.rematch && table.rematch.next_game_id && !decline) {
      location.hash = `#/game/${table.rematch.next_game_id}`;
      return;
    }
    render();
  }

  function rematchPanel(view) {
    const offer = table.rematch;
    if (view.status !== "finished" || view.my_seat === null || !offer) return null;
    const me = session.player.id;
    const box = (...children) => h("div", { class: "rematch", data_status: offer.status || "" }, children);
    if (offer.next_game_id) {
      return box(h("a", { href: `#/game/${offer.next_game_id}`, class: "rematch-game", text: t("rematch_go") }));
    }
    if (offer.status === "declined") return box(h("p", { text: t("rematch_declined") }));
    if (offer.status === "offered" && offer.accepted_by.includes(me)) {
      return box(h("p", { class: "rematch-waiting", text: t("rematch_waiting") }));
    }
    if (offer.status === "offered") {
      const seat = view.seats.find((s) => s.player && s.player.id === offer.offered_by);
      return box(
        h("p", { text: t("rematch_offered", { name: seat ? seat.player.name : "?" }) }),
        h("button", { type: "button", class: "rematch-accept", text: t("rematch_accept"), onclick: () => askRematch(false) }),
        h("button", { type: "button", class: "rematch-decline", text: t("rematch_decline"), onclick: () => askRematch(true) }),
      );
    }
    return box(h("button", { type: "button", class: "rematch-offer", text: t("rematch"), onclick: () => askRematch(false) }));
  }

  function sidePanels() {
    const panels = [];
    const last = table.lastHand;
    if (last) {
      const lines = last.bazas.map((baza) => h("li", { class: "baza-result", data_result: baza.result, text: `${t("baza_n", { n: baza.number })}: ${bazaWinner(baza.result)}` }));
      const points = last.points.map(pointsOf).map(({ kind, side, points }) =>
        h("li", { class: `points-${kind}`, data_kind: kind, data_side: side, data_points: points, text: t("point_line", { kind: t(`points_${kind}`), points, side: sideName(side) }) }),
      );
      panels.push(
        h("aside", { class: "last-hand", data_hand: last.number },
          h("h3", { text: `${t("last_hand")} (${t("hand_n", { n: last.number })})` }),
          h("ul", {}, lines, points),
          h("p", { text: t("scores_after", { score: last.scores.join("–") }) }),
        ),
      );
    }
    if (table.log.length) {
      panels.push(h("aside", { class: "log" }, h("h3", { text: t("log") }), h("ol", { "aria-live": "polite" }, table.log.map((line) => h("li", { text: line })))));
    }
    return h("div", { class: "panels" }, panels);
  }

  function tickClock() {
    const clock = main.querySelector(".clock");
    if (!clock) return;
    const deadline = clock.dataset.deadline ? Date.parse(clock.dataset.deadline) : null;
    if (!deadline) {
      clock.textContent = "";
      return;
    }
    const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
    clock.dataset.left = left;
    clock.classList.toggle("low", left <= 10);
    const minutes = Math.floor(left / 60);
    const text = minutes >= 60 ? `${Math.floor(minutes / 60)} h ${minutes % 60} min` : `${minutes}:${String(left % 60).padStart(2, "0")}`;
    clock.textContent = `${t("clock")} ${text}`;
  }

  table.clock = setInterval(tickClock, 1000);
  load().catch((error) => {
    main.replaceChildren(h("p", { class: "error", text: t("error", { message: error.message }) }), h("a", { href: "#/", text: t("back") }));
  });

  return {
    close() {
      table.closed = true;
      clearInterval(table.clock);
      clearTimeout(table.rematchTimer);
      if (table.follower) table.follower.stop();
    },
  };
}

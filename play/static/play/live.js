// Following a game as it happens. The table only ever calls follow(); how the news arrives is
// this module's business: the long poll of GET /api/games/{id}/events/wait (events as the reader
// may see them, as soon as there are any) followed by a conditional read of the view
// (If-None-Match: a 304 while nothing changed), and the plain ETag poll while the table is still
// filling (joining a seat adds no event, it only changes the view).

import { api, request } from "./api.js";

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const OVER = new Set(["finished", "aborted"]);
const LONG_POLL_SECONDS = 25;
const OPEN_POLL_MS = 1500;

// handlers: onEvents(events) with new events in seq order, onView(view) with each new view,
// onLink(state) with "live" or "offline". Answers {stop(), seen(seq, etag)}.
export function follow(gameId, { after = 0, etag = null, status = "active", onEvents, onView, onLink }) {
  const cursor = { seq: after, etag, status, stopped: false, controller: new AbortController() };
  const signal = cursor.controller.signal;

  async function readView() {
    const read = await api.game(gameId, cursor.etag);
    if (!read) return;
    cursor.etag = read.etag;
    cursor.status = read.view.status;
    onView(read.view);
  }

  async function waitForEvents() {
    const path = `/games/${gameId}/events/wait?after=${cursor.seq}&timeout=${LONG_POLL_SECONDS}`;
    const answer = await request("GET", path, { signal });
    const events = answer.data.filter((event) => event.seq > cursor.seq);
    if (events.length) {
      cursor.seq = events[events.length - 1].seq;
      onEvents(events);
    } else if (answer.headers.get("Retry-After")) {
      // The server holds a limited number of waits; it said when to ask again.
      await sleep(1000 * Number(answer.headers.get("Retry-After")));
    }
  }

  async function run() {
    let failures = 0;
    while (!cursor.stopped && !OVER.has(cursor.status)) {
      try {
        if (cursor.status === "open") {
          await sleep(OPEN_POLL_MS);
        } else {
          await waitForEvents();
        }
        if (cursor.stopped) return;
        await readView();
        if (failures) onLink("live");
        failures = 0;
      } catch (error) {
        if (cursor.stopped) return;
        failures += 1;
        onLink("offline", error);
        await sleep(Math.min(500 * 2 ** failures, 8000));
      }
    }
  }
  run();

  return {
    stop() {
      cursor.stopped = true;
      cursor.controller.abort();
    },
    // The table acted itself and already has these events and this view.
    seen(seq, view) {
      cursor.seq = Math.max(cursor.seq, seq);
      cursor.status = view.status;
    },
  };
}

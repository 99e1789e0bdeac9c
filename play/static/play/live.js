// Following a game as it happens. The table only ever calls follow(); how the news arrives is
// this module's business:
// - the game's stream, GET /api/games/{id}/stream (Server-Sent Events: each event as the reader
//   may see it, `id:` its seq, then a `view` message with the reader's whole view), read with
//   fetch() because EventSource cannot send the Authorization header; resumed with ?after=;
// - the ETag poll as the fallback (If-None-Match: a bodiless 304 while nothing changed, then the
//   events since the last seq), and while the table is still filling: a seat taken adds no event.

import { api, session } from "./api.js";

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const OVER = new Set(["finished", "aborted"]);
const POLL_MS = 1500;
const FALLBACK_MS = 30000; // how long to poll before trying the stream again

class StreamUnavailable extends Error {}

// Messages of a text/event-stream body, as the HTML standard frames them.
async function* messages(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let message = { event: "message", data: [], id: null };
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (message.data.length) yield { ...message, data: message.data.join("\n") };
        message = { event: "message", data: [], id: null };
      } else if (!line.startsWith(":")) {
        const colon = line.indexOf(":");
        const field = colon < 0 ? line : line.slice(0, colon);
        const text = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
        if (field === "data") message.data.push(text);
        else if (field === "event") message.event = text;
        else if (field === "id") message.id = text;
      }
    }
  }
}

// handlers: onEvents(events) with new events in seq order, onView(view) with each new view,
// onLink(state) with "live" or "offline". Answers {stop(), seen(seq, view), transport()}.
export function follow(gameId, { after = 0, etag = null, status = "active", onEvents, onView, onLink }) {
  const cursor = { seq: after, etag, status, stopped: false, transport: null };
  const controller = new AbortController();
  const signal = controller.signal;
  const running = () => !cursor.stopped && !OVER.has(cursor.status);

  function takeEvents(events) {
    const fresh = events.filter((event) => event.seq > cursor.seq);
    if (!fresh.length) return;
    cursor.seq = fresh[fresh.length - 1].seq;
    onEvents(fresh);
  }

  function takeView(view) {
    cursor.status = view.status;
    onView(view);
  }

  // One connection to the stream, until it ends. Answers why it ended.
  async function stream() {
    const response = await fetch(`/api/games/${gameId}/stream?after=${cursor.seq}`, {
      headers: { Accept: "text/event-stream", Authorization: `Bearer ${session.token}` },
      signal,
      cache: "no-store",
    });
    if (response.status === 204) return "over"; // every event is in hand and the game is over
    if (response.status === 429) {
      await sleep(1000 * (Number(response.headers.get("Retry-After")) || 5));
      throw new StreamUnavailable("too many streams");
    }
    const type = response.headers.get("Content-Type") || "";
    if (!response.ok || !type.startsWith("text/event-stream")) {
      throw new StreamUnavailable(`stream answered ${response.status}`);
    }
    cursor.transport = "stream";
    onLink("live");
    for await (const message of messages(response.body)) {
      const data = JSON.parse(message.data);
      if (message.event === "view") takeView(data);
      else if (message.event === "end") return data.reason;
      else takeEvents([data]);
    }
    return "closed";
  }

  // The ETag poll, for `until` ms (or until the game is over or stops filling).
  async function poll(until) {
    cursor.transport = "poll";
    while (running() && Date.now() < until) {
      const read = await api.game(gameId, cursor.etag);
      if (read) {
        cursor.etag = read.etag;
        if (read.view.version > cursor.seq) takeEvents(await api.events(gameId, cursor.seq));
        takeView(read.view);
      }
      if (cursor.status !== "open" && until === Infinity) return;
      await sleep(POLL_MS);
    }
  }

  async function run() {
    let failures = 0;
    while (running()) {
      try {
        if (cursor.status === "open") {
          await poll(Infinity); // until the table is full
          continue;
        }
        const ended = await stream();
        failures = 0;
        if (ended === "over" || ended === "game_over" || ended === "not_found") return;
        await sleep(1000); // the server closed it: reconnect from the last seq
      } catch (error) {
        if (cursor.stopped) return;
        failures += 1;
        if (!(error instanceof StreamUnavailable)) onLink("offline", error);
        if (error instanceof StreamUnavailable || failures >= 3) {
          // No stream here (or not now): poll for a while, then try it again.
          try {
            await poll(Date.now() + FALLBACK_MS);
            failures = 0;
          } catch (pollError) {
            if (cursor.stopped) return;
            onLink("offline", pollError);
            await sleep(Math.min(500 * 2 ** failures, 4000));
          }
        } else {
          await sleep(Math.min(500 * 2 ** failures, 4000));
        }
      }
    }
  }
  run();

  return {
    stop() {
      cursor.stopped = true;
      controller.abort();
    },
    // The table acted itself and already has these events and this view (unless the stream
    // has told newer ones since: an answer can arrive after the stream's news of what followed).
    seen(seq, view) {
      if (seq >= cursor.seq) cursor.status = view.status;
      cursor.seq = Math.max(cursor.seq, seq);
    },
    transport: () => cursor.transport,
  };
}

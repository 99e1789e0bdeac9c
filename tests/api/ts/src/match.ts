// A whole match through the client generated from openapi.yaml (openapi-typescript types,
// openapi-fetch calls): no cast, no `any`. tests/api/test_typescript_client.py generates
// src/generated/schema.d.ts, type-checks this under `tsc --strict` and runs it against a live
// server. It sends back the legal actions it is offered, keeps the score from the typed events
// of the feed alone, and reads a problem's code; `notified` switches on every webhook's kind
// (type-checked only: nothing sends webhooks to this program). It reads both streams (finite
// through the live server's WSGI: what the log holds, then the stream ends), typed by the
// document's message unions alone: no table of event names, no check beyond parsing the JSON.
import createClient from "openapi-fetch";

import type { components, paths } from "./generated/schema.js";

type Schemas = components["schemas"];
type FeedItem = Awaited<ReturnType<typeof readFeed>>["events"][number];
// A game as openapi-fetch answers it: its response types turn tuples into arrays
// (openapi-typescript-helpers' `Readable`), so by-side lists are typed by length only where the
// schema's own types are used (the streams' messages below).
type Game = Awaited<ReturnType<typeof read>>;

// Node's globals, which the DOM library does not declare (no @types/node is installed).
declare const process: { env: Record<string, string | undefined>; exitCode?: number };

const base = process.env.TRUC_API_URL ?? "http://127.0.0.1:8000";

function fail(message: string): never {
  throw new Error(message);
}

async function signUp(username: string) {
  const anonymous = createClient<paths>({ baseUrl: base });
  const { data, error } = await anonymous.POST("/api/auth/register", {
    body: { username, password: "s3cret-Pass!", display_name: username },
  });
  if (error !== undefined || data === undefined) fail(`register: ${JSON.stringify(error)}`);
  return createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${data.token}` },
  });
}

type Client = Awaited<ReturnType<typeof signUp>>;

async function readFeed(client: Client, gameId: string) {
  const { data } = await client.GET("/api/games/{game_id}/events", {
    params: { path: { game_id: gameId }, query: { after: 0, limit: 500 } },
  });
  if (data === undefined) fail("the feed");
  return data;
}

async function read(client: Client, gameId: string) {
  const { data, error } = await client.GET("/api/games/{game_id}", {
    params: { path: { game_id: gameId } },
  });
  if (data === undefined) fail(`read: ${JSON.stringify(error)}`);
  return data;
}

/** The score as a client keeps it: from the events, switching on their types. */
function replay(events: FeedItem[], reader: number) {
  const tally: { scores: number[]; camas: number[]; winner: Schemas["Side"] | null; cards: number } =
    { scores: [0, 0], camas: [0, 0], winner: null, cards: 0 };
  for (const event of events) {
    switch (event.type) {
      case "hand_dealt": {
        const own = event.data.hands[reader];
        if (own === undefined || own === null || own.length !== 3) fail("my cards are mine");
        if (event.data.hands.some((cards, seat) => seat !== reader && cards !== null)) {
          fail("a deal shows another seat's cards");
        }
        break;
      }
      case "card_played":
        tally.cards += event.data.card.length > 0 ? 1 : 0;
        break;
      case "hand_ended":
        tally.scores = [...event.data.scores];
        for (const points of event.data.points) {
          const kind: Schemas["PointKind"] = points.kind;
          if (points.points < 1) fail(`${kind} points are positive`);
        }
        break;
      case "cama_ended":
        tally.camas = [...event.data.camas];
        break;
      case "match_ended":
        tally.winner = event.data.winner;
        break;
      default:
        break;
    }
  }
  return tally;
}

/** A webhook receiver: one URL for every kind, switched on `type`, each body typed. */
export function notified(body: Schemas["Notification"]): string {
  switch (body.type) {
    case "your_turn":
    case "call_pending":
    case "deadline_near":
    case "hand_ended":
    case "match_ended":
      return `${body.type}: game ${body.data.game_id} v${body.data.version}, seat ${body.data.seat}`;
    case "match_found":
      return `game ${body.data.game_id} found: ${body.data.seats.length} seats, ${body.data.bots} bots`;
    case "seek_expired":
      return `seek ${body.data.seek_id} expired`;
    case "challenge_accepted":
      return `challenge ${body.data.challenge_id} accepted: game ${body.data.game_id}`;
    case "challenge_declined": {
      const reason: Schemas["DeclineReasonEnum"] = body.data.reason;
      return `challenge ${body.data.challenge_id} declined (${reason})`;
    }
    case "challenge_received":
    case "challenge_cancelled":
    case "challenge_expired":
      return `challenge ${body.data.challenge_id}: ${body.type}`;
    case "rematch_offered":
    case "rematch_started":
    case "rematch_declined":
      return `${body.type}: game ${body.data.game_id}`;
    default: {
      const unknown: never = body; // every kind is handled: a new one fails to compile
      return fail(`a notification of no known kind: ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * The messages of a stream's text: each block's fields (`event`, `id`), with the JSON of `data:`
 * parsed in place, which the generated types give as its `contentSchema` (generate.mjs). Parsing
 * the JSON is the only check: the generated `Message` union says what each one is.
 */
function decode<Message>(text: string): Message[] {
  const found: Message[] = [];
  for (const block of text.split("\n\n")) {
    const fields = new Map<string, string>();
    for (const line of block.split("\n")) {
      const colon = line.indexOf(": ");
      if (colon > 0) fields.set(line.slice(0, colon), line.slice(colon + 2));
    }
    const event = fields.get("event");
    const id = fields.get("id");
    const data = fields.get("data");
    if (event === undefined || data === undefined) continue; // `retry:` alone, a comment
    const cursor = id === undefined ? "" : `"id":${JSON.stringify(id)},`;
    found.push(JSON.parse(`{"event":${JSON.stringify(event)},${cursor}"data":${data}}`));
  }
  return found;
}

/** A game's stream as a client follows it: each message switched on `event`, `data` typed. */
function followGame(messages: Schemas["GameStreamMessage"][]) {
  const seen = { events: 0, cards: 0, version: -1, scores: [0, 0], ended: "", winnerCamas: 0 };
  for (const message of messages) {
    switch (message.event) {
      case "view": {
        const { state, version, winner_side: winner } = message.data;
        seen.version = version;
        // By side, two of them: indexed by a side, a count is a number, never undefined.
        if (state !== null && winner !== null) seen.winnerCamas = state.camas[winner];
        break;
      }
      case "end":
        seen.ended = message.data.reason;
        break;
      case "card_played":
        seen.cards += message.data.data.card.length > 0 ? 1 : 0;
        seen.events += 1;
        break;
      case "hand_ended":
        seen.scores = [...message.data.data.scores];
        seen.events += 1;
        break;
      default:
        // Every other event: its `id:` is its seq, as for the two above.
        if (message.id !== String(message.data.seq)) fail(`${message.event}: id is the seq`);
        seen.events += 1;
        break;
    }
  }
  return seen;
}

/** A player's stream: each message switched on `event`, each `data` typed. */
export function noticed(message: Schemas["PlayerStreamMessage"]): string {
  switch (message.event) {
    case "game_started":
      return `game ${message.data.data.game_id} (${message.data.data.preset}) started`;
    case "game_ended":
      return `game ${message.data.data.game_id} ended: ${message.data.data.won === true ? "won" : "not won"}`;
    case "rating_changed":
      return `${message.data.data.family} ${message.data.data.size}: ${message.data.data.before} → ${message.data.data.after}`;
    case "deadline_near":
      return `game ${message.data.data.game_id}: seat ${message.data.data.seat} times out soon`;
    case "player_joined":
      return `player ${message.data.data.player_id} took seat ${message.data.data.seat}`;
    case "challenge_declined":
      return `challenge ${message.data.data.challenge_id} declined (${message.data.data.reason})`;
    case "your_turn":
    case "call_pending":
      return `${message.event}: game ${message.data.game_id} v${message.data.version}`;
    case "end":
      return `end: ${message.data.reason}`;
    default:
      return `notice ${message.id}: ${message.event} (a lobby notice: its webhook's data)`;
  }
}

async function playerStream(client: Client): Promise<Schemas["PlayerStreamMessage"][]> {
  const { data } = await client.GET("/api/stream", { parseAs: "text" });
  if (data === undefined) fail("the player's stream");
  return decode(data);
}

async function main(): Promise<void> {
  const suffix = crypto.randomUUID().slice(0, 8);
  const clients = [await signUp(`ts-pep-${suffix}`), await signUp(`ts-vicenta-${suffix}`)];
  const [host, guest] = clients;
  if (host === undefined || guest === undefined) fail("two players");

  const created = await host.POST("/api/games", {
    body: {
      preset: "valenciano",
      players: 2,
      options: { target: 6, buenas_from: 3, camas_to_win: 1 },
    },
  });
  if (created.data === undefined) fail(`create: ${JSON.stringify(created.error)}`);
  const gameId = created.data.id;
  const joined = await guest.POST("/api/games/{game_id}/join", {
    params: { path: { game_id: gameId } },
    body: {},
  });
  if (joined.data?.status !== "active") fail("the table is full: the game starts");

  let final: Game | undefined;
  for (let turn = 0; turn < 1000 && final === undefined; turn += 1) {
    const views = await Promise.all(clients.map((client) => read(client, gameId)));
    const first = views[0];
    if (first === undefined) fail("a view");
    if (first.status !== "active") {
      final = first;
      break;
    }
    const seat = views.findIndex((view) => (view.state?.legal_actions.length ?? 0) > 0);
    const view = views[seat];
    const client = clients[seat];
    if (view === undefined || client === undefined || view.state === null) fail("one may act");
    if (turn === 0) {
      // The seat to move is told so on his stream, after the notice that the game started.
      const told = (await playerStream(client)).map(noticed);
      if (!told.includes(`game ${gameId} (valenciano) started`)) fail(`not told: ${told.join()}`);
      if (!told.includes(`your_turn: game ${gameId} v${view.version}`)) fail("no your_turn");
    }
    const legal = view.state.legal_actions[turn % view.state.legal_actions.length];
    if (legal === undefined) fail("a legal action");
    // A listed legal action goes back as it is, with the version it was listed at.
    const acted = await client.POST("/api/games/{game_id}/actions", {
      params: { path: { game_id: gameId }, header: { "Idempotency-Key": crypto.randomUUID() } },
      body: { ...legal, expected_version: view.version },
    });
    if (acted.data === undefined) fail(`act: ${JSON.stringify(acted.error)}`);
    if (acted.data.version !== acted.data.game.version) fail("the answer's version is the game's");
  }
  if (final === undefined || final.state === null) fail("the match did not end");

  // An action after the end: a problem, whose code the client branches on.
  const late = await host.POST("/api/games/{game_id}/actions", {
    params: { path: { game_id: gameId }, header: { "Idempotency-Key": crypto.randomUUID() } },
    body: { type: "mazo", expected_version: final.version },
  });
  const code: Schemas["ProblemCode"] | undefined = late.error?.code;
  if (code !== "game_over") fail(`a finished game answers game_over, not ${String(code)}`);

  // A name the schema allows that a rule refuses: each field at fault with a code of the
  // closed `FieldErrorCode` enum (a code outside it would not compile here).
  const renamed = await host.PATCH("/api/players/me", { body: { display_name: "Bot strong 1" } });
  const reason: Schemas["FieldErrorCode"] | undefined = renamed.error?.errors?.[0]?.code;
  if (reason !== "bot_name") fail(`a bot's name: bot_name expected, not ${String(reason)}`);

  const feed = await readFeed(guest, gameId);
  if (feed.more || feed.after !== final.version) fail("one page holds the match");
  const tally = replay(feed.events, 1);
  const state = final.state;
  if (tally.winner !== final.winner_side) fail("the events name the winner");
  if (tally.camas.join() !== state.camas.join()) fail("the events count the camas");
  if (tally.scores.join() !== state.scores.join()) fail("the events keep the score");
  if (tally.cards === 0) fail("cards were played");

  const stream = await guest.GET("/api/games/{game_id}/stream", {
    params: { path: { game_id: gameId }, query: { after: 0 } },
    parseAs: "text",
  });
  if (stream.data === undefined) fail("the game's stream");
  const followed = followGame(decode(stream.data));
  if (followed.events !== final.version) fail("the stream holds every event of the log");
  if (followed.version !== final.version) fail("the stream's view is the last version");
  if (followed.cards !== tally.cards) fail("the stream and the feed agree on the cards played");
  if (followed.scores.join() !== state.scores.join()) fail("the stream keeps the score");
  if (followed.winnerCamas < 1) fail("the winner won a cama");
  const ended = (await playerStream(host)).map(noticed);
  if (!ended.some((line) => line.startsWith(`game ${gameId} ended`))) fail("no game_ended");
  console.log(`match over: side ${String(final.winner_side)} won, ${final.version} events`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});

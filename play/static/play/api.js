// The public API, as any third-party client calls it: JSON over HTTP, the token as
// `Authorization: Bearer <token>`, errors as application/problem+json with a stable `code`.

const BASE = "/api";
const TOKEN_KEY = "truc.token";
const PLAYER_KEY = "truc.player";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.code = problem.code || "http_" + status;
    this.problem = problem;
  }
}

export const session = {
  get token() {
    return localStorage.getItem(TOKEN_KEY);
  },
  get player() {
    const text = localStorage.getItem(PLAYER_KEY);
    return text ? JSON.parse(text) : null;
  },
  save(answer) {
    localStorage.setItem(TOKEN_KEY, answer.token);
    localStorage.setItem(PLAYER_KEY, JSON.stringify(answer.player));
  },
  clear() {
    localStorage.removeItem(TOKEN_KEY);
    localStorage.removeItem(PLAYER_KEY);
  },
};

const sleep = (ms) => new Promise((done) => setTimeout(done, ms));

// One request. Answers {status, data, etag, headers}; throws ApiError for a 4xx/5xx answer.
// A 429 is waited out (its Retry-After, a few times at most): the throttles are the server's
// to set, and a table that gives up on the first one would be a poor client.
export async function request(method, path, { body, etag, headers = {}, signal } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (session.token) sent.Authorization = `Bearer ${session.token}`;
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (etag) sent["If-None-Match"] = etag;
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(BASE + path, {
      method,
      headers: sent,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
      cache: "no-store",
    });
    if (response.status === 429 && attempt < 4) {
      await sleep(1000 * Math.min(Number(response.headers.get("Retry-After")) || 1, 10));
      continue;
    }
    const text = response.status === 204 || response.status === 304 ? "" : await response.text();
    const data = text ? JSON.parse(text) : null;
    if (response.status >= 400) {
      if (response.status === 401 && session.token) onUnauthorized();
      throw new ApiError(response.status, data || {});
    }
    return { status: response.status, data, etag: response.headers.get("ETag"), headers: response.headers };
  }
}

let unauthorized = () => {};
function onUnauthorized() {
  unauthorized();
}
export function whenUnauthorized(callback) {
  unauthorized = callback;
}

const get = async (path, options) => (await request("GET", path, options)).data;
const post = async (path, body, options) => (await request("POST", path, { body, ...options })).data;

export const api = {
  register: (username, password) => post("/auth/register", { username, password }),
  login: (username, password) => post("/auth/login", { username, password }),
  logout: () => post("/auth/logout"),
  me: () => get("/players/me"),
  createGame: (spec) => post("/games", spec),
  joinByCode: (code) => post("/games/join", { join_code: code }),
  join: (id) => post(`/games/${id}/join`, {}),
  resign: (id) => post(`/games/${id}/resign`),
  mine: () => get("/games/mine?limit=30"),
  open: () => get("/games/open?limit=30"),
  live: () => get("/games/live?limit=30"),
  // The game as my seat (or a spectator) sees it; with the last ETag, null while unchanged.
  game: async (id, etag) => {
    const answer = await request("GET", `/games/${id}`, { etag });
    return answer.status === 304 ? null : { view: answer.data, etag: answer.etag };
  },
  // The events after `after`, every page of them (each says whether `more` follow).
  events: async (id, after) => {
    const events = [];
    for (let cursor = after, more = true; more; ) {
      const page = await get(`/games/${id}/events?after=${cursor}&limit=500`);
      events.push(...page.events);
      cursor = page.after;
      more = page.more;
    }
    return events;
  },
  rules: () => get("/rules"),
  history: (id) => get(`/games/${id}/history`),
  // An action for my seat at the version I saw, with a fresh Idempotency-Key.
  act: (id, action, version) =>
    post(`/games/${id}/actions`, { ...action, expected_version: version }, {
      headers: { "Idempotency-Key": crypto.randomUUID ? crypto.randomUUID() : fallbackKey() },
    }),
  // The lobby's rematch: the same table and settings again once everyone seated asks for it.
  rematch: (id) => get(`/games/${id}/rematch`),
  wantRematch: (id) => post(`/games/${id}/rematch`),
  declineRematch: (id) => post(`/games/${id}/rematch/decline`),
};

function fallbackKey() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

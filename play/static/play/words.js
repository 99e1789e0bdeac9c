// The game's own words. Actions are named in the preset's language whatever the page's language
// (RULES.md §5: `truc`, `envit`, `vull`... are the valenciano names of `truco`, `envido`,
// `quiero`...); suits, figures and the score's words (malas/buenas, camas) follow the page's.
// GET /api/rules gives the aliases and the suits' and figures' names in Spanish and Valencian
// (loadRules); the tables here hold what it does not say (English, the words with no alias).

import { api } from "./api.js";
import { lang } from "./i18n.js";

// Canonical action -> [label, the alias sent to the API or null] per family of presets; the
// valenciano aliases are replaced by those /api/rules lists.
const ACTIONS = {
  valenciano: {
    truco: ["Truc", "truc"],
    retruco: ["Retruc", "retruc"],
    vale_cuatro: ["Quatre val", "quatre_val"],
    joc_fora: ["Joc fora", null],
    envido: ["Envit", "envit"],
    real_envido: ["Real envit", null],
    falta_envido: ["Falta", "falta"],
    quiero: ["Vull", "vull"],
    no_quiero: ["No vull", "no_vull"],
    mazo: ["Me'n vaig", null],
    paso: ["Passe", null],
  },
  argentino: {
    truco: ["Truco", null],
    retruco: ["Retruco", null],
    vale_cuatro: ["Vale cuatro", null],
    joc_fora: ["Juego fuera", null],
    envido: ["Envido", null],
    real_envido: ["Real envido", null],
    falta_envido: ["Falta envido", null],
    quiero: ["Quiero", null],
    no_quiero: ["No quiero", null],
    mazo: ["Me voy al mazo", null],
    paso: ["Paso", null],
  },
};

const family = (preset) => (preset === "valenciano" ? "valenciano" : "argentino");

let TORNE = "torne";
const spoken = (alias) => alias.charAt(0).toUpperCase() + alias.slice(1).replace(/_/g, " ");

// The contract's words, once per page: aliases (`envido` has two: envit, then torne), suits
// and figures in Spanish and Valencian. Without it (an older server) the tables above stand.
export async function loadRules() {
  let rules;
  try {
    rules = await api.rules();
  } catch {
    return;
  }
  for (const action of rules.actions || []) {
    const [alias, raise] = action.aliases || [];
    if (!alias) continue;
    ACTIONS.valenciano[action.type] = [spoken(alias), alias];
    if (action.type === "envido" && raise) TORNE = raise;
  }
  for (const suit of rules.suits || []) {
    SUITS[suit.code] = { ...SUITS[suit.code], es: suit.es, ca: suit.ca };
  }
  for (const figure of rules.figures || []) {
    FIGURES[figure.rank] = { ...FIGURES[figure.rank], es: figure.es, ca: figure.ca };
  }
}

// `torne` is the valenciano name of the envido that raises an envit (RULES.md §5.2).
const isTorne = (preset, action, hand) =>
  family(preset) === "valenciano" && action.type === "envido" && hand && hand.envido.calls.length > 0;

export function actionLabel(preset, action, hand) {
  if (isTorne(preset, action, hand)) return spoken(TORNE);
  const entry = ACTIONS[family(preset)][action.type];
  return entry ? entry[0] : action.type;
}

// The action as the API takes it: the preset's own word where the API has an alias for it.
export function actionToSend(preset, action, hand) {
  if (isTorne(preset, action, hand)) return { type: TORNE };
  const entry = ACTIONS[family(preset)][action.type];
  const type = entry && entry[1] ? entry[1] : action.type;
  return action.card ? { type, card: action.card } : { type };
}

// A call as events and views name it (canonical), or as it was said (an alias), for display.
export function callLabel(preset, call, earlierEnvidoCalls = 0) {
  const canonical = { truc: "truco", retruc: "retruco", quatre_val: "vale_cuatro", envit: "envido", falta: "falta_envido", vull: "quiero", no_vull: "no_quiero" }[call] || call;
  if (call === TORNE || (canonical === "envido" && earlierEnvidoCalls > 0 && family(preset) === "valenciano")) return spoken(TORNE);
  const entry = ACTIONS[family(preset)][canonical];
  return entry ? entry[0] : call;
}

// Suits: the letter is the card notation's (readable without colour), the name the page's.
export const SUITS = {
  O: { en: "oros (coins)", es: "oros", ca: "ors" },
  C: { en: "copas (cups)", es: "copas", ca: "copes" },
  E: { en: "espadas (swords)", es: "espadas", ca: "espases" },
  B: { en: "bastos (clubs)", es: "bastos", ca: "bastos" },
};
const FIGURES = {
  10: { en: "sota", es: "sota", ca: "sota" },
  11: { en: "caballo", es: "caballo", ca: "cavall" },
  12: { en: "rey", es: "rey", ca: "rei" },
};

export const parseCard = (code) => ({ rank: Number(code.slice(0, -1)), suit: code.slice(-1) });

export function cardName(code) {
  const { rank, suit } = parseCard(code);
  const l = lang();
  const figure = FIGURES[rank] ? FIGURES[rank][l] : String(rank);
  const suitName = SUITS[suit][l];
  if (l === "en") return `${figure} of ${suitName}`;
  if (l === "ca") return /^[aeiouàèéíòóú]/i.test(suitName) ? `${figure} d'${suitName}` : `${figure} de ${suitName}`;
  return `${figure} de ${suitName}`;
}

const SCORE_WORDS = {
  en: { malas: "malas", buenas: "buenas", camas: "camas" },
  es: { malas: "malas", buenas: "buenas", camas: "camas" },
  ca: { malas: "males", buenas: "bones", camas: "cames" },
};

// A score as players say it: below `buenas_from` it counts in malas, from there on in buenas
// (RULES.md §2: `buenas_from` is the first score that counts as buenas).
export function scoreWords(points, rules) {
  const words = SCORE_WORDS[lang()];
  if (points < rules.buenas_from) return { count: points, word: words.malas, half: "malas" };
  return { count: points - rules.buenas_from + 1, word: words.buenas, half: "buenas" };
}

export const camasWord = () => SCORE_WORDS[lang()].camas;

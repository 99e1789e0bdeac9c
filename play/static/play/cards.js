// Spanish cards drawn as SVG: oros (coins), copas (cups), espadas (swords), bastos (clubs), each
// with its rank and its suit's letter in the corners, so a card reads without colour too.

import { cardName, parseCard } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";

function el(name, attributes = {}, children = []) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  for (const child of children) node.appendChild(child);
  return node;
}

// Each suit drawn in a 20×20 box.
const SUIT_SHAPES = {
  O: () => [
    el("circle", { cx: 10, cy: 10, r: 8.5, class: "oros" }),
    el("circle", { cx: 10, cy: 10, r: 5, class: "oros-ring" }),
    el("circle", { cx: 10, cy: 10, r: 1.6, class: "oros-ring" }),
  ],
  C: () => [
    el("path", { d: "M3 2.5 H17 Q17.5 10.5 10 12 Q2.5 10.5 3 2.5 Z", class: "copas" }),
    el("rect", { x: 8.8, y: 11.5, width: 2.4, height: 4.5, class: "copas" }),
    el("path", { d: "M5 18.5 H15 L13 15.8 H7 Z", class: "copas" }),
  ],
  E: () => [
    el("path", { d: "M10 0.8 L12.2 4 V13.6 H7.8 V4 Z", class: "espadas" }),
    el("rect", { x: 4.5, y: 13.4, width: 11, height: 2, rx: 0.8, class: "espadas-hilt" }),
    el("rect", { x: 8.9, y: 15.3, width: 2.2, height: 2.8, class: "espadas-hilt" }),
    el("circle", { cx: 10, cy: 18.6, r: 1.3, class: "espadas-hilt" }),
  ],
  B: () => [
    el("path", { d: "M8.3 19.2 L6.2 6.5 Q5 1 10 0.9 Q15 1 13.8 6.5 L11.7 19.2 Z", class: "bastos" }),
    el("circle", { cx: 7.6, cy: 8.5, r: 1.1, class: "bastos-knot" }),
    el("circle", { cx: 12.3, cy: 11.5, r: 1.1, class: "bastos-knot" }),
    el("circle", { cx: 8.6, cy: 14.5, r: 1, class: "bastos-knot" }),
  ],
};

function suitSymbol(suit, x, y, size) {
  return el("g", { transform: `translate(${x - size / 2} ${y - size / 2}) scale(${size / 20})` }, SUIT_SHAPES[suit]());
}

// Where the pips of a 1-7 sit on a 60×90 card.
const PIPS = {
  1: [[30, 45]],
  2: [[30, 24], [30, 66]],
  3: [[30, 20], [30, 45], [30, 70]],
  4: [[20, 26], [40, 26], [20, 64], [40, 64]],
  5: [[20, 24], [40, 24], [30, 45], [20, 66], [40, 66]],
  6: [[20, 22], [40, 22], [20, 45], [40, 45], [20, 68], [40, 68]],
  7: [[20, 20], [40, 20], [30, 33], [20, 48], [40, 48], [20, 70], [40, 70]],
};
const FIGURE_LETTER = { 10: "S", 11: "C", 12: "R" };

function corner(rank, suit, flip) {
  const group = el("g", flip ? { transform: "rotate(180 30 45)" } : {});
  const number = el("text", { x: 5, y: 13, class: "rank" });
  number.textContent = String(rank);
  const letter = el("text", { x: 5, y: 23, class: "suit-letter" });
  letter.textContent = suit;
  group.append(number, letter);
  return group;
}

// The face of a card as an <svg> (no text for screen readers: its holder carries the label).
export function cardFace(code) {
  const { rank, suit } = parseCard(code);
  const svg = el("svg", { viewBox: "0 0 60 90", class: `card-svg suit-${suit}`, "aria-hidden": "true", focusable: "false" });
  svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 88, rx: 5, class: "card-frame" }));
  svg.append(corner(rank, suit, false), corner(rank, suit, true));
  if (PIPS[rank]) {
    const size = rank === 1 ? 30 : 15;
    for (const [x, y] of PIPS[rank]) svg.appendChild(suitSymbol(suit, x, y, size));
  } else {
    svg.appendChild(el("rect", { x: 13, y: 16, width: 34, height: 58, rx: 3, class: "figure-frame" }));
    svg.appendChild(suitSymbol(suit, 30, 38, 22));
    const letter = el("text", { x: 30, y: 66, class: "figure-letter" });
    letter.textContent = FIGURE_LETTER[rank];
    svg.appendChild(letter);
  }
  return svg;
}

export function cardBack() {
  const svg = el("svg", { viewBox: "0 0 60 90", class: "card-svg back-svg", "aria-hidden": "true", focusable: "false" });
  svg.appendChild(el("rect", { x: 1, y: 1, width: 58, height: 88, rx: 5, class: "back-frame" }));
  svg.appendChild(el("rect", { x: 7, y: 7, width: 46, height: 76, rx: 3, class: "back-inner" }));
  svg.appendChild(el("circle", { cx: 30, cy: 45, r: 11, class: "back-inner" }));
  svg.appendChild(el("path", { d: "M30 34 L41 45 L30 56 L19 45 Z", class: "back-inner" }));
  return svg;
}

// A card that can be seen: a button when it may be played, else an image.
export function faceCard(code, { onPlay, label } = {}) {
  const holder = document.createElement(onPlay ? "button" : "div");
  holder.className = "card face";
  holder.dataset.card = code;
  if (onPlay) {
    holder.type = "button";
    holder.classList.add("playable");
    holder.addEventListener("click", onPlay);
  } else {
    holder.setAttribute("role", "img");
  }
  holder.setAttribute("aria-label", label || cardName(code));
  holder.title = cardName(code);
  holder.appendChild(cardFace(code));
  return holder;
}

export function backCard() {
  const holder = document.createElement("div");
  holder.className = "card back";
  holder.setAttribute("aria-hidden", "true");
  holder.appendChild(cardBack());
  return holder;
}

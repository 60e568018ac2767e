// @ts-check
// Cards as the page draws them: the number, a badge with the count of bullheads and the
// bullheads themselves (inline SVG), the last two hidden from screen readers, which get
// the card's name. Their size follows the viewport and the card-size setting (table.css).
import { t } from "./i18n.js";

/** The bullheads of `card` (a joker, card < 0, has one). */
export function bullheadsOf(/** @type {number} */ card) {
  if (card < 0) return 1;
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

/** The card's number as shown: jokers are 0.0 to 0.9. */
export function cardLabel(/** @type {number} */ card) {
  return card < 0 ? `${t("joker")} 0.${card + 10}` : String(card);
}

/** The card's name for a screen reader: "40, 3 bullheads". */
export function cardName(/** @type {number} */ card) {
  return t("card.name", { card: cardLabel(card), count: bullheadsOf(card) });
}

const SVG = "http://www.w3.org/2000/svg";

/** One bullhead: a head with horns, drawn in the current colour. */
export function head() {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 20 16");
  svg.setAttribute("class", "bh");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG, "path");
  path.setAttribute("d", "M1 2 Q3 7 7 6 L7 11 Q10 16 13 11 L13 6 Q17 7 19 2 Q15 5 12 4 L8 4 Q5 5 1 2 Z");
  path.setAttribute("fill", "currentColor");
  svg.append(path);
  return svg;
}

/** A card element: its number, the badge of its bullheads and a bullhead for each. */
export function cardEl(/** @type {number} */ card, tag = "span") {
  const el = document.createElement(tag);
  el.className = "card";
  const bh = bullheadsOf(card);
  el.dataset.bh = String(bh);
  el.dataset.card = String(card);
  const badge = document.createElement("span");
  badge.className = "badge";
  badge.setAttribute("aria-hidden", "true");
  badge.textContent = String(bh);
  const num = document.createElement("span");
  num.className = "num";
  num.textContent = card < 0 ? `0.${card + 10}` : String(card);
  const heads = document.createElement("span");
  heads.className = "heads";
  heads.setAttribute("aria-hidden", "true");
  for (let i = 0; i < bh; i++) heads.append(head());
  el.append(badge, num, heads);
  return el;
}

/** The card sizes a player may choose (Settings; `nimmt.cards`). */
export const CARD_SIZES = ["small", "medium", "large"];

/** The card size chosen, "medium" unless another was. */
export function cardSize() {
  const saved = localStorage.getItem("nimmt.cards") || "";
  return CARD_SIZES.includes(saved) ? saved : "medium";
}

/** Choose (and show at once) a card size. */
export function setCardSize(/** @type {string} */ size) {
  if (CARD_SIZES.includes(size)) localStorage.setItem("nimmt.cards", size);
  document.documentElement.dataset.cards = cardSize();
}

// @ts-check
// The reveal as a sequence the eye can follow. The table is drawn at once (state first:
// every card is already in its row and every control works); this module only moves
// copies of the cards over it, one after another in the order they are placed: each
// card from where its player revealed it to its place in the row, and a row taken as a
// moment (its cards glow, the taker's seat shows what they took, the cards go to that
// seat). The copies are decorations (hidden from screen readers, never clickable), above
// everything and gone when they land; the real card shows as its copy lands. With reduced
// motion nothing moves: the table is as it is, the row taken marked and its taker's seat
// saying what they took. A new size of the window, or another view, ends every move at
// once (the copies' places would be wrong).
import { S } from "./state.js";

/** How long a card takes to fly to its row, and the beat a row taken is shown for. */
const FLIGHT = 420;
const BEAT = 900;

/** Where the rows' cards were before a redraw: per card, its element's copy and box. */
/** @typedef {Map<string, {copy: HTMLElement, box: DOMRect, row: number}>} Snapshot */

/** The moves under way: their timers, so that they can all end at once. */
const timers = new Set();

/** Do `what` in `ms` milliseconds, unless every move is ended first. */
function later(/** @type {() => void} */ what, /** @type {number} */ ms) {
  const id = window.setTimeout(() => { timers.delete(id); what(); }, ms);
  timers.add(id);
}

/** End every move now: the copies go, the real cards and what the seats say show. */
export function settle() {
  for (const id of timers) window.clearTimeout(id);
  timers.clear();
  document.querySelectorAll(".ghost").forEach((g) => g.remove());
  document.querySelectorAll(".arriving").forEach((c) => c.classList.remove("arriving"));
  document.querySelectorAll(".waiting-move").forEach((c) => c.classList.remove("waiting-move"));
  document.querySelectorAll(".seat.beat").forEach((c) => c.classList.remove("beat"));
}

/** Whether the player lets the page move things. */
function moving() {
  return !window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

/** The rows' cards as they are now, before the table is drawn again (null: nothing to
 * follow, the table is not shown or motion is reduced). */
export function snapshot() {
  const rows = document.getElementById("rows");
  if (!rows || !moving() || rows.closest("[hidden]")) return null;
  /** @type {Snapshot} */
  const snap = new Map();
  rows.querySelectorAll(".card[data-card]").forEach((c) => {
    const card = /** @type {HTMLElement} */ (c);
    const li = /** @type {HTMLElement} */ (card.closest("li"));
    snap.set(card.dataset.card || "", { copy: /** @type {HTMLElement} */ (card.cloneNode(true)),
      box: card.getBoundingClientRect(), row: Number(li.dataset.row) });
  });
  return snap;
}

/** A copy of a card over the page, at `box`. */
function ghost(/** @type {HTMLElement} */ copy, /** @type {DOMRect} */ box) {
  copy.classList.add("ghost");
  copy.classList.remove("arriving");
  copy.setAttribute("aria-hidden", "true");
  copy.removeAttribute("id");
  copy.removeAttribute("role");
  Object.assign(copy.style, { left: `${box.left}px`, top: `${box.top}px`,
    width: `${box.width}px`, height: `${box.height}px` });
  document.body.append(copy);
  return copy;
}

/** The move from `a` to `b` as a transform, for an element placed at `b`. */
function moved(/** @type {DOMRect} */ a, /** @type {DOMRect} */ b) {
  return `translate(${a.left - b.left}px, ${a.top - b.top}px) scale(${a.width / b.width}, ${a.height / b.height})`;
}

/** Where a revealed card is seen before it flies: in its player's seat (a wide screen) or
 * in the list of the turn's cards (a narrow one); `home` is the seat, where the cards of
 * a row taken go. */
function sourceOf(/** @type {number} */ seat, /** @type {number} */ card) {
  const home = /** @type {HTMLElement | null} */ (document.querySelector(`#players .seat[data-seat="${seat}"]`));
  const seen = (/** @type {Element | null} */ el) => (el && el.getBoundingClientRect().width > 4
    ? /** @type {HTMLElement} */ (el) : null);
  const play = seen(home && home.querySelector(`.seat-play[data-card="${card}"]`))
    || seen(document.querySelector(`#reveal li[data-card="${card}"]`));
  const start = play && /** @type {HTMLElement | null} */ (play.querySelector(".card"));
  return home && play && start ? { home, play, start } : null;
}

/** What a seat (or the list) says of its card waits for the card to land. */
function waitFor(/** @type {HTMLElement} */ home, /** @type {number} */ card) {
  const said = [home, document.querySelector(`#reveal li[data-card="${card}"]`)];
  said.forEach((el) => el && el.classList.add("waiting-move"));
  return () => said.forEach((el) => el && el.classList.remove("waiting-move"));
}

/** Follow what changed in the rows since `snap`: new cards fly in from where they were
 * revealed in the reveal's order, and the rows taken give their cards to the taker. */
export function follow(/** @type {Snapshot | null} */ snap, /** @type {number} */ step) {
  if (!snap) return;
  const rows = /** @type {HTMLElement} */ (document.getElementById("rows"));
  const now = new Set([...rows.querySelectorAll(".card[data-card]")].map(
    (c) => /** @type {HTMLElement} */ (c).dataset.card || ""));
  // The cards that left the rows (rows taken), by row, as they were: shown until taken.
  /** @type {Map<number, HTMLElement[]>} */
  const gone = new Map();
  for (const [card, was] of snap) {
    if (now.has(card)) continue;
    gone.set(was.row, [...(gone.get(was.row) || []), ghost(was.copy, was.box)]);
  }
  const fresh = S.reveal.plays.filter(([, c]) => now.has(String(c)) && !snap.has(String(c)));
  let at = 0;
  for (const [seat, card] of fresh) {
    const el = /** @type {HTMLElement | null} */ (rows.querySelector(`.card[data-card="${card}"]`));
    const from = sourceOf(seat, card);
    if (!el || !from) continue;
    const o = S.reveal.out[card] || {};
    const row = o.took ? o.took.row : -1;
    const taken = gone.get(row) || [];
    gone.delete(row);
    el.classList.add("arriving");
    const shown = waitFor(from.home, card);
    const land = at + (taken.length ? BEAT : 0);
    if (taken.length) beat(taken, from.home, at, shown);
    later(() => { shown(); fly(el, from.start); }, land);
    at = land + step;
  }
  // Rows taken with no card of this reveal to follow (a reload): their copies just go.
  for (const copies of gone.values()) copies.forEach((c) => c.remove());
}

/** A row taken: its cards glow for a beat while the taker's seat says what they took,
 * then go to that seat. */
function beat(/** @type {HTMLElement[]} */ copies, /** @type {HTMLElement} */ home,
  /** @type {number} */ at, /** @type {() => void} */ shown) {
  later(() => {
    copies.forEach((c) => c.classList.add("taking"));
    home.classList.add("beat");
    shown();
  }, at);
  later(() => {
    const to = (/** @type {HTMLElement} */ (home.querySelector(".avatar")) || home).getBoundingClientRect();
    copies.forEach((c, k) => {
      const box = c.getBoundingClientRect();
      const move = c.animate([{ transform: "none", opacity: 1 },
        { transform: `translate(${to.left - box.left}px, ${to.top - box.top}px) scale(.4)`, opacity: 0 }],
      { duration: FLIGHT, delay: k * 40, easing: "ease-in", fill: "forwards" });
      move.onfinish = () => c.remove();
    });
    later(() => home.classList.remove("beat"), FLIGHT + 200);
  }, at + BEAT * 0.6);
}

/** One card flies from where it was revealed to its place in the row; the real card shows
 * as it lands. */
function fly(/** @type {HTMLElement} */ el, /** @type {HTMLElement} */ start) {
  if (!el.isConnected) return;
  const to = el.getBoundingClientRect();
  const copy = ghost(/** @type {HTMLElement} */ (el.cloneNode(true)), to);
  const move = copy.animate([{ transform: moved(start.getBoundingClientRect(), to) }, { transform: "none" }],
    { duration: FLIGHT, easing: "cubic-bezier(.2,.7,.3,1)" });
  move.onfinish = () => {
    el.classList.remove("arriving");
    copy.remove();
  };
}

/** A new size of the window, or another view, ends the moves. */
export function wireReveal() {
  window.addEventListener("resize", settle);
  window.addEventListener("hashchange", settle);
}

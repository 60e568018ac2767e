// @ts-check
// The seats around the rows: each player's colour and initial, name, points, this round's
// bullheads, whether they have chosen, and the card they revealed this turn with where it
// went. A screen reader hears each seat as one line (its hidden text); what the eye sees
// of it is hidden from the ear, which hears the turn's cards in "Revealed this turn".
import { t, tn, isolate } from "./i18n.js";
import { $, S } from "./state.js";
import { cardEl, head } from "./cards.js";
import { personButton } from "./social.js";

/** Where each seat sits, by its place counted from the viewer's left: up to three along
 * each side of the rows (west from the bottom up, east from the top down) and three
 * across the top; the viewer at the bottom, by their hand (table.css places them). */
export function seatPlaces(/** @type {number} */ n, /** @type {number | null} */ you) {
  const mine = you === null ? 0 : you;
  const others = [];
  for (let k = 1; k <= n; k++) others.push((mine + k) % n);
  others.pop();  // the viewer's own seat (or, for a spectator, the first seat) goes south
  /** @type {string[]} */
  const at = new Array(n);
  at[mine] = "you";
  const sides = Math.max(0, others.length - 3);
  const west = Math.ceil(sides / 2);
  const east = sides - west;
  const north = others.length - sides;
  const tops = north === 1 ? ["n2"] : north === 2 ? ["n1", "n3"] : ["n1", "n2", "n3"];
  others.forEach((seat, k) => {
    if (k < west) at[seat] = `w${west - k}`;
    else if (k < west + north) at[seat] = tops[k - west];
    else at[seat] = `e${k - west - north + 1}`;
  });
  return at;
}

/** A seat's sign: the first letter of its name, and the number a name ends with after a
 * space ("Medium Bot 2": M2), which tells bots of one strength apart. */
export function initial(/** @type {string} */ name) {
  const first = [...name.trim()][0] || "?";
  const number = (name.match(/\s(\d{1,2})\s*$/) || ["", ""])[1];
  return `${first.toUpperCase()}${number}`;
}

/** A part of a seat for the eye only. */
function part(/** @type {string} */ cls, /** @type {(string | Node)[]} */ ...kids) {
  const el = document.createElement("span");
  el.className = cls;
  el.setAttribute("aria-hidden", "true");
  el.append(...kids);
  return el;
}

/** What became of a revealed card, in a few words ("to row 2", "row 3 taken: 11
 * bullheads", "choosing a row"): its seat and the turn's list say the same. */
export function outcome(/** @type {import("./state.js").Outcome} */ o) {
  if (o.took) return t("reveal.took", { row: o.took.row, count: o.took.bullheads });
  if (o.row) return t("reveal.row", { row: o.row });
  return o.choosing ? t("reveal.choosing") : "";
}

/**
 * The seats as the view has them.
 * @param {import("./state.js").View} v
 * @param {string[]} ns the seats' names
 * @param {{over: boolean, total: (i: number) => number, penalty: (i: number) => number}} how
 */
export function renderSeats(v, ns, how) {
  const tb = /** @type {import("./state.js").TableInfo} */ (S.table);
  const pend = v.pending;
  const list = $("players");
  const places = seatPlaces(tb.seats.length, S.you);
  const played = new Map(S.reveal.plays.map(([seat, card]) => [seat, card]));
  // A player's button (mute, block, report) drawn anew keeps focus by their name.
  const had = /** @type {HTMLElement | null} */ (document.activeElement);
  const focusedPerson = had && list.contains(had) ? had.dataset.person : undefined;
  list.replaceChildren(...tb.seats.map((s, i) => {
    const li = document.createElement("li");
    li.className = "seat";
    li.dataset.seat = String(i);
    li.dataset.at = places[i];
    li.style.setProperty("--seat", `var(--seat-colour-${i})`);
    const done = v.chosen && v.chosen[i];
    const out = v.eliminated && v.eliminated[i];
    const kind = pend ? pend.kind : null;
    const asked = Boolean(pend && pend.players.includes(i));
    li.classList.toggle("done", Boolean(done) && kind === "card");
    // Ringed while the table waits for them alone: a row to choose.
    li.classList.toggle("asked", asked && !done && !how.over && kind === "row");
    li.classList.toggle("you", i === S.you);
    li.classList.toggle("out", Boolean(out));
    let mark = "";
    if (out) mark = t("player.out");
    else if (kind === "row" && asked) mark = t("player.row");
    else if (kind === "card" && v.active.includes(i)) {
      mark = done ? t("player.chosen") : t("player.choosing");
    }
    const who = i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])];
    const pen = how.penalty(i);
    const marks = [mark, v.marker === i ? t("player.marker") : "", s.auto ? t("player.auto") : "",
      s.kind === "human" && !s.connected ? t("player.away") : ""].filter(Boolean);
    const more = [pen ? t("player.round", { count: pen }) : "", ...marks].filter(Boolean);
    // For the ear: one line, as the log and the shortcuts say it.
    const said = document.createElement("span");
    said.className = "sr-only";
    said.append(...tn("player.score", { name: who, count: how.total(i) }));
    if (more.length) said.append(` — ${more.join(" — ")}`);
    const name = part("seat-name", isolate(ns[i]));
    name.title = ns[i];  // the whole name, where the seat shortens it
    if (i === S.you) name.append(" ", part("seat-you", t("you.short")));
    li.append(said,
      part("avatar", initial(ns[i])),
      name,
      part("seat-pts", String(how.total(i)), head()),
      part("seat-round", pen ? `+${pen}` : ""),
      part("seat-state", marks.join(" · ")));
    const card = played.get(i);
    if (card !== undefined) {
      const o = S.reveal.out[card] || {};
      const play = part("seat-play", cardEl(card));
      play.dataset.card = String(card);
      li.classList.toggle("took", Boolean(o.took));
      // A row being chosen is the seat's state already.
      li.append(play, part("seat-went", o.choosing ? "" : outcome(o)));
    }
    if (s.kind === "human" && s.name && i !== S.you) li.append(personButton(s.name));
    return li;
  }));
  if (focusedPerson) refocusPerson(list, focusedPerson);
}

/** Focus the button of player `name` in `list` again (the list was drawn anew). */
export function refocusPerson(/** @type {HTMLElement} */ list, /** @type {string} */ name) {
  /** @type {HTMLElement | null} */ (list.querySelector(`[data-person="${CSS.escape(name)}"]`))?.focus();
}

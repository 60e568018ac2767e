// @ts-check
// The score sheet, as the Czech rules keep it on paper: one column per player, one line
// per round with its bullheads and the running total. On the table it fills in at each
// round's end (shown as that moment until the next deal, then kept behind a toggle); on
// the results page it comes with a chart of every player's total over the rounds (an
// SVG for the eye; its figures are the sheet's, a table a screen reader reads).
import { t, isolate, language } from "./i18n.js";
import { $, S, local } from "./state.js";
import { initial } from "./seats.js";

const SVG = "http://www.w3.org/2000/svg";

/** A header cell of `scope` ("col" or "row"). */
function th(/** @type {string} */ scope, /** @type {(string | Node)[]} */ ...kids) {
  const cell = document.createElement("th");
  cell.scope = scope;
  cell.append(...kids);
  return cell;
}

/** An element with a class and children. */
function el(/** @type {string} */ tag, /** @type {string} */ cls, /** @type {(string | Node)[]} */ ...kids) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  e.append(...kids);
  return e;
}

/** The player's round sign (their colour and initial), for the eye. */
function sign(/** @type {number} */ seat, /** @type {string} */ name) {
  const s = el("span", "sheet-sign", initial(name));
  s.style.setProperty("--seat", `var(--seat-colour-${seat})`);
  s.setAttribute("aria-hidden", "true");
  return s;
}

/**
 * Fill `table` with the sheet of `rounds` (one column per seat of `names`).
 * @param {HTMLElement} table
 * @param {string[]} names
 * @param {import("./wire").RoundScored[]} rounds
 * @param {{you: number | null, winners?: number[], fresh?: number}} how `fresh`: the
 *   round just scored, marked
 */
export function fillSheet(table, names, rounds, how) {
  const head = el("tr", "");
  head.append(th("col", t("sheet.round")), ...names.map((n, i) => {
    const cell = th("col", sign(i, n), el("span", "sheet-name", isolate(n)));
    cell.style.setProperty("--seat", `var(--seat-colour-${i})`);
    if (i === how.you) cell.classList.add("you");
    if ((how.winners || []).includes(i)) cell.classList.add("won");
    return cell;
  }));
  const body = rounds.map((r) => {
    const tr = el("tr", r.round === how.fresh ? "fresh" : "");
    tr.append(th("row", String(r.round)), ...names.map((_, i) => {
      const td = el("td", "");
      const pen = r.penalties[i] || 0;
      td.append(el("span", "sr-only", t("sheet.cell", { count: pen, total: r.totals[i] })));
      const seen = el("span", "sheet-seen",
        el("span", pen ? "sheet-pen" : "sheet-pen none", pen ? `+${pen}` : "0"),
        el("span", "sheet-total", String(r.totals[i])));
      seen.setAttribute("aria-hidden", "true");
      td.append(seen);
      return td;
    }));
    return tr;
  });
  table.replaceChildren(el("thead", "", head), el("tbody", "", ...body));
  fit(table);
}

/** The players' names in the sheet's heading where they fit its box; else only their
 * signs (the names stay for the ear). */
function fit(/** @type {HTMLElement} */ table) {
  const box = table.parentElement;
  if (!box || !table.getClientRects().length) return;
  const names = table.querySelectorAll(".sheet-name");
  const signsOnly = (/** @type {boolean} */ on) => {
    table.classList.toggle("many", on);
    names.forEach((n) => n.classList.toggle("sr-only", on));
  };
  signsOnly(false);
  signsOnly(table.scrollWidth > box.clientWidth);
}

/** Whether the player keeps the sheet open on the table (`nimmt.sheet`; open unless
 * they closed it). */
function kept() {
  return local.get("sheet") !== "closed";
}

/** The sheet on the table: hidden before the first round's end; at a round's end, until
 * the next deal, shown open as that moment ("Round 2 is over"); otherwise as the
 * player keeps it. */
export function renderTableSheet(/** @type {string[]} */ names, /** @type {boolean} */ over) {
  const v = S.view;
  const rounds = S.rounds;
  const moment = Boolean(v && v.phase === "deal" && rounds.length);
  $("sheet-panel").hidden = !rounds.length;
  $("game").classList.toggle("moment", moment);
  const last = rounds.length ? rounds[rounds.length - 1].round : 0;
  const key = [language(), names.join("\u0001"), rounds.map((r) => r.totals.join(",")).join(";"),
    moment, over].join("|");
  const table = $("sheet");
  if (table.dataset.key !== key) {
    table.dataset.key = key;
    fillSheet(table, names, rounds, { you: S.you, winners: over && v ? v.winners : [],
      fresh: moment || over ? last : undefined });
  }
  const open = moment || over || kept();
  const opening = open && $("sheet-box").hidden;
  $("sheet-box").hidden = !open;
  if (opening) fit(table);
  const toggle = $("sheet-toggle");
  toggle.hidden = moment || over;
  toggle.setAttribute("aria-expanded", String(open));
  const label = t(open ? "sheet.hide" : "sheet.show");
  if (toggle.textContent !== label) toggle.textContent = label;
  $("sheet-moment").hidden = !moment;
  const said = moment ? t("sheet.moment", { round: last }) : "";
  if ($("sheet-moment").textContent !== said) $("sheet-moment").textContent = said;
}

/** The toggle keeps the sheet open or closed on the table; a new size of the window fits
 * the sheets again. */
export function wireSheet(/** @type {() => void} */ redraw) {
  $("sheet-toggle").addEventListener("click", () => {
    local.set("sheet", kept() ? "closed" : null);
    redraw();
  });
  window.addEventListener("resize", () => { fit($("sheet")); fit($("results-sheet")); });
}

// ---------------------------------------------------------------- the chart

/**
 * Every player's total over the rounds, as lines (an SVG for the eye: its figures are the
 * sheet's, which a screen reader reads as a table; the figure's caption says so).
 * @param {string[]} names
 * @param {import("./wire").RoundScored[]} rounds
 * @param {number[]} winners
 */
export function chart(names, rounds, winners) {
  const W = 480; const H = 280;
  const pad = { left: 36, right: 44, top: 12, bottom: 36 };
  const top = Math.max(10, ...rounds.flatMap((r) => r.totals));
  const step = top > 60 ? 20 : top > 25 ? 10 : 5;
  const ymax = Math.ceil(top / step) * step;
  const x = (/** @type {number} */ k) => pad.left + (k / Math.max(1, rounds.length)) * (W - pad.left - pad.right);
  const y = (/** @type {number} */ v) => H - pad.bottom - (v / ymax) * (H - pad.top - pad.bottom);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  svg.setAttribute("class", "chart-svg");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-labelledby", "results-chart-h");
  /** A shape of the chart; `seat`: drawn in that seat's colour. */
  const add = (/** @type {string} */ tag, /** @type {Record<string, string | number>} */ attrs,
    text = "", /** @type {number | null} */ seat = null) => {
    const e = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
    for (const [k, val] of Object.entries(attrs)) e.setAttribute(k, String(val));
    // Through the style object: the page's policy refuses style attributes.
    if (seat !== null) e.style.setProperty("--seat", `var(--seat-colour-${seat})`);
    if (text) e.textContent = text;
    svg.append(e);
    return e;
  };
  for (let v = 0; v <= ymax; v += step) {
    add("line", { x1: pad.left, x2: W - pad.right, y1: y(v), y2: y(v), class: "grid" });
    add("text", { x: pad.left - 8, y: y(v) + 4, class: "tick", "text-anchor": "end" }, String(v));
  }
  for (let k = 0; k <= rounds.length; k++) {
    add("text", { x: x(k), y: H - pad.bottom + 18, class: "tick", "text-anchor": "middle" }, String(k));
  }
  add("text", { x: (pad.left + W - pad.right) / 2, y: H - 4, class: "axis", "text-anchor": "middle" },
    t("sheet.round"));
  // The labels at the lines' ends, moved apart where totals are close.
  const ends = names.map((_, i) => ({ i, at: y(rounds.length ? rounds[rounds.length - 1].totals[i] : 0) }))
    .sort((a, b) => a.at - b.at);
  for (let k = 1; k < ends.length; k++) ends[k].at = Math.max(ends[k].at, ends[k - 1].at + 15);
  const over = ends.length ? ends[ends.length - 1].at - (H - pad.bottom) : 0;
  if (over > 0) ends.forEach((e) => { e.at -= over; });
  names.forEach((name, i) => {
    const points = [[x(0), y(0)], ...rounds.map((r, k) => [x(k + 1), y(r.totals[i])])];
    const won = winners.includes(i);
    add("polyline", { points: points.map((p) => p.join(",")).join(" "),
      class: won ? "line won" : "line" }, "", i);
    for (const [px, py] of points.slice(1)) {
      add("circle", { cx: px, cy: py, r: won ? 4.5 : 3.5, class: "dot" }, "", i);
    }
    const end = /** @type {{i: number, at: number}} */ (ends.find((e) => e.i === i));
    // Each line ends with its player's sign, as in the sheet's heading and the seats.
    add("text", { x: W - pad.right + 6, y: end.at + 4, class: won ? "end won" : "end" }, initial(name), i);
  });
  return svg;
}

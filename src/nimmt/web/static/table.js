// @ts-check
// The table: seats, the game area (status, rows, the hand, the turn's reveal, players),
// the table in words for a screen reader's browse mode, and the turn timer. The hand
// (hand.js), the rows and the row choice (rows.js), the seats around them (seats.js),
// the reveal's moves (reveal.js), the score sheet (sheet.js) and the keys and the touch
// layer (shortcuts.js) have modules of their own.
import { t, tn, isolate, joined, tableName } from "./i18n.js";
import { $, S, items, terse } from "./state.js";
import { cardEl } from "./cards.js";
import { heard, urgent } from "./voice.js";
import { cue } from "./sound.js";
import { renderTutor } from "./tutor.js";
import { personButton } from "./social.js";
import { focusHand, renderHand, wireHand } from "./hand.js";
import { renderRows, wireRows } from "./rows.js";
import { renderAsk, timeLeft, wireShortcuts } from "./shortcuts.js";
import { outcome, refocusPerson, renderSeats } from "./seats.js";
import { renderTableSheet, wireSheet } from "./sheet.js";
import { follow, snapshot, wireReveal } from "./reveal.js";

export function isOver() {
  return Boolean(S.table && (S.table.status === "over" || (S.view && S.view.phase === "over")));
}

/** The seats' names (an empty seat by its number). */
export function names() {
  return S.table ? S.table.seats.map((s) => s.name || t("seat.empty", { seat: s.seat + 1 })) : [];
}

export function renderTable() {
  const tb = S.table;
  if (!tb) return;
  const had = document.activeElement;
  const focusedPerson = had instanceof HTMLElement && $("seat-list").contains(had) ? had.dataset.person : undefined;
  $("table-h").replaceChildren(...tn("table.title", { name: tableName(tb), code: tb.code }));
  const rules = S.sheet.rules || t("table.rules", { rules: tb.rules_name, players: tb.seats.length });
  $("table-rules").textContent = [rules, timerRule(tb)].filter(Boolean).join(" ");
  $("seat-list").replaceChildren(...tb.seats.map((s) => {
    const li = document.createElement("li");
    const parts = s.kind === "empty" ? [t("seat.empty", { seat: s.seat + 1 })]
      : tn(s.kind === "bot" ? "seat.bot" : "seat.human", { seat: s.seat + 1, name: isolate(s.name) });
    if (s.seat === S.you) parts.push(` (${t("you")})`);
    li.replaceChildren(...parts);
    if (s.kind === "human" && s.name && s.seat !== S.you) li.append(" ", personButton(s.name));
    return li;
  }));
  if (focusedPerson) refocusPerson($("seat-list"), focusedPerson);
  const host = tb.host === S.name;
  const open = tb.status === "open";
  $("seating").hidden = !open;
  $("host-tools").hidden = !(open && host);
  $("sit-down").hidden = !(open && S.you === null && tb.seats.some((s) => s.kind === "empty"));
  const shown = !$("game").hidden;
  $("game").hidden = !S.view || open;
  // The game begins (the Start button may have been far down a long list of seats): the
  // table from its top, the status, the rows and the hand on one screen.
  if (!shown && !$("game").hidden) window.scrollTo(0, 0);
  const mine = S.you !== null ? tb.seats[S.you] : null;
  $("auto-note").hidden = !(mine && mine.auto && !isOver());
  if (S.view) renderGame();
  renderTimer();
  renderTutor();
  // This render hid the focused element (Start, with the seating): put focus back at
  // once, before a screen reader goes looking for the next thing to read.
  if (had && had !== document.body) regainFocus();
}

function renderGame() {
  const v = /** @type {import("./state.js").View} */ (S.view);
  const ns = names();
  const p = S.prompt;
  /** @type {(string | Node)[]} */
  let status;
  if (isOver()) status = [t("status.over"), " ", ...winnersLine(v, ns)];
  else if (p) status = [S.sheet.decision || ""];
  else if (v.pending) {
    const who = joined(v.pending.players.map((i) => isolate(ns[i])));
    status = tn("status.waiting", { who });
  } else status = [];
  const where = isOver() ? "" : v.phase === "deal" ? t("status.dealing", { round: v.round })
    : `${t("status.round", { round: v.round, turn: v.turn })} `;
  $("status").replaceChildren(where, ...status);
  const before = snapshot();
  renderRows(v);
  renderHand(v);
  renderReveal(ns);
  renderSeats(v, ns, { over: isOver(), total: (i) => total(v, i), penalty: (i) => roundPenalty(v, i) });
  renderStandings(v, ns);
  renderTableSheet(ns, isOver());
  follow(before, revealStep());
  renderWords();
  renderLandmarks();
  renderAsk();
}

/** "Winner: Anna." (or the winners), once the game is over. */
function winnersLine(/** @type {import("./state.js").View} */ v, /** @type {string[]} */ ns) {
  const winners = (v.winners || []).map((i) => isolate(ns[i]));
  return winners.length ? tn("results.winners", { names: joined(winners), count: winners.length }) : [];
}

/** The seats in the order of the standings: by the place the server gives each (the
 * winners first, then the fewest bullheads; docs/protocol.md), then by seat. */
export function standings(/** @type {import("./state.js").View} */ v) {
  return v.scores.map((_, i) => i).sort((a, b) => v.places[a] - v.places[b] || a - b);
}

/** A seat's total now, this round's penalties counted: the server's ``totals``. */
export function total(/** @type {import("./state.js").View} */ v, /** @type {number} */ i) {
  return v.totals[i];
}

/** What a seat has taken this round, while the round is played. */
function roundPenalty(/** @type {import("./state.js").View} */ v, /** @type {number} */ i) {
  return v.phase === "over" ? 0 : (v.penalties && v.penalties[i]) || 0;
}

/** The final standings on the table, the moment the game is over. */
function renderStandings(/** @type {import("./state.js").View} */ v, /** @type {string[]} */ ns) {
  const over = isOver();
  $("standings-panel").hidden = !over;
  if (!over) return;
  $("standings-winner").replaceChildren(...winnersLine(v, ns));
  $("standings").replaceChildren(...standings(v).map((i) => {
    const li = document.createElement("li");
    if ((v.winners || []).includes(i)) li.className = "won";
    const who = i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])];
    li.append(...tn("player.score", { name: who, count: total(v, i) }));
    return li;
  }));
}

/** Follow one game event for the reveal the table shows (its cards, where each went,
 * what it took). */
/** Whether the events noted now sound (a catch-up of many turns after a reconnection
 * is not played back). */
let sounding = true;

/** Note the events of one message: what the table shows of the reveal, and their cues. */
export function noteEvents(/** @type {import("./state.js").GameEvent[]} */ events) {
  sounding = events.filter((e) => e.type === "cards_revealed").length <= 1;
  events.forEach(noteEvent);
  sounding = true;
}

function noteEvent(/** @type {import("./state.js").GameEvent} */ e) {
  const r = S.reveal;
  switch (e.type) {
    case "round_started":
      S.reveal = { plays: [], out: {}, take: null, taken: null };
      if (e.round === 1) S.rounds = [];  // a new game: a new sheet
      break;
    case "round_scored": {
      const line = /** @type {import("./wire").RoundScored} */ (e);
      S.rounds = [...S.rounds.filter((r) => r.round !== line.round), line]
        .sort((a, b) => a.round - b.round);
      break;
    }
    case "cards_revealed":
      S.reveal = { plays: e.plays || [], out: {}, take: null, taken: null };
      if (sounding) cue("reveal");
      break;
    case "row_choice_needed":
      r.out[/** @type {number} */ (e.card)] = { choosing: true };
      break;
    case "row_taken":
      r.take = { player: /** @type {number} */ (e.player), row: /** @type {number} */ (e.row),
        bullheads: e.bullheads || 0, count: (e.cards || []).length };
      r.taken = e.row || null;
      S.shownRows[/** @type {number} */ (e.row) - 1] = [];
      break;
    case "card_placed": {
      const row = S.shownRows[/** @type {number} */ (e.row) - 1] || [];
      const card = /** @type {number} */ (e.card);
      S.shownRows[/** @type {number} */ (e.row) - 1] = e.started ? [card]
        : e.end === "left" ? [card, ...row] : [...row, card];
      const take = e.started && r.take && r.take.player === e.player ? r.take : null;
      r.out[/** @type {number} */ (e.card)] = { row: e.row, took: take };
      if (take) r.take = null;
      // Heard as the card lands on the table (one after another at the reveal's pace).
      const k = Math.max(0, r.plays.findIndex(([, c]) => c === e.card));
      const name = !take ? "place" : take.player === S.you ? "take_you" : "take_other";
      if (sounding) cue(name, k * revealStep());
      break;
    }
    default: break;
  }
}

/** The reveal as the view has it, when no event told it (a reload, a join mid-game): the
 * last revealed turn of the round, each card where it lies now. */
export function revealFromView() {
  const v = S.view;
  if (!v || S.reveal.plays.length || !v.revealed || !v.revealed.length) return;
  const plays = v.revealed[v.revealed.length - 1];
  const waiting = new Set((v.to_resolve || []).map(([, c]) => c));
  /** @type {Record<number, import("./state.js").Outcome>} */
  const out = {};
  for (const [, card] of plays) {
    const row = v.rows.findIndex((r) => r.includes(card));
    if (row >= 0 && !waiting.has(card)) out[card] = { row: row + 1 };
    else if (v.pending && v.pending.card === card) out[card] = { choosing: true };
  }
  S.reveal = { plays, out, take: null, taken: null };
}

/** Milliseconds between two cards of a reveal shown landing: all of them within about
 * 2.4 s, the server's pause after a reveal while a person is at the table. */
function revealStep() {
  return Math.min(450, Math.round(2400 / Math.max(1, S.reveal.plays.length)));
}

function renderReveal(/** @type {string[]} */ ns) {
  const r = S.reveal;
  const list = $("reveal");
  $("reveal-panel").hidden = !r.plays.length;
  $("game").style.setProperty("--step", `${revealStep()}ms`);
  const key = r.plays.map(([p, c]) => `${p}:${c}`).join(",");
  if (list.dataset.key !== key) {
    // A new reveal: its cards, each with its player (drawn once, so each lands once).
    list.dataset.key = key;
    list.replaceChildren(...r.plays.map(([seat, card], k) => {
      const li = document.createElement("li");
      li.style.setProperty("--i", String(k));
      li.dataset.card = String(card);
      const who = document.createElement("span");
      who.className = "who";
      who.append(seat === S.you ? t("you.short") : isolate(ns[seat]));
      const what = document.createElement("span");
      what.className = "what";
      const about = document.createElement("span");
      about.className = "about";
      about.append(who, " ", what);
      li.append(cardEl(card), " ", about);
      return li;
    }));
  }
  for (const li of items(list)) {
    const o = r.out[Number(li.dataset.card)] || {};
    const what = /** @type {HTMLElement} */ (li.querySelector(".what"));
    const text = outcome(o);
    if (what.textContent !== text) what.textContent = text;
    li.classList.toggle("took", Boolean(o.took));
  }
}

// ---------------------------------------------------------------- turn timer

export function renderTimer() {
  const p = S.prompt;
  window.clearInterval(S.timerId);
  // A prompt sent before the server started its clock has no seconds: count the whole turn.
  const seconds = p && (p.seconds ?? (S.table && S.table.turn_timer));
  if (!p || seconds === null || seconds === undefined) {
    $("timer").hidden = true;
    S.deadline = null;
    $("words-time").textContent = timeLeft();
    return;
  }
  // The time left counts from when the prompt came (drawing the table again, or another
  // frame without a new prompt, does not start it again).
  if (S.timerFor !== p && ((p.seconds !== null && p.seconds !== undefined) || S.timerKey !== p.key)) {
    S.deadline = Date.now() + seconds * 1000;
  }
  S.timerFor = p;
  S.timerKey = p.key;
  $("timer").hidden = false;
  const tick = () => {
    const left = Math.max(0, Math.ceil(((S.deadline || 0) - Date.now()) / 1000));
    // The table's own seconds, which run once the listening time is over (the server's
    // deadline is the end of that time plus the table's timer: docs/web.md).
    const { own, listen } = splitTime(left);
    const shown = $("timer-listen");
    if ($("timer-s").textContent !== String(own) || shown.dataset.n !== String(listen)) {
      $("timer-s").textContent = String(own);
      shown.dataset.n = String(listen);
      shown.hidden = listen <= 0;
      shown.textContent = listen > 0 ? t("timer.listen", { n: listen }) : "";
      $("words-time").textContent = timeLeft();
    }
    if (left <= 10 && S.warnedKey !== p.key && left > 0) {
      S.warnedKey = p.key;
      urgent((S.sheet.timer || [])[left - 1] || "");
    }
    // The last five seconds tick, once a second.
    if (left > 0 && left <= 5 && S.tickedAt !== `${p.key}.${left}`) {
      S.tickedAt = `${p.key}.${left}`;
      cue("tick");
    }
  };
  tick();
  S.timerId = window.setInterval(tick, 500);
}

/** Seconds `left` until the decision's deadline, as the player has them: the table's own
 * seconds (at most its turn timer) and, before they run, the seconds given to hear what
 * led to the decision. */
export function splitTime(/** @type {number} */ left) {
  const own = S.table && S.table.turn_timer !== null ? Math.min(left, Math.ceil(S.table.turn_timer)) : left;
  return { own, listen: left - own };
}

/** The turn timer in the table's rules line, with the listening time where it applies. */
function timerRule(/** @type {import("./state.js").TableInfo} */ tb) {
  if (tb.turn_timer === null) return "";
  return tb.listen_max ? t("table.timer.listen", { n: tb.turn_timer, max: tb.listen_max })
    : t("table.timer", { n: tb.turn_timer });
}

/** Put focus back where the player is when the element that had it went away (Start
 * hides with the seating as the game begins): in the hand when there is one, else on
 * the table's heading. Lost focus makes a screen reader read from the page's top, which
 * cuts or drops the message after it. True when focus moved. */
export function regainFocus() {
  const el = /** @type {HTMLElement | null} */ (document.activeElement);
  const lost = !el || el === document.body || !el.isConnected || el.closest("[hidden]") !== null;
  if (!lost || !S.table) return false;
  if (focusHand()) return true;
  keysTarget().focus();
  return true;
}

/** Where focus rests in the game when there is no hand (a spectator, a round's end): the
 * game's keys, an `application` so that a screen reader in browse mode passes the keys
 * on (NVDA and JAWS switch to focus mode on it), with a name that never changes (a
 * screen reader says a change of the focused element's name); the table's heading
 * before the game. */
export function keysTarget() {
  return $("game").hidden ? $("table-h") : $("table-keys");
}

// ---------------------------------------------------------------- the table in words

/** The table as plain text for a screen reader's browse mode, outside any application
 * and list box (NVDA renders neither an application's children nor more than the
 * selected option of a list box): the rows, your hand, the scores and the time left,
 * in the server's sentences, in reading order after the players. */
function renderWords() {
  const sh = S.sheet;
  const rows = $("words-rows");
  const want = sh.row || [];
  while (rows.childElementCount > want.length) rows.lastElementChild?.remove();
  want.forEach((text, i) => {
    let li = /** @type {HTMLElement | undefined} */ (rows.children[i]);
    if (!li) { li = document.createElement("li"); rows.append(li); }
    if (li.textContent !== text) li.textContent = text;
  });
  const put = (/** @type {string} */ id, /** @type {string} */ text) => {
    if ($(id).textContent !== text) $(id).textContent = text;
  };
  put("words-hand", sh.hand || "");
  put("words-scores", sh.scores || "");
  put("words-time", timeLeft());
}

/** Terse speech names no landmark in the game area (a screen reader says a region's name
 * each time focus enters it); the names come back when it is off. */
function renderLandmarks() {
  for (const el of $("game").querySelectorAll("section[data-i18n-aria]")) {
    const name = terse() ? null : t(/** @type {HTMLElement} */ (el).dataset.i18nAria || "");
    if (name === null) el.removeAttribute("aria-label");
    else if (el.getAttribute("aria-label") !== name) el.setAttribute("aria-label", name);
  }
}

export function wireTable() {
  // Any key the player presses means they are listening again (see voice.js).
  document.addEventListener("keydown", heard, true);
  wireHand();
  wireRows();
  wireShortcuts();
  wireSheet(renderTable);
  wireReveal();
}

// @ts-check
// The table: seats, the game area (status, rows, the hand, players), the turn timer, the
// row-choice dialog and the game area's keys. The hand is updated in place: a card
// keeps its element while it stays in the hand, so focus never jumps on a redraw.
import { t, tn, isolate, joined } from "./i18n.js";
import { $, S, button, cardSentence, dialog, items } from "./state.js";
import { bullheadsOf, cardEl, cardLabel, cardName } from "./cards.js";
import { actionFor, digitOf, isTyping, keysSummary } from "./keys.js";
import {
  answer, atOldest, chatMuted, clearLive, heard, historyStep, latest, nextChannel,
  olderLines, setChatMuted, urgent,
} from "./voice.js";
import { cue, setSound, setVolume, soundOn, volume } from "./sound.js";
import { send } from "./net.js";
import { askHint, renderTutor } from "./tutor.js";
import { personButton } from "./social.js";

export function isOver() {
  return Boolean(S.table && (S.table.status === "over" || (S.view && S.view.phase === "over")));
}

/** The seats' names (an empty seat by its number). */
export function names() {
  return S.table ? S.table.seats.map((s) => s.name || t("seat.empty", { seat: s.seat + 1 })) : [];
}

/** Set an attribute only when it changes: a screen reader may speak a focused element's
 * changed name. */
function attr(/** @type {Element} */ el, /** @type {string} */ name, /** @type {string | null} */ value) {
  if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); }
  else if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

export function renderTable() {
  const tb = S.table;
  if (!tb) return;
  const had = document.activeElement;
  const focusedPerson = had instanceof HTMLElement && $("seat-list").contains(had) ? had.dataset.person : undefined;
  $("table-h").replaceChildren(...tn("table.title", { name: isolate(tb.name), code: tb.code }));
  $("table-rules").textContent = S.sheet.rules
    || t("table.rules", { rules: tb.rules_name, players: tb.seats.length });
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

/** The cards a click or Enter may choose now: the decision's options, or, once a card is
 * chosen, any card of the hand until the reveal (the choice may be changed). */
function playable() {
  const p = S.prompt;
  const v = S.view;
  if (p && (p.kind === "card" || p.kind === "draft")) return new Set(p.options);
  if (v && v.my_choice !== null && v.phase === "choose" && v.pending && v.pending.kind === "card") {
    return new Set(v.hand);
  }
  return new Set();
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
  const where = isOver() ? "" : `${t("status.round", { round: v.round, turn: v.turn })} `;
  $("status").replaceChildren(where, ...status);
  renderRows(v);
  renderHand(v);
  renderReveal(ns);
  renderPlayers(v, ns);
  renderStandings(v, ns);
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

// ---------------------------------------------------------------- the turn's reveal

/** Whether the player is asked to take a row now. */
export function choosingRow() {
  return Boolean(S.prompt && S.prompt.kind === "row" && S.prompt.key !== tookKey);
}

/** The row decision answered already (a second click waits for the server's word). */
let tookKey = "";

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
      break;
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
      break;
    case "card_placed": {
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
    const text = o.took ? t("reveal.took", { row: o.took.row, count: o.took.bullheads })
      : o.row ? t("reveal.row", { row: o.row })
        : o.choosing ? t("reveal.choosing") : "";
    if (what.textContent !== text) what.textContent = text;
    li.classList.toggle("took", Boolean(o.took));
  }
}

function renderRows(/** @type {import("./state.js").View} */ v) {
  const rows = $("rows");
  const limit = 6;
  const choosing = choosingRow();
  const options = new Set(choosing && S.prompt ? S.prompt.options : []);
  rows.classList.toggle("choosing", choosing);
  $("rows-help").hidden = !choosing;
  $("rows-help").textContent = choosing ? t("rows.choose") : "";
  v.rows.forEach((row, i) => {
    let li = items(rows)[i];
    if (!li) {
      li = document.createElement("li");
      li.setAttribute("role", "option");
      li.dataset.row = String(i + 1);
      const label = document.createElement("span");
      label.className = "row-no";
      label.setAttribute("aria-hidden", "true");
      label.textContent = `${i + 1}`;
      const cards = document.createElement("span");
      cards.className = "row-cards";
      cards.setAttribute("aria-hidden", "true");
      li.append(label, cards);
      rows.append(li);
    }
    li.tabIndex = i === S.rowCursor ? 0 : -1;
    attr(li, "aria-selected", i === S.rowCursor ? "true" : "false");
    li.classList.toggle("choosable", options.has(i + 1));
    li.classList.toggle("taken", S.reveal.taken === i + 1);
    attr(li, "aria-label", (S.sheet.row && S.sheet.row[i]) || t("row.label", { row: i + 1 }));
    const cards = /** @type {HTMLElement} */ (li.querySelector(".row-cards"));
    /** @type {Map<string, HTMLElement>} */
    const had = new Map([...cards.querySelectorAll(".card")].map(
      (c) => [/** @type {HTMLElement} */ (c).dataset.card || "", /** @type {HTMLElement} */ (c)]));
    if ([...had.keys()].join(",") !== row.join(",")) {
      // A card already in the row keeps its element; a new one is drawn landing (CSS,
      // unless reduced motion is asked). The sixth place is marked: a card that lands
      // there takes the row.
      const slots = row.map((c) => had.get(String(c)) || landing(c));
      for (let k = row.length; k < limit; k++) {
        const slot = document.createElement("span");
        slot.className = k === limit - 1 ? "slot sixth" : "slot";
        slots.push(slot);
      }
      cards.replaceChildren(...slots);
    }
  });
  while (rows.children.length > v.rows.length) rows.lastElementChild?.remove();
}

function landing(/** @type {number} */ card) {
  const el = cardEl(card);
  el.classList.add("landing");
  // In the order of the reveal: the cards of a turn land one after another.
  const k = S.reveal.plays.findIndex(([, c]) => c === card);
  el.style.setProperty("--i", String(Math.max(0, k)));
  return el;
}

function renderHand(/** @type {import("./state.js").View} */ v) {
  const p = S.prompt;
  const drafting = p && p.kind === "draft";
  const cards = drafting ? v.draft_pool : v.hand;
  const hand = $("hand");
  const focusedLi = hand.contains(document.activeElement) ? document.activeElement : null;
  /** @type {Map<string, HTMLElement>} */
  const have = new Map(items(hand).map((li) => [li.dataset.card || "", li]));
  const want = new Set(cards.map(String));
  const stays = (/** @type {HTMLElement} */ li) => want.has(li.dataset.card || "");
  if (focusedLi instanceof HTMLElement && !stays(focusedLi)) {
    // The focused card leaves the hand (it was played): its neighbour takes focus before
    // it goes, so focus never falls to the page (a screen reader would say it left the
    // list and came back).
    const list = items(hand);
    const at = list.indexOf(focusedLi);
    const next = list.slice(at + 1).find(stays) || list.slice(0, at).reverse().find(stays);
    if (next) { next.tabIndex = 0; next.focus(); }
  }
  let lostAt = -1;
  items(hand).forEach((li, i) => {
    if (stays(li)) return;
    if (li !== focusedLi) { li.remove(); return; }
    lostAt = i;
    // The card that had focus goes a moment later, unseen, in a later update of the
    // page's accessibility tree: removed in the same update as the focus move, a screen
    // reader may handle the removal first and say that focus left the list and came back.
    li.classList.add("leaving");
    li.removeAttribute("id");
    li.tabIndex = -1;
    attr(li, "aria-selected", "false");
    window.setTimeout(() => li.remove(), 250);
  });
  const ok = playable();
  cards.forEach((c, i) => {
    let li = have.get(String(c));
    if (!li) {
      li = cardEl(c, "li");
      li.setAttribute("role", "option");
      li.id = `card-${c}`;
      li.tabIndex = -1;
    }
    const kids = items(hand);
    if (kids[i] !== li) hand.insertBefore(li, kids[i] || null);
    const chosen = v.my_choice === c;
    li.classList.toggle("chosen", chosen);
    attr(li, "aria-disabled", ok.has(c) ? null : "true");
    attr(li, "aria-label", chosen ? t("card.chosen", { name: cardName(c) }) : cardName(c));
  });
  const now = document.activeElement;
  if (now instanceof HTMLElement && hand.contains(now)) S.cursor = items(hand).indexOf(now);
  else if (lostAt >= 0) S.cursor = lostAt;
  S.cursor = Math.max(0, Math.min(S.cursor, cards.length - 1));
  items(hand).forEach((li, k) => {
    li.tabIndex = k === S.cursor ? 0 : -1;
    attr(li, "aria-selected", k === S.cursor ? "true" : "false");
  });
  // The title names the section, the application and the list box as aria-label, not
  // through aria-labelledby: a screen reader may keep a label it read through that relation
  // after the heading changed (the language, the draft's pool), a name it is told of anew.
  const title = drafting ? t("hand.pool") : t("hand.title");
  $("hand-h").textContent = title;
  for (const id of ["hand-panel", "hand-app", "hand"]) attr($(id), "aria-label", title);
  /** @type {HTMLElement} */ (hand.closest("section")).hidden = cards.length === 0;
  renderPlayButton();
}

function renderPlayButton() {
  const li = items($("hand"))[S.cursor];
  const btn = button("play-card");
  const card = li ? Number(li.dataset.card) : null;
  btn.hidden = card === null || !playable().has(card);
  if (card !== null) btn.textContent = t("hand.play", { card: cardLabel(card) });
}

function renderPlayers(/** @type {import("./state.js").View} */ v, /** @type {string[]} */ ns) {
  const tb = /** @type {import("./state.js").TableInfo} */ (S.table);
  const pend = v.pending;
  // A player's button (mute, block, report) drawn anew keeps focus by their name.
  const had = /** @type {HTMLElement | null} */ (document.activeElement);
  const focusedPerson = had && $("players").contains(had) ? had.dataset.person : undefined;
  $("players").replaceChildren(...tb.seats.map((s, i) => {
    const li = document.createElement("li");
    const done = v.chosen && v.chosen[i];
    const out = v.eliminated && v.eliminated[i];
    const asked = Boolean(pend && pend.players.includes(i));
    li.classList.toggle("done", Boolean(done) && Boolean(pend) && pend?.kind === "card");
    li.classList.toggle("asked", asked && !done && !isOver());
    li.classList.toggle("you", i === S.you);
    let mark = "";
    if (out) mark = t("player.out");
    else if (pend && pend.kind === "row" && asked) mark = t("player.row");
    else if (pend && pend.kind === "card" && v.active.includes(i)) {
      mark = done ? t("player.chosen") : t("player.choosing");
    }
    const who = i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])];
    const pen = roundPenalty(v, i);
    const more = [pen ? t("player.round", { count: pen }) : "", mark,
      v.marker === i ? t("player.marker") : "", s.auto ? t("player.auto") : "",
      s.kind === "human" && !s.connected ? t("player.away") : ""].filter(Boolean);
    const score = document.createElement("span");
    score.append(...tn("player.score", { name: who, count: total(v, i) }));
    li.append(score);
    if (more.length) {
      const state = document.createElement("span");
      state.className = "state";
      // A line of its own on the screen; the dash is for the voice, which reads one line.
      const dash = document.createElement("span");
      dash.className = "sr-only";
      dash.textContent = " — ";
      state.append(dash, more.join(" — "));
      li.append(state);
    }
    if (s.kind === "human" && s.name && i !== S.you) li.append(" ", personButton(s.name));
    return li;
  }));
  if (focusedPerson) refocusPerson($("players"), focusedPerson);
}

/** Focus the button of player `name` in `list` again (the list was drawn anew). */
function refocusPerson(/** @type {HTMLElement} */ list, /** @type {string} */ name) {
  /** @type {HTMLElement | null} */ (list.querySelector(`[data-person="${CSS.escape(name)}"]`))?.focus();
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
    $("timer-s").textContent = String(left);
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

// ---------------------------------------------------------------- the hand (listbox)

/** Move focus to the hand, unless the player is typing in chat. Returns true if it moved. */
export function focusHand() {
  const active = document.activeElement;
  if (isTyping(active) && active?.closest("#chat-form")) return false;
  const hand = $("hand");
  if (hand.contains(active)) return false;
  const opt = items(hand)[S.cursor] || items(hand)[0];
  if (!opt) return false;
  opt.focus();
  return true;
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
 * status line, an `application` so that a screen reader in browse mode passes the game's
 * keys on (NVDA and JAWS switch to focus mode on it); the table's heading before the game. */
export function keysTarget() {
  return $("game").hidden ? $("table-h") : $("table-keys");
}

/** Move a listbox's current option (the hand's or the rows'): the one in the tab order,
 * selected, focused. */
function rove(/** @type {HTMLElement} */ list, /** @type {number} */ i) {
  items(list).forEach((li, k) => {
    li.tabIndex = k === i ? 0 : -1;
    attr(li, "aria-selected", k === i ? "true" : "false");
  });
  items(list)[i].focus();
}

function moveCursor(/** @type {number} */ i) {
  const hand = $("hand");
  const n = items(hand).length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(n - 1, i));
  rove(hand, S.cursor);
  renderPlayButton();
}

function chooseCurrent() {
  const li = items($("hand"))[S.cursor];
  if (!li) return;
  const card = Number(li.dataset.card);
  if (!playable().has(card)) {
    urgent(S.sheet.idle || "");  // nothing is asked of you: the server's sentence says so
    return;
  }
  const p = S.prompt;
  // The server's narration of the choice ("You choose 40.") confirms it.
  send(p && p.kind === "draft" ? { type: "draft_card", card } : { type: "play_card", card });
}

// Shift and a card's digits jump to it (digits alone speak the rows, keys 1–4, unless
// the shortcuts are off or a digit is not one of them).
function onHandKey(/** @type {KeyboardEvent} */ e) {
  const n = items($("hand")).length;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  switch (e.key) {
    case "ArrowDown": case "ArrowRight": moveCursor(S.cursor + 1); break;
    case "ArrowUp": case "ArrowLeft": moveCursor(S.cursor - 1); break;
    case "Home": moveCursor(0); break;
    case "End": moveCursor(n - 1); break;
    case "Enter": case " ": chooseCurrent(); break;
    default: {
      const digit = digitOf(e);
      if (digit === null || actionFor(e)) return;
      const now = Date.now();
      S.typed = now - S.typedAt > 1000 ? digit : S.typed + digit;
      S.typedAt = now;
      const opts = items($("hand"));
      const num = (/** @type {HTMLElement} */ li) => {
        const c = Number(li.dataset.card);
        return c < 0 ? `0${c + 10}` : String(c);
      };
      const k = opts.findIndex((li) => num(li) === S.typed);
      const j = k >= 0 ? k : opts.findIndex((li) => num(li).startsWith(S.typed));
      if (j >= 0) moveCursor(j);
      break;
    }
  }
  e.preventDefault();
  e.stopPropagation();
}

// A tap selects a card; a second tap on it (or the Play button) plays it.
function onHandClick(/** @type {MouseEvent} */ e) {
  const li = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("[role=option]"));
  if (!li) return;
  const i = items($("hand")).indexOf(li);
  // A click from no pointer (detail 0: a screen reader's Enter in browse mode, which
  // clicks, or TalkBack's double-tap) plays the card at once, as Enter does; a tap or a
  // mouse click selects it first, and a second one plays it.
  if (e.detail === 0 && !li.classList.contains("leaving")) {
    for (const other of items($("hand"))) delete other.dataset.tapped;
    moveCursor(i);
    chooseCurrent();
    return;
  }
  if (i === S.cursor && li.dataset.tapped === "1") chooseCurrent();
  for (const other of items($("hand"))) delete other.dataset.tapped;
  li.dataset.tapped = "1";
  moveCursor(i);
}

// ---------------------------------------------------------------- the rows (V, a listbox)

function focusRows() {
  const rows = $("rows");
  const item = items(rows)[S.rowCursor] || items(rows)[0];
  if (item) item.focus();
}

function onRowsKey(/** @type {KeyboardEvent} */ e) {
  const rows = $("rows");
  const n = rows.children.length;
  let i = S.rowCursor;
  if (e.key === "ArrowDown" || e.key === "ArrowRight") i = (i + 1) % n;
  else if (e.key === "ArrowUp" || e.key === "ArrowLeft") i = (i - 1 + n) % n;
  else if (e.key === "Home") i = 0;
  else if (e.key === "End") i = n - 1;
  else if (e.key === "Escape" || actionFor(e) === "rows") {
    // Back to the hand: Escape, or V again (a screen reader may keep Escape for itself).
    e.preventDefault();
    e.stopPropagation();
    items($("hand"))[S.cursor]?.focus();
    return;
  } else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    // While a row is asked of the player, Enter takes the row; otherwise it says it.
    if (choosingRow()) takeRow(i + 1);
    else answer((S.sheet.row || [])[i]);
    return;
  } else return;
  e.preventDefault();
  e.stopPropagation();
  S.rowCursor = i;
  rove(rows, i);
}

// ---------------------------------------------------------------- shortcuts

function onGameKey(/** @type {KeyboardEvent} */ e) {
  if (isTyping(/** @type {Element} */ (e.target))) return;
  const action = actionFor(e);
  if (!action) return;
  e.preventDefault();
  const sh = S.sheet;
  switch (action) {
    case "rows": focusRows(); answer(sh.rows); break;
    case "row1": case "row2": case "row3": case "row4": {
      const n = Number(action.slice(3));
      answer((sh.row || [])[n - 1]);
      break;
    }
    case "bullheads": {
      const el = /** @type {HTMLElement | null} */ (document.activeElement);
      // A row of the rows' list, or a row's radio button in the row dialog.
      const row = el && (el.dataset.row
        || (el.closest("#row-choices") ? /** @type {HTMLInputElement} */ (el).value : null));
      if (el && row) answer((sh.row_bullheads || [])[Number(row) - 1]);
      else {
        const li = el && el.dataset.card ? el : items($("hand"))[S.cursor];
        if (li) answer(cardSentence(Number(li.dataset.card)) || cardName(Number(li.dataset.card)));
      }
      break;
    }
    case "chosen": answer(sh.chosen); break;
    case "scores": answer(sh.scores); break;
    case "hand": answer(sh.hand || sh.idle || ""); break;
    case "time": answer($("timer").hidden ? t("time.none") : $("timer").textContent); break;
    case "who": answer(sh.who); break;
    case "channel": answer(t(`channel.${nextChannel()}`)); break;
    case "chatlast": answer(latest("chat", 3).join(" ") || t("chat.none")); break;
    case "chat":
      S.chatFrom = /** @type {HTMLElement} */ (document.activeElement);
      $("chat-text").focus();
      break;
    case "chatmute": setChatMuted(!chatMuted); answer(t(chatMuted ? "chat.muted" : "chat.unmuted")); break;
    case "quieter": case "louder":
      setVolume(volume + (action === "louder" ? 10 : -10));
      cue("chosen");
      answer(t("sound.volume", { n: volume }));
      break;
    case "reveal": answer(S.lastReveal || t("reveal.none")); break;
    case "older":
      if (atOldest() && S.older) olderPage();
      else answer(historyStep(-1) || t("history.empty"));
      break;
    case "newer": answer(historyStep(1) || t("history.empty")); break;
    case "hint": askHint(); break;
    case "sound": setSound(!soundOn); answer(t(soundOn ? "sound.on" : "sound.off")); break;
    case "keys": answer(keysSummary()); break;
    default: break;
  }
}

/** The history key ran off the oldest line while the server has older ones (a catch-up
 * left them out): ask for the next page, and go on into it. A page this seat hears
 * nothing of (another's hand) is passed over, a few at most per key press. */
async function olderPage() {
  if (S.paging) return;
  S.paging = true;
  answer(t("history.asking"));
  /** @type {{seq: number, kind: string, text: string}[]} */
  let lines = [];
  try {
    for (let i = 0; i < 5 && S.older && !lines.length; i++) {
      const msg = await send({ type: "history", before_seq: S.older.before, after_seq: S.older.after });
      if (msg.type !== "history") { urgent(msg.text || msg.message); return; }
      S.older = msg.older;
      lines = msg.lines || [];
    }
  } finally {
    S.paging = false;
  }
  olderLines(lines.map((l) => ({ text: l.text, channel: l.kind === "chat" ? "chat" : "game" })));
  answer(historyStep(-1) || t("history.empty"));
}

// ---------------------------------------------------------------- row-choice dialog

/** Open the row choice (moves focus into it). */
export function openRowDialog(/** @type {import("./state.js").Prompt} */ p) {
  // The row may have been taken on the table meanwhile (a click does not wait for the voice).
  if (!choosingRow() || !S.prompt || S.prompt.key !== p.key) return false;
  const dlg = dialog("row-dialog");
  const v = /** @type {import("./state.js").View} */ (S.view);
  // Why a row is asked (a card too low, one that fits at neither end, a joker) is the
  // server's decision sentence, said as the dialog opens; the heading only names the card.
  $("row-dialog-h").textContent = t("rowdlg.choose", { card: cardLabel(/** @type {number} */ (p.card)) });
  const box = $("row-choices");
  const best = defaultRow(v.rows, p.options);
  box.replaceChildren(...p.options.map((r) => {
    const label = document.createElement("label");
    label.className = "choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "row";
    input.value = String(r);
    input.checked = r === best;
    const text = document.createElement("span");
    text.textContent = (S.sheet.row && S.sheet.row[r - 1]) || t("row.label", { row: r });
    // The row itself, as on the table: the choice never hides the rows it is about.
    const cards = document.createElement("span");
    cards.className = "row-cards";
    cards.setAttribute("aria-hidden", "true");
    cards.append(...v.rows[r - 1].map((c) => cardEl(c)));
    label.append(input, text, cards);
    return label;
  }));
  if (!dlg.open) {
    S.returnFocus = /** @type {HTMLElement | null} */ (document.activeElement);
    clearLive();
    dlg.showModal();
  }
  /** @type {HTMLInputElement} */ (box.querySelector("input:checked")).focus();
  return true;
}

// The default suggestion: fewest bullheads, then fewest cards, then the lowest number.
function defaultRow(/** @type {number[][]} */ rows, /** @type {number[]} */ options) {
  const cost = (/** @type {number} */ r) => [
    rows[r - 1].reduce((a, c) => a + bullheadsOf(c), 0), rows[r - 1].length, r];
  return [...options].sort((a, b) => {
    const x = cost(a); const y = cost(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[0];
}

export function closeRowDialog() {
  const dlg = dialog("row-dialog");
  if (!dlg.open) return;
  dlg.close();
  clearLive();
  const back = S.returnFocus;
  S.returnFocus = null;
  // Back to the hand's current card: the element focused before may have left the hand.
  const hand = $("hand");
  if (back && back.isConnected && !back.closest("dialog") && !hand.contains(back)) back.focus();
  else items(hand)[S.cursor]?.focus();
}

function submitRow() {
  const input = /** @type {HTMLInputElement | null} */ ($("row-choices").querySelector("input:checked"));
  if (input) takeRow(Number(input.value));
}

/** Take row `row` for the card asked about (from the table or the dialog). */
function takeRow(/** @type {number} */ row) {
  if (!choosingRow() || !S.prompt) return;
  tookKey = S.prompt.key;
  send({ type: "take_row", row });
  closeRowDialog();
  if (S.view) renderRows(S.view);
}

/** An arrow key is being handled in the row dialog (see wireTable). */
let arrowing = false;

export function wireTable() {
  // Any key the player presses means they are listening again (see voice.js).
  document.addEventListener("keydown", heard, true);
  $("hand").addEventListener("keydown", onHandKey);
  $("hand").addEventListener("click", onHandClick);
  $("play-card").addEventListener("click", () => chooseCurrent());
  $("rows").addEventListener("keydown", onRowsKey);
  $("rows").addEventListener("click", (/** @type {MouseEvent} */ e) => {
    const li = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("[role=option]"));
    if (!li) return;
    S.rowCursor = Number(li.dataset.row) - 1;
    // A click or tap on a row takes it the moment it is asked (the dialog may still be
    // waiting for the voice).
    if (choosingRow()) takeRow(Number(li.dataset.row));
    else li.focus();
  });
  $("game").addEventListener("keydown", onGameKey);
  // Before the game, W in the seating says the seats, as the sheet has them.
  $("seating").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (isTyping(/** @type {Element} */ (e.target)) || actionFor(e) !== "who") return;
    e.preventDefault();
    answer(S.sheet.who);
  });
  // The row dialog is part of the game area: 1–4, C, T, S, R and the history keys work there.
  $("row-dialog").addEventListener("keydown", onGameKey);
  $("row-form").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); submitRow(); });
  $("row-choices").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter") { e.preventDefault(); submitRow(); }
    // An arrow checks the next radio button with a click of its own (detail 0): that one
    // only moves, until the task ends.
    else if (e.key.startsWith("Arrow") || e.key === "Home" || e.key === "End") {
      arrowing = true;
      window.setTimeout(() => { arrowing = false; }, 0);
    }
  });
  // A screen reader in browse mode clicks the radio button for Enter (detail 0): that
  // takes the row, as Enter does in focus mode. A mouse click or a tap only selects it.
  $("row-choices").addEventListener("click", (/** @type {MouseEvent} */ e) => {
    if (e.detail === 0 && !arrowing && /** @type {Element} */ (e.target).matches("input[type=radio]")) {
      submitRow();
    }
  });
  $("row-dialog").addEventListener("cancel", (/** @type {Event} */ e) => e.preventDefault());
}

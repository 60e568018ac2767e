// @ts-check
// What the page says: one message per step of the game, in order, never two at once.
//
// A screen reader may cut a live message short when the next one comes, or when focus
// moves. So game messages go through a queue: what happens together is said together
// (one message), and the next message (or a focus move that comes with it) waits until
// the last one has had time to be spoken, estimated from its length at `pace`
// milliseconds a character. A key the player presses means they are listening again,
// so it ends the wait. Answers to the player's own keys are said at once.
//
// The game log keeps every message for review; it is not a live region. Everything said
// is shown too: a message nothing else on the screen shows goes to the notice area
// (notices.js).
import { notice, onScreen } from "./notices.js";

/** Paragraphs a live region keeps: only the newest, so nothing old is there to be read
 * again when focus comes back from a dialog. The older ones go in a later task, after
 * the browser has told the screen reader of the newest (removed in the task that added
 * another, a paragraph may never reach the accessibility tree, and is never said). */
const KEEP = 1;
/** Milliseconds a paragraph stays in its live region at least. */
const PRUNE_AFTER = 1500;
const HISTORY = 200;
/** The longest wait for one message, however long it is (a key press ends it sooner). */
const MAX_WAIT = 30000;
/** A pause between a focus move and the message after it, so the message is not cut. */
const AFTER_FOCUS = 250;
/** What a screen reader takes to start speaking a message once it is posted: the wait
 * for a message is its speaking time and this. */
const START = 250;

/** @typedef {{text: string, level: string, channel: string,
 *   before: (() => boolean | void) | null, shownIn: string | null}} Message */

/** @type {Message[]} */
const pending = [];
/** What was said, newest last, each with its channel: "game" (the game's messages,
 * errors, warnings), "chat" (the table's), "lobby" (the lobby chat, friends coming) or
 * "private" (private messages). */
/** @type {{text: string, channel: string}[]} */
const history = [];
/** The history keys' channel (key \ steps through them). */
export const CHANNELS = ["game", "chat", "lobby", "private", "all"];
let channel = "game";
/** How far back the history keys are: -1 before the first press, 0 the newest message. */
let back = -1;
let busyUntil = 0;
/** @type {number | undefined} */
let pumpId;

/** Milliseconds a character takes to be spoken by default: a screen reader's default
 * voice says about 14 characters a second (Orca's, NVDA's eSpeak at rate 50), and a
 * message posted before the last one ends cuts it under Orca, whatever its politeness. */
export const DEFAULT_PACE = 75;

/** Milliseconds a character takes to be spoken (localStorage `nimmt.pace`, default
 * DEFAULT_PACE; Settings offer 90, 75, 35 and 0). */
export function pace() {
  const saved = localStorage.getItem("nimmt.pace");
  const v = Number(saved);
  return saved !== null && Number.isFinite(v) && v >= 0 ? v : DEFAULT_PACE;
}

export function setPace(/** @type {number} */ ms) {
  localStorage.setItem("nimmt.pace", String(ms));
}

function region(/** @type {string} */ level) {
  // An open modal dialog makes everything outside it inert: say it inside the dialog.
  const inside = document.querySelector("dialog[open]") ? "dlg-" : "";
  return /** @type {HTMLElement} */ (document.getElementById(`${inside}live-${level}`));
}

const REGIONS = ["live-polite", "live-assertive", "dlg-live-polite", "dlg-live-assertive"];

/** Whether paragraph `p` has been in its region long enough to have been told. */
function told(/** @type {Element} */ p) {
  return performance.now() - Number(/** @type {HTMLElement} */ (p).dataset.at || 0) >= PRUNE_AFTER;
}

/** Empty every live region of what it has told. A modal dialog makes the page's regions
 * inert, and when it closes a screen reader may read what they still hold as if it were
 * new: so they are emptied as a dialog opens and as it closes (the log keeps every
 * message). A paragraph not yet told stays: it is still news. */
export function clearLive() {
  for (const id of REGIONS) {
    const r = document.getElementById(id);
    if (r) [...r.children].filter(told).forEach((p) => p.remove());
  }
}

/** Remove the paragraphs a region keeps no more (see KEEP), in a later task. */
let pruneId = /** @type {number | undefined} */ (undefined);
function prune() {
  pruneId = undefined;
  for (const id of REGIONS) {
    const r = document.getElementById(id);
    if (!r) continue;
    const old = [...r.children].slice(0, Math.max(0, r.childElementCount - KEEP));
    old.filter(told).forEach((p) => p.remove());
  }
  if (REGIONS.some((id) => (document.getElementById(id)?.childElementCount || 0) > KEEP)) {
    pruneId = window.setTimeout(prune, PRUNE_AFTER);
  }
}

/** The time `text` takes to be said, from now. */
function speaking(/** @type {string} */ text) {
  return START + Math.min(MAX_WAIT, text.length * pace());
}

// Each message is a new paragraph, so the same text said twice is said twice. With
// self-voicing on, the page speaks instead and the live regions stay quiet. Shown first
// (`shownIn`: the element that shows it already, when it is on the screen).
function write(/** @type {string} */ text, /** @type {string} */ level, interrupt = false,
  /** @type {string | null} */ shownIn = null) {
  if (!onScreen(shownIn)) notice(text);
  if (selfVoicing()) { speak(text, interrupt); return; }
  const r = region(level);
  const p = document.createElement("p");
  p.textContent = text;
  p.dataset.at = String(performance.now());
  r.append(p);
  if (pruneId === undefined && r.childElementCount > KEEP) pruneId = window.setTimeout(prune, PRUNE_AFTER);
  busyUntil = performance.now() + speaking(text);
}

/** Lines older than the page's own, paged in from the server (kept besides HISTORY). */
let paged = 0;
/** The most lines paged in from the server that the history keeps. */
const PAGED_MAX = 2000;

function remember(/** @type {string} */ text, /** @type {string} */ ch = "game") {
  history.push({ text, channel: ch });
  while (history.length > HISTORY + paged) history.shift();
  back = -1;
}

/** Whether the history keys are at the oldest line they have (or have none). */
export function atOldest() {
  return back >= inChannel().length - 1;
}

/** Older lines from the server (a page of `history`, oldest first), put before the
 * oldest kept: the history keys go on into them, where they are. */
export function olderLines(/** @type {{text: string, channel: string}[]} */ lines) {
  const room = Math.max(0, PAGED_MAX - paged);
  const kept = lines.slice(Math.max(0, lines.length - room));
  history.unshift(...kept);
  paged += kept.length;
}

/** The history of the channel the history keys are on. */
function inChannel() {
  return history.filter((h) => channel === "all" || h.channel === channel).map((h) => h.text);
}

function pump() {
  if (pumpId !== undefined) return;
  // Self-voicing knows when a sentence has really been said: the next waits for its end.
  if (selfVoicing() && speakingNow) return;
  const wait = busyUntil - performance.now();
  if (wait > 0) {
    pumpId = window.setTimeout(() => { pumpId = undefined; pump(); }, wait);
    return;
  }
  const msg = pending.shift();
  if (!msg) return;
  const moved = msg.before ? msg.before() : false;
  const go = () => {
    if (msg.text) {
      write(msg.text, msg.level, false, msg.shownIn);
      remember(msg.text, msg.channel);
    }
    if (pending.length) pump();
  };
  if (moved) {
    pumpId = window.setTimeout(() => { pumpId = undefined; go(); }, AFTER_FOCUS);
  } else go();
}

/**
 * Say a game message in its turn. `before` runs just before it is said (to open a
 * dialog or move focus, which would cut the message before); it returns true when it
 * moved focus. An empty message with a `before` only waits for its turn to run it.
 * `channel`: where the history keeps it ("game", or "chat" for a chat line); `mute`:
 * the group of MUTED whose silence keeps it unsaid (the channel's by default; null for
 * a message that is always said: a decision asked of the player); `shownIn`: the id of
 * the element that shows it (the game log, a chat log), else the notice area shows it.
 * @param {string} text
 * @param {{level?: string, channel?: string, mute?: string | null,
 *   before?: (() => boolean | void) | null, shownIn?: string}} [how]
 */
export function say(text, how = {}) {
  const ch = how.channel || "game";
  const group = how.mute === undefined ? ch : how.mute;
  if (text && group && muted(group)) {
    remember(text, ch);
    text = "";
  }
  if (!text && !how.before) return;
  pending.push({ text, level: how.level || "polite", channel: ch, before: how.before || null,
    shownIn: how.shownIn || null });
  pump();
}

/** Keep a line in the history without saying it (a muted channel's line). */
export function keep(/** @type {string} */ text, /** @type {string} */ ch) {
  if (text) remember(text, ch);
}

/** Say at once, out of turn: errors and the warning that time runs out. */
export function urgent(/** @type {string} */ text) {
  if (!text) return;
  write(text, "assertive", true);
  remember(text);
}

/** Answer a key the player pressed: at once, politely, not kept in the history
 * (`shownIn`: the element that shows the answer too, as in say). */
export function answer(/** @type {string | null | undefined} */ text,
  /** @type {string | null} */ shownIn = null) {
  if (text) write(text, "polite", true, shownIn);
}

/** The player pressed a key: they are listening again, so queued messages may go. */
export function heard(/** @type {KeyboardEvent} */ e) {
  // Control alone stops the page's own voice (as it stops a screen reader's): what it
  // was saying and what waited is dropped from speech, kept in the history.
  if (selfVoicing() && e && e.key === "Control") {
    pending.splice(0).forEach((m) => { if (m.before) m.before(); if (m.text) remember(m.text, m.channel); });
    hush();
    return;
  }
  busyUntil = 0;
  if (pending.length) {
    window.clearTimeout(pumpId);
    pumpId = undefined;
    pump();
  }
}

/** Step through the history: -1 an older message, +1 a newer one (keys [ and ]); the
 * first press says the newest. */
export function historyStep(/** @type {number} */ delta) {
  const lines = inChannel();
  if (!lines.length) return null;
  back = Math.max(0, Math.min(lines.length - 1, back - delta));
  return lines[lines.length - 1 - back];
}

/** Go to the oldest (`last` false) or the newest line of the history's channel. */
export function historyEdge(/** @type {boolean} */ last) {
  const lines = inChannel();
  if (!lines.length) return null;
  back = last ? 0 : lines.length - 1;
  return lines[lines.length - 1 - back];
}

/** Where the history keys are: line `n` of `total` in the channel, the oldest first. */
export function historyPlace() {
  const total = inChannel().length;
  return { n: total - Math.max(0, back), total };
}

/** Move the history keys to the next channel (game, chat, lobby, private, all); its name. */
export function nextChannel() {
  channel = CHANNELS[(CHANNELS.indexOf(channel) + 1) % CHANNELS.length];
  back = -1;
  return channel;
}

/** The newest `n` lines of `ch`, oldest first. */
export function latest(/** @type {string} */ ch, /** @type {number} */ n) {
  return history.filter((h) => h.channel === ch).slice(-n).map((h) => h.text);
}

/** The groups a player may silence (Settings, and Shift+M for chat): a message of a
 * muted group is only kept, for the log and the history keys. "game": the narration of
 * the table (a decision asked of you is always said), "chat": the table's chat,
 * "system": who sits down or leaves, the default bot taking over, the connection. */
export const MUTABLE = ["game", "chat", "system"];

/** Whether group `g` is muted (localStorage `nimmt.chatmute` for chat, as before;
 * `nimmt.mute.game`, `nimmt.mute.system`). */
export function muted(/** @type {string} */ g) {
  if (!MUTABLE.includes(g)) return false;
  return localStorage.getItem(g === "chat" ? "nimmt.chatmute" : `nimmt.mute.${g}`) === "1";
}

export function setMuted(/** @type {string} */ g, /** @type {boolean} */ on) {
  localStorage.setItem(g === "chat" ? "nimmt.chatmute" : `nimmt.mute.${g}`, on ? "1" : "0");
}

// ---------------------------------------------------------------- self-voicing

/** Whether the page speaks by itself (Settings; localStorage `nimmt.selfvoice`). */
export function selfVoicing() {
  return localStorage.getItem("nimmt.selfvoice") === "1" && "speechSynthesis" in window;
}

/** The self-voicing settings: on, the voice's name ("" the browser's default for the
 * language), the rate (0.5–3). */
export function voiceSettings() {
  const rate = Number(localStorage.getItem("nimmt.rate"));
  return { on: localStorage.getItem("nimmt.selfvoice") === "1",
    voice: localStorage.getItem("nimmt.voice") || "",
    rate: Number.isFinite(rate) && rate >= 0.5 && rate <= 3 ? rate : 1 };
}

export function setVoiceSettings(/** @type {{on: boolean, voice: string, rate: number}} */ v) {
  localStorage.setItem("nimmt.selfvoice", v.on ? "1" : "0");
  localStorage.setItem("nimmt.voice", v.voice);
  localStorage.setItem("nimmt.rate", String(v.rate));
  if (!v.on) hush();
}

/** The voices the browser has for the page's language. */
export function voicesFor(/** @type {string} */ lang) {
  if (!("speechSynthesis" in window)) return [];
  return speechSynthesis.getVoices().filter((v) => v.lang.toLowerCase().startsWith(lang));
}

/** Whether an utterance of the page is being spoken (its end not yet heard). */
let speakingNow = false;
/** The utterance being spoken, so that its end is told from a cancelled one's. */
let current = /** @type {SpeechSynthesisUtterance | null} */ (null);

/** Speak `text` with the player's voice and rate; `interrupt`: stop what is being said
 * first (a key's answer, an error). The queue goes on when the utterance has ended. */
function speak(/** @type {string} */ text, /** @type {boolean} */ interrupt) {
  if (interrupt) hush();
  const u = new SpeechSynthesisUtterance(text);
  const lang = document.documentElement.lang || "en";
  u.lang = lang;
  const { voice, rate } = voiceSettings();
  const chosen = voicesFor(lang).find((v) => v.name === voice);
  try { if (chosen) u.voice = chosen; } catch (_) { /* a voice gone since */ }
  u.rate = rate;
  const done = () => {
    if (current !== u) return;
    current = null;
    speakingNow = false;
    busyUntil = 0;
    if (pending.length) pump();
  };
  u.addEventListener("end", done);
  u.addEventListener("error", done);
  // Some browsers drop the end of a long utterance: the queue goes on after three times
  // its estimated speaking time at the slowest rate, whatever happens.
  window.setTimeout(done, 3 * (START + text.length * 90) / Math.min(1, rate));
  current = u;
  speakingNow = true;
  speechSynthesis.speak(u);
}

/** Stop the page's voice now. */
function hush() {
  if (!("speechSynthesis" in window)) return;
  current = null;
  speakingNow = false;
  speechSynthesis.cancel();
}

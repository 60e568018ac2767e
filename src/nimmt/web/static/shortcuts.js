// @ts-check
// The game area's shortcuts (keymap.json, keys.js) and the touch layer: the buttons of
// "Ask about the table" under the hand, for a phone's screen reader, which has no keys.
// A question asked by a key or by a button gets the same answer (`ask`): the server's
// sentence from the sheet, or the page's own for its controls.
import { t } from "./i18n.js";
import { $, S, cardSentence, items } from "./state.js";
import { cardName } from "./cards.js";
import { actionFor, isTyping, keysSummary } from "./keys.js";
import {
  answer, atOldest, historyEdge, historyPlace, historyStep, latest, muted, nextChannel,
  olderLines, setMuted, urgent,
} from "./voice.js";
import { cue, setSound, setVolume, soundOn, volume } from "./sound.js";
import { send } from "./net.js";
import { askHint } from "./tutor.js";
import { currentCard } from "./hand.js";
import { focusRows } from "./rows.js";

/** The time left for the player's decision, as the timer shows it ("12 s left"), or that
 * nothing of theirs is timed. */
export function timeLeft() {
  if ($("timer").hidden) return t("time.none");
  const n = $("timer-s").textContent || "0";
  const listen = $("timer-listen");
  return listen.hidden ? t("time.left", { n }) : t("time.listening", { n, m: listen.dataset.n });
}

/** Key N: whose turn it is (the decision asked of you, or whom the table waits for: the
 * server's sentences) and the time left. */
function whoseTurn() {
  const sh = S.sheet;
  const turn = S.prompt ? sh.decision || "" : sh.idle || "";
  return [turn, timeLeft()].filter(Boolean).join(" ");
}

/** A line of the history with its place ("… (3 of 12)"), or that there is none. */
function historyLine(/** @type {string | null} */ text) {
  if (!text) return t("history.empty");
  const { n, total } = historyPlace();
  return t("history.pos", { text, n, total });
}

/** The answer to a question the player asks (by key or by button), or null for an
 * action that is not a question. */
export function ask(/** @type {string} */ action) {
  const sh = S.sheet;
  switch (action) {
    case "rows": return sh.rows || "";
    case "row1": case "row2": case "row3": case "row4":
      return (sh.row || [])[Number(action.slice(3)) - 1] || "";
    case "chosen": return sh.chosen || "";
    case "scores": return sh.scores || "";
    case "hand": return sh.hand || sh.idle || "";
    case "time": return timeLeft();
    case "turn": return whoseTurn();
    case "who": return sh.who || "";
    case "reveal": return S.lastReveal || t("reveal.none");
    case "older": return historyLine(historyStep(-1));
    case "newer": return historyLine(historyStep(1));
    case "first": return historyLine(historyEdge(false));
    case "last": return historyLine(historyEdge(true));
    case "chatlast": return latest("chat", 3).join(" ") || t("chat.none");
    case "keys": return keysSummary();
    default: return null;
  }
}

/** Key C: the bullheads of the focused row (of the table or of the row dialog) or card. */
function bullheads() {
  const sh = S.sheet;
  const el = /** @type {HTMLElement | null} */ (document.activeElement);
  const row = el && (el.dataset.row
    || (el.closest("#row-choices") ? /** @type {HTMLInputElement} */ (el).value : null));
  if (el && row) return (sh.row_bullheads || [])[Number(row) - 1];
  const li = el && el.dataset.card && el.closest("#hand") ? el : currentCard();
  return li ? cardSentence(Number(li.dataset.card)) || cardName(Number(li.dataset.card)) : "";
}

function onGameKey(/** @type {KeyboardEvent} */ e) {
  if (isTyping(/** @type {Element} */ (e.target))) return;
  const action = actionFor(e);
  if (!action) return;
  e.preventDefault();
  // V moves focus to the rows and says nothing itself: the reader says the row focused
  // (the touch layer's Rows button, which moves nothing, says every row).
  if (action === "rows") { focusRows(); return; }
  if (action === "older" && atOldest() && S.older) { olderPage(); return; }
  const said = ask(action);
  if (said !== null) { answer(said); return; }
  switch (action) {
    case "bullheads": answer(bullheads()); break;
    case "channel": answer(t(`channel.${nextChannel()}`)); break;
    case "chat":
      S.chatFrom = /** @type {HTMLElement} */ (document.activeElement);
      $("chat-text").focus();
      break;
    case "chatmute":
      setMuted("chat", !muted("chat"));
      answer(t(muted("chat") ? "chat.muted" : "chat.unmuted"));
      break;
    case "quieter": case "louder":
      setVolume(volume + (action === "louder" ? 10 : -10));
      cue("chosen");
      answer(t("sound.volume", { n: volume }));
      break;
    case "hint": askHint(); break;
    case "sound": setSound(!soundOn); answer(t(soundOn ? "sound.on" : "sound.off")); break;
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
  answer(historyLine(historyStep(-1)));
}

// ---------------------------------------------------------------- the touch layer

/** The questions of the touch layer, in the order of its buttons. */
const ASKED = ["rows", "hand", "chosen", "scores", "who", "turn", "reveal", "older", "newer"];

/** Draw the touch layer's buttons (their labels in the page's language). */
export function renderAsk() {
  const box = $("ask-buttons");
  if (box.childElementCount !== ASKED.length) {
    box.replaceChildren(...ASKED.map((a) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.ask = a;
      return b;
    }));
  }
  for (const b of items(box)) {
    const label = t(`ask.${b.dataset.ask}`);
    if (b.textContent !== label) b.textContent = label;
  }
}

/** A button of the touch layer: its question's answer, said and shown under the buttons
 * (a swipe reads it again). */
function onAsk(/** @type {MouseEvent} */ e) {
  const b = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("[data-ask]"));
  if (!b) return;
  const action = b.dataset.ask || "";
  if (action === "older" && atOldest() && S.older) { olderPage(); return; }
  const said = ask(action) || "";
  $("ask-answer").textContent = said;
  answer(said);
}

export function wireShortcuts() {
  $("game").addEventListener("keydown", onGameKey);
  // The row dialog is part of the game area: 1–4, C, T, S, R and the history keys work there.
  $("row-dialog").addEventListener("keydown", onGameKey);
  // Before the game, W in the seating says the seats, as the sheet has them.
  $("seating").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (isTyping(/** @type {Element} */ (e.target)) || actionFor(e) !== "who") return;
    e.preventDefault();
    answer(S.sheet.who);
  });
  $("ask-buttons").addEventListener("click", onAsk);
}

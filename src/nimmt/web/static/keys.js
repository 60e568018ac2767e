// @ts-check
// The game area's single-key shortcuts (docs/rules.md §9, the history keys and the
// hint), remappable in Settings and kept in localStorage as `nimmt.keys`.
import { t } from "./i18n.js";
import { local } from "./state.js";

export const ACTIONS = ["rows", "row1", "row2", "row3", "row4", "bullheads", "chosen", "scores",
  "hand", "time", "who", "reveal", "older", "newer", "channel", "chatlast", "chat", "chatmute",
  "hint", "sound", "quieter", "louder", "keys", "accept", "decline"];
/** @type {Record<string, string>} */
const DEFAULT_KEYS = { rows: "v", row1: "1", row2: "2", row3: "3", row4: "4",
  bullheads: "c", chosen: "t", scores: "s", hand: "a", time: "l", who: "w", reveal: "r",
  older: "[", newer: "]", channel: "\\", chatlast: ".", chat: "/", chatmute: "shift+m",
  hint: "h", sound: "m", quieter: "-", louder: "=", keys: "k", accept: "j", decline: "shift+j" };

/** @returns {{on: boolean, map: Record<string, string>}} */
function load() {
  try {
    const saved = JSON.parse(local.get("keys") || "{}");
    return { on: saved.on !== false, map: { ...DEFAULT_KEYS, ...(saved.map || {}) } };
  } catch (_) {
    return { on: true, map: { ...DEFAULT_KEYS } };
  }
}
export let KEYS = load();

/** @param {{on: boolean, map: Record<string, string>} | null} keys null: the defaults */
export function setKeys(keys) {
  KEYS = keys || { on: true, map: { ...DEFAULT_KEYS } };
  local.set("keys", keys ? JSON.stringify(keys) : null);
}

function normSpec(/** @type {string} */ spec) {
  const parts = String(spec).toLowerCase().replace(/\s+/g, "").split("+").filter(Boolean);
  const key = parts.pop() || "";
  const mods = ["ctrl", "alt", "shift"].filter((m) => parts.includes(m));
  return [...mods, key].join("+");
}

/** Punctuation keys by their physical place (a US keyboard's names for them). */
/** @type {Record<string, string>} */
const PUNCTUATION = { BracketLeft: "[", BracketRight: "]", Backslash: "\\", Period: ".",
  Slash: "/", Minus: "-", Equal: "=" };

// Letters, digits and punctuation by their physical key, so a layout whose digit row
// needs Shift (Czech) still has 1–4.
function eventSpec(/** @type {KeyboardEvent} */ e) {
  let key = e.key.toLowerCase();
  if (e.code.startsWith("Key")) key = e.code.slice(3).toLowerCase();
  else if (e.code.startsWith("Digit")) key = e.code.slice(5);
  else if (/^Numpad\d$/.test(e.code)) key = e.code.slice(6);
  else if (PUNCTUATION[e.code]) key = PUNCTUATION[e.code];
  const mods = [];
  if (e.ctrlKey) mods.push("ctrl");
  if (e.altKey) mods.push("alt");
  if (e.shiftKey) mods.push("shift");
  return [...mods, key].join("+");
}

/** The shortcut `e` presses, if any. */
export function actionFor(/** @type {KeyboardEvent} */ e) {
  if (!KEYS.on) return null;
  const spec = eventSpec(e);
  return ACTIONS.find((a) => KEYS.map[a] && normSpec(KEYS.map[a]) === spec) || null;
}

/** The digit `e` types by its physical key (digit row or keypad), or null. */
export function digitOf(/** @type {KeyboardEvent} */ e) {
  const m = /^(?:Digit|Numpad)(\d)$/.exec(e.code);
  return m ? m[1] : (/^\d$/.test(e.key) ? e.key : null);
}

/** Whether `el` takes typed text (a radio button or a checkbox does not). */
export function isTyping(/** @type {Element | null} */ el) {
  if (!el) return false;
  if (el.tagName === "INPUT") return !["radio", "checkbox", "button", "submit"].includes(
    /** @type {HTMLInputElement} */ (el).type);
  return /** @type {HTMLElement} */ (el).isContentEditable || ["TEXTAREA", "SELECT"].includes(el.tagName);
}

/** Key K: every shortcut with its key. */
export function keysSummary() {
  if (!KEYS.on) return t("keys.off");
  return ACTIONS.filter((a) => KEYS.map[a])
    .map((a) => `${KEYS.map[a].toUpperCase()}: ${t(`action.${a}`)}`).join(". ");
}

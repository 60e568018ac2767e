// @ts-check
// The game area's single-key shortcuts (docs/rules.md §9, the history keys and the
// hint), remappable in Settings and kept in localStorage as `nimmt.keys`. They are
// declared in keymap.json with the terminal's (nimmt.keymap reads the same file), so a
// key means the same in both clients.
import { t } from "./i18n.js";
import { local } from "./state.js";
import SPEC from "./keymap.json" with { type: "json" };

/** @typedef {{action: string, key: string, help: string, clients: string[],
 *   aliases?: string[], fixed?: boolean}} KeyAction */
const WEB = /** @type {KeyAction[]} */ (SPEC.actions).filter((a) => a.clients.includes("web"));
export const ACTIONS = WEB.map((a) => a.action);
/** @type {Record<string, string>} */
const DEFAULT_KEYS = Object.fromEntries(WEB.map((a) => [a.action, a.key]));
/** Other keys (as the key types them: "?") that do an action no key was moved to. */
/** @type {Record<string, string>} */
const ALIASES = Object.fromEntries(WEB.flatMap((a) => (a.aliases || []).map((k) => [k, a.action])));
/** Each action's help text id in the catalogs. */
/** @type {Record<string, string>} */
const HELP = Object.fromEntries(WEB.map((a) => [a.action, a.help]));

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
  const mapped = ACTIONS.find((a) => KEYS.map[a] && normSpec(KEYS.map[a]) === spec);
  if (mapped) return mapped;
  const alias = !e.ctrlKey && !e.altKey && !e.metaKey ? ALIASES[e.key] : undefined;
  return alias && !ACTIONS.some((a) => KEYS.map[a] && normSpec(KEYS.map[a]) === normSpec(e.key))
    ? alias : null;
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

/** Key K: every shortcut with its key (the terminal's K lists its keys in these words). */
export function keysSummary() {
  if (!KEYS.on) return t("keys.off");
  return ACTIONS.filter((a) => KEYS.map[a])
    .map((a) => `${KEYS.map[a].toUpperCase()}: ${t(HELP[a])}`).join(". ");
}

// @ts-check
// UI strings: one JSON catalog per language in i18n/<lang>.json (see docs/translating.md).
// A value is a string with {name} fields, or, for counts, an object keyed by the
// CLDR plural category of the language (one, few, many, other).
export const LANGUAGES = ["en", "sr", "cs"];
/** @typedef {string | Record<string, string>} Entry */
/** @typedef {Record<string, unknown>} Params */
/** @type {Record<string, Entry>} */
let catalog = {};
/** @type {Record<string, Entry>} */
let fallback = {};
let lang = "en";
let plural = new Intl.PluralRules("en");

async function fetchCatalog(/** @type {string} */ code) {
  const res = await fetch(`i18n/${code}.json`);
  if (!res.ok) throw new Error(`no catalog for ${code}`);
  return res.json();
}

export async function setLanguage(/** @type {string} */ code) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalog("en");
  catalog = code === "en" ? fallback : await fetchCatalog(code);
  lang = code;
  plural = new Intl.PluralRules(code);
  document.documentElement.lang = code;
  translatePage();
}

export function language() { return lang; }

/** The locale of dates and numbers: Serbian in Latin script, as the page is. */
export function locale() {
  return lang === "sr" ? "sr-Latn" : lang;
}

function fill(/** @type {string} */ text, /** @type {Params} */ params) {
  return text.replace(/\{(\w+)\}/g, (/** @type {string} */ m, /** @type {string} */ k) => (k in params ? String(params[k]) : m));
}

/** @returns {string} */
function template(/** @type {string} */ key, /** @type {Params} */ params) {
  let value = catalog[key] ?? fallback[key] ?? key;
  if (typeof value === "object") {
    const cat = plural.select(Number(params.count ?? 0));
    value = value[cat] ?? value.other ?? Object.values(value)[0];
  }
  return value;
}

// t("key", {count: 3, ...}): the sentence in the current language.
export function t(/** @type {string} */ key, /** @type {Params} */ params = {}) {
  return fill(template(key, params), params);
}

// Text that people typed (names, chat, table names) goes inside <bdi>: its direction
// is worked out on its own, so a right-to-left name or a stray direction mark cannot
// reorder the sentence around it (the server also removes bidi controls).
export function isolate(/** @type {unknown} */ text) {
  const el = document.createElement("bdi");
  el.textContent = String(text ?? "");
  return el;
}

/** A sentence from the server with text people typed in it (a name, a chat line), each
 * part found in order and shown isolated, so right-to-left text keeps its place.
 * @param {string} sentence @param {(string | null | undefined)[]} parts */
export function isolating(sentence, parts) {
  /** @type {(string | Node)[]} */
  const out = [];
  let rest = sentence;
  for (const part of parts) {
    const at = part ? rest.indexOf(part) : -1;
    if (at < 0) continue;
    if (at) out.push(rest.slice(0, at));
    out.push(isolate(part));
    rest = rest.slice(at + String(part).length);
  }
  if (rest) out.push(rest);
  return out;
}

// Nodes joined by a separator (names in a list: "Ana, Bob").
export function joined(/** @type {(string | Node)[]} */ nodes, sep = ", ") {
  return nodes.flatMap((n, /** @type {number} */ i) => (i ? [sep, n] : [n]));
}

// A table's name as nodes: the one its host typed, isolated; or, when the host typed
// none (the server stores it empty), the host's table in this page's language.
/** @returns {(string | Node)[]} */
export function tableName(/** @type {{name: string, host?: string | null, code: string}} */ tb) {
  if (tb.name) return [isolate(tb.name)];
  return tb.host ? tn("table.after_host", { name: isolate(tb.host) }) : tn("table.unnamed", { code: tb.code });
}

// tn("key", {name: isolate(name), ...}): t()'s sentence as nodes for append() or
// replaceChildren(). A param that is a Node, or an array of nodes and strings, goes in
// as it is; any other value as text.
/** @returns {(string | Node)[]} */
export function tn(/** @type {string} */ key, /** @type {Params} */ params = {}) {
  const text = template(key, params);
  const out = [];
  let last = 0;
  for (const m of text.matchAll(/\{(\w+)\}/g)) {
    if (!(m[1] in params)) continue;
    out.push(text.slice(last, m.index));
    const v = params[m[1]];
    if (Array.isArray(v)) out.push(...v);
    else out.push(v instanceof Node ? v : String(v));
    last = m.index + m[0].length;
  }
  out.push(text.slice(last));
  return out.filter((x) => x !== "");
}

// The text of nodes made by tn() (for the live regions, which take plain text).
export function plain(/** @type {(string | Node)[]} */ nodes) {
  return nodes.map((n) => (typeof n === "string" ? n : n.textContent)).join("");
}

// Elements with data-i18n get their text; data-i18n-aria their aria-label.
export function translatePage(/** @type {ParentNode} */ root = document) {
  // Only what changes is written: rewriting a label with the same text is a name change
  // to a screen reader, which says the focused field again.
  for (const el of root.querySelectorAll("[data-i18n]")) {
    const text = t(/** @type {HTMLElement} */ (el).dataset.i18n || "");
    if (el.textContent !== text) el.textContent = text;
  }
  for (const el of root.querySelectorAll("[data-i18n-aria]")) {
    const label = t(/** @type {HTMLElement} */ (el).dataset.i18nAria || "");
    if (el.getAttribute("aria-label") !== label) el.setAttribute("aria-label", label);
  }
}

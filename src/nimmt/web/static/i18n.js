// UI strings: one JSON catalog per language in i18n/<lang>.json (see docs/translating.md).
// A value is a string with {name} fields, or, for counts, an object keyed by the
// CLDR plural category of the language (one, few, many, other).
export const LANGUAGES = ["en", "sr", "cs"];
let catalog = {};
let fallback = {};
let lang = "en";
let plural = new Intl.PluralRules("en");

async function fetchCatalog(code) {
  const res = await fetch(`i18n/${code}.json`);
  if (!res.ok) throw new Error(`no catalog for ${code}`);
  return res.json();
}

export async function setLanguage(code) {
  if (!LANGUAGES.includes(code)) code = "en";
  if (!Object.keys(fallback).length) fallback = await fetchCatalog("en");
  catalog = code === "en" ? fallback : await fetchCatalog(code);
  lang = code;
  plural = new Intl.PluralRules(code);
  document.documentElement.lang = code;
  translatePage();
}

export function language() { return lang; }

function fill(text, params) {
  return text.replace(/\{(\w+)\}/g, (m, k) => (k in params ? String(params[k]) : m));
}

// t("key", {count: 3, ...}): the sentence in the current language.
export function t(key, params = {}) {
  let value = catalog[key] ?? fallback[key] ?? key;
  if (typeof value === "object") {
    const cat = plural.select(Number(params.count ?? 0));
    value = value[cat] ?? value.other ?? Object.values(value)[0];
  }
  return fill(value, params);
}

// Elements with data-i18n get their text; data-i18n-aria their aria-label.
export function translatePage(root = document) {
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
}

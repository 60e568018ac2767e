// @ts-check
// How the page looks, apart from what it shows: the colours (theme.css; Settings →
// Display) and, on a phone, the main menu folded behind its button.
import { $, local } from "./state.js";

/** The themes a player may choose; "" follows the system's light or dark scheme. */
const THEMES = ["", "light", "dark", "contrast"];

/** The chosen theme (localStorage `nimmt.theme`; "" follows the system). */
export function theme() {
  const saved = local.get("theme") || "";
  return THEMES.includes(saved) ? saved : "";
}

/** Show the chosen theme: `<html data-theme>`, which theme.css reads. */
export function applyTheme() {
  const chosen = theme();
  if (chosen) document.documentElement.dataset.theme = chosen;
  else delete document.documentElement.dataset.theme;
}

export function setTheme(/** @type {string} */ name) {
  local.set("theme", THEMES.includes(name) && name ? name : null);
  applyTheme();
}

/** The phone's menu: its button opens and closes it; a link followed, Escape or a tap
 * elsewhere closes it (focus back on the button after Escape). */
export function wireMenu() {
  const toggle = $("nav-toggle");
  const open = (/** @type {boolean} */ on) => toggle.setAttribute("aria-expanded", String(on));
  const isOpen = () => toggle.getAttribute("aria-expanded") === "true";
  toggle.addEventListener("click", () => open(!isOpen()));
  $("nav-list").addEventListener("click", (/** @type {MouseEvent} */ e) => {
    if (/** @type {Element} */ (e.target).closest("a")) open(false);
  });
  window.addEventListener("hashchange", () => open(false));
  $("nav-list").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Escape" && isOpen()) { open(false); toggle.focus(); }
  });
  document.addEventListener("click", (/** @type {MouseEvent} */ e) => {
    const inside = /** @type {Element} */ (e.target).closest(".top nav, #nav-toggle");
    if (isOpen() && !inside) open(false);
  });
}

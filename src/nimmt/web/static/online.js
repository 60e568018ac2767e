// @ts-check
// Who is online, in the lobby: the server's list (`online`, pushed while the page listens
// to the lobby), each player a link to their page and a button to their box (mute, block,
// report), you marked. The list is updated in place: a player who stays keeps their
// item, so a button keeps focus while others come and go.
import { t, tn, isolate } from "./i18n.js";
import { $, S } from "./state.js";
import { personButton } from "./person.js";

/** @typedef {import("./wire").Online} Online */

/** The last list the server sent (null before the first: the page is not connected). */
/** @type {Online | null} */
let last = null;

export function onOnline(/** @type {Online} */ msg) {
  last = msg;
  renderOnline();
}

export function renderOnline() {
  const list = $("online-list");
  const count = $("online-count");
  if (!last) {
    list.replaceChildren();
    count.textContent = t("online.offline");
    return;
  }
  const more = last.total - last.players.length;
  count.textContent = t("online.count", { count: last.total })
    + (more > 0 ? ` (${t("online.more", { count: more })})` : "");
  const focused = list.contains(document.activeElement);
  /** @type {Map<string, HTMLElement>} */
  const have = new Map([...list.children].map((li) => [/** @type {HTMLElement} */ (li).dataset.name || "",
    /** @type {HTMLElement} */ (li)]));
  const want = last.players.map((name) => item(name, have.get(name)));
  const keep = new Set(want);
  for (const li of [...list.children]) if (!keep.has(/** @type {HTMLElement} */ (li))) li.remove();
  want.forEach((li, i) => { if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null); });
  if (focused && !list.contains(document.activeElement)) $("online-h").focus();
}

/** The item of player `name`: `li` again while it says the same. */
function item(/** @type {string} */ name, /** @type {HTMLElement | undefined} */ li) {
  const you = name === S.name;
  const key = `${you}.${name}`;
  if (li && li.dataset.key === key) return li;
  const el = document.createElement("li");
  el.dataset.name = name;
  el.dataset.key = key;
  const a = document.createElement("a");
  a.href = `#/players/${encodeURIComponent(name)}`;
  a.append(...(you ? tn("player.you", { name: isolate(name) }) : [isolate(name)]));
  el.append(a);
  if (!you) el.append(" ", personButton(name));
  return el;
}

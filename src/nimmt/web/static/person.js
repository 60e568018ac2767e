// @ts-check
// A player's box (docs/accounts.md, "Friends, mutes and blocks"): follow, mute, block or
// report a player, or a message of theirs. Opened from a seat, a player in the game, a
// friend, a player online, a chat line's Report, or by name in the friends view.
import { t, tn, isolate } from "./i18n.js";
import { $, S, field } from "./state.js";
import { answer, urgent } from "./voice.js";
import { send } from "./net.js";

/** Whether the page can speak for a player: they have a token, or a name (typed in the
 * lobby's field, said in the hello that comes with the request). Else they are asked for
 * a name in the lobby. */
export function known() {
  if (S.token || S.name) return true;
  const name = field("me-name").value.trim();
  if (name) { S.name = name; return true; }
  location.hash = "#/";
  urgent(t("me.needname"));
  field("me-name").focus();
  return false;
}

/** Whom the box is about, the message reported (if any), and where focus goes back. */
/** @type {{name: string, message: {text: string, place: string | null} | null,
 *   from: HTMLElement | null}} */
let person = { name: "", message: null, from: null };

/** The player the box is about. */
export function personName() {
  return person.name;
}

/** Open the box about player `name` (from a list's button, a chat line's Report). */
export function openPerson(/** @type {string} */ name, /** @type {HTMLElement | null} */ from,
  /** @type {{text: string, place: string | null} | null} */ message) {
  person = { name, message, from };
  $("person-h").replaceChildren(...tn("person.title", { name: isolate(name) }));
  $("person-msg").hidden = !message;
  $("person-msg").replaceChildren(...(message ? tn("person.message", { text: isolate(message.text) }) : []));
  field("person-reason").value = "";
  $("person-box").hidden = false;
  $("person-h").focus();
}

export function closePerson() {
  $("person-box").hidden = true;
  const from = person.from;
  if (from && from.isConnected && !from.closest("[hidden]")) { from.focus(); return; }
  // The button was drawn anew (the players' list): the one for the same player.
  const again = /** @type {HTMLElement | null} */ (document.querySelector(
    `[data-person="${CSS.escape(person.name)}"]`));
  (again || $("main")).focus();
}

/** Mute or block (`on`) the box's player, or lift it; said once the server took it. */
async function relate(/** @type {string} */ kind, /** @type {boolean} */ on) {
  const name = person.name;
  if (!known()) return;
  if (kind === "block" && on && !window.confirm(t("block.confirm", { name }))) return;
  const res = await send({ type: kind, name, on });
  if (res.type !== "ack") return;
  answer(t(`${kind}.${on ? "on" : "off"}`, { name }));
  await send({ type: "friends" });  // the list of whom the player muted and blocked
}

async function report() {
  if (!known()) return;
  const reason = field("person-reason").value.trim();
  if (!reason) {
    urgent(t("report.needreason"));
    field("person-reason").focus();
    return;
  }
  /** @type {Record<string, unknown>} */
  const msg = { type: "report", name: person.name, reason };
  if (person.message) {
    msg.message = person.message.text;
    if (person.message.place) msg.place = person.message.place;
  }
  const res = await send(msg);
  if (res.type !== "ack") return;
  answer(t("report.done", { name: person.name }));
  closePerson();
}

/** A button that opens a player's box (a seat, the players' list, who is online). */
export function personButton(/** @type {string} */ name) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small";
  b.dataset.person = name;
  b.textContent = t("person.open");
  b.setAttribute("aria-label", t("person.openof", { name }));
  b.addEventListener("click", () => openPerson(name, b, null));
  return b;
}

/** A button that opens the player's box to report `text`, a message of `name`'s
 * (written at table `place`, or in the lobby or privately when null). */
export function reportButton(/** @type {string} */ name, /** @type {string} */ text,
  /** @type {string | null} */ place) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "small";
  b.textContent = t("report.line");
  b.setAttribute("aria-label", t("report.lineof", { name }));
  b.addEventListener("click", () => openPerson(name, b, { text, place }));
  return b;
}

export function wirePerson() {
  $("person-byname").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    const n = field("person-name").value.trim();
    if (n) openPerson(n, field("person-name"), null);
  });
  $("person-report").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); report(); });
  $("person-mute").addEventListener("click", () => relate("mute", true));
  $("person-unmute").addEventListener("click", () => relate("mute", false));
  $("person-block").addEventListener("click", () => relate("block", true));
  $("person-unblock").addEventListener("click", () => relate("block", false));
  $("person-close").addEventListener("click", closePerson);
  $("person-box").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Escape") { e.preventDefault(); closePerson(); }
  });
  // The box is about a player of the view it was opened from.
  window.addEventListener("hashchange", () => { $("person-box").hidden = true; });
}

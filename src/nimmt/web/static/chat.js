// @ts-check
// The lobby chat (in the lobby, beside who is online) and private messages (in the friends
// view): each line shown with the time the server wrote it, said as a table's chat line is
// (on its own, in the voice's queue), and kept in the history keys' "lobby" and "private"
// channels. While the player plays a game the lobby's lines are only kept.
import { t, tn, isolate, isolating, locale } from "./i18n.js";
import { $, S, field, local } from "./state.js";
import { answer, keep, say, urgent } from "./voice.js";
import { cue } from "./sound.js";
import { send } from "./net.js";
import { known, reportButton } from "./person.js";

/** @typedef {import("./wire").ChatMessage} ChatMessage */

/** The lobby lines and private messages already shown (a reconnection sends the lobby's
 * newest lines again). */
/** @type {Set<string>} */
const seen = new Set();
/** The most line ids remembered to pass over a line sent again. */
const SEEN_MAX = 2000;
/** The most lines each chat log keeps on the page. */
const LOG_MAX = 300;
/** The lobby's newest lines, sent at once after `listen_lobby` is answered, are still
 * coming: they are shown and kept, not said. A `ping` sent after the answer marks their
 * end (one connection's frames come in order). */
let backlog = false;
/** The friends who follow back: private messages go to them. */
/** @type {string[]} */
let mutual = [];

/** Whether lobby lines are only kept, not said (localStorage `nimmt.lobbymute`). */
export let lobbyMuted = local.get("lobbymute") === "1";

/** Whether the player is seated in a game being played: then the room's news (lobby
 * lines, friends coming and going) is kept for the history keys, not said over the game. */
export function playing() {
  return Boolean(S.table && S.table.status === "playing" && S.you !== null);
}

/** Hear the lobby on this connection (its chat, and who is online): the newest lines that
 * come first are shown and kept, not said. */
export async function listenLobby() {
  backlog = true;
  try {
    await send({ type: "listen_lobby", on: true, online: true });
    await send({ type: "ping" });
  } finally {
    backlog = false;
  }
}

/** A lobby line or a private message from the server. */
export function onChatMessage(/** @type {ChatMessage} */ m) {
  const key = `${m.channel}.${m.id}`;
  if (seen.has(key)) return;
  seen.add(key);
  // Only the newest are worth remembering: a reconnection sends the lobby's last 30 again.
  if (seen.size > SEEN_MAX) seen.delete(/** @type {string} */ (seen.values().next().value));
  if (m.channel === "lobby") {
    addLine("lobby-log", isolating(m.said, [m.by, m.text]), m);
    if (m.by === S.name || backlog || lobbyMuted || playing()) keep(m.said, "lobby");
    else {
      say(m.said, { channel: "lobby", shownIn: "lobby-log" });
      cue("chat");
    }
  } else {
    const text = t("private.heard", { said: m.said });
    addLine("pm-log", tn("private.heard", { said: isolating(m.said, [m.by, m.text]) }), m);
    say(text, { channel: "private", shownIn: "pm-log" });
    cue("chat");
    // Only a friend writes privately: one not known as such follows back now.
    if (!mutual.includes(m.by)) send({ type: "friends" });
  }
}

/** When a line was written (Unix seconds), as its log shows it: the hour and minute. */
function stamp(/** @type {number} */ at) {
  const el = document.createElement("time");
  const when = new Date(at * 1000);
  el.dateTime = when.toISOString();
  el.textContent = when.toLocaleTimeString(locale(), { hour: "2-digit", minute: "2-digit" });
  return el;
}

/** A line of a chat log (for review: not a live region), with its time, and a button to
 * report it when another player wrote it. */
function addLine(/** @type {string} */ log, /** @type {(string | Node)[]} */ content,
  /** @type {ChatMessage | null} */ m) {
  const el = $(log);
  const p = document.createElement("p");
  p.append(stamp(m ? m.at : Date.now() / 1000), " ", ...content);
  if (m && m.by !== S.name) p.append(" ", reportButton(m.by, m.text, null));
  el.append(p);
  while (el.childElementCount > LOG_MAX) el.firstElementChild?.remove();
  el.scrollTop = el.scrollHeight;
}

/** The private message's choice of friends (`names`: those who follow back). */
export function setRecipients(/** @type {string[]} */ names) {
  mutual = [...names].sort();
  const select = /** @type {HTMLSelectElement} */ ($("pm-to"));
  const have = [...select.options].map((o) => o.value);
  if (mutual.join("\n") === have.join("\n")) return;
  const was = select.value;
  select.replaceChildren(...mutual.map((n) => {
    const o = document.createElement("option");
    o.value = n;
    o.textContent = n;
    return o;
  }));
  if (mutual.includes(was)) select.value = was;
  $("pm-none").hidden = mutual.length > 0;
}

/** The private message field, addressed to `name`. */
export function writeTo(/** @type {string} */ name) {
  /** @type {HTMLSelectElement} */ ($("pm-to")).value = name;
  field("pm-text").focus();
}

async function sendLobby() {
  const text = field("lobby-text").value.trim();
  if (!text || !known()) return;
  const res = await send({ type: "lobby_chat", text });
  if (res.type === "ack") field("lobby-text").value = "";
}

async function sendPrivate() {
  const to = /** @type {HTMLSelectElement} */ ($("pm-to")).value;
  const text = field("pm-text").value.trim();
  if (!to) { urgent(t("pm.nofriend")); return; }
  if (!text) return;
  const res = await send({ type: "private_message", name: to, text });
  if (res.type !== "ack") return;
  field("pm-text").value = "";
  addLine("pm-log", tn("pm.sent", { name: isolate(to), text: isolate(text) }), null);
  keep(t("pm.sent", { name: to, text }), "private");
  answer(t("pm.done"));
}

export function renderLobbyMute() {
  field("lobby-mute").checked = lobbyMuted;
}

export function wireChat() {
  /** @param {string} id @param {() => void} f */
  const submit = (id, f) => $(id).addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); f(); });
  submit("lobby-form", sendLobby);
  submit("pm-form", sendPrivate);
  $("lobby-mute").addEventListener("change", () => {
    lobbyMuted = field("lobby-mute").checked;
    local.set("lobbymute", lobbyMuted ? "1" : "0");
    answer(t(lobbyMuted ? "lobby.muted" : "lobby.unmuted"));
  });
  renderLobbyMute();
}

// @ts-check
// The room around the tables (docs/accounts.md, "Friends, mutes and blocks"): the friends
// view (follow, the list with live presence, join a friend's table) and invitations (sent
// from a table, received wherever the player is: said, heard, a banner and a key). The
// lobby chat and private messages are chat.js's, who is online online.js's, a player's
// box (mute, block, report) person.js's. What is said goes through voice.js as the
// table's chat does; friends coming are kept in the history keys' "lobby" channel.
import { t, isolate, isolating } from "./i18n.js";
import { $, S, field } from "./state.js";
import { KEYS, actionFor, isTyping } from "./keys.js";
import { answer, keep, say, urgent } from "./voice.js";
import { cue } from "./sound.js";
import { connect, send } from "./net.js";
import { joinTable } from "./lobby.js";
import { known, openPerson, personName, wirePerson } from "./person.js";
import { listenLobby, onChatMessage, playing, setRecipients, wireChat, writeTo } from "./chat.js";
import { onOnline } from "./online.js";

// A seat's button opens a player's box (table.js asks this module for it).
export { personButton, reportButton } from "./person.js";

/** @typedef {import("./wire").FriendInfo} Friend
 * @typedef {import("./wire").Invitation} Invitation */

/** The players followed, by name, as the last `friends` or `presence` told. */
/** @type {Map<string, Friend>} */
const friends = new Map();
/** Invitations waiting for an answer, the newest last (the banner shows it). */
/** @type {Invitation[]} */
const invitations = [];
// ---------------------------------------------------------------- server messages

/** Once welcomed (again, after a reconnection or a new language): hear the lobby chat on
 * this connection, learn the friends' presence, and the invitation link's code is spent. */
export async function socialWelcome() {
  S.invite = null;
  $("invite-newcomer").hidden = true;
  await listenLobby();
  await send({ type: "friends" });
}

/** The server's messages of this module (app.js passes them on). */
export function onSocial(/** @type {any} */ msg) {
  switch (msg.type) {
    case "friends":
      friends.clear();
      for (const f of msg.friends) friends.set(f.name, f);
      renderFriends();
      renderSilenced(msg.muted || [], msg.blocked || []);
      break;
    case "presence": onPresence(msg.friend); break;
    case "invitation": onInvitation(msg); break;
    case "chat_message": onChatMessage(msg); break;
    case "online": onOnline(msg); break;
    default: break;
  }
}

function onPresence(/** @type {Friend} */ f) {
  const was = friends.get(f.name);
  friends.set(f.name, f);
  renderFriends();
  // Said only when it is news the player can act on: someone came online, a friend sits
  // at a table with a free seat.
  let text = "";
  if (f.online && (!was || !was.online)) text = t("presence.online", { name: f.name });
  if (f.mutual && f.table && f.free_seat && (!was || was.table !== f.table)) {
    text = t("presence.table", { name: f.name, table: f.table });
  }
  if (!text) return;
  if (playing()) keep(text, "lobby");
  else say(text, { channel: "lobby", shownIn: $("view-friends").hidden ? undefined : "friends-list" });
}

/** Invitations that come together are told together: the first rings and is said at
 * once; those that follow within GROUP_MS while it waits are gathered in the banner and
 * said as one, the newest with how many more wait, when that time is up. Each would otherwise ring and
 * interrupt (the server lets a player hear a few a minute, from everyone together). */
const GROUP_MS = 8000;
/** Until when a new invitation is gathered rather than said, and how many were. */
let quietUntil = 0;
let gathered = 0;
let groupTimer = 0;

function onInvitation(/** @type {Invitation} */ inv) {
  if (invitations.some((i) => i.id === inv.id)) return;
  // One inviter has one invitation waiting: a new one replaces theirs.
  const old = invitations.findIndex((i) => i.by === inv.by);
  if (old >= 0) invitations.splice(old, 1);
  invitations.push(inv);
  renderBanner();
  const now = Date.now();
  // Alone in the banner (those before it answered), or the last one said long enough ago.
  if (invitations.length === 1 || now >= quietUntil) {
    announce(inv, 0);
    return;
  }
  gathered += 1;
  if (!groupTimer) groupTimer = window.setTimeout(sayGathered, quietUntil - now);
}

/** The invitations gathered while the last one was being heard, said as one. */
function sayGathered() {
  groupTimer = 0;
  const newest = invitations[invitations.length - 1];
  const count = gathered;
  gathered = 0;
  if (count && newest) announce(newest, invitations.length - 1);
}

/** How the newest invitation is answered, as last said (keysHint). */
let hint = "";

function announce(/** @type {Invitation} */ inv, /** @type {number} */ more) {
  quietUntil = Date.now() + GROUP_MS;
  cue("invite");
  hint = keysHint();
  renderBanner();
  const waiting = more ? ` ${t("invite.waiting", { count: more })}` : "";
  // Assertive, in the voice's queue: said right after what is being said (a game's step
  // is never cut by it, nor cuts it), before anything after.
  say(`${inv.text}${waiting} ${hint}`, { level: "assertive", shownIn: "invite-banner" });
}

/** "J accepts, Shift+J declines." as the player's keys are; while the player types (the
 * keys would type), or with the keys off, where the banner's buttons are. */
function keysHint() {
  if (!KEYS.on || !KEYS.map.accept || isTyping(document.activeElement)) return t("invite.buttons");
  return t("invite.keys", { accept: KEYS.map.accept.toUpperCase(),
    decline: (KEYS.map.decline || "").toUpperCase() });
}

// ---------------------------------------------------------------- invitations

function renderBanner() {
  const now = Date.now() / 1000;
  for (let i = invitations.length - 1; i >= 0; i--) if (invitations[i].expires < now) invitations.splice(i, 1);
  const inv = invitations[invitations.length - 1];
  $("invite-banner").hidden = !inv;
  if (!inv) return;
  $("invite-text").replaceChildren(...isolating(inv.text, [inv.by]));
  // What is said beside the invitation shows under it: how many more wait, and the keys
  // (or the buttons) that answer.
  const more = invitations.length - 1;
  $("invite-more").textContent = [more ? t("invite.waiting", { count: more }) : "", hint]
    .filter(Boolean).join(" ");
}

/** Accept or decline the newest invitation (the banner's buttons, the keys J and Shift+J). */
async function answerInvitation(/** @type {boolean} */ accept) {
  renderBanner();
  const inv = invitations.pop();
  if (!inv) { answer(t("invite.none")); return; }
  renderBanner();
  const res = await send({ type: "answer_invitation", id: inv.id, accept });
  if (res.type === "error") return;  // said by app.js (expired, answered elsewhere)
  if (!accept) { answer(t("invite.declined", { name: inv.by })); return; }
  if (res.type !== "table_state") return;
  // Accepted: at the table (from another table's page too); a free seat is taken, which
  // a block refuses (said by app.js, with the server's sentence).
  const here = `#/table/${res.table.code}`;
  if (location.hash !== here) location.hash = here;
  if (res.you === null && res.table.status === "open"
      && res.table.seats.some((/** @type {{kind: string}} */ s) => s.kind === "empty")) {
    await send({ type: "sit" });
  }
}

/** The page was opened from an invitation link (`/play/?invite=CODE`): its code goes with
 * the next hello; a newcomer is asked for a name first (true: the page then puts focus
 * in the name's field, once its view is shown). */
export function inviteFromLink() {
  const params = new URLSearchParams(location.search);
  const code = params.get("invite");
  if (!code) return false;
  S.invite = code.slice(0, 64);
  params.delete("invite");
  const rest = params.toString();
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  if (S.token) { connect(); return false; }
  $("invite-newcomer").hidden = false;
  return true;
}

// ---------------------------------------------------------------- the friends view

/** The friends view: the list asked for anew. */
export async function showFriends() {
  renderFriends();
  if (S.token || S.name) await send({ type: "friends" });
}

/** Each friend's item, kept while they are listed (a button keeps focus through
 * updates); only its words and which buttons show change. */
function renderFriends() {
  const list = $("friends-list");
  /** @type {Map<string, HTMLElement>} */
  const have = new Map([...list.querySelectorAll("li[data-name]")].map(
    (li) => [/** @type {HTMLElement} */ (li).dataset.name || "", /** @type {HTMLElement} */ (li)]));
  const names = [...friends.keys()].sort((a, b) => a.localeCompare(b));
  const focused = list.contains(document.activeElement);
  for (const [name, li] of have) if (!friends.has(name)) li.remove();
  names.forEach((name, i) => {
    const li = have.get(name) || friendItem(name);
    updateFriend(li, /** @type {Friend} */ (friends.get(name)));
    const at = list.querySelectorAll("li[data-name]")[i];
    if (at !== li) list.insertBefore(li, at || null);
  });
  $("friends-none").hidden = friends.size > 0;
  list.dataset.loaded = String(Number(list.dataset.loaded || 0) + 1);
  if (focused && !list.contains(document.activeElement)) field("follow-name").focus();
  setRecipients([...friends.values()].filter((f) => f.mutual).map((f) => f.name));
}

/** Whom the player muted and blocked, each with a button that lifts it. */
function renderSilenced(/** @type {string[]} */ muted, /** @type {string[]} */ blocked) {
  const list = $("silenced-list");
  const focused = list.contains(document.activeElement);
  const items = [...muted.map((n) => ["mute", n]), ...blocked.map((n) => ["block", n])]
    .sort((a, b) => a[1].localeCompare(b[1]) || a[0].localeCompare(b[0]));
  list.replaceChildren(...items.map(([kind, name]) => {
    const li = document.createElement("li");
    const lift = document.createElement("button");
    lift.type = "button";
    lift.className = "small";
    lift.textContent = t(`silenced.lift${kind}`, { name });
    lift.addEventListener("click", async () => {
      const res = await send({ type: kind, name, on: false });
      if (res.type !== "ack") return;
      answer(t(`${kind}.off`, { name }));
      await send({ type: "friends" });
    });
    li.append(isolate(name), ` — ${t(`silenced.${kind}`)} `, lift);
    return li;
  }));
  $("silenced-none").hidden = items.length > 0;
  if (focused && !list.contains(document.activeElement)) {
    (/** @type {HTMLElement | null} */ (list.querySelector("button")) || $("silenced-h")).focus();
  }
}

function friendItem(/** @type {string} */ name) {
  const li = document.createElement("li");
  li.dataset.name = name;
  const who = document.createElement("a");
  who.href = `#/players/${encodeURIComponent(name)}`;
  who.append(isolate(name));
  const state = document.createElement("span");
  state.className = "friend-state";
  /** @param {string} cls @param {string} key @param {() => void} act */
  const btn = (cls, key, act) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = `small ${cls}`;
    b.textContent = t(key, { name });
    b.addEventListener("click", act);
    return b;
  };
  const tools = document.createElement("span");
  tools.className = "buttons";
  tools.append(
    btn("join", "friend.join", () => { const f = friends.get(name); if (f && f.table) joinTable(f.table); }),
    btn("message", "friend.message", () => writeTo(name)),
    btn("more", "friend.more", () => openPerson(name, /** @type {HTMLElement} */ (li.querySelector(".more")), null)),
    btn("unfollow", "friend.unfollow", () => unfollow(name)),
  );
  li.append(who, " ", state, " ", tools);
  return li;
}

function updateFriend(/** @type {HTMLElement} */ li, /** @type {Friend} */ f) {
  const parts = [t(f.mutual ? "friend.mutual" : "friend.oneway"), t(f.online ? "friend.online" : "friend.offline")];
  if (f.table) parts.push(t(f.free_seat ? "friend.tablefree" : "friend.table", { table: f.table }));
  const text = `— ${parts.join(", ")}`;
  const state = /** @type {HTMLElement} */ (li.querySelector(".friend-state"));
  if (state.textContent !== text) state.textContent = text;
  /** @type {HTMLElement} */ (li.querySelector(".join")).hidden = !(f.mutual && f.table && f.free_seat);
  /** @type {HTMLElement} */ (li.querySelector(".message")).hidden = !f.mutual;
}

async function follow(/** @type {string} */ name) {
  if (!known()) return;
  const res = await send({ type: "follow", name });
  const note = $("follow-error");
  if (res.type === "error") {
    note.hidden = false;
    note.textContent = res.text || res.message;
    field("follow-name").setAttribute("aria-invalid", "true");
    return;
  }
  note.hidden = true;
  field("follow-name").removeAttribute("aria-invalid");
  field("follow-name").value = "";
  await send({ type: "friends" });
  const f = [...friends.values()].find((x) => x.name.toLowerCase() === name.toLowerCase());
  answer(t(f && f.mutual ? "follow.friends" : "follow.done", { name: f ? f.name : name }));
}

async function unfollow(/** @type {string} */ name) {
  const res = await send({ type: "unfollow", name });
  if (res.type !== "ack") return;
  friends.delete(name);
  renderFriends();
  answer(t("unfollow.done", { name }));
}

// ---------------------------------------------------------------- invitations from a table

async function invite() {
  const name = field("invite-name").value.trim();
  if (!name) { field("invite-name").focus(); return; }
  const res = await send({ type: "invite", name });
  if (res.type !== "ack") return;
  field("invite-name").value = "";
  answer(t("invite.sent", { name }));
}

async function inviteLink() {
  const res = await send({ type: "invite_link" });
  if (res.type !== "invite_link") return;
  const url = new URL(res.path, location.origin).href;
  field("invite-url").value = url;
  $("invite-link-box").hidden = false;
  field("invite-url").focus();
  field("invite-url").select();
  answer(t("invite.linkmade"));
}

async function copyLink() {
  const input = field("invite-url");
  try {
    await navigator.clipboard.writeText(input.value);
    answer(t("invite.copied"));
  } catch (_) {
    // No clipboard here (an insecure page, no permission): the link is selected to copy.
    input.focus();
    input.select();
    answer(t("invite.select"));
  }
}

// ---------------------------------------------------------------- wiring

export function wireSocial() {
  /** @param {string} id @param {() => void} f */
  const submit = (id, f) => $(id).addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); f(); });
  submit("follow-form", () => { const n = field("follow-name").value.trim(); if (n) follow(n); });
  submit("invite-form", invite);
  submit("invite-newcomer", () => {
    const name = field("invite-newname").value.trim();
    if (!name) { urgent(t("me.needname")); return; }
    S.name = name;
    connect();
  });
  $("invite-link").addEventListener("click", inviteLink);
  $("invite-copy").addEventListener("click", copyLink);
  $("invite-accept").addEventListener("click", () => answerInvitation(true));
  $("invite-decline").addEventListener("click", () => answerInvitation(false));
  $("person-follow").addEventListener("click", () => follow(personName()));
  wirePerson();
  wireChat();
  // The invitation's keys work in every view, but never while the player types.
  document.addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (isTyping(/** @type {Element} */ (e.target))) return;
    const action = actionFor(e);
    if (action !== "accept" && action !== "decline") return;
    e.preventDefault();
    answerInvitation(action === "accept");
  });
  // An invitation expires: the banner goes with it.
  window.setInterval(() => { if (invitations.length) renderBanner(); }, 15000);
}

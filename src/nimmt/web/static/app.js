// @ts-check
// The nimmt web client: lobby, table, results, history with replay, help, settings.
// Speaks the WebSocket protocol of docs/protocol.md; every game sentence comes from
// the server's narration (the `text` of each `events` message, and the `sheet` of the
// shortcuts that comes with each view, in the language this page said in `hello`),
// never from these files.
import { t, isolating, setLanguage, translatePage, LANGUAGES } from "./i18n.js";
import { $, S, choice, dialog, field, local } from "./state.js";
import { ACTIONS, KEYS } from "./keys.js";
import { keep, muted, say, urgent } from "./voice.js";
import { cue } from "./sound.js";
import { yourTurn } from "./alert.js";
import {
  connect, forgetTable, onServer, reconnect, refused, saveSeq, send, setConn, welcomed,
} from "./net.js";
import {
  isOver, keysTarget, noteEvents, regainFocus, renderTable, revealFromView, wireTable,
} from "./table.js";
import { focusHand } from "./hand.js";
import { cardSize, setCardSize } from "./cards.js";
import { closeRowDialog, openRowDialog } from "./rows.js";
import {
  joinTable, loadTables, nameRefused, renderMe, renderTables, wireLobby,
} from "./lobby.js";
import { renderOnline } from "./online.js";
import { renderPlayHelp, renderSettings, wireSettings } from "./settings.js";
import { applyTheme, wireMenu } from "./display.js";
import { renderResults, showHistory, wireResults } from "./results.js";
import { wireTutor } from "./tutor.js";
import {
  inviteFromLink, onSocial, reportButton, showFriends, socialWelcome, wireSocial,
} from "./social.js";
import {
  claimingName, renderAccount, sessionBack, sessionEnded, showBoard, showPlayer, wireAccount,
} from "./account.js";

// ---------------------------------------------------------------- server messages

onServer((msg) => {
  switch (msg.type) {
    case "welcome":
      if (msg.token) { S.token = msg.token; local.set("token", msg.token); }
      S.name = msg.player;
      local.set("name", msg.player);
      S.account = Boolean(msg.account);
      local.set("account", msg.account ? 1 : null);
      setConn("online");
      nameRefused(null);
      sessionBack();
      renderMe();
      welcomed();
      socialWelcome();
      break;
    case "table_state": onState(msg); break;
    case "events": onEvents(msg); break;
    case "lobby": renderTables(msg.tables); break;
    case "error": onError(msg); break;
    case "friends": case "presence": case "invitation": case "chat_message": case "online":
      onSocial(msg);
      break;
    default: break;
  }
});

/** Notices heard as someone coming to the table, and as someone leaving it. */
const JOINS = ["sat", "bot_added"];
const LEAVES = ["left", "removed", "kicked"];

function onError(/** @type {import("./state.js").ErrorMsg} */ msg) {
  if (msg.code === "bad_token" || msg.code === "signed_out" || msg.code === "banned") {
    // The session is over (or the server does not know it): said, and the page asks for
    // a name or a sign-in.
    sessionEnded(msg);
    return;
  }
  if (msg.code === "no_table" || msg.code === "closed" || msg.code === "kicked") forgetTable();
  if (!S.welcomed) {
    // The hello itself was refused (a name taken): shown and said by the name field.
    refused(msg);
    // A name chosen on the account page is refused there, by its field (account.js).
    if (!claimingName()) nameRefused(msg.text || msg.message);
    return;
  }
  urgent(msg.text || msg.message);
}

function onState(/** @type {import("./state.js").TableStateMsg} */ msg) {
  // A state further on than this table's stream heard so far comes with the items that
  // led to it, in the next frame: the step waits for them (see settle).
  const itemsDue = S.code === msg.table.code && typeof msg.seq === "number" && msg.seq > S.seq;
  saveSeq(msg.seq);
  S.table = msg.table;
  S.you = msg.you;
  S.prompt = msg.prompt ?? null;
  if (msg.view) S.view = msg.view;
  // Whole, with or without a view: before the first game it says the seats (key W).
  S.sheet = msg.sheet || {};
  S.rounds = msg.rounds || [];
  if (S.code !== msg.table.code) {
    S.code = msg.table.code;
    local.set("table", S.code);
    S.reveal = { plays: [], out: {}, take: null, taken: null };
    S.lastReveal = "";
  }
  revealFromView();
  if (!location.hash.startsWith("#/table/") && !location.hash.startsWith("#/results")) {
    location.hash = `#/table/${S.code}`;
  }
  renderTable();
  settle(itemsDue ? ITEMS_DUE : SETTLE);
}

/** Another seat choosing its card: the log keeps it, the voice does not say it
 * (the step says once that all others have chosen). */
function othersChoice(/** @type {import("./state.js").Item} */ item) {
  return item.kind === "event" && item.event.type === "card_chosen" && item.event.player !== S.you
    && !item.event.face_up;
}

function onEvents(/** @type {import("./state.js").EventsMsg} */ msg) {
  saveSeq(msg.seq);
  S.prompt = msg.prompt ?? null;
  if (msg.older) {
    // A catch-up carries the newest items only: the rest stays on the server, where the
    // history keys find it.
    S.older = msg.older;
    addLog(t("history.older"), "event");
  }
  // The view and the sheet come whole with table_state; here only what changed since
  // (docs/protocol.md).
  if (msg.view) {
    const { revealed_added: added, ...changed } = msg.view;
    S.view = /** @type {import("./state.js").View} */ ({ ...S.view, ...changed });
    // A reveal sends its turn alone, to append to the turns held.
    if (added) S.view.revealed = [...S.view.revealed, ...added];
    S.sheet = { ...S.sheet, ...msg.sheet };
  }
  const items = msg.items || [];
  const events = /** @type {import("./state.js").EventItem[]} */ (
    items.filter((i) => i.kind === "event"));
  const first = events.length ? events[0].seq : Infinity;
  /** @type {string[]} */
  const before = [];
  /** @type {string[]} */
  const after = [];
  for (const item of items) {
    // The default bot taking a seat over (or giving it back) comes as a notice only.
    if (item.kind === "notice" && S.table && (item.notice === "auto_on" || item.notice === "auto_off")
        && typeof item.seat === "number" && S.table.seats[item.seat]) {
      S.table.seats[item.seat].auto = item.notice === "auto_on";
    }
    if (item.kind === "notice") {
      // Someone sitting down or leaving, the default bot: the system's group, which the
      // player may silence (kept in the log and the history then).
      if (muted("system")) { addLog(item.text, "event"); keep(item.text, "game"); }
      else (item.seq < first ? before : after).push(item.text);
      if (JOINS.includes(item.notice)) cue("join");
      else if (LEAVES.includes(item.notice)) cue("leave");
    } else if (item.kind === "chat") {
      const line = addLog(isolating(item.said, [item.name, item.text]), "chat");
      if (item.name !== S.name) line.append(" ", reportButton(item.name, item.text, S.code));
      // Chat is its own channel: said on its own (never inside a game message) unless
      // muted (Shift+M), and kept for the history keys and the key that reads it (.).
      if (item.seat === S.you && item.name === S.name) keep(item.said, "chat");
      else if (muted("chat")) keep(item.said, "chat");
      else {
        say(item.said, { channel: "chat", shownIn: "log" });
        cue("chat");
      }
    }
  }
  noteEvents(events.map((i) => i.event));
  if (events.some((i) => i.event.type === "card_chosen" && i.event.player === S.you)) cue("chosen");
  if (events.some((i) => i.event.type === "round_scored") && !events.some((i) => i.event.type === "game_over")) {
    cue("round");
  }
  const quiet = events.length > 0 && events.every(othersChoice);
  if (quiet) (msg.text || []).forEach((/** @type {string} */ s) => addLog(s, "event"));
  S.step.texts.push(...before, ...(quiet ? [] : msg.text || []), ...after);
  // Key R says it again: the narration of the frame that revealed cards (as the terminal).
  if (events.some((i) => i.event.type === "cards_revealed")) S.lastReveal = (msg.text || []).join(" ");
  renderTable();
  settle();
}

// The frames of one step come together (a table_state is often followed at once by
// the events that led to it): the step is said once they are all in. A prompt said before
// the sentences that led to it would be answered before they are heard (the game's opening,
// hand and rows, after "your turn").
/** Milliseconds the step waits for another frame of it. */
const SETTLE = 60;
/** Milliseconds the step waits at most for the items a table_state said are coming. */
const ITEMS_DUE = 2000;
function settle(/** @type {number} */ wait = SETTLE) {
  window.clearTimeout(S.settleId);
  S.settleId = window.setTimeout(afterUpdate, wait);
}

/** Whether every other seat still playing has chosen this turn's card, and you have not. */
function othersAllChosen() {
  const v = S.view;
  if (!v || S.you === null || v.phase !== "choose" || !v.pending || v.pending.kind !== "card") return false;
  return v.pending.players.length === 1 && v.pending.players[0] === S.you;
}

// After every update: say the step as one message (with the decision asked, once per
// key), move focus only when the player must act, show the results at the end.
function afterUpdate() {
  const p = S.prompt;
  const texts = S.step.texts.splice(0);
  texts.forEach((text) => addLog(text, "event"));
  const turnKey = S.view ? `${S.code}.${S.view.round}.${S.view.turn}` : null;
  const asked = Boolean(p && p.key !== S.announcedKey);
  // Once a turn, when the others are done and you are not (the decision itself says so).
  if (asked) S.chosenSaid = turnKey;
  else if (othersAllChosen() && S.chosenSaid !== turnKey && S.sheet.chosen) {
    S.chosenSaid = turnKey;
    texts.push(S.sheet.chosen);
  }
  if (p && asked) {
    S.announcedKey = p.key;
    const decision = S.sheet.decision || "";
    addLog(decision, "urgent");
    cue(p.kind === "row" ? "row" : "turn");
    yourTurn(decision);
    // The game's messages muted: only the decision is said (what led to it is kept).
    if (muted("game") && texts.length) { keep(texts.join(" "), "game"); texts.length = 0; }
    if (p.kind === "row") {
      // What led to the row choice first; then the dialog opens and says what each row
      // costs, from a live region inside it (see voice.js).
      if (texts.length) say(texts.join(" "), { before: regainFocus, shownIn: "log" });
      say(decision, { level: "assertive", before: () => openRowDialog(p), mute: null, shownIn: "log" });
    } else {
      say([...texts, decision].join(" "),
        { level: "assertive", before: focusHand, mute: null, shownIn: "log" });
    }
    texts.length = 0;
  } else if (texts.length) say(texts.join(" "), { before: regainFocus, shownIn: "log" });
  if (!p || p.kind !== "row") closeRowDialog();
  if (isOver() && S.table && S.shownOver !== `${S.code}.${S.table.game_no}`) {
    S.shownOver = `${S.code}.${S.table.game_no}`;
    cue("over");
    // The final standings are on the table at once; they take focus once the last step
    // has been said (the results page, with the analysis, is a link from there).
    say("", { before: () => { $("standings-h").focus(); return true; } });
  }
}

/** Back to where the chat key (/) was pressed, if it still is on the page. */
function backFromChat() {
  const from = S.chatFrom;
  S.chatFrom = null;
  if (from && from.isConnected && !from.closest("[hidden]")) from.focus();
  else if (from) regainFocus();
}

/** A line of the game log (for review: it is not a live region). */
function addLog(/** @type {string | (string | Node)[]} */ content, /** @type {string} */ kind) {
  const el = $("log");
  const p = document.createElement("p");
  p.className = `log-${kind}`;
  if (Array.isArray(content)) p.append(...content);
  else p.textContent = content;
  el.append(p);
  while (el.childElementCount > 500) el.firstElementChild?.remove();
  el.scrollTop = el.scrollHeight;
  return p;
}

// ---------------------------------------------------------------- help and settings

function renderHelp() {
  $("help-rules").replaceChildren(...["help.r1", "help.r2", "help.r3", "help.r4", "help.r5", "help.r6"]
    .map((k) => { const p = document.createElement("p"); p.textContent = t(k); return p; }));
  const rows = [...ACTIONS.map((a) => [KEYS.on && KEYS.map[a] ? KEYS.map[a].toUpperCase() : t("keys.none"), t(`action.${a}`)]),
    [t("key.arrows"), t("action.move")], [t("key.digits"), t("action.jump")],
    ["Enter", t("action.play")], ["Escape", t("action.back")], ["Ctrl", t("action.stop")]];
  $("help-keys").replaceChildren(...rows.map(([k, d]) => {
    const tr = document.createElement("tr");
    const th = document.createElement("th");
    th.scope = "row";
    th.textContent = k;
    const td = document.createElement("td");
    td.textContent = d;
    tr.append(th, td);
    return tr;
  }));
}

// ---------------------------------------------------------------- routing

/** The label of the view the page shows, for its title (said again in a new language). */
let titleKey = "lobby.title";

/** The tab's title: the view and the game's name, both in the page's language. */
function setTitle(/** @type {string} */ key) {
  titleKey = key;
  document.title = `${t(key)} — ${t("brand")}`;
}

const VIEWS = ["lobby", "table", "results", "history", "friends", "help", "settings", "account",
  "leaderboard", "player"];

function show(/** @type {string} */ view) {
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  return $(`${view}-h`);
}

async function route() {
  const hash = location.hash || "#/";
  window.clearInterval(S.lobbyTimer);
  const parts = hash.slice(2).split("/");
  /** @type {HTMLElement} */
  let target;
  if (parts[0] === "table" && parts[1]) {
    target = show("table");
    // After a reload, hello carries the table and the last seq; otherwise join it.
    if (S.code !== parts[1].toUpperCase() && (S.token || S.name)) joinTable(parts[1]);
    renderTable();
    setTitle("table.doc");
    if (S.prompt) { focusHand(); return; }
    // In the game, where the game's keys work in every screen reader's mode.
    target = keysTarget();
  } else if (parts[0] === "results") {
    target = show("results");
    renderResults();
    setTitle("results.title");
  } else if (parts[0] === "history") {
    target = show("history");
    setTitle("history.title");
    await showHistory(parts[1] ? Number(parts[1]) : null);
    if (parts[1]) return;
  } else if (parts[0] === "friends") {
    target = show("friends");
    setTitle("friends.title");
    showFriends();
  } else if (parts[0] === "help") {
    target = show("help");
    renderHelp();
    setTitle("help.title");
  } else if (parts[0] === "settings") {
    target = show("settings");
    renderSettings();
    setTitle("settings.title");
  } else if (parts[0] === "account") {
    target = show("account");
    setTitle("account.title");
    renderAccount();
  } else if (parts[0] === "leaderboard") {
    target = show("leaderboard");
    setTitle("board.title");
    await showBoard(parts[1] || "classic", Number(parts[2]) || 0);
  } else if (parts[0] === "players" && parts[1]) {
    target = show("player");
    setTitle("player.doc");
    await showPlayer(parts.slice(1).join("/"));
  } else {
    show("lobby");
    // The quick game is the lobby's first control: Enter starts a game against bots.
    // After a session ended, the name field (which the sentence why describes).
    target = $("me-note").hidden ? $("quick-play") : $("me-name");
    renderMe();
    renderOnline();
    loadTables();
    S.lobbyTimer = window.setInterval(loadTables, 10000);
    setTitle("lobby.title");
  }
  if (target && !dialog("row-dialog").open) target.focus();
}

// ---------------------------------------------------------------- wiring

function wire() {
  wireMenu();
  $("me-lang").addEventListener("change", async (/** @type {Event} */ e) => {
    const lang = /** @type {HTMLSelectElement} */ (e.target).value;
    local.set("lang", lang);
    await setLanguage(lang);
    setTitle(titleKey);
    setConn($("conn").dataset.state || "idle");
    renderMe();
    renderOnline();
    renderTable();
    if (!$("view-lobby").hidden) loadTables();
    // The new hello gets a table_state whose sheet is in the new language.
    if (S.ws) reconnect();
  });
  wireLobby();
  $("add-bot").addEventListener("click", () => send({ type: "add_bot", strength: choice("bot-strength").value }));
  $("start-game").addEventListener("click", () => { S.announcedKey = null; send({ type: "start" }); });
  $("sit-down").addEventListener("click", () => send({ type: "sit" }));
  $("take-over").addEventListener("click", () => send({ type: "take_over" }));
  $("leave").addEventListener("click", async () => {
    await send({ type: "leave" });
    forgetTable();
    location.hash = "#/";
  });
  $("rematch").addEventListener("click", async () => {
    S.announcedKey = null;
    await send({ type: "rematch" });
    location.hash = `#/table/${S.code}`;
  });
  $("chat-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    const text = field("chat-text").value.trim();
    if (!text) return;
    send({ type: "chat", text });
    field("chat-text").value = "";
    backFromChat();
  });
  $("chat-text").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Escape" && S.chatFrom) { e.preventDefault(); backFromChat(); }
  });
  wireTable();
  wireResults();
  wireTutor();
  wireSocial();
  wireAccount();
  $("history-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    const id = field("history-id").value;
    if (id) location.hash = `#/history/${id}`;
  });
  wireSettings();
  window.addEventListener("hashchange", route);
}

applyTheme();

async function main() {
  const lang = local.get("lang") || "en";
  choice("me-lang").value = LANGUAGES.includes(lang) ? lang : "en";
  await setLanguage(choice("me-lang").value);
  translatePage();
  renderPlayHelp();
  setCardSize(cardSize());
  setConn("idle");
  wire();
  const invited = inviteFromLink();
  if (S.token) connect();
  if (S.token && S.code && !location.hash.startsWith("#/table/")) location.hash = `#/table/${S.code}`;
  await route();
  if (invited) $("invite-newname").focus();
  document.body.dataset.ready = "1";
}

main();

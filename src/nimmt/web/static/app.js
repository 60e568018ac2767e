// The nimmt web client: lobby, table, results, history with replay, help, settings.
// Speaks the WebSocket protocol of docs/protocol.md; every game sentence comes from
// the server's narration (the `text` of each `events` message, in the language this
// page said in `hello`; GET /api/speech/{code} for the shortcuts' sentences and the
// view), never from this file.
import {
  t, tn, isolate, joined, plain, setLanguage, language, translatePage, LANGUAGES,
} from "./i18n.js";
import { announce, lastAnnouncement, cue, soundOn, setSound } from "./live.js";

const $ = (id) => document.getElementById(id);
const store = {
  get: (k) => localStorage.getItem(`nimmt.${k}`),
  set: (k, v) => (v === null || v === undefined
    ? localStorage.removeItem(`nimmt.${k}`) : localStorage.setItem(`nimmt.${k}`, String(v))),
};

// ---------------------------------------------------------------- state

const S = {
  ws: null, open: false, welcomed: false, retry: 0, closing: false,
  token: store.get("token"), name: store.get("name"),
  code: store.get("table"), seq: Number(store.get("seq") || 0),
  table: null, you: null, view: null, prompt: null, sheet: {},
  announcedKey: null, warnedKey: null, deadline: null, timerId: null,
  chain: Promise.resolve(), refs: 0, waiters: new Map(), queue: [], onWelcome: [],
  cursor: 0, rowCursor: 0, typed: "", typedAt: 0, returnFocus: null, shownOver: null,
};

// ---------------------------------------------------------------- keys

const ACTIONS = ["rows", "row1", "row2", "row3", "row4", "bullheads", "chosen", "scores",
  "repeat", "keys"];
const DEFAULT_KEYS = { rows: "v", row1: "1", row2: "2", row3: "3", row4: "4", bullheads: "c",
  chosen: "t", scores: "s", repeat: "r", keys: "h" };

function loadKeys() {
  try {
    const saved = JSON.parse(store.get("keys") || "{}");
    return { on: saved.on !== false, map: { ...DEFAULT_KEYS, ...(saved.map || {}) } };
  } catch (_) {
    return { on: true, map: { ...DEFAULT_KEYS } };
  }
}
let KEYS = loadKeys();

function normSpec(spec) {
  const parts = String(spec).toLowerCase().replace(/\s+/g, "").split("+").filter(Boolean);
  const key = parts.pop() || "";
  const mods = ["ctrl", "alt", "shift"].filter((m) => parts.includes(m));
  return [...mods, key].join("+");
}

function eventSpec(e) {
  let key = e.key.toLowerCase();
  if (e.code.startsWith("Key")) key = e.code.slice(3).toLowerCase();
  else if (e.code.startsWith("Digit")) key = e.code.slice(5);
  else if (/^Numpad\d$/.test(e.code)) key = e.code.slice(6);
  const mods = [];
  if (e.ctrlKey) mods.push("ctrl");
  if (e.altKey) mods.push("alt");
  if (e.shiftKey) mods.push("shift");
  return [...mods, key].join("+");
}

function actionFor(e) {
  if (!KEYS.on) return null;
  const spec = eventSpec(e);
  return ACTIONS.find((a) => KEYS.map[a] && normSpec(KEYS.map[a]) === spec) || null;
}

function isTyping(el) {
  return el && (el.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(el.tagName));
}

// ---------------------------------------------------------------- connection

function setConn(state) {
  const el = $("conn");
  el.dataset.state = state;
  el.textContent = t(`conn.${state}`);
}

function connect() {
  if (S.ws && (S.ws.readyState === WebSocket.OPEN || S.ws.readyState === WebSocket.CONNECTING)) return;
  if (!S.token && !S.name) return;
  setConn("connecting");
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  const ws = new WebSocket(`${proto}//${location.host}/ws`);
  S.ws = ws;
  S.welcomed = false;
  ws.onopen = () => {
    S.open = true;
    S.retry = 0;
    const hello = { type: "hello", lang: language() };
    if (S.token) hello.token = S.token; else hello.name = S.name;
    if (S.token && S.code) {
      hello.table = S.code;
      hello.last_seq = S.seq;
    }
    ws.send(JSON.stringify(hello));
  };
  ws.onmessage = (e) => onMessage(JSON.parse(e.data));
  ws.onclose = () => {
    S.open = false;
    S.welcomed = false;
    if (S.ws !== ws || S.closing) return;
    setConn("offline");
    const delay = Math.min(5000, 300 * 2 ** S.retry++);
    setTimeout(connect, delay);
  };
}

// A new hello (the server narrates in the language a connection said in its hello):
// after a change of language, reconnect at once; the seat and the table come back.
function reconnect() {
  const old = S.ws;
  S.ws = null;
  S.open = false;
  S.welcomed = false;
  if (old) old.close();
  connect();
}

function whenWelcomed() {
  if (S.welcomed) return Promise.resolve();
  connect();
  return new Promise((resolve) => S.onWelcome.push(resolve));
}

// Send a message; resolves with the answer that carries its ref (ack, table_state, error).
async function send(msg) {
  await whenWelcomed();
  const ref = ++S.refs;
  msg.ref = ref;
  return new Promise((resolve) => {
    S.waiters.set(ref, resolve);
    S.ws.send(JSON.stringify(msg));
  });
}

function saveSeq(seq) {
  if (typeof seq === "number" && seq >= S.seq) {
    S.seq = seq;
    store.set("seq", seq);
  }
}

function onMessage(msg) {
  switch (msg.type) {
    case "welcome":
      S.welcomed = true;
      if (msg.token) { S.token = msg.token; store.set("token", msg.token); }
      S.name = msg.player;
      store.set("name", msg.player);
      setConn("online");
      renderMe();
      S.onWelcome.splice(0).forEach((f) => f());
      break;
    case "table_state":
      onState(msg);
      break;
    case "events":
      onEvents(msg);
      break;
    case "lobby":
      renderTables(msg.tables);
      break;
    case "error":
      onError(msg);
      break;
    default:
      break;
  }
  if (msg.ref !== undefined && msg.ref !== null && S.waiters.has(msg.ref)) {
    S.waiters.get(msg.ref)(msg);
    S.waiters.delete(msg.ref);
  }
}

function onError(msg) {
  if (msg.code === "bad_token") {
    // The server does not know this token (a new database): start again by name.
    S.token = null;
    store.set("token", null);
    forgetTable();
    if (S.ws) S.ws.close();
    return;
  }
  if (msg.code === "no_table" || msg.code === "closed" || msg.code === "kicked") forgetTable();
  const known = t(`error.${msg.code}`);
  say(known !== `error.${msg.code}` ? known : msg.message, "assertive");
}

function forgetTable() {
  S.code = null; S.seq = 0; S.table = null; S.view = null; S.prompt = null;
  store.set("table", null); store.set("seq", null);
}

// ---------------------------------------------------------------- narration

// `content` is a string, or nodes from tn() (names inside <bdi>): the live region gets
// its plain text, the log the nodes.
function say(content, level = "polite", log = true) {
  if (!content || !content.length) return;
  announce(Array.isArray(content) ? plain(content) : content, level);
  if (log) addLog(content, level === "assertive" ? "urgent" : "event");
}

function addLog(content, kind) {
  const el = $("log");
  const p = document.createElement("p");
  p.className = `log-${kind}`;
  if (Array.isArray(content)) p.append(...content);
  else p.textContent = content;
  el.append(p);
  while (el.childElementCount > 500) el.firstElementChild.remove();
  el.scrollTop = el.scrollHeight;
}

async function speech(after, upto) {
  const q = new URLSearchParams({ lang: language(), after, upto });
  const res = await fetch(`/api/speech/${encodeURIComponent(S.code)}?${q}`, {
    headers: S.token ? { "X-Nimmt-Token": S.token } : {},
  });
  if (!res.ok) return null;
  return res.json();
}

function queue(task) {
  S.chain = S.chain.then(task).catch((err) => console.error(err));
  return S.chain;
}

function onState(msg) {
  saveSeq(msg.seq);
  S.table = msg.table;
  S.you = msg.you;
  S.prompt = msg.prompt;
  if (msg.view) S.view = msg.view;
  if (S.code !== msg.table.code) {
    S.code = msg.table.code;
    store.set("table", S.code);
  }
  if (!location.hash.startsWith("#/table/") && !location.hash.startsWith("#/results")) {
    location.hash = `#/table/${S.code}`;
  }
  renderTable();
  queue(async () => {
    const sp = S.view ? await speech(msg.seq, msg.seq) : null;
    if (sp) applySpeech(sp);
    settle();
  });
}

// The decision asked is said once the messages that arrived together are told:
// a table_state is often followed at once by the events that led to it.
function settle() {
  clearTimeout(S.settleId);
  S.settleId = setTimeout(() => queue(afterUpdate), 80);
}

// A notice in the page's language from its machine-readable fields (notice, reason,
// seat, name); the server's English sentence only when the catalog has no key for it.
function noticeText(item) {
  const seat = item.seat === null || item.seat === undefined ? "" : item.seat + 1;
  const params = { name: item.name || "", seat };
  const keys = [];
  if (item.reason) {
    if (item.seat !== null && item.seat === S.you) keys.push(`notice.${item.notice}.${item.reason}.you`);
    keys.push(`notice.${item.notice}.${item.reason}`);
  }
  keys.push(`notice.${item.notice}`);
  for (const key of keys) {
    if (t(key, params) !== key) return tn(key, { ...params, name: isolate(params.name) });
  }
  return item.text;
}

function onEvents(msg) {
  saveSeq(msg.seq);
  S.prompt = msg.prompt;
  const items = msg.items || [];
  const events = items.filter((i) => i.kind === "event");
  queue(async () => {
    // The narration came with the message; the speech sheet brings the view as it is
    // now and the sentences of the shortcuts (no events: after = upto).
    const sp = S.code && (events.length || S.view) ? await speech(msg.seq, msg.seq) : null;
    const first = events.length ? events[0].seq : Infinity;
    const before = [];
    const after = [];
    for (const item of items) {
      let text = null;
      // The default bot taking a seat over (or giving it back) comes as a notice only.
      if (item.kind === "notice" && S.table && (item.notice === "auto_on" || item.notice === "auto_off")
          && S.table.seats[item.seat]) {
        S.table.seats[item.seat].auto = item.notice === "auto_on";
      }
      if (item.kind === "notice") text = noticeText(item);
      else if (item.kind === "chat") {
        const line = () => tn("chat.line", { name: isolate(item.name), text: isolate(item.text) });
        addLog(line(), "chat");
        if (item.seat === S.you && item.name === S.name) continue;
        announce(plain(line()), "polite");
        continue;
      }
      if (text) (item.seq < first ? before : after).push(text);
    }
    const sentences = [...before, ...(msg.text || []), ...after];
    if (sp) applySpeech(sp);
    // Notices come as nodes (names in <bdi>), the narration as strings: one log line.
    const line = sentences.flatMap((x, i) => [...(i ? [" "] : []), ...(Array.isArray(x) ? x : [x])]);
    if (line.length) say(line);
    if (events.some((i) => i.event.type === "row_taken" && i.event.player === S.you)) cue("take");
    settle();
  });
}

function applySpeech(sp) {
  if (sp.view) S.view = sp.view;
  S.sheet = sp.sheet || {};
  renderTable();
}

// After every update: say the decision asked (once per key), move focus, results.
function afterUpdate() {
  const p = S.prompt;
  renderTimer();
  if (p && p.key !== S.announcedKey) {
    S.announcedKey = p.key;
    say(S.sheet.decision || t(`decision.${p.kind}`), "assertive");
    cue("turn");
    if (p.kind === "row") openRowDialog(p);
    else focusHand();
  }
  if (!p || p.kind !== "row") closeRowDialog(false);
  if (isOver() && S.shownOver !== `${S.code}.${S.table.game_no}`) {
    S.shownOver = `${S.code}.${S.table.game_no}`;
    cue("over");
    location.hash = "#/results";
  }
}

// ---------------------------------------------------------------- table rendering

function isOver() {
  return Boolean(S.table && (S.table.status === "over" || (S.view && S.view.phase === "over")));
}

function names() {
  return S.table ? S.table.seats.map((s) => s.name || t("seat.empty", { seat: s.seat + 1 })) : [];
}

function cardEl(card, tag = "span") {
  const el = document.createElement(tag);
  el.className = "card";
  const bh = bullheadsOf(card);
  el.dataset.bh = String(bh);
  const num = document.createElement("span");
  num.className = "num";
  num.textContent = cardLabel(card);
  const heads = document.createElement("span");
  heads.className = "heads";
  heads.setAttribute("aria-hidden", "true");
  heads.textContent = "♉".repeat(bh);
  el.append(num, heads);
  return el;
}

export function bullheadsOf(card) {
  if (card < 0) return 1;
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

function cardLabel(card) {
  return card < 0 ? `${t("joker")} 0.${card + 10}` : String(card);
}

function cardName(card) {
  return t("card.name", { card: cardLabel(card), count: bullheadsOf(card) });
}

function renderTable() {
  const tb = S.table;
  if (!tb) return;
  $("table-h").replaceChildren(...tn("table.title", { name: isolate(tb.name), code: tb.code }));
  $("table-rules").textContent = S.sheet.rules
    || t("table.rules", { rules: tb.rules_name, players: tb.seats.length });
  const seatList = $("seat-list");
  seatList.replaceChildren(...tb.seats.map((s) => {
    const li = document.createElement("li");
    const parts = s.kind === "empty" ? [t("seat.empty", { seat: s.seat + 1 })]
      : tn(s.kind === "bot" ? "seat.bot" : "seat.human", { seat: s.seat + 1, name: isolate(s.name) });
    if (s.seat === S.you) parts.push(` (${t("you")})`);
    li.replaceChildren(...parts);
    return li;
  }));
  const host = tb.host === S.name;
  const open = tb.status === "open";
  $("seating").hidden = !open;
  $("host-tools").hidden = !(open && host);
  $("sit-down").hidden = !(open && S.you === null && tb.seats.some((s) => s.kind === "empty"));
  $("game").hidden = !S.view || open;
  const mine = S.you !== null && S.you !== undefined ? tb.seats[S.you] : null;
  $("auto-note").hidden = !(mine && mine.auto && !isOver());
  if (S.view) renderGame();
}

function renderGame() {
  const v = S.view;
  const sh = S.sheet;
  const ns = names();
  // Status line
  const p = S.prompt;
  let status;
  if (isOver()) status = [t("status.over")];
  else if (p) status = [t(`decision.${p.kind}`)];
  else if (v.pending) {
    const who = joined(v.pending.players.map((i) => isolate(ns[i])));
    status = tn("status.waiting", { who });
  } else status = [];
  $("status").replaceChildren(`${t("status.round", { round: v.round, turn: v.turn })} `, ...status);

  // Rows: a menu to move through (V); each row's name is the narrator's sentence.
  const rows = $("rows");
  const focusedRow = rows.contains(document.activeElement);
  rows.replaceChildren(...v.rows.map((row, i) => {
    const li = document.createElement("li");
    li.setAttribute("role", "menuitem");
    li.tabIndex = i === S.rowCursor ? 0 : -1;
    li.dataset.row = String(i + 1);
    li.setAttribute("aria-label", (sh.row && sh.row[i]) || t("row.label", { row: i + 1 }));
    const label = document.createElement("span");
    label.className = "row-no";
    label.setAttribute("aria-hidden", "true");
    label.textContent = `${i + 1}`;
    const cards = document.createElement("span");
    cards.className = "row-cards";
    cards.setAttribute("aria-hidden", "true");
    cards.append(...row.map((c) => cardEl(c)));
    li.append(label, cards);
    return li;
  }));
  if (focusedRow) rows.children[S.rowCursor]?.focus();

  // Hand (or the draft pool): a listbox.
  const drafting = p && p.kind === "draft";
  const cards = drafting ? v.draft_pool : v.hand;
  const hand = $("hand");
  const focusedHand = hand.contains(document.activeElement);
  const prev = hand.children[S.cursor]?.dataset.card;
  if (prev !== undefined) {
    const idx = cards.indexOf(Number(prev));
    if (idx >= 0) S.cursor = idx;
  }
  S.cursor = Math.max(0, Math.min(S.cursor, cards.length - 1));
  const playable = new Set(p && (p.kind === "card" || p.kind === "draft") ? p.options : []);
  hand.replaceChildren(...cards.map((c, i) => {
    const li = cardEl(c, "li");
    li.setAttribute("role", "option");
    li.id = `card-${c}`;
    li.dataset.card = String(c);
    li.tabIndex = i === S.cursor ? 0 : -1;
    li.setAttribute("aria-selected", i === S.cursor ? "true" : "false");
    const chosen = v.my_choice === c;
    li.classList.toggle("chosen", chosen);
    if (!playable.has(c)) li.setAttribute("aria-disabled", "true");
    li.setAttribute("aria-label", chosen ? t("card.chosen", { name: cardName(c) }) : cardName(c));
    return li;
  }));
  $("hand-h").textContent = drafting ? t("hand.pool") : t("hand.title");
  hand.closest("section").hidden = cards.length === 0;
  if (focusedHand && cards.length) hand.children[S.cursor].focus();

  // Players
  $("players").replaceChildren(...S.table.seats.map((s, i) => {
    const li = document.createElement("li");
    const done = v.chosen && v.chosen[i];
    const out = v.eliminated && v.eliminated[i];
    li.className = done ? "done" : "";
    const mark = out ? t("player.out") : (v.pending && v.pending.kind === "card"
      ? (done ? t("player.chosen") : t("player.choosing")) : "");
    const who = i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])];
    const more = [mark, s.auto ? t("player.auto") : "",
      s.kind === "human" && !s.connected ? t("player.away") : ""].filter(Boolean);
    li.replaceChildren(...tn("player.score", { name: who, count: v.scores[i] }),
      ...more.map((m) => ` — ${m}`));
    return li;
  }));
}

// ---------------------------------------------------------------- turn timer

function renderTimer() {
  const p = S.prompt;
  clearInterval(S.timerId);
  // A prompt sent before the server started its clock has no seconds: count the whole turn.
  const seconds = p && (p.seconds ?? (S.table && S.table.turn_timer));
  if (!p || seconds === null || seconds === undefined) {
    $("timer").hidden = true;
    S.deadline = null;
    return;
  }
  if (p.seconds !== null || S.timerKey !== p.key) S.deadline = Date.now() + seconds * 1000;
  S.timerKey = p.key;
  $("timer").hidden = false;
  const tick = () => {
    const left = Math.max(0, Math.ceil((S.deadline - Date.now()) / 1000));
    $("timer-s").textContent = String(left);
    if (left <= 10 && S.warnedKey !== p.key && left > 0) {
      S.warnedKey = p.key;
      say((S.sheet.timer || {})[left] || t("timer.warn", { count: left }), "assertive");
      cue("warn");
    }
  };
  tick();
  S.timerId = setInterval(tick, 500);
}

// ---------------------------------------------------------------- the hand (listbox)

function focusHand() {
  const active = document.activeElement;
  if (isTyping(active) && active.closest("#chat-form")) return;
  const hand = $("hand");
  const opt = hand.children[S.cursor] || hand.firstElementChild;
  if (opt) opt.focus();
}

function moveCursor(i) {
  const hand = $("hand");
  const n = hand.children.length;
  if (!n) return;
  S.cursor = Math.max(0, Math.min(n - 1, i));
  [...hand.children].forEach((li, k) => {
    li.tabIndex = k === S.cursor ? 0 : -1;
    li.setAttribute("aria-selected", k === S.cursor ? "true" : "false");
  });
  hand.children[S.cursor].focus();
}

function chooseCurrent() {
  const li = $("hand").children[S.cursor];
  const p = S.prompt;
  if (!li) return;
  const card = Number(li.dataset.card);
  if (!p || !(p.kind === "card" || p.kind === "draft")) {
    say(t("error.not_your_turn"), "assertive");
    return;
  }
  if (!p.options.includes(card)) {
    say(t("card.notplayable", { card: cardLabel(card) }), "assertive");
    return;
  }
  const msg = p.kind === "draft" ? { type: "draft_card", card } : { type: "play_card", card };
  // The server's narration of the choice ("You choose 40.") confirms it.
  send(msg);
}

function onHandKey(e) {
  const n = $("hand").children.length;
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  switch (e.key) {
    case "ArrowDown": case "ArrowRight": moveCursor(S.cursor + 1); break;
    case "ArrowUp": case "ArrowLeft": moveCursor(S.cursor - 1); break;
    case "Home": moveCursor(0); break;
    case "End": moveCursor(n - 1); break;
    case "Enter": case " ": chooseCurrent(); break;
    default:
      if (/^\d$/.test(e.key)) {
        // Type a card number to jump to it.
        const now = Date.now();
        S.typed = now - S.typedAt > 1000 ? e.key : S.typed + e.key;
        S.typedAt = now;
        const opts = [...$("hand").children];
        const k = opts.findIndex((li) => cardLabel(Number(li.dataset.card)) === S.typed);
        const j = k >= 0 ? k : opts.findIndex((li) => cardLabel(Number(li.dataset.card)).startsWith(S.typed));
        if (j >= 0) moveCursor(j);
        break;
      }
      return;
  }
  e.preventDefault();
  e.stopPropagation();
}

// ---------------------------------------------------------------- rows menu (V)

function focusRows() {
  const rows = $("rows");
  const item = rows.children[S.rowCursor] || rows.firstElementChild;
  if (item) item.focus();
}

function onRowsKey(e) {
  const rows = $("rows");
  const n = rows.children.length;
  let i = S.rowCursor;
  if (e.key === "ArrowDown" || e.key === "ArrowRight") i = (i + 1) % n;
  else if (e.key === "ArrowUp" || e.key === "ArrowLeft") i = (i - 1 + n) % n;
  else if (e.key === "Home") i = 0;
  else if (e.key === "End") i = n - 1;
  else if (e.key === "Escape") { e.preventDefault(); focusHand(); return; }
  else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    say((S.sheet.row || [])[i], "polite", false);
    return;
  } else return;
  e.preventDefault();
  e.stopPropagation();
  S.rowCursor = i;
  [...rows.children].forEach((li, k) => { li.tabIndex = k === i ? 0 : -1; });
  rows.children[i].focus();
}

// ---------------------------------------------------------------- shortcuts

function onGameKey(e) {
  if (isTyping(e.target)) return;
  const action = actionFor(e);
  if (!action) return;
  e.preventDefault();
  const sh = S.sheet;
  const rowOf = (a) => Number(a.slice(3));
  switch (action) {
    case "rows": focusRows(); say(sh.rows, "polite", false); break;
    case "row1": case "row2": case "row3": case "row4":
      say((sh.row || [])[rowOf(action) - 1] || t("row.none", { row: rowOf(action) }), "polite", false);
      break;
    case "bullheads": {
      const el = document.activeElement;
      if (el && el.dataset.row) say((sh.row_bullheads || [])[Number(el.dataset.row) - 1], "polite", false);
      else {
        const li = el && el.dataset.card ? el : $("hand").children[S.cursor];
        if (li) say((sh.cards || {})[li.dataset.card] || cardName(Number(li.dataset.card)), "polite", false);
      }
      break;
    }
    case "chosen": say(sh.chosen, "polite", false); break;
    case "scores": say(sh.scores, "polite", false); break;
    case "repeat": announce(lastAnnouncement(), "polite"); break;
    case "keys": say(keysSummary(), "polite", false); break;
    default: break;
  }
}

function keysSummary() {
  if (!KEYS.on) return t("keys.off");
  return ACTIONS.filter((a) => KEYS.map[a])
    .map((a) => `${KEYS.map[a].toUpperCase()}: ${t(`action.${a}`)}`).join(". ");
}

// ---------------------------------------------------------------- row-choice dialog

function openRowDialog(p) {
  const dlg = $("row-dialog");
  const v = S.view;
  const sh = S.sheet;
  $("row-dialog-h").textContent = t(p.reason === "joker" ? "rowdlg.joker" : "rowdlg.title",
    { card: cardLabel(p.card) });
  const box = $("row-choices");
  const best = defaultRow(v.rows, p.options);
  box.replaceChildren(...p.options.map((r) => {
    const label = document.createElement("label");
    label.className = "choice";
    const input = document.createElement("input");
    input.type = "radio";
    input.name = "row";
    input.value = String(r);
    input.checked = r === best;
    const text = document.createElement("span");
    text.textContent = (sh.row && sh.row[r - 1]) || t("row.label", { row: r });
    label.append(input, text);
    return label;
  }));
  if (!dlg.open) {
    S.returnFocus = document.activeElement;
    dlg.showModal();
  }
  box.querySelector("input:checked").focus();
}

// The default suggestion: fewest bullheads, then fewest cards, then the lowest number.
function defaultRow(rows, options) {
  const cost = (r) => [rows[r - 1].reduce((a, c) => a + bullheadsOf(c), 0), rows[r - 1].length, r];
  return [...options].sort((a, b) => {
    const x = cost(a); const y = cost(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[0];
}

function closeRowDialog(restore = true) {
  const dlg = $("row-dialog");
  if (!dlg.open) return;
  dlg.close();
  const back = S.returnFocus;
  S.returnFocus = null;
  if (restore && back && document.contains(back) && !back.closest("dialog")) back.focus();
  else focusHand();
}

function submitRow() {
  const input = $("row-choices").querySelector("input:checked");
  if (!input || !S.prompt || S.prompt.kind !== "row") return;
  const row = Number(input.value);
  send({ type: "take_row", row });
  closeRowDialog(true);
}

// ---------------------------------------------------------------- lobby

function renderMe() {
  const known = Boolean(S.token && S.name);
  $("me-known").hidden = !known;
  $("me-known").replaceChildren(...(known ? tn("me.known", { name: isolate(S.name) }) : []));
  $("me-name-field").hidden = known;
}

async function loadTables() {
  try {
    const res = await fetch("/api/tables");
    renderTables((await res.json()).tables);
  } catch (_) {
    renderTables([]);
  }
}

function renderTables(tables) {
  const list = $("tables-list");
  if (!tables.length) {
    const li = document.createElement("li");
    li.textContent = t("lobby.none");
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(...tables.map((tb) => {
    const li = document.createElement("li");
    const text = document.createElement("span");
    text.replaceChildren(...tn("lobby.table", { name: isolate(tb.name), rules: tb.rules_name,
      taken: tb.taken, seats: tb.seats, status: t(`status.${tb.status}`) }));
    const b = document.createElement("button");
    b.type = "button";
    const full = tb.taken >= tb.seats || tb.status !== "open";
    b.replaceChildren(...tn(full ? "lobby.watchbtn" : "lobby.joinbtn", { name: isolate(tb.name) }));
    b.addEventListener("click", () => joinTable(tb.code));
    li.append(text, " ", b);
    return li;
  }));
}

function needName() {
  if (S.token) return true;
  const name = $("me-name").value.trim();
  if (!name) {
    say(t("me.needname"), "assertive");
    $("me-name").focus();
    return false;
  }
  S.name = name;
  return true;
}

async function joinTable(code) {
  if (!needName()) return;
  const answer = await send({ type: "join", table: code.trim().toUpperCase() });
  if (answer.type === "table_state" && answer.you === null && answer.table.status === "open") {
    await send({ type: "sit" });
  }
}

async function createTable(form) {
  if (!needName()) return;
  const data = new FormData(form);
  const rules = {
    preset: data.get("preset"),
    variants: data.getAll("variant"),
    players: Number(data.get("players")),
    end: data.get("end"),
  };
  if (data.get("limit")) rules.limit = Number(data.get("limit"));
  if (rules.end === "rounds") rules.rounds = Number(data.get("rounds"));
  const msg = { type: "create_table", rules, rated: $("c-rated").checked,
    private: $("c-private").checked };
  if (data.get("timer")) msg.turn_timer = Number(data.get("timer"));
  if (data.get("tname")) msg.name = String(data.get("tname"));
  S.announcedKey = null;
  await send(msg);
}

// ---------------------------------------------------------------- results

function renderResults() {
  const v = S.view;
  const tb = S.table;
  if (!v || !tb) {
    $("results-summary").textContent = t("results.none");
    $("results-body").replaceChildren();
    return;
  }
  const ns = names();
  const order = ns.map((_, i) => i).sort((a, b) => v.scores[a] - v.scores[b]);
  const winners = (v.winners || []).map((i) => isolate(ns[i]));
  $("results-summary").replaceChildren(...(winners.length
    ? tn("results.winners", { names: joined(winners), count: winners.length }) : []));
  $("results-body").replaceChildren(...order.map((i, k) => {
    const tr = document.createElement("tr");
    for (const cell of [[String(k + 1)],
      i === S.you ? tn("player.you", { name: isolate(ns[i]) }) : [isolate(ns[i])],
      [String(v.scores[i])]]) {
      const td = document.createElement("td");
      td.append(...cell);
      tr.append(td);
    }
    return tr;
  }));
  $("rematch").hidden = !(isOver() && tb.host === S.name);
}

// ---------------------------------------------------------------- history and replay

const R = { data: null, step: 0 };

async function showHistory(id) {
  $("replay").hidden = true;
  const list = $("history-list");
  list.replaceChildren();
  if (S.name) {
    const res = await fetch(`/api/players/${encodeURIComponent(S.name)}`);
    if (res.ok) {
      const data = await res.json();
      list.replaceChildren(...data.games.map((g) => {
        const li = document.createElement("li");
        const a = document.createElement("a");
        a.href = `#/history/${g.id}`;
        a.textContent = t("history.game", { id: g.id, count: g.total,
          result: t(g.winner ? "history.won" : "history.lost") });
        li.append(a);
        return li;
      }));
    }
  }
  if (!list.childElementCount) {
    const li = document.createElement("li");
    li.textContent = t("history.none");
    list.append(li);
  }
  if (id) await openReplay(id);
}

async function openReplay(id) {
  const res = await fetch(`/api/games/${id}/replay?lang=${language()}`);
  if (!res.ok) {
    say(t("history.missing", { id }), "assertive");
    return;
  }
  R.data = await res.json();
  R.step = 0;
  $("replay").hidden = false;
  $("replay-h").replaceChildren(...tn("replay.title",
    { id, players: joined(R.data.players.map((n) => isolate(n))) }));
  renderStep(false);
  $("replay-h").focus();
}

function renderStep(speak = true) {
  const d = R.data;
  const st = d.steps[R.step];
  $("replay-pos").textContent = t("replay.pos", { step: R.step + 1, count: d.steps.length });
  $("replay-text").replaceChildren(...st.sentences.map((s) => {
    const p = document.createElement("p");
    p.textContent = s;
    return p;
  }));
  $("replay-rows").replaceChildren(...st.rows.map((row, i) => {
    const li = document.createElement("li");
    const label = document.createElement("span");
    label.className = "row-no";
    label.textContent = t("row.label", { row: i + 1 });
    const cards = document.createElement("span");
    cards.className = "row-cards";
    cards.append(...row.map((c) => cardEl(c)));
    li.append(label, " ", cards);
    return li;
  }));
  $("replay-scores").replaceChildren(...d.players.map((n, i) => {
    const li = document.createElement("li");
    li.replaceChildren(...tn("player.score", { name: isolate(n), count: st.scores[i] }));
    return li;
  }));
  $("replay-prev").disabled = R.step === 0;
  $("replay-first").disabled = R.step === 0;
  $("replay-next").disabled = R.step === d.steps.length - 1;
  $("replay-last").disabled = R.step === d.steps.length - 1;
  if (speak) say(`${$("replay-pos").textContent} ${st.sentences.join(" ")}`, "polite", false);
}

function stepTo(i) {
  if (!R.data) return;
  const n = R.data.steps.length;
  const next = Math.max(0, Math.min(n - 1, i));
  const moved = next !== R.step;
  R.step = next;
  renderStep(moved);
}

// ---------------------------------------------------------------- help and settings

function renderHelp() {
  const rules = $("help-rules");
  rules.replaceChildren(...["help.r1", "help.r2", "help.r3", "help.r4", "help.r5", "help.r6"]
    .map((k) => { const p = document.createElement("p"); p.textContent = t(k); return p; }));
  const rows = [...ACTIONS.map((a) => [KEYS.on && KEYS.map[a] ? KEYS.map[a].toUpperCase() : t("keys.none"), t(`action.${a}`)]),
    [t("key.arrows"), t("action.move")], [t("key.digits"), t("action.jump")],
    ["Enter", t("action.play")], ["Escape", t("action.back")]];
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

function renderSettings() {
  $("set-keys-on").checked = KEYS.on;
  $("set-sound").checked = soundOn;
  $("set-keys").replaceChildren(...ACTIONS.map((a) => {
    const div = document.createElement("div");
    div.className = "field";
    const label = document.createElement("label");
    label.htmlFor = `key-${a}`;
    label.textContent = t(`action.${a}`);
    const input = document.createElement("input");
    input.id = `key-${a}`;
    input.name = a;
    input.autocomplete = "off";
    input.value = KEYS.map[a] || "";
    div.append(label, input);
    return div;
  }));
}

function saveSettings() {
  const map = {};
  for (const a of ACTIONS) map[a] = $(`key-${a}`).value.trim().toLowerCase();
  KEYS = { on: $("set-keys-on").checked, map };
  store.set("keys", JSON.stringify(KEYS));
  setSound($("set-sound").checked);
  say(t("settings.saved"), "polite", false);
}

// ---------------------------------------------------------------- routing

const VIEWS = ["lobby", "table", "results", "history", "help", "settings"];

function show(view) {
  for (const v of VIEWS) $(`view-${v}`).hidden = v !== view;
  const h = $(`${view === "lobby" ? "lobby" : view}-h`);
  return h;
}

async function route() {
  const hash = location.hash || "#/";
  clearInterval(S.lobbyTimer);
  const parts = hash.slice(2).split("/");
  let heading;
  if (parts[0] === "table" && parts[1]) {
    heading = show("table");
    // After a reload, hello carries the table and the last seq; otherwise join it.
    if (S.code !== parts[1].toUpperCase() && (S.token || S.name)) joinTable(parts[1]);
    renderTable();
    document.title = `${t("table.doc")} — 6 nimmt!`;
    if (S.prompt) { focusHand(); return; }
  } else if (parts[0] === "results") {
    heading = show("results");
    renderResults();
    document.title = `${t("results.title")} — 6 nimmt!`;
  } else if (parts[0] === "history") {
    heading = show("history");
    document.title = `${t("history.title")} — 6 nimmt!`;
    await showHistory(parts[1] ? Number(parts[1]) : null);
    if (parts[1]) return;
  } else if (parts[0] === "help") {
    heading = show("help");
    renderHelp();
    document.title = `${t("help.title")} — 6 nimmt!`;
  } else if (parts[0] === "settings") {
    heading = show("settings");
    renderSettings();
    document.title = `${t("settings.title")} — 6 nimmt!`;
  } else {
    heading = show("lobby");
    renderMe();
    loadTables();
    S.lobbyTimer = setInterval(loadTables, 10000);
    document.title = `${t("lobby.title")} — 6 nimmt!`;
  }
  if (heading && !$("row-dialog").open) heading.focus();
}

// ---------------------------------------------------------------- wiring

function wire() {
  $("me-lang").addEventListener("change", async (e) => {
    store.set("lang", e.target.value);
    await setLanguage(e.target.value);
    setConn($("conn").dataset.state);
    renderMe();
    renderTable();
    if (S.ws) reconnect();
    if (S.code && S.view) queue(async () => { const sp = await speech(S.seq, S.seq); if (sp) applySpeech(sp); });
  });
  $("tables-refresh").addEventListener("click", loadTables);
  $("join-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const code = $("join-code").value.trim();
    if (code) joinTable(code);
  });
  $("create-form").addEventListener("submit", (e) => { e.preventDefault(); createTable(e.target); });
  $("add-bot").addEventListener("click", () => send({ type: "add_bot", strength: $("bot-strength").value }));
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
  $("chat-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text) return;
    send({ type: "chat", text });
    $("chat-text").value = "";
  });
  $("hand").addEventListener("keydown", onHandKey);
  $("hand").addEventListener("click", (e) => {
    const li = e.target.closest("[role=option]");
    if (!li) return;
    moveCursor([...$("hand").children].indexOf(li));
    chooseCurrent();
  });
  $("rows").addEventListener("keydown", onRowsKey);
  $("rows").addEventListener("click", (e) => {
    const li = e.target.closest("[role=menuitem]");
    if (li) { S.rowCursor = Number(li.dataset.row) - 1; li.focus(); }
  });
  $("game").addEventListener("keydown", onGameKey);
  $("row-form").addEventListener("submit", (e) => { e.preventDefault(); submitRow(); });
  $("row-choices").addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); submitRow(); }
  });
  $("row-dialog").addEventListener("cancel", (e) => e.preventDefault());
  $("history-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const id = $("history-id").value;
    if (id) location.hash = `#/history/${id}`;
  });
  $("replay-first").addEventListener("click", () => stepTo(0));
  $("replay-prev").addEventListener("click", () => stepTo(R.step - 1));
  $("replay-next").addEventListener("click", () => stepTo(R.step + 1));
  $("replay-last").addEventListener("click", () => stepTo(Infinity));
  $("settings-form").addEventListener("submit", (e) => { e.preventDefault(); saveSettings(); });
  $("set-reset").addEventListener("click", () => {
    KEYS = { on: true, map: { ...DEFAULT_KEYS } };
    store.set("keys", null);
    renderSettings();
    say(t("settings.restored"), "polite", false);
  });
  window.addEventListener("hashchange", route);
}

async function main() {
  const lang = store.get("lang") || "en";
  $("me-lang").value = LANGUAGES.includes(lang) ? lang : "en";
  await setLanguage($("me-lang").value);
  translatePage();
  setConn("idle");
  wire();
  if (S.token) connect();
  if (S.token && S.code && !location.hash.startsWith("#/table/")) location.hash = `#/table/${S.code}`;
  await route();
  document.body.dataset.ready = "1";
}

main();

// @ts-check
// Accounts in the browser (docs/accounts.md): a guest keeps their name with a password
// (and sees their recovery codes once), anyone signs in or recovers a forgotten password,
// an account changes its password, makes new codes, lists and ends its sessions. Also the
// leaderboard and each player's public page (GET /api/leaderboard, /api/players/NAME).
import { t, tn, isolate, locale } from "./i18n.js";
import { $, S, choice, field, local } from "./state.js";
import { endSession, forgetTable, helloOnce, reconnect, send, whenWelcomed } from "./net.js";
import { answer, say, selfVoicing, urgent } from "./voice.js";

/** The form fields each error paragraph speaks for (their aria-describedby holds it). */
const FIELDS = {
  "claim-error": ["claim-name", "claim-pw", "claim-pw2"],
  "signin-error": ["signin-name", "signin-pw"],
  "recover-error": ["recover-name", "recover-code", "recover-pw", "recover-pw2"],
  "pw-error": ["pw-old", "pw-new", "pw-new2"],
  "newcodes-error": ["newcodes-pw"],
};

/** Move focus to `el` (a heading or a field), which a screen reader then reads; the
 * page's own voice (which does not follow focus) says it. */
function tell(/** @type {HTMLElement} */ el) {
  el.focus();
  if (selfVoicing()) answer(el.textContent);
}

/** Move focus to the heading `el`, then say `text` once the move has been said. */
function arrive(/** @type {HTMLElement} */ el, /** @type {string} */ text, level = "polite") {
  say(text, { level, before: () => { el.focus(); return true; } });
}

/** Show `text` as the error of a form (null clears it), under the form's fields: the
 * fields it is about (`bad`, else all) are marked invalid, and focus goes to the first of
 * them, which a screen reader says with the error (its aria-describedby). */
function formError(/** @type {keyof FIELDS} */ id, /** @type {string | null} */ text,
  /** @type {string[] | null} */ bad = null) {
  const el = $(id);
  el.hidden = !text;
  el.textContent = text || "";
  const invalid = text ? bad || FIELDS[id] : [];
  for (const f of FIELDS[id]) {
    if (invalid.includes(f)) field(f).setAttribute("aria-invalid", "true");
    else field(f).removeAttribute("aria-invalid");
  }
  if (!text) return;
  field(invalid[0]).focus();
  if (selfVoicing()) answer(text);
}

/** The sentence of a refusal, with the seconds to wait when the server says them. */
function refusal(/** @type {any} */ msg) {
  const text = msg.text || msg.message || "";
  if (msg.code === "sign_in_limited" && msg.retry_after) {
    return `${text} ${t("signin.wait", { count: Math.ceil(msg.retry_after) })}`;
  }
  return text;
}

function when(/** @type {number} */ seconds) {
  return new Date(seconds * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short" });
}

function number(/** @type {number} */ x) {
  return new Intl.NumberFormat(locale(), { minimumFractionDigits: 1, maximumFractionDigits: 1 }).format(x);
}

/** A rating as "μ ± σ", in the page's language. */
function rating(/** @type {{mu: number, sigma: number}} */ r) {
  return t("rating.value", { mu: number(r.mu), sigma: number(r.sigma) });
}

/** How sure a rating is, in words, from its uncertainty σ (a new player's is 8.3; a few
 * dozen games bring it under 3). */
function sureness(/** @type {{sigma: number}} */ r) {
  return t(r.sigma >= 6 ? "sure.low" : r.sigma >= 3 ? "sure.mid" : "sure.high");
}

// ---------------------------------------------------------------- the account page

/** Show what fits who this page is: a guest (keep your name, or sign in), an account
 * (sessions, password, codes), or nobody yet (sign in). What the server says later (the
 * welcome, the sessions) fills it in without moving focus. */
export function renderAccount() {
  renderParts();
  if (S.token && !S.welcomed) {
    whenWelcomed().then(() => { if (!$("view-account").hidden) renderParts(); });
  }
  if (S.account && S.token) loadSessions();
}

/** The lobby's link to this page, named for what it holds for this player. */
function renderLink() {
  const link = $("me-account");
  link.dataset.i18n = S.token && S.account ? "me.ownaccount" : "me.account";
  link.textContent = t(link.dataset.i18n);
}

function renderParts() {
  renderLink();
  const who = $("account-who");
  if (S.token && S.name) {
    who.replaceChildren(...tn(S.account ? "account.signed" : "account.guest", { name: isolate(S.name) }));
  } else {
    who.textContent = t("account.none");
  }
  const own = Boolean(S.token && S.account);
  // A guest who signs in to an account leaves the guest's name, rating and games here.
  const guest = Boolean(S.token && S.name && !S.account);
  $("signin-guest").hidden = !guest;
  $("signin-guest").replaceChildren(...(guest ? tn("signin.guest", { name: isolate(S.name) }) : []));
  // Anyone without a password may keep a name: a guest theirs, a newcomer one they choose
  // here (the page says hello with it first).
  const newcomer = !S.token;
  $("claim-form").hidden = own;
  $("claim-name-field").hidden = !newcomer;
  const help = $("claim-help");
  help.dataset.i18n = newcomer ? "claim.newname" : "claim.help";
  help.textContent = t(help.dataset.i18n);
  if (newcomer && !field("claim-name").value) field("claim-name").value = field("me-name").value.trim();
  $("signin-form").hidden = own;
  $("recover-form").hidden = own;
  $("account-own").hidden = !own;
  if (!own) $("out-all-confirm").hidden = true;
}

/** The recovery codes, shown this once: focus goes to their heading. */
function showCodes(/** @type {string[]} */ codes) {
  $("codes-list").replaceChildren(...codes.map((c) => {
    const li = document.createElement("li");
    li.textContent = c;
    return li;
  }));
  $("codes-box").hidden = false;
  tell($("codes-h"));
}

/** A newcomer's hello for the name they keep is on its way: a refusal of it (the name
 * taken) is the claim form's to show, not the lobby's. */
let naming = false;

/** Whether a refused hello is the claim form's (app.js). */
export function claimingName() {
  return naming;
}

async function claim() {
  const newcomer = !S.token;
  const name = field("claim-name").value.trim();
  const pw = field("claim-pw").value;
  if (newcomer && !name) { formError("claim-error", t("me.needname"), ["claim-name"]); return; }
  if (pw !== field("claim-pw2").value) { formError("claim-error", t("pw.mismatch"), ["claim-pw2"]); return; }
  if (!pw) { formError("claim-error", t("pw.empty"), ["claim-pw"]); return; }
  if (newcomer) {
    // A player first: a guest of that name (the server's welcome keeps its token), who
    // then adds the password, in one step for the player.
    S.name = name;
    naming = true;
    let refusal;
    try { refusal = await whenWelcomed(); } finally { naming = false; }
    if (refusal) {
      S.name = null;
      formError("claim-error", refusal.text || refusal.message, ["claim-name"]);
      return;
    }
  }
  const res = await send({ type: "set_password", password: pw }, true);
  if (res.type === "error") { formError("claim-error", refusal(res), ["claim-pw", "claim-pw2"]); return; }
  formError("claim-error", null);
  for (const f of FIELDS["claim-error"]) field(f).value = "";
  S.account = true;
  local.set("account", 1);
  renderParts();
  showCodes(res.codes);
  await loadSessions();
}

/** A new session from a sign-in or a recovery: its token replaces the page's, and the
 * page connects again as that player (the guest's table, if any, is left). */
function adopt(/** @type {any} */ welcome) {
  forgetTable();
  S.token = welcome.token;
  S.name = welcome.player;
  S.account = true;
  local.set("token", welcome.token);
  local.set("name", welcome.player);
  local.set("account", 1);
  $("me-note").hidden = true;
  $("account-note").hidden = true;
  reconnect();
  renderParts();
  loadSessions();
  arrive($("account-h"), $("account-who").textContent || "");
}

async function signIn() {
  const name = field("signin-name").value.trim();
  const password = field("signin-pw").value;
  if (!name) { formError("signin-error", t("me.needname"), ["signin-name"]); return; }
  if (!password) { formError("signin-error", t("pw.empty"), ["signin-pw"]); return; }
  const res = await helloOnce({ name, password });
  if (res.type !== "welcome") {
    field("signin-pw").value = "";
    formError("signin-error", refusal(res), res.code === "bad_name" ? ["signin-name"] : ["signin-pw"]);
    return;
  }
  formError("signin-error", null);
  field("signin-pw").value = "";
  adopt(res);
}

async function recover() {
  const name = field("recover-name").value.trim();
  const code = field("recover-code").value.trim();
  const password = field("recover-pw").value;
  if (!name) { formError("recover-error", t("me.needname"), ["recover-name"]); return; }
  if (!code) { formError("recover-error", t("recover.needcode"), ["recover-code"]); return; }
  if (password !== field("recover-pw2").value) {
    formError("recover-error", t("pw.mismatch"), ["recover-pw2"]);
    return;
  }
  if (!password) { formError("recover-error", t("pw.empty"), ["recover-pw"]); return; }
  const res = await helloOnce({ name, recovery_code: code, password });
  if (res.type !== "welcome") {
    formError("recover-error", refusal(res),
      res.code === "weak_password" ? ["recover-pw", "recover-pw2"] : ["recover-code"]);
    return;
  }
  formError("recover-error", null);
  for (const f of FIELDS["recover-error"]) field(f).value = "";
  adopt(res);
}

async function changePassword() {
  const old = field("pw-old").value;
  const pw = field("pw-new").value;
  if (!old) { formError("pw-error", t("pw.empty"), ["pw-old"]); return; }
  if (pw !== field("pw-new2").value) { formError("pw-error", t("pw.mismatch"), ["pw-new2"]); return; }
  if (!pw) { formError("pw-error", t("pw.empty"), ["pw-new"]); return; }
  const res = await send({ type: "set_password", password: pw, old }, true);
  if (res.type === "error") {
    formError("pw-error", refusal(res), res.code === "weak_password" ? ["pw-new", "pw-new2"] : ["pw-old"]);
    return;
  }
  formError("pw-error", null);
  for (const f of FIELDS["pw-error"]) field(f).value = "";
  answer(t("pw.changed"));
  await loadSessions();
}

async function newCodes() {
  const password = field("newcodes-pw").value;
  if (!password) { formError("newcodes-error", t("pw.empty")); return; }
  const res = await send({ type: "recovery_codes", password }, true);
  if (res.type === "error") { formError("newcodes-error", refusal(res)); return; }
  formError("newcodes-error", null);
  field("newcodes-pw").value = "";
  showCodes(res.codes);
}

// ---------------------------------------------------------------- sessions

/** @typedef {import("./wire").SessionInfo} Session */

async function loadSessions() {
  const res = await send({ type: "sessions" }, true);
  if (res.type !== "sessions") return;
  const list = $("sessions-list");
  list.replaceChildren(...res.sessions.map((/** @type {Session} */ s) => {
    const li = document.createElement("li");
    li.dataset.session = String(s.id);
    const text = document.createElement("span");
    text.id = `session-${s.id}`;
    text.textContent = t(s.current ? "sessions.this" : "sessions.other", {
      created: when(s.created), address: s.address, seen: when(s.last_seen), last: s.last_address });
    li.append(text);
    if (!s.current) {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = t("sessions.end");
      b.setAttribute("aria-describedby", text.id);
      b.addEventListener("click", () => endOne(s.id));
      li.append(" ", b);
    }
    return li;
  }));
}

async function endOne(/** @type {number} */ id) {
  const res = await send({ type: "end_session", session: id }, true);
  await loadSessions();
  if (res.type === "error") urgent(refusal(res));
  else arrive($("sessions-h"), t("sessions.ended"));
}

async function signOut(/** @type {string} */ scope) {
  $("out-all-confirm").hidden = true;
  const res = await send({ type: "sign_out", scope }, true);
  if (res.type === "error") { urgent(refusal(res)); return; }
  if (scope === "others") {
    await loadSessions();
    answer(t("out.othersdone"));
  }
  // This session's end comes as `signed_out` (sessionEnded).
}

/** The session is over (`signed_out`, `banned`, `bad_token`): said, its token forgotten,
 * and the page asks for a name (a new guest) or a sign-in. */
export function sessionEnded(/** @type {any} */ msg) {
  const old = S.name;
  endSession(msg);
  S.name = null;
  local.set("name", null);
  const text = msg.text || msg.message;
  for (const id of ["me-note", "account-note"]) {
    $(id).textContent = text;
    $(id).hidden = false;
  }
  if (old) {
    field("signin-name").value = old;
    // A guest whose token the server does not know may take the name again.
    if (msg.code === "bad_token") field("me-name").value = old;
  }
  $("codes-box").hidden = true;
  renderLink();
  if (!$("view-account").hidden) {
    renderParts();
    arrive($("account-h"), text, "assertive");
    return;
  }
  // The lobby's name field, which the sentence describes, takes focus (app.js route).
  if ($("view-lobby").hidden) location.hash = "#/";
  else field("me-name").focus();
  if (selfVoicing()) answer(text);
}

/** A welcome: the notice of an ended session goes, and the account page shows what fits
 * the player now. */
export function sessionBack() {
  $("me-note").hidden = true;
  $("account-note").hidden = true;
  renderLink();
  if (!$("view-account").hidden) renderParts();
}

// ---------------------------------------------------------------- leaderboard

const PRESETS = ["classic", "category5"];

export async function showBoard(/** @type {string} */ preset, /** @type {number} */ offset) {
  if (!PRESETS.includes(preset)) preset = "classic";
  choice("board-preset").value = preset;
  const body = $("board-body");
  const status = $("board-status");
  body.replaceChildren();
  $("board-table").hidden = true;
  $("board-caption").textContent = t(`preset.${preset}`);
  $("board-prev").hidden = true;
  $("board-next").hidden = true;
  status.textContent = t("board.loading");
  let data;
  try {
    const res = await fetch(`/api/leaderboard?preset=${preset}&offset=${Math.max(0, offset)}`);
    data = await res.json();
    if (!res.ok) throw new Error(data.text || data.error);
  } catch (/** @type {any} */ e) {
    status.textContent = t("board.failed");
    return;
  }
  const rows = data.players || [];
  status.textContent = rows.length ? "" : t("board.empty");
  $("board-table").hidden = !rows.length;
  $("board-caption").textContent = rows.length ? t("board.caption", { rules: t(`preset.${preset}`),
    first: data.offset + 1, last: data.offset + rows.length, count: data.total }) : t(`preset.${preset}`);
  body.replaceChildren(...rows.map((/** @type {any} */ p) => {
    const tr = document.createElement("tr");
    const rank = document.createElement("td");
    rank.textContent = String(p.rank);
    const name = document.createElement("th");
    name.scope = "row";
    name.append(playerLink(p.name));
    // The cautious estimate the list is ranked by, and how sure it is in words (its skill
    // and uncertainty, μ ± σ, for a pointer's tooltip and on the player's page).
    const r = document.createElement("td");
    r.textContent = number(p.rating.ordinal);
    r.title = `${t("player.skill")}: ${rating(p.rating)}`;
    const sure = document.createElement("td");
    sure.className = "sure";
    sure.textContent = sureness(p.rating);
    const games = document.createElement("td");
    games.textContent = String(p.games);
    tr.append(rank, name, r, sure, games);
    return tr;
  }));
  const prev = /** @type {HTMLAnchorElement} */ ($("board-prev"));
  const next = /** @type {HTMLAnchorElement} */ ($("board-next"));
  prev.hidden = data.offset <= 0;
  prev.href = `#/leaderboard/${preset}/${Math.max(0, data.offset - data.limit)}`;
  next.hidden = data.offset + rows.length >= data.total;
  next.href = `#/leaderboard/${preset}/${data.offset + data.limit}`;
}

function playerLink(/** @type {string} */ name) {
  const a = document.createElement("a");
  a.href = `#/players/${encodeURIComponent(name)}`;
  a.append(isolate(name));
  return a;
}

// ---------------------------------------------------------------- a player's page

export async function showPlayer(/** @type {string} */ raw) {
  let name;
  try { name = decodeURIComponent(raw); } catch (_) { name = raw; }
  $("player-h").replaceChildren(isolate(name));
  const facts = $("player-facts");
  const games = $("player-games");
  facts.replaceChildren();
  games.replaceChildren();
  $("player-status").textContent = t("board.loading");
  let res;
  try {
    res = await fetch(`/api/players/${encodeURIComponent(name)}`);
  } catch (_) {
    $("player-status").textContent = t("board.failed");
    return;
  }
  if (!res.ok) {
    $("player-status").textContent = t(res.status === 404 ? "player.none" : "board.failed");
    return;
  }
  const data = await res.json();
  $("player-h").replaceChildren(isolate(data.name));
  document.title = `${data.name} — ${t("brand")}`;
  $("player-status").textContent = "";
  /** @type {[string, string][]} */
  const rows = [
    [t("board.rating"), number(data.rating.ordinal)],
    [t("board.sure"), sureness(data.rating)],
    [t("player.skill"), rating(data.rating)],
    [t("board.games"), String(data.rated_games)],
  ];
  facts.replaceChildren(...rows.flatMap(([k, v]) => {
    const dt = document.createElement("dt");
    dt.textContent = k;
    const dd = document.createElement("dd");
    dd.textContent = v;
    return [dt, dd];
  }));
  games.replaceChildren(...data.games.map((/** @type {any} */ g) => {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `#/history/${g.id}`;
    a.textContent = t("history.game", { id: g.id, count: g.total,
      result: t(g.winner ? "history.won" : "history.lost") });
    const notes = [g.ended ? when(g.ended) : "", g.rated ? t("player.rated") : "",
      g.finished ? "" : t("player.unfinished")].filter(Boolean);
    li.append(a);
    if (notes.length) li.append(` (${notes.join(", ")})`);
    return li;
  }));
  if (!data.games.length) {
    const li = document.createElement("li");
    li.textContent = t("history.none");
    games.append(li);
  }
}

// ---------------------------------------------------------------- wiring

/** Forms whose request is on its way: a second Enter does not send it again. */
const sending = new Set();

function onSubmit(/** @type {string} */ id, /** @type {() => Promise<unknown> | void} */ f) {
  $(id).addEventListener("submit", async (/** @type {Event} */ e) => {
    e.preventDefault();
    if (sending.has(id)) return;
    sending.add(id);
    try { await f(); } finally { sending.delete(id); }
  });
}

export function wireAccount() {
  onSubmit("claim-form", claim);
  onSubmit("signin-form", signIn);
  onSubmit("recover-form", recover);
  onSubmit("pw-form", changePassword);
  onSubmit("newcodes-form", newCodes);
  onSubmit("board-form", () => { location.hash = `#/leaderboard/${choice("board-preset").value}`; });
  $("codes-copy").addEventListener("click", async () => {
    const text = [...$("codes-list").children].map((li) => li.textContent).join("\n");
    try {
      await navigator.clipboard.writeText(text);
      answer(t("codes.copied"));
    } catch (_) {
      // No clipboard here (an insecure page, a refusal): the codes are selected instead.
      getSelection()?.selectAllChildren($("codes-list"));
      answer(t("codes.selected"));
    }
  });
  $("codes-done").addEventListener("click", () => {
    $("codes-box").hidden = true;
    $("codes-list").replaceChildren();
    tell($("account-h"));
  });
  $("sessions-refresh").addEventListener("click", async () => {
    await loadSessions();
    answer(t("sessions.refreshed", { count: $("sessions-list").childElementCount }));
  });
  $("out-this").addEventListener("click", () => signOut("this"));
  $("out-others").addEventListener("click", () => signOut("others"));
  $("out-all").addEventListener("click", () => {
    $("out-all-confirm").hidden = false;
    $("out-all-yes").focus();
  });
  $("out-all-yes").addEventListener("click", () => signOut("all"));
  $("out-all-no").addEventListener("click", () => {
    $("out-all-confirm").hidden = true;
    $("out-all").focus();
  });
}

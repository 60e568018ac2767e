// @ts-check
// The lobby: the quick game against bots first (a name and one key from the lobby to the
// first decision), a new table with every rule behind "More options", the open tables as
// cards with their seats, joining by code. Who is online and the lobby chat beside them
// are online.js's and chat.js's.
import { t, tn, isolate, language, tableName } from "./i18n.js";
import { $, S, field, items, local } from "./state.js";
import { send } from "./net.js";
import { urgent } from "./voice.js";

/** Show (and say) why the server refused the name, next to the name field; null clears
 * it. The player is back in the field to choose another. */
export function nameRefused(/** @type {string | null} */ text) {
  const note = $("me-error");
  note.hidden = !text;
  note.textContent = text || "";
  const input = field("me-name");
  if (!text) { input.removeAttribute("aria-invalid"); return; }
  S.name = null;
  input.setAttribute("aria-invalid", "true");
  if ($("view-lobby").hidden) location.hash = "#/";
  $("me-name-field").hidden = false;
  input.focus();
  urgent(text);
}

export function renderMe() {
  const known = Boolean(S.token && S.name);
  $("me-known").hidden = !known;
  $("me-known").replaceChildren(...(known ? tn("me.known", { name: isolate(S.name) }) : []));
  $("me-name-field").hidden = known;
}

export async function loadTables() {
  try {
    const res = await fetch(`/api/tables?lang=${language()}`);
    renderTables((await res.json()).tables);
  } catch (_) {
    renderTables([]);
  }
}

/** @typedef {import("./wire").LobbyTable} LobbyTable
 * @typedef {import("./wire").LobbySeat} LobbySeat */

/** @param {LobbyTable[]} tables
 * The list is updated in place, one item per table code: a table whose text did not
 * change keeps its element (and its button keeps focus); only what changed is redrawn,
 * so the list can be refreshed while a player reads it. */
export function renderTables(tables) {
  const list = $("tables-list");
  const focused = list.contains(document.activeElement) ? document.activeElement : null;
  /** @type {Map<string, HTMLElement>} */
  const have = new Map(items(list).map((li) => [li.dataset.code || "", li]));
  /** @type {HTMLElement[]} */
  const want = tables.length ? tables.map((tb) => tableItem(tb, have.get(tb.code))) : [emptyItem(have.get(""))];
  const keep = new Set(want);
  for (const li of items(list)) if (!keep.has(li)) li.remove();
  want.forEach((li, i) => { if (list.children[i] !== li) list.insertBefore(li, list.children[i] || null); });
  // The focused table went (it filled up and closed): focus stays in the list.
  if (focused && !focused.isConnected) /** @type {HTMLElement} */ (list.querySelector("button") || $("tables-refresh")).focus();
}

function emptyItem(/** @type {HTMLElement | undefined} */ li) {
  const el = li || document.createElement("li");
  el.dataset.code = "";
  const text = t("lobby.none");
  if (el.textContent !== text) el.textContent = text;
  return el;
}

/** The bots the page names by their strength. */
const STRENGTHS = ["easy", "medium", "hard"];

/** A seat of a table's card: who sits there, a bot by its strength, or a free seat. */
function seatItem(/** @type {LobbySeat} */ seat) {
  const li = document.createElement("li");
  li.className = `seat-${seat.kind}`;
  if (seat.kind === "human") li.append(isolate(seat.name));
  else if (seat.kind === "bot") {
    li.textContent = seat.bot && STRENGTHS.includes(seat.bot)
      ? t("lobby.bot", { strength: t(`bot.${seat.bot}`) }) : t("lobby.anybot");
  } else li.textContent = t("lobby.free");
  return li;
}

/** The card of table `tb`: `li` again if it says the same, else `li` redrawn (or a new
 * one): what it is (its name, rules, seats taken, timer), who sits where, and Join or
 * Watch. */
function tableItem(/** @type {LobbyTable} */ tb,
/** @type {HTMLElement | undefined} */ li) {
  const full = tb.taken >= tb.seats || tb.status !== "open";
  const key = JSON.stringify([tb.name, tb.host, tb.rules_label || tb.rules_name, tb.taken, tb.seats,
    tb.status, tb.players || [], tb.rated, tb.turn_timer, language()]);
  if (li && li.dataset.key === key) return li;
  const el = li || document.createElement("li");
  el.className = "table-card";
  el.dataset.code = tb.code;
  el.dataset.key = key;
  // The text and the button stay the same elements (focus on the button stays); only
  // their words change.
  let text = /** @type {HTMLElement | null} */ (el.querySelector("span.table"));
  let seats = /** @type {HTMLElement | null} */ (el.querySelector("ul.card-seats"));
  let b = /** @type {HTMLButtonElement | null} */ (el.querySelector("button"));
  if (!text || !seats || !b) {
    text = document.createElement("span");
    text.className = "table";
    seats = document.createElement("ul");
    seats.className = "card-seats";
    b = document.createElement("button");
    b.type = "button";
    b.addEventListener("click", () => joinTable(el.dataset.code || ""));
    el.replaceChildren(text, seats, b);
  }
  const title = document.createElement("strong");
  title.append(...tableName(tb));
  const notes = [tb.turn_timer ? t("lobby.timer", { seconds: tb.turn_timer }) : "",
    tb.rated ? t("lobby.rated") : ""].filter(Boolean);
  text.replaceChildren(...tn("lobby.table", { name: title, rules: tb.rules_label || tb.rules_name,
    taken: tb.taken, seats: tb.seats, status: t(`status.${tb.status}`) }),
  ...(notes.length ? [`, ${notes.join(", ")}`] : []));
  seats.setAttribute("aria-label", t("seats.title"));
  seats.replaceChildren(...(tb.players || []).map(seatItem));
  seats.hidden = !(tb.players || []).length;
  b.className = full ? "" : "join";
  b.replaceChildren(...tn(full ? "lobby.watchbtn" : "lobby.joinbtn", { name: tableName(tb) }));
  return el;
}

/** The name to say hello with; `guest`: make one up when none was typed (quick game). */
function needName(guest = false) {
  if (S.token) return true;
  let name = field("me-name").value.trim();
  if (!name && guest) name = `${t("quick.guest")} ${Math.floor(10000 + Math.random() * 90000)}`;
  if (!name) {
    urgent(t("me.needname"));
    $("me-name").focus();
    return false;
  }
  S.name = name;
  return true;
}

export async function joinTable(/** @type {string} */ code) {
  if (!needName()) return;
  const answer = await send({ type: "join", table: code.trim().toUpperCase() });
  if (answer.type === "table_state" && answer.you === null && answer.table.status === "open") {
    await send({ type: "sit" });
  }
}

export async function createTable(/** @type {HTMLFormElement} */ form) {
  if (!needName()) return;
  const data = new FormData(form);
  /** @type {Record<string, unknown>} */
  const rules = {
    preset: data.get("preset"),
    variants: data.getAll("variant"),
    players: Number(data.get("players")),
    end: data.get("end"),
  };
  if (data.get("limit")) rules.limit = Number(data.get("limit"));
  if (rules.end === "rounds") rules.rounds = Number(data.get("rounds"));
  /** @type {Record<string, unknown>} */
  const msg = { type: "create_table", rules, rated: field("c-rated").checked,
    private: field("c-private").checked, hints: field("c-hints").checked };
  if (data.get("timer")) msg.turn_timer = Number(data.get("timer"));
  if (data.get("tname")) msg.name = String(data.get("tname"));
  S.announcedKey = null;
  await send(msg);
}

/** The lobby's own controls: the quick game, the list's refresh, join by code, a new
 * table (its disclosure kept open or closed, as the player left it). */
export function wireLobby() {
  $("quick-form").addEventListener("submit", (/** @type {Event} */ e) => { e.preventDefault(); quickGame(); });
  $("tables-refresh").addEventListener("click", loadTables);
  $("join-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    const code = field("join-code").value.trim();
    if (code) joinTable(code);
  });
  $("create-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    createTable(/** @type {HTMLFormElement} */ (e.target));
  });
  const more = /** @type {HTMLDetailsElement} */ ($("more-options"));
  more.open = local.get("moreoptions") === "1";
  more.addEventListener("toggle", () => local.set("moreoptions", more.open ? 1 : null));
}

/** A private table of four with three medium bots, started at once. */
export async function quickGame() {
  if (!needName(true)) return;
  S.announcedKey = null;
  const made = await send({ type: "create_table", private: true, rated: false,
    name: t("quick.table"),
    rules: { preset: "classic", variants: [], players: 4, end: "classic" } });
  if (made.type !== "table_state") return;
  for (let i = 0; i < 3; i++) {
    const added = await send({ type: "add_bot", strength: "medium" });
    if (added.type === "error") return;
  }
  await send({ type: "start" });
}

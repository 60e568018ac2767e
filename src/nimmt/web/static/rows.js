// @ts-check
// The rows on the table (a list box that V moves to) and the row choice: a click, a tap
// or Enter on a row of the table, or the row dialog (a radio group, for keyboard and
// screen-reader players). A row choice is taken in one action however it comes: any
// click (whatever its `detail`), Enter or Space on the focused row or radio button. The
// player can tell what it does: the rows say "Click or tap the row you take" and the
// dialog asks for the row to take.
import { t } from "./i18n.js";
import { $, S, dialog, items, attr, select } from "./state.js";
import { bullheadsOf, cardEl, cardLabel } from "./cards.js";
import { actionFor } from "./keys.js";
import { answer, clearLive } from "./voice.js";
import { send } from "./net.js";
import { currentCard } from "./hand.js";

/** The row decision answered already (a second click waits for the server's word). */
let tookKey = "";

/** Whether the player is asked to take a row now. */
export function choosingRow() {
  return Boolean(S.prompt && S.prompt.kind === "row" && S.prompt.key !== tookKey);
}

export function renderRows(/** @type {import("./state.js").View} */ v) {
  const rows = $("rows");
  // Between two rounds the game holds no rows: the last round's stay in sight, as its
  // last events left them (see noteEvents).
  const shown = v.phase === "deal" ? S.shownRows : v.rows;
  if (v.phase !== "deal") S.shownRows = v.rows.map((r) => [...r]);
  const limit = 6;
  const choosing = choosingRow();
  const options = new Set(choosing && S.prompt ? S.prompt.options : []);
  rows.classList.toggle("choosing", choosing);
  $("rows-help").hidden = !choosing;
  $("rows-help").textContent = choosing ? t("rows.choose") : "";
  shown.forEach((row, i) => {
    let li = items(rows)[i];
    if (!li) {
      li = document.createElement("li");
      li.setAttribute("role", "option");
      li.dataset.row = String(i + 1);
      const label = document.createElement("span");
      label.className = "row-no";
      label.setAttribute("aria-hidden", "true");
      label.textContent = `${i + 1}`;
      const cards = document.createElement("span");
      cards.className = "row-cards";
      cards.setAttribute("aria-hidden", "true");
      li.append(label, cards);
      rows.append(li);
    }
    li.classList.toggle("choosable", options.has(i + 1));
    li.classList.toggle("taken", S.reveal.taken === i + 1);
    attr(li, "aria-label", (S.sheet.row && S.sheet.row[i]) || t("row.label", { row: i + 1 }));
    const cards = /** @type {HTMLElement} */ (li.querySelector(".row-cards"));
    /** @type {Map<string, HTMLElement>} */
    const had = new Map([...cards.querySelectorAll(".card")].map(
      (c) => [/** @type {HTMLElement} */ (c).dataset.card || "", /** @type {HTMLElement} */ (c)]));
    if ([...had.keys()].join(",") !== row.join(",")) {
      // A card already in the row keeps its element (a new one is seen coming from its
      // player's seat: reveal.js). The sixth place is marked: a card that lands there
      // takes the row.
      const slots = row.map((c) => had.get(String(c)) || cardEl(c));
      for (let k = row.length; k < limit; k++) {
        const slot = document.createElement("span");
        slot.className = k === limit - 1 ? "slot sixth" : "slot";
        slots.push(slot);
      }
      cards.replaceChildren(...slots);
    }
  });
  while (rows.children.length > shown.length) rows.lastElementChild?.remove();
  S.rowCursor = Math.max(0, Math.min(S.rowCursor, shown.length - 1));
  select(rows, S.rowCursor, false);
}

/** Key V: focus to the rows' current row, whose name is its sentence. Only focus moves:
 * the screen reader says the row, and nothing else is said with it. */
export function focusRows() {
  const rows = $("rows");
  const item = items(rows)[S.rowCursor] || items(rows)[0];
  if (item) item.focus();
}

/** The row of an event's target (the rows' option it is in). */
function rowOf(/** @type {Event} */ e) {
  return /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest("[role=option]"));
}

function onRowsKey(/** @type {KeyboardEvent} */ e) {
  const rows = $("rows");
  const n = items(rows).length;
  let i = S.rowCursor;
  if (e.key === "ArrowDown" || e.key === "ArrowRight") i = (i + 1) % n;
  else if (e.key === "ArrowUp" || e.key === "ArrowLeft") i = (i - 1 + n) % n;
  else if (e.key === "Home") i = 0;
  else if (e.key === "End") i = n - 1;
  else if (e.key === "Escape" || actionFor(e) === "rows") {
    // Back to the hand: Escape, or V again (a screen reader may keep Escape for itself).
    e.preventDefault();
    e.stopPropagation();
    currentCard()?.focus();
    return;
  } else if (e.key === "Enter" || e.key === " ") {
    e.preventDefault();
    // The focused row: while a row is asked of the player, taken; otherwise said.
    const li = rowOf(e);
    const row = li ? Number(li.dataset.row) : S.rowCursor + 1;
    if (choosingRow()) takeRow(row);
    else answer((S.sheet.row || [])[row - 1]);
    return;
  } else return;
  e.preventDefault();
  e.stopPropagation();
  S.rowCursor = i;
  select(rows, i);
}

// Any click on a row (a mouse, a tap, any reader's): taken the moment a row is asked (the
// dialog may still be waiting for the voice); otherwise it is focused.
function onRowsClick(/** @type {MouseEvent} */ e) {
  const li = rowOf(e);
  if (!li) return;
  if (choosingRow()) takeRow(Number(li.dataset.row));
  else if (document.activeElement !== li) li.focus();
}

// The rows' cursor follows focus, however it moved.
function onRowsFocus(/** @type {FocusEvent} */ e) {
  const li = rowOf(e);
  if (!li) return;
  S.rowCursor = Number(li.dataset.row) - 1;
  select($("rows"), S.rowCursor, false);
}

// ---------------------------------------------------------------- the row dialog

/** Open the row choice (moves focus into it). */
export function openRowDialog(/** @type {import("./state.js").Prompt} */ p) {
  // The row may have been taken on the table meanwhile (a click does not wait for the voice).
  if (!choosingRow() || !S.prompt || S.prompt.key !== p.key) return false;
  const dlg = dialog("row-dialog");
  const v = /** @type {import("./state.js").View} */ (S.view);
  // Why a row is asked (a card too low, one that fits at neither end, a joker) is the
  // server's decision sentence, said as the dialog opens; the heading only names the card.
  $("row-dialog-h").textContent = t("rowdlg.choose", { card: cardLabel(/** @type {number} */ (p.card)) });
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
    text.textContent = (S.sheet.row && S.sheet.row[r - 1]) || t("row.label", { row: r });
    // The row itself, as on the table: the choice never hides the rows it is about.
    const cards = document.createElement("span");
    cards.className = "row-cards";
    cards.setAttribute("aria-hidden", "true");
    cards.append(...v.rows[r - 1].map((c) => cardEl(c)));
    label.append(input, text, cards);
    return label;
  }));
  if (!dlg.open) {
    S.returnFocus = /** @type {HTMLElement | null} */ (document.activeElement);
    clearLive();
    dlg.showModal();
  }
  /** @type {HTMLInputElement} */ (box.querySelector("input:checked")).focus();
  return true;
}

// The default suggestion: fewest bullheads, then fewest cards, then the lowest number.
function defaultRow(/** @type {number[][]} */ rows, /** @type {number[]} */ options) {
  const cost = (/** @type {number} */ r) => [
    rows[r - 1].reduce((a, c) => a + bullheadsOf(c), 0), rows[r - 1].length, r];
  return [...options].sort((a, b) => {
    const x = cost(a); const y = cost(b);
    return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
  })[0];
}

export function closeRowDialog() {
  const dlg = dialog("row-dialog");
  if (!dlg.open) return;
  dlg.close();
  clearLive();
  const back = S.returnFocus;
  S.returnFocus = null;
  // Back to the hand's current card: the element focused before may have left the hand.
  const hand = $("hand");
  if (back && back.isConnected && !back.closest("dialog") && !hand.contains(back)) back.focus();
  else currentCard()?.focus();
}

/** The row of the dialog's radio button `el` (the focused one), else of the checked one. */
function dialogRow(/** @type {Element | null} */ el) {
  const input = el instanceof HTMLInputElement && el.name === "row" ? el
    : /** @type {HTMLInputElement | null} */ ($("row-choices").querySelector("input:checked"));
  return input ? Number(input.value) : null;
}

/** Take row `row` for the card asked about (from the table or the dialog). */
function takeRow(/** @type {number | null} */ row) {
  if (row === null || !choosingRow() || !S.prompt) return;
  tookKey = S.prompt.key;
  send({ type: "take_row", row });
  closeRowDialog();
  if (S.view) renderRows(S.view);
}

/** An arrow key is being handled in the row dialog (see wireRows). */
let arrowing = false;

export function wireRows() {
  $("rows").addEventListener("keydown", onRowsKey);
  $("rows").addEventListener("click", onRowsClick);
  $("rows").addEventListener("focusin", onRowsFocus);
  $("row-form").addEventListener("submit", (/** @type {Event} */ e) => {
    e.preventDefault();
    takeRow(dialogRow(document.activeElement));
  });
  $("row-choices").addEventListener("keydown", (/** @type {KeyboardEvent} */ e) => {
    if (e.key === "Enter") { e.preventDefault(); takeRow(dialogRow(/** @type {Element} */ (e.target))); }
    // An arrow checks the next radio button with a click of its own: that one only
    // moves, until the task ends.
    else if (e.key.startsWith("Arrow") || e.key === "Home" || e.key === "End") {
      arrowing = true;
      window.setTimeout(() => { arrowing = false; }, 0);
    }
  });
  // Any click on a radio button takes its row (a mouse's, a tap's, Space's, a reader's
  // in browse mode, whatever its detail): one action, as Enter.
  $("row-choices").addEventListener("click", (/** @type {MouseEvent} */ e) => {
    const el = /** @type {Element} */ (e.target);
    if (!arrowing && el.matches("input[type=radio]")) takeRow(dialogRow(el));
  });
  $("row-dialog").addEventListener("cancel", (/** @type {Event} */ e) => e.preventDefault());
}
